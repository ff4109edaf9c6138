"""``bench --launch vllm --crash-trials 3`` on a recipe that crashes above a level (issue 14, "Crashes under load").

The recipe runs the truth server in place of vLLM (``vllm_command = [python, -m, specscope.truth.server, --script
FILE]``: it takes vLLM's ``serve MODEL --host H --port P`` command line), with ``crash_above_running = 2``: the
process exits (code 3) when a third request arrives while two are being served. Each request waits 1 s for its
first token, so the N streams of a cell are all in flight together: levels 1 and 2 are stable, 4 and 8 crash.
Real processes: the bench CLI launches, kills and restarts real servers on 127.0.0.1; no mocks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import specscope
from hangguard import HANG_S
from specscope.bench.plan import plan_cells
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript

pytestmark = pytest.mark.integration

LEVELS, SEED = (1, 2, 4, 8), 3
PLAN = ResponsePlan(ttft_ms=1000.0, output_tokens=None, tokens_per_chunk=1, inter_chunk_ms=20.0, finish_reason="length")


def crashy_recipe(tmp_path: Path) -> Path:
    """A recipes file whose recipe ``crashy`` runs the truth server (crash above 2 in flight) in place of vLLM."""
    script = tmp_path / "crashy.json"
    script.write_text(TruthScript(default=PLAN, crash_above_running=2, log_stats_kv_percent=12.0).model_dump_json())
    src = Path(specscope.__file__).resolve().parents[1]  # the child imports this specscope, not an installed one
    command = json.dumps([sys.executable, "-m", "specscope.truth.server", "--script", str(script)])
    recipes = tmp_path / "recipes.toml"
    recipes.write_text(
        f'[recipes.crashy]\nmodel = "truth-model"\nvllm_command = {command}\nenv = {{ PYTHONPATH = "{src}" }}\n'
    )
    return recipes


def test_crash_confirmed_in_3_of_3_trials_and_the_levels_not_run(tmp_path):
    opts = BenchOptions(configs=("crashy",), workloads=("prose",), levels=LEVELS, repeats=1, max_tokens=4, seed=SEED)
    # the shuffled order of this seed is 1, 4, 8, 2; with crash trials the levels run in ascending order (issue
    # 35), so 1 and 2 are measured, 4 crashes and 8 (above it) is not run
    assert [k.concurrency for k in plan_cells(opts, "blocks")] == [1, 4, 8, 2]
    with_trials = opts.model_copy(update={"crash_trials": 3})
    assert [k.concurrency for k in plan_cells(with_trials, "blocks")] == [1, 2, 4, 8]
    assert [k.concurrency for k in plan_cells(with_trials, "interleaved")] == [1, 2, 4, 8]
    cmd = [sys.executable, "-m", "specscope", "bench", "--launch", "vllm", "--recipes", str(crashy_recipe(tmp_path))]
    cmd += ["--configs", "crashy", "--workloads", "prose", "--max-concurrency", "1,2,4,8", "--repeats", "1"]
    cmd += ["--max-tokens", "4", "--seed", str(SEED), "--crash-trials", "3", "--no-preflight", "--out", str(tmp_path)]
    res = subprocess.run([*cmd, "-f", "json"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    run_dir = Path(doc["raw"]["run"]) if "raw" in doc else next(tmp_path.glob("run-*"))

    with open_run(run_dir) as run:
        cells = {c.concurrency: c for c in summarize_run(run)}
        manifest = run.manifest
        crash_streams = run.streams(CellKey("crashy", "prose", 4, 0))
    # the crash cell is stored as such; 8 was never run; 1 and 2 ran before it, on the first server
    assert sorted(cells) == [1, 2, 4], [(c.concurrency, c.status, c.reasons) for c in cells.values()]
    assert cells[4].status == "server_crash" and cells[4].reasons[0] == "SERVER_CRASH"
    assert cells[1].output_tokens == 4 and cells[2].output_tokens == 8  # usage of each stream, 4 tokens each
    assert cells[1].streams_ok == 1 and cells[2].streams_ok == 2
    assert manifest["crashes"] == {"crashy": "crashy/prose/c4/r0"}
    (record,) = manifest["crash_trials"]["crashy"]
    assert (record["cell"], record["level"], record["crashed_in"], record["of"]) == ("crashy/prose/c4/r0", 4, 3, 3), (
        record
    )
    assert record["levels_not_run"] == [{"level": 8, "cells": 1, "why": "above the crash level N=4"}]
    assert record["note"] == (
        "every level below the crash level was measured before it (levels run in ascending order)"
    )
    for i, trial in enumerate(record["trials"], start=1):
        # the third arrival killed the server: none of the 4 requests got an answer, every one was sent
        assert (trial["trial"], trial["crashed"], trial["planned"], trial["ok"]) == (i, True, 4, 0)
        assert (trial["failed"], trial["not_sent"]) == (4, 0), trial
        assert trial["log"] == f"logs/crashy.crash-trial-{i}.log" and (run_dir / trial["log"]).is_file()
        stats = trial["last_engine_stats"]  # the last gauge reading before the crash: never above the stable 2
        assert stats["waiting"] == 0 and 0 <= stats["running"] <= 2
        # the last stats line of the log: written at the second arrival, the third killed the server (12 % KV:
        # the public report's figure, not memory pressure)
        log = stats["log"]
        assert (log["running_reqs"], log["waiting_reqs"], log["kv_cache_usage_percent"]) == (2, 0, 12.0)
    assert len(crash_streams) == 4 and all(s.status == "failed" for s in crash_streams)
    assert not (run_dir / "logs" / "crashy.after-crash.log").exists()  # nothing was left below the crash level

    # the report: text and JSON say where it crashed, how often, the highest stable level and the levels not run
    tables = {t["key"]: t for s in doc["sections"] for t in s["tables"]}
    note = tables["crash_trials"]["note"]
    assert note.startswith(  # stable: the server answered every cell at 2 (ok, or degraded by a busy client)
        "crashy/prose: crashed at N=4 in 3 of 3 trials; highest stable N=2 (1 cell, every one answered); "
        "levels not run: 8 (1 cell: above the crash level N=4);"
    )
    assert [row[:4] for row in tables["crash_trials"]["rows"]] == [
        ["crashy", "4", str(i), "server died"] for i in (1, 2, 3)
    ]
    assert all(row[4] == "0 / 4 / 0 of 4" for row in tables["crash_trials"]["rows"])
    assert all(row[5].endswith("; log: running 2, KV cache 12 %") for row in tables["crash_trials"]["rows"])
    text = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run_dir)], capture_output=True, text=True, timeout=HANG_S
    )
    assert text.returncode == 0, text.stderr
    assert "crashed at N=4 in 3 of 3 trials" in " ".join(text.stdout.split())


def test_an_external_server_is_not_restarted_and_the_record_says_so(tmp_path):
    from specscope.bench import run_bench
    from specscope.truth import TruthServer

    opts = BenchOptions(configs=("ext",), workloads=("prose",), levels=LEVELS, repeats=1, max_tokens=4, seed=SEED)
    opts = opts.model_copy(update={"crash_trials": 3})
    with TruthServer(TruthScript(default=PLAN, crash_above_running=2)) as ts:
        run_dir = run_bench(opts, servers={"ext": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        levels = sorted(c.concurrency for c in summarize_run(run))
        (record,) = run.manifest["crash_trials"]["ext"]
    # the interleaved order of this seed is 1, 4, 2, 8, but crash trials sweep the levels ascending: 1 and 2 are
    # measured, the sweep stops at the crash at 4, nothing is retried (issue 35)
    assert levels == [1, 2, 4]
    assert (record["level"], record["trials"], record["crashed_in"], record["of"]) == (4, [], 0, 0)
    assert record["levels_not_run"] == [{"level": 8, "cells": 1, "why": "above the crash level N=4"}]
    assert record["note"].startswith("specscope cannot restart this server (started with --server")


def test_a_negative_crash_trials_is_one_error_line(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--crash-trials", "-1", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == (
        "error: invalid value for --crash-trials; found: -1; expected: a value >= 0; fix: give --crash-trials 0 or more"
    )
    assert not list(tmp_path.iterdir())  # refused before a run folder exists

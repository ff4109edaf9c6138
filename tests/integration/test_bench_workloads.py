"""Issue 15's workload axes end to end: dataset categories and temperatures against the truth server (exact
acceptance per category), and a user's own file at 2k context with thinking on against the embedded engine."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from dataset_files import SPEED_CATEGORIES, qid, write_speed_bench_parquet
from hangguard import HANG_S
from sent_rows import assert_rows_sent, only_run
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.report.build import load_document
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# Per category, 4 verify steps of 3 draft tokens each; accepted per position -> pooled acceptance:
# coding 12/12 (100 %), math 3/12 (25 %), writing 6/12 (50 %).
ACCEPTED = {"coding": [4, 4, 4], "math": [2, 1, 0], "writing": [3, 2, 1]}


def _plan(accepted: list[int]) -> ResponsePlan:
    return ResponsePlan(output_tokens=12, tokens_per_chunk=4, drafts=4, draft_tokens=12, accepted_per_position=accepted)


def test_speed_bench_categories_and_temperatures_exact(tmp_path: Path):
    parquet = write_speed_bench_parquet(tmp_path / "test-00000-of-00001.parquet", per_category=2)
    by_prompt = {
        f"{cat} question {i}: explain step {i} briefly.": _plan(ACCEPTED[cat])
        for cat in SPEED_CATEGORIES
        for i in (0, 1)
    }
    opts = BenchOptions(
        configs=("mtp",),
        workloads=tuple(f"speed-bench.{c}" for c in SPEED_CATEGORIES),
        datasets=("speed-bench:qualitative",),
        dataset_path=str(parquet),
        levels=(2,),
        repeats=1,
        max_tokens=12,
        temperatures=(0.0, 0.6, 1.0),
    )
    script = TruthScript(default=_plan([0, 0, 0]), by_prompt=by_prompt, metrics=MetricsPlan())
    with TruthServer(script) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
        received = [r["prompt"] for r in log if not str(r["prompt"]).startswith("Warm-up")]
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        sent = [row for cell in run.cells() for row in cell.client.rows_sent or ()]
    # issue 35: every row once per cell (3 temperatures x 1 repeat), each id sent = one request the server received
    text_of = {
        qid(f"{c}-{i}"): f"{c} question {i}: explain step {i} briefly." for c in SPEED_CATEGORIES for i in (0, 1)
    }
    assert Counter(sent) == Counter({q: 3 for q in text_of})
    assert list(assert_rows_sent(run_dir, log, text_of).values()) == [2] * 9  # 3 categories x 3 temperatures
    assert Counter(text_of[q] for q in sent) == Counter(received)
    assert sorted(c.workload for c in cells) == sorted(
        f"speed-bench.{c}@t{t}" for c in SPEED_CATEGORIES for t in ("0", "0.6", "1")
    )
    # a busy machine may flag a cell CLIENT_LIMITED (the client's self-check); the report leaves it out
    assert all(c.status == "ok" or all(r.startswith("CLIENT_LIMITED") for r in c.reasons) for c in cells)
    ok_cells = {cat: sum(c.status == "ok" for c in cells if f".{cat}@" in c.workload) for cat in SPEED_CATEGORIES}
    tables = {t.key: t for t in load_document([run_dir]).tables}
    assert tables["acceptance_by_category"].rows == [
        ["mtp", "speed-bench", "coding", "100.0%", "4.00", str(24 * ok_cells["coding"])],
        ["mtp", "speed-bench", "math", "25.0%", "1.75", str(24 * ok_cells["math"])],
        ["mtp", "speed-bench", "writing", "50.0%", "2.50", str(24 * ok_cells["writing"])],
    ]
    rates = {"coding": "100.0%", "math": "25.0%", "writing": "50.0%"}
    expected = sorted(
        (f"speed-bench.{c.workload.split('.')[1].split('@')[0]}", c.workload.split("@t")[1])
        for c in cells
        if c.status == "ok"
    )
    rows = tables["acceptance_by_temperature"].rows
    assert sorted((r[1], r[2]) for r in rows) == expected
    assert all(r[3] == rates[r[1].split(".")[1]] for r in rows)


def test_cli_dataset_gives_one_acceptance_row_per_category(tmp_path: Path):
    parquet = write_speed_bench_parquet(tmp_path / "test-00000-of-00001.parquet", per_category=1)
    by_prompt = {f"{cat} question 0: explain step 0 briefly.": _plan(ACCEPTED[cat]) for cat in SPEED_CATEGORIES}
    with TruthServer(TruthScript(default=_plan([0, 0, 0]), by_prompt=by_prompt, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"mtp={ts.base_url}", "--dataset", "speed-bench:qualitative"]
        args += ["--dataset-path", str(parquet), "--max-concurrency", "1", "--repeats", "1", "--max-tokens", "12"]
        args += ["-f", "json", "--out", str(tmp_path / "runs")]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
        log = ts.served()
    assert res.returncode == 0, res.stderr[-2000:]
    text_of = {qid(f"{c}-0"): f"{c} question 0: explain step 0 briefly." for c in SPEED_CATEGORIES}
    assert list(assert_rows_sent(only_run(tmp_path / "runs"), log, text_of).values()) == [1, 1, 1]
    (section,) = json.loads(res.stdout)["sections"]
    (table,) = [t for t in section["tables"] if t["key"] == "acceptance_by_category"]
    ok = {c["workload"] for c in json.loads(res.stdout)["cells"] if c["status"] == "ok"}
    rates = {"coding": "100.0%", "math": "25.0%", "writing": "50.0%"}
    assert [r[:4] for r in table["rows"]] == [
        ["mtp", "speed-bench", cat, rates[cat]] for cat in SPEED_CATEGORIES if f"speed-bench.{cat}" in ok
    ]
    assert len(ok) >= 1


# 4 verify steps of 3 drafts accepting 3, 2, 1, 0 (the counters' [3, 2, 1] per position) emit 4, 3, 2, 1 tokens;
# the first 7 tokens are reasoning, so steps 0-1 are the reasoning phase (5 of 6 accepted) and steps 2-3 the
# answer phase (1 of 6 accepted).
PHASED = ResponsePlan(
    output_tokens=10,
    tokens_per_chunk=[4, 3, 2, 1],
    inter_chunk_ms=5.0,
    reasoning_tokens=7,
    drafts=4,
    draft_tokens=12,
    accepted_per_position=[3, 2, 1],
    spec_steps_accepted=[3, 2, 1, 0],
)


def test_acceptance_by_phase_exact_against_truth_server(tmp_path: Path):
    opts = BenchOptions(configs=("mtp",), workloads=("prose",), levels=(2,), repeats=2, max_tokens=10, thinking="on")
    with TruthServer(TruthScript(default=PHASED, metrics=MetricsPlan())) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = summarize_run(run)
    assert all(c.status == "ok" or all(r.startswith("CLIENT_LIMITED") for r in c.reasons) for c in cells)
    n_streams = sum(c.streams for c in cells if c.status == "ok")
    assert n_streams > 0
    doc = load_document([run_dir])
    tables = {t.key: t for t in doc.tables}
    assert tables["acceptance_by_phase"].rows == [
        ["mtp", "prose@think", "83.3%", str(6 * n_streams), "16.7%", str(6 * n_streams)]
    ]
    assert not any("no reasoning phase" in n for s in doc.sections for n in s.notes)


@pytest.mark.slow  # ~3 min of 2k-token prefills on the embedded engine (CI 2026-12-05: 175 s)
def test_own_file_at_2k_context_with_thinking_on_embedded(tmp_path: Path):
    pytest.importorskip("xllamacpp")
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        json.dumps({"messages": [{"role": "user", "content": "Name three rivers in Europe."}], "category": "geo"})
        + "\nWrite one sentence about the sea.\n"
    )
    args = ["bench", "--configs", "ngram", "--workload", f"mine={prompts}", "--max-concurrency", "1", "--repeats", "1"]
    args += ["--max-tokens", "8", "--context-tokens", "2k", "--thinking", "on", "-f", "json", "--out", str(tmp_path)]
    res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(res.stdout)
    (cell,) = report["cells"]
    assert cell["workload"] == "mine@2k@think" and cell["status"] == "ok"
    assert abs(cell["prompt_tokens_mean"] - 2048) <= 2048 * 0.01
    (section,) = report["sections"]
    keys = [t["key"] for t in section["tables"]]
    assert "acceptance_by_context" in keys and "throughput:mine@2k@think" in keys
    assert any("no reasoning phase was seen" in n for n in section["notes"])

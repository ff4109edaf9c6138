"""The whole bench pipeline (plan -> client -> store -> stats -> report) against the ground-truth server,
whose counters and token counts are programmed, so every figure has an exact right value."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hangguard import HANG_S
from report_cli import report_json
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# Every response: 12 tokens in chunks of 4 (speculation flushes several tokens per chunk), 4 verify steps
# carrying 3 draft tokens each, accepted 3 / 2 / 1 at positions 0 / 1 / 2 (6 of 12 drafted).
PLAN = ResponsePlan(
    output_tokens=12,
    tokens_per_chunk=4,
    finish_reason="length",
    drafts=4,
    draft_tokens=12,
    accepted_per_position=[3, 2, 1],
    prompt_tokens=20,
)


def clean(c) -> bool:
    """ok, or flagged only by the client's own self-check (these firehose-like plans have no delays, so on a busy
    2-core machine the client's loop lag can cross its threshold: that flag is the self-check doing its job)."""
    return c.status == "ok" or (c.status == "degraded" and all(r.startswith("CLIENT_LIMITED") for r in c.reasons))


@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(default=PLAN, metrics=MetricsPlan(engines=["0", "1"]))) as ts:
        yield ts


def test_matrix_against_truth_server_exact(tmp_path, truth):
    opts = BenchOptions(configs=("mtp",), workloads=("prose", "edit"), levels=(1, 3), repeats=2, max_tokens=12)
    run_dir = run_bench(opts, servers={"mtp": truth.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        assert len(cells) == 2 * 2 * 2
        for c in cells:
            n = c.concurrency
            assert clean(c), c.reasons
            assert c.streams == n and c.output_tokens == 12 * n and c.token_source == "usage"
            assert c.server_generation_tokens == 12 * n  # the counter delta, warm-up excluded
            assert c.counters.drafts == 4 * n and c.counters.draft_tokens == 12 * n
            assert c.acceptance_rate == 0.5
            assert c.acceptance_length == 1 + (6 * n) / (4 * n)
            assert c.acceptance_per_position == (0.75, 0.5, 0.25)
            assert c.acceptance_source == "counter_delta"
            check = c.client.self_check or {}  # the client's own lag figures, stored with every cell
            assert {"loop_lag_p99_ns", "send_lag_p99_ns"} <= set(check)
        manifest = run.manifest
    assert manifest["finished"] is True and manifest["cells_done"] == 8
    assert manifest["packs"]["edit"]["form"] == "prefill"
    from specscope.client import ClientSettings

    assert manifest["client"]["http_library"] == ClientSettings().describe()["http_library"]  # limits recorded
    assert manifest["client"]["connection_limit"] >= 3

    doc = report_json(run_dir)
    assert {
        "config",
        "workload",
        "concurrency",
        "repeat",
        "status",
        "output_tokens",
        "token_source",
        "output_tok_s",
        "ttft_p50_s",
        "achieved_concurrency",
        "acceptance_rate",
        "acceptance_length",
        "acceptance_per_position",
        "acceptance_source",
        "counters",
    } <= set(doc["cells"][0])
    acc = next(t for s in doc["sections"] for t in s["tables"] if t["key"] == "acceptance")
    # each figure says the verify steps and drafted tokens it rests on: 4 verify steps of 3 tokens per stream, pooled
    # over the ok cells of the workload (a cell the client's self-check flagged under load is not pooled)
    rests = {}
    for w in ("prose", "edit"):
        ok = [c for c in cells if c.workload == w and c.status == "ok"]
        rounds = sum(4 * c.concurrency for c in ok)
        rests[w] = f"50.0% (len 2.50; {rounds} verify steps, {3 * rounds} drafted; few verify steps)"
    order = [c["name"] for c in acc["columns"][1:]]  # workloads in the order the run met them
    assert acc["rows"] == [["mtp", *[rests[w] for w in order]]]


def test_resume_skips_done_cells(tmp_path, truth):
    opts = BenchOptions(configs=("mtp",), workloads=("prose",), levels=(1, 2), repeats=1, max_tokens=12)
    run_dir = run_bench(opts, servers={"mtp": truth.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir, writable=True) as run:
        first = summarize_run(run)
        # forget one cell, as if the run had been killed while it was in flight
        run._db.execute("DELETE FROM cells WHERE concurrency = 2")
        run._db.execute("DELETE FROM streams WHERE concurrency = 2")
        run._db.commit()
        run.update_manifest(finished=False)
    from specscope.report.build import load_run_report

    progress = dict(load_run_report(run_dir).tables[0].rows)["cells"]
    assert progress.startswith("1 of 2 cells — INCOMPLETE") and f"--resume {run_dir}" in progress
    run_bench(resume=run_dir)
    with open_run(run_dir) as run:
        again = summarize_run(run)
        assert run.manifest["finished"] is True
    assert len(again) == 2
    kept = [c for c in again if c.concurrency == 1]
    assert kept == [c for c in first if c.concurrency == 1]  # the finished cell was not redone


def _cells_in(db) -> int:
    import sqlite3

    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_killed_run_resumes_without_losing_cells(tmp_path):
    import signal
    import time

    slow = PLAN.model_copy(update={"inter_chunk_ms": 40.0})
    with TruthServer(TruthScript(default=slow)) as ts:
        run_dir = tmp_path / "run"
        argv = [
            sys.executable,
            "-m",
            "specscope",
            "bench",
            "--server",
            f"mtp={ts.base_url}",
            "--workloads",
            "prose,code",
            "--max-concurrency",
            "1,2",
            "--repeats",
            "2",
            "--max-tokens",
            "12",
            "--out",
            str(tmp_path),
        ]
        proc = subprocess.Popen(
            argv + [],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**__import__("os").environ, "SPECSCOPE_RUN_DIR": str(run_dir)},
        )
        db = None
        deadline = time.monotonic() + HANG_S
        while time.monotonic() < deadline:
            runs = list(tmp_path.glob("run-*/run.sqlite"))
            if runs and _cells_in(runs[0]) >= 2:
                db = runs[0]
                break
            time.sleep(0.05)
        assert db is not None, f"no cell was committed within {HANG_S} s"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with open_run(db.parent) as run:
            before = {(c.workload, c.concurrency, c.repeat): c for c in summarize_run(run)}
            assert 2 <= len(before) < 8 and run.manifest.get("finished") is not True
        res = subprocess.run(
            [sys.executable, "-m", "specscope", "bench", "--resume", str(db.parent), "--format", "json"],
            capture_output=True,
            text=True,
        )
        assert res.returncode == 0, res.stderr
        with open_run(db.parent) as run:
            after = {(c.workload, c.concurrency, c.repeat): c for c in summarize_run(run)}
            assert run.manifest["finished"] is True
    assert len(after) == 8
    assert all(after[k] == v for k, v in before.items())  # nothing finished was redone or lost
    assert all(clean(c) for c in after.values())


def test_server_killed_mid_cell_gives_server_crash_and_the_run_goes_on(tmp_path):
    from specscope.bench.plan import plan_cells

    opts = BenchOptions(configs=("a", "b"), workloads=("prose",), levels=(1, 2), repeats=2, max_tokens=12, baseline="b")
    order = [k for k in plan_cells(opts) if k.config == "a"]
    # every request (the warm-up included) is 3 chunks of 4 tokens: the first cell of "a" takes
    # 3 * (1 warm-up + c streams) chunks, the second cell's warm-up 3 more; the server process exits
    # right after the first token chunk of the second cell's streams, so that cell is the crash, exactly
    chunks_before_crash = 3 * (1 + order[0].concurrency) + 3 + 1
    doomed_script = TruthScript(default=PLAN, exit_after_chunks=chunks_before_crash)
    with TruthServer(doomed_script) as doomed, TruthServer(TruthScript(default=PLAN)) as healthy:
        run_dir = run_bench(opts, servers={"a": doomed.base_url, "b": healthy.base_url}, run_dir=tmp_path / "run")
        assert (
            doomed._proc.popen is not None and doomed._proc.popen.wait(HANG_S) == 3
        )  # it exited at the programmed chunk, not from a timer
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        manifest = run.manifest
    a = {(c.concurrency, c.repeat): c for c in cells if c.config == "a"}
    b = [c for c in cells if c.config == "b"]
    assert set(a) == {(k.concurrency, k.repeat) for k in order[:2]}  # the sweep of "a" stopped at the crash
    ok_a, crash = a[(order[0].concurrency, order[0].repeat)], a[(order[1].concurrency, order[1].repeat)]
    assert clean(ok_a) and ok_a.streams == order[0].concurrency and ok_a.output_tokens == 12 * order[0].concurrency
    assert crash.status == "server_crash"
    assert crash.reasons[0] == "SERVER_CRASH"
    assert len(b) == 4 and all(clean(c) for c in b)  # the next config ran in full
    assert manifest["crashes"] == {"a": order[1].label()}
    # honest (issue 17): 6 of 8 cells stored, one of them the crash: not finished; --retry-failed redoes it
    assert (manifest["finished"], manifest["cells_done"], manifest["cells_total"]) == (False, 6, 8)
    from specscope.report.build import load_run_report

    tables = {t.key: t for t in load_run_report(run_dir).tables}
    stable = str(ok_a.concurrency) if ok_a.status == "ok" and ok_a.concurrency < crash.concurrency else "—"
    assert tables["crashes"].rows == [["a", "prose", str(crash.concurrency), str(crash.repeat), stable]]


def advise_on_two_configs(tmp_path, plan: ResponsePlan, levels: tuple[int, ...], repeats: int, *args: str):
    """Bench configs base and mtp (two truth servers serving ``plan``), then ``specscope advise RUN *args``."""
    with TruthServer(TruthScript(default=plan)) as a, TruthServer(TruthScript(default=plan)) as b:
        opts = BenchOptions(
            configs=("base", "mtp"), workloads=("prose",), levels=levels, repeats=repeats, max_tokens=12
        )
        run_dir = run_bench(opts, servers={"base": a.base_url, "mtp": b.base_url}, run_dir=tmp_path / "run")
    cmd = [sys.executable, "-m", "specscope", "advise", str(run_dir), *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode == 0, res.stderr
    return run_dir, res


@pytest.mark.timing  # every cell must be ok: the client self-check marks a cell CLIENT_LIMITED on a loaded VM
def test_advise_with_an_slo_nothing_meets(tmp_path):
    slow_start = PLAN.model_copy(update={"ttft_ms": 50.0})
    _, res = advise_on_two_configs(tmp_path, slow_start, (1,), 2, "--mix", "prose=1", "--slo", "ttft=10ms")
    assert "N=1: no config meets the SLO (TTFT <= 10ms)" in res.stdout
    assert "no recommendation" in res.stdout and "overall:" not in res.stdout


@pytest.mark.timing  # every cell must be ok: the client self-check marks a cell CLIENT_LIMITED on a loaded VM
def test_advise_level_mix_on_a_run(tmp_path):
    paced = PLAN.model_copy(update={"inter_chunk_ms": 20.0})  # paced so the client's self-check stays quiet
    run_dir, res = advise_on_two_configs(tmp_path, paced, (1, 4), 1, "--level-mix", "1=0.6,4=0.4", "-f", "json")
    lm = json.loads(res.stdout)["choices"]["level_mix"]
    with open_run(run_dir) as run:
        cells = summarize_run(run)
    rate = {(c.config, c.concurrency): c.output_tok_s for c in cells if c.status == "ok"}
    assert lm["static"] == {cfg: pytest.approx(0.6 * rate[(cfg, 1)] + 0.4 * rate[(cfg, 4)]) for cfg in ("base", "mtp")}
    # one repeat: no interval, so no config is called faster; the baseline stays, and the best other says why
    assert lm["choice"] == "base" and lm["dynamic"] == {"1": "base", "4": "base"}
    assert [r["code"] for r in lm["comparison"]["reasons"]] == ["TOO_FEW_ROUNDS"]

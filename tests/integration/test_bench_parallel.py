"""``--parallel-configs``: two configs on two servers with known delays run side by side, so the matrix takes
about as long as the longer config, not the sum of both."""

from __future__ import annotations

import time

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration


def plan(ttft_ms: float) -> ResponsePlan:
    """12 tokens in 3 chunks, the first after ``ttft_ms``, then 100 ms apart: ttft_ms + 200 ms per request."""
    return ResponsePlan(
        output_tokens=12, tokens_per_chunk=4, finish_reason="length", ttft_ms=ttft_ms, inter_chunk_ms=100
    )


def side_by_side(tmp_path, slow_ttft_ms: float, fast_ttft_ms: float):
    """Run configs slow and fast (2 cells each: a warm-up and one request per cell) with --parallel-configs;
    returns the cells, each server's served windows ``(arrival_ns, end_ns)`` and the run's wall time (s)."""
    opts = BenchOptions(
        configs=("slow", "fast"), workloads=("prose",), levels=(1,), repeats=2, max_tokens=12, parallel_configs=True
    )
    slow, fast = TruthScript(default=plan(slow_ttft_ms)), TruthScript(default=plan(fast_ttft_ms))
    with TruthServer(slow) as a, TruthServer(fast) as b:
        t0 = time.perf_counter()
        run_dir = run_bench(opts, servers={"slow": a.base_url, "fast": b.base_url}, run_dir=tmp_path / "run")
        wall_s = time.perf_counter() - t0
        served = {k: [(r["arrival_ns"], r["end_ns"]) for r in ts.served()] for k, ts in (("slow", a), ("fast", b))}
    with open_run(run_dir) as run:
        assert run.manifest["finished"] is True and run.manifest["options"]["parallel_configs"] is True
        return summarize_run(run), served, wall_s


def test_two_configs_run_side_by_side(tmp_path):
    cells, served, _ = side_by_side(tmp_path, 300, 100)
    assert sorted((c.config, c.repeat, c.output_tokens) for c in cells) == [
        ("fast", 0, 12),
        ("fast", 1, 12),
        ("slow", 0, 12),
        ("slow", 1, 12),
    ]
    assert len(served["slow"]) == len(served["fast"]) == 4  # 2 warm-ups + 2 cell requests each
    # side by side: each server's first request arrived before the other's last one ended (one clock for both
    # processes: CLOCK_MONOTONIC); one after the other, all of one config's requests would come first
    slow0, slow1 = min(a for a, _ in served["slow"]), max(e for _, e in served["slow"])
    fast0, fast1 = min(a for a, _ in served["fast"]), max(e for _, e in served["fast"])
    assert fast0 < slow1 and slow0 < fast1


def test_the_report_says_configs_ran_side_by_side(tmp_path):
    from specscope.report.build import load_document

    side_by_side(tmp_path, 0, 0)
    (section,) = load_document([tmp_path / "run"]).sections
    assert any(n.startswith("Configs ran side by side (--parallel-configs)") for n in section.notes)


@pytest.mark.timing
def test_side_by_side_takes_the_time_of_the_longer_config(tmp_path):
    # served time per config: slow 4 x 2.0 s = 8.0 s, fast 4 x 1.0 s = 4.0 s; one after the other >= 12 s
    _, _, wall_s = side_by_side(tmp_path, 1800, 800)
    assert 8.0 <= wall_s < 11.0, wall_s

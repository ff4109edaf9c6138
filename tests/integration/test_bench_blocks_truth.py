"""Counterbalanced blocks with baseline sentinels (the ``--launch vllm`` order), run against truth servers.

vLLM cannot run here, so the order is forced (``order="blocks"``) with one truth server per config: the cells must
run in the blocks plan's order (base, mtp then mtp, base), with a sentinel cell of the baseline at both ends of each
baseline block, and every cell must carry its wall-clock instants.
"""

from __future__ import annotations

import pytest

from specscope.bench import run_bench
from specscope.bench.plan import plan_cells
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(output_tokens=8, tokens_per_chunk=4, finish_reason="length", prompt_tokens=20)


def test_blocks_run_in_counterbalanced_order_with_sentinels(tmp_path):
    opts = BenchOptions(
        configs=("base", "mtp"), workloads=("prose",), levels=(1, 2), repeats=2, max_tokens=8, order="blocks"
    )
    with TruthServer(TruthScript(default=PLAN)) as a, TruthServer(TruthScript(default=PLAN)) as b:
        run_dir = run_bench(opts, servers={"base": a.base_url, "mtp": b.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        manifest = run.manifest
    assert manifest["finished"] is True and manifest["cells_done"] == 2 * 2 * 2 + 4
    by_time = sorted(cells, key=lambda c: c.started_at_s)
    order = [(c.config, c.workload, c.concurrency, c.repeat) for c in by_time]
    assert order == [(k.config, k.workload, k.concurrency, k.repeat) for k in plan_cells(opts, "blocks")]
    names = [c.config for c in by_time]
    # repeat 0: base block (sentinel, 2 cells, sentinel), mtp block; repeat 1: mtp block, base block
    assert names == ["base~sentinel", "base", "base", "base~sentinel", "mtp", "mtp", "mtp", "mtp"] + [
        "base~sentinel",
        "base",
        "base",
        "base~sentinel",
    ]
    sentinels = [c for c in by_time if c.config == "base~sentinel"]
    assert [(c.workload, c.concurrency, c.repeat) for c in sentinels] == [("prose", 1, r) for r in range(4)]
    assert all(c.output_tokens == 8 * c.concurrency for c in cells)

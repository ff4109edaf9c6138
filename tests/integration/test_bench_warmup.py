"""Warm-ups: a server's first cell of a workload gets that workload's full-shape warm-up, its later cells the short
one (a full edit warm-up is a ~900-token prefill, as long as an edit cell on the embedded engine)."""

from __future__ import annotations

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration


def test_full_shape_warm_up_once_per_server_and_workload_then_the_short_one(tmp_path):
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4, finish_reason="length", prompt_tokens=20)
    opts = BenchOptions(configs=("base", "x"), workloads=("edit", "code"), levels=(1, 2), repeats=2, max_tokens=8)
    with TruthServer(TruthScript(default=plan)) as a, TruthServer(TruthScript(default=plan)) as b:
        run_dir = run_bench(opts, servers={"base": a.base_url, "x": b.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = sorted(summarize_run(run), key=lambda c: c.started_at_s or 0.0)
    assert len(cells) == 2 * 2 * 2 * 2
    seen: set[tuple[str, str]] = set()
    for c in cells:
        first = (c.config, c.workload) not in seen
        seen.add((c.config, c.workload))
        full = {"edit": "edit-prefill-warmup", "code": "code-warmup"}[c.workload]
        assert c.client.warmup_prompt_id == (full if first else "short-warmup"), (c.config, c.workload, c.repeat)
    assert len(seen) == 4  # each server had each workload's full-shape warm-up exactly once

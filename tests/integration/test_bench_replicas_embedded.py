"""Two embedded llama.cpp replicas (config ngram) behind the round-robin router: ``bench --server ngram=ROUTER
--metrics ngram=R1 --metrics ngram=R2`` gives the token and acceptance totals of the replicas' own counters."""

from __future__ import annotations

import httpx
import pytest

from hangguard import HANG_S
from specscope.bench import run_bench
from specscope.client.metrics import parse_metrics
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.targets import embedded_target
from specscope.truth.router import Router

pytestmark = pytest.mark.integration


def own(url: str):
    return parse_metrics(httpx.get(f"{url}/metrics", timeout=HANG_S).text)


def test_two_embedded_replicas_behind_a_router(tmp_path):
    pytest.importorskip("xllamacpp")
    opts = dict(threads=1, n_parallel=2, draft_cache=None)
    with (
        embedded_target("ngram", tmp_path / "r1.log", **opts) as r1,
        embedded_target("ngram", tmp_path / "r2.log", **opts) as r2,
    ):
        start = [own(r1.base_url), own(r2.base_url)]
        with Router([r1.base_url, r2.base_url]) as router:
            options = BenchOptions(
                configs=("ngram",),
                workloads=("edit",),
                levels=(1, 2),
                repeats=1,
                max_tokens=32,
                metrics={"ngram": (r1.base_url, r2.base_url)},
            )
            run_dir = run_bench(options, servers={"ngram": router.base_url}, run_dir=tmp_path / "run")
        end = [own(r1.base_url), own(r2.base_url)]
    with open_run(run_dir) as run:
        cells = summarize_run(run)
    assert len(cells) == 2  # and one warm-up request before each
    served = [e.generation_tokens - s.generation_tokens for s, e in zip(start, end, strict=True)]
    accepted = [e.accepted_tokens - s.accepted_tokens for s, e in zip(start, end, strict=True)]
    assert all(x > 0 for x in served)  # both replicas served
    # the cells' counter deltas + the two warm-ups (8 tokens each: warmup_max_tokens) = what the replicas counted
    cell_tokens = sum(c.server_generation_tokens for c in cells)
    assert cell_tokens == sum(c.output_tokens for c in cells)  # usage totals agree with the summed counters
    assert cell_tokens + 2 * 8 == sum(served)
    # acceptance: the cells' share of what the replicas accepted (the warm-ups may have accepted a few more)
    assert 0 < sum(c.counters.accepted_tokens for c in cells) <= sum(accepted)

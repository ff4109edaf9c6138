"""A tiny matrix on the real embedded engine (llama.cpp via xllamacpp, SmolLM2-135M)."""

from __future__ import annotations

import pytest

pytest.importorskip("xllamacpp")

from specscope.bench import run_bench  # noqa: E402
from specscope.config import BenchOptions  # noqa: E402
from specscope.store import open_run  # noqa: E402

pytestmark = pytest.mark.integration


def test_tiny_matrix_on_embedded_engine(tmp_path):
    opts = BenchOptions(configs=("base", "draft"), workloads=("prose", "edit"), levels=(1, 2), repeats=1, max_tokens=24)
    run_dir = run_bench(opts, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = run.summaries()
        facts = run.server_facts
    assert len(cells) == 2 * 2 * 2
    for c in cells:
        assert c.status == "ok", (c.config, c.workload, c.concurrency, c.reasons)
        assert c.token_source == "usage"
        # the client's usage total equals the server's generated-token counter delta, exactly
        assert c.output_tokens == c.server_generation_tokens
        assert c.achieved_concurrency is not None and 0 < c.achieved_concurrency <= c.concurrency
    for c in cells:
        if c.config == "draft":
            assert c.acceptance_source == "counter_delta"
            assert c.counters["draft_tokens"] > 0
            assert 0.0 <= c.acceptance_rate <= 1.0
            assert c.acceptance_length == 1 + c.counters["accepted_tokens"] / c.counters["drafts"]
            # llama.cpp's per-response timings agree with its counters
            assert c.per_request_draft_tokens == c.counters["draft_tokens"]
        else:
            assert c.acceptance_rate is None
    assert facts["draft"]["draft"]["quant"] == "Q4_0" and facts["draft"]["draft"]["size_bytes"] > 0
    assert "--spec-type draft-simple" in facts["draft"]["command_line"]
    assert (run_dir / facts["base"]["log"]).stat().st_size > 0

"""A tiny matrix on the real embedded engine (llama.cpp via xllamacpp, SmolLM2-135M)."""

from __future__ import annotations

import pytest

pytest.importorskip("xllamacpp")

from specscope.stats.cells import summarize_run  # noqa: E402
from specscope.store import open_run  # noqa: E402

pytestmark = pytest.mark.integration


def test_tiny_matrix_on_embedded_engine(embedded_run):
    run_dir = embedded_run
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        facts = {c: dict(f.stored) for c, f in run.server_facts.items()}  # as stored
    assert len(cells) == 2 * 2 * 2 * 2
    for c in cells:
        # on a loaded machine the client's own self-check may flag a cell; nothing else may make it not ok
        assert c.status == "ok" or all(r.startswith("CLIENT_LIMITED") for r in c.reasons), (
            c.config,
            c.workload,
            c.concurrency,
            c.reasons,
        )
        assert c.token_source == "usage"
        # the client's usage total equals the server's generated-token counter delta, exactly
        assert c.output_tokens == c.server_generation_tokens
        assert c.achieved_concurrency is not None and 0 < c.achieved_concurrency <= c.concurrency
    for c in cells:
        if c.config == "draft":
            assert c.acceptance_source == "counter_delta"
            assert c.counters.draft_tokens > 0
            assert 0.0 <= c.acceptance_rate <= 1.0
            assert c.acceptance_length == 1 + c.counters.accepted_tokens / c.counters.drafts
            # llama.cpp's per-response timings agree with its counters
            assert c.per_request_draft_tokens == c.counters.draft_tokens
        else:
            assert c.acceptance_rate is None
    assert facts["draft"]["draft"]["quant"] == "Q4_0" and facts["draft"]["draft"]["size_bytes"] > 0
    assert "--spec-type draft-simple" in facts["draft"]["command_line"]
    assert (run_dir / facts["base"]["log"]).stat().st_size > 0


def test_draft_accepts_more_on_edit_than_on_prose(embedded_run):
    """The issue's headline check: a re-quantized draft copies the edit module far better than it writes prose."""
    with open_run(embedded_run) as run:
        cells = [c for c in summarize_run(run) if c.config == "draft"]

    def pooled(workload):
        acc = sum(c.counters.accepted_tokens for c in cells if c.workload == workload)
        drafted = sum(c.counters.draft_tokens for c in cells if c.workload == workload)
        return acc / drafted

    assert pooled("edit") > pooled("prose")

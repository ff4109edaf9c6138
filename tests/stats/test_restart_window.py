"""A data-parallel engine restarted between the scrapes (issue 26): the engines that did not restart still give the
cell a valid acceptance (rate, length, per position from their own deltas); the restart is named on the cell."""

from __future__ import annotations

from paths import DATA
from specscope.client.metrics import parse_metrics
from specscope.records import CellKey, CellResult, StreamRecord
from specscope.stats.cells import summarize_cell


def _stream(i: int) -> StreamRecord:
    return StreamRecord(
        prompt_id=f"p{i}",
        intended_ns=0,
        send_ns=0,
        first_token_ns=1_000_000,
        first_content_ns=1_000_000,
        last_token_ns=9_000_000,
        end_ns=10_000_000,
        content_chunks=4,
        reasoning_chunks=0,
        output_tokens=8,
        prompt_tokens=3,
        token_source="usage",
        finish_reason="stop",
        status="ok",
        reason=None,
        http_status=200,
    )


def test_engines_that_did_not_restart_give_the_cells_acceptance() -> None:
    before = parse_metrics((DATA / "counters" / "vllm_dp2_before.prom").read_text())
    after = parse_metrics((DATA / "counters" / "vllm_dp2_after_engine1_restarted.prom").read_text())
    result = CellResult(CellKey("mtp", "edit", 2, 0), (_stream(0), _stream(1)), 0, 10_000_000, before, after)
    c = summarize_cell(result)
    # engine 0 alone: 1000 drafts, 4000 drafted, 2500 accepted (tests/data/counters/SOURCES.md)
    assert (c.acceptance_rate, c.acceptance_length) == (2500 / 4000, 1 + 2500 / 1000)
    assert c.acceptance_per_position == (0.9, 0.7, 0.5, 0.4)
    assert c.acceptance_source == "counter_delta"
    assert "ENGINE_RESET(1)" in c.reasons
    assert c.spec_window is not None and c.spec_window["state"] == "drafting"

"""Build CellSummary values for statistics tests (pure data; no server involved)."""

from __future__ import annotations

from cellsummary import counters_of, make_cell
from specscope.records import SpecCounters
from specscope.stats.summary import CellSummary


def cell(config: str, workload: str, concurrency: int, repeat: int, output_tok_s: float | None, **kw) -> CellSummary:
    """An ok cell of ``concurrency`` streams, 512 tokens each over 10 s; ``kw`` overrides fields."""
    shape = dict(output_tokens=512 * concurrency, duration_s=10.0, ttft_p50_s=0.2, ttft_p95_s=0.3)
    return make_cell(config, workload, concurrency, repeat, output_tok_s, **{**shape, **kw})


def counters(
    drafts: float, per_position: list[float], draft_tokens: float | None = None, accepted: float | None = None
) -> SpecCounters:
    k = len(per_position)
    return counters_of(
        {
            "drafts": drafts,
            "draft_tokens": drafts * k if draft_tokens is None else draft_tokens,
            "accepted_tokens": sum(per_position) if accepted is None else accepted,
            "accepted_per_position": list(per_position),
        }
    )

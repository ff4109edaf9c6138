"""Build CellSummary values for statistics tests (pure data; no server involved)."""

from __future__ import annotations

from cellsummary import counters_of, make_cell
from specscope.records import SpecCounters
from specscope.stats.summary import CellSummary


def cell(config: str, workload: str, concurrency: int, repeat: int, output_tok_s: float | None, **kw) -> CellSummary:
    """An ok cell of ``concurrency`` streams, 512 tokens each over 10 s; ``kw`` overrides fields."""
    shape = dict(output_tokens=512 * concurrency, duration_s=10.0, ttft_p50_s=0.2, ttft_p95_s=0.3)
    return make_cell(config, workload, concurrency, repeat, output_tok_s, **{**shape, **kw})


def timed(
    config: str, repeat: int, tok_s: float, t0_s: float, workload: str = "prose", n: int = 1, **kw
) -> CellSummary:
    """:func:`cell` run at ``t0_s`` for 10 s, with the per-request timing that gives its ``tok_s``: each stream's 512
    tokens after a 0.2 s TTFT at TPOT ``(512 / tok_s - 0.2) / 511`` (so the cold-start rule's tok/s per request,
    :mod:`specscope.stats.noise`, is ``tok_s`` at any N), over 100 prompt tokens."""
    timing = dict(ttft_p50_s=0.2, tpot_p50_s=(512 / tok_s - 0.2) / 511, prompt_tokens_mean=100.0)
    return cell(config, workload, n, repeat, tok_s, started_at_s=t0_s, ended_at_s=t0_s + 10.0, **{**timing, **kw})


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

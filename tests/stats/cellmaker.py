"""Build CellSummary values for statistics tests (pure data; no server involved)."""

from __future__ import annotations

from specscope.stats.summary import CellSummary


def cell(config: str, workload: str, concurrency: int, repeat: int, output_tok_s: float | None, **kw) -> CellSummary:
    base = dict(
        config=config,
        workload=workload,
        concurrency=concurrency,
        repeat=repeat,
        status="ok",
        reasons=(),
        streams=concurrency,
        streams_ok=concurrency,
        output_tokens=512 * concurrency,
        token_source="usage",
        duration_s=10.0,
        output_tok_s=output_tok_s,
        stream_tok_s=(),
        ttft_p50_s=0.2,
        ttft_p95_s=0.3,
        tpot_p50_s=None,
        achieved_concurrency=float(concurrency),
        acceptance_rate=None,
        acceptance_length=None,
        acceptance_per_position=(),
        acceptance_source=None,
        counters=None,
        server_generation_tokens=None,
    )
    base.update(kw)
    return CellSummary(**base)


def counters(
    drafts: float, per_position: list[float], draft_tokens: float | None = None, accepted: float | None = None
) -> dict:
    k = len(per_position)
    return {
        "drafts": drafts,
        "draft_tokens": drafts * k if draft_tokens is None else draft_tokens,
        "accepted_tokens": sum(per_position) if accepted is None else accepted,
        "accepted_per_position": list(per_position),
    }

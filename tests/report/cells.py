"""Hand-made cell summaries for report tests."""

from __future__ import annotations

from typing import Any

from specscope.stats.summary import CellSummary


def summary(cfg: str, wl: str, conc: int, rep: int, tok_s: float, **kw: Any) -> CellSummary:
    """An ok cell of ``conc`` streams at ``tok_s`` aggregate tok/s (64 tokens a stream); ``kw`` overrides fields."""
    d = dict(
        config=cfg,
        workload=wl,
        concurrency=conc,
        repeat=rep,
        status="ok",
        reasons=(),
        streams=conc,
        streams_ok=conc,
        output_tokens=64 * conc,
        token_source="usage",
        duration_s=64 * conc / tok_s,
        output_tok_s=tok_s,
        stream_tok_s=tuple(sorted(tok_s / conc * (0.9 + 0.1 * i) for i in range(conc))),
        ttft_p50_s=0.05 * conc,
        ttft_p95_s=0.08 * conc,
        tpot_p50_s=conc / tok_s,
        achieved_concurrency=float(conc),
        acceptance_rate=None,
        acceptance_length=None,
        acceptance_per_position=(),
        acceptance_source=None,
        counters=None,
        server_generation_tokens=None,
    )
    d.update(kw)
    return CellSummary(**d)

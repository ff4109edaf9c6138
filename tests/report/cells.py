"""Hand-made cell summaries for report tests."""

from __future__ import annotations

from typing import Any

from cellsummary import make_cell
from specscope.stats.summary import CellSummary


def summary(cfg: str, wl: str, conc: int, rep: int, tok_s: float, **kw: Any) -> CellSummary:
    """An ok cell of ``conc`` streams at ``tok_s`` aggregate tok/s (64 tokens a stream); ``kw`` overrides fields."""
    shape: dict[str, Any] = dict(
        output_tokens=64 * conc,
        duration_s=64 * conc / tok_s,
        stream_tok_s=tuple(sorted(tok_s / conc * (0.9 + 0.1 * i) for i in range(conc))),
        ttft_p50_s=0.05 * conc,
        ttft_p95_s=0.08 * conc,
        tpot_p50_s=conc / tok_s,
    )
    return make_cell(cfg, wl, conc, rep, tok_s, **{**shape, **kw})

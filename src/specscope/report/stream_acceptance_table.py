"""The per-stream acceptance table (issue 16): distribution over responses, both paths, the accepted-length
histogram and a reason where the paths disagree. Figures from :func:`specscope.stats.acceptance_dist.stream_acceptance`.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.adapters.per_response import sources_text
from specscope.report import units
from specscope.report.document import Column, Table, text_cell
from specscope.stats.acceptance_dist import stream_acceptance
from specscope.stats.summary import CellSummary

__all__ = ["stream_acceptance_table"]


def _histogram(h: tuple[float, ...]) -> str:
    return " ".join(f"{j}:{n:g}" for j, n in enumerate(h)) if h else units.DASH


def stream_acceptance_table(cells: Sequence[CellSummary]) -> list[Table]:
    """``[Table]`` with one row per config x workload that has per-response fields or counters; ``[]`` if none."""
    views = stream_acceptance(cells)
    if not any(v.streams for v in views.values()):
        return []
    rows = []
    for (config, workload), v in sorted(views.items()):
        q: list[float | None] = list(v.quantiles) or [None] * 5
        rows.append(
            [
                text_cell(config),
                text_cell(workload),
                units.count(v.streams),
                *(units.rate(x) for x in q),
                units.rate(v.per_request_rate),
                units.rate(v.counter_rate),
                text_cell(_histogram(v.histogram)),
                text_cell(v.reason or units.DASH),
            ]
        )
    columns = [
        Column("config"),
        Column("workload"),
        Column("streams"),
        *(Column(f"{name} per stream", "%") for name in ("min", "p05", "p50", "p95", "max")),
        Column("pooled per-request", "%"),
        Column("pooled counters", "%"),
        Column("steps by accepted tokens (counters)"),
        Column("disagreement"),
    ]
    note = (
        f"Per stream: accepted / drafted tokens of each response (per-request path: {sources_text()}); histogram:"
        " verify steps that accepted exactly j drafted tokens, from the per-position counters (counter path)."
    )
    return [Table("stream-acceptance", "Acceptance per stream and by path", columns, rows, note)]

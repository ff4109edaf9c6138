"""How a cell that is not ok shows in the tables (issue 35, "a cell that vanishes"): it stays, marked, with what
was asked of it and what it got (target vs achieved concurrency) and what the server was doing meanwhile (its running
and waiting gauges), and is left out of the averages by name.

The figures: ``achieved_concurrency`` (time-weighted streams in flight, from the wire instants), and the server's
``running_concurrency`` / ``waiting_mean`` (time-weighted gauge means while the load was offered) with their maxima
(:mod:`specscope.stats.capacity`); a figure that is absent prints as a dash.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.report import units
from specscope.report.document import Cell, text_cell
from specscope.stats.summary import CellSummary

__all__ = ["achieved_cell", "beside_mean", "server_cell"]


def achieved_cell(s: CellSummary, open_loop: bool) -> Cell:
    """Achieved over target streams (``3.00 / 4``; an open loop: achieved only)."""
    if open_loop:
        return units.requests(s.achieved_concurrency)
    return units.concurrency(s.achieved_concurrency, s.concurrency)


def server_cell(s: CellSummary) -> Cell:
    """What the server was doing: ``running 3.00 (max 3), waiting 0.00 (max 0)`` from its gauges; a dash without."""
    if s.running_concurrency is None and s.running_max is None:
        return units.missing()

    def one(mean: float | None, top: float | None) -> str:
        m = units.DASH if mean is None else f"{mean:.2f}"
        return m + ("" if top is None else f" (max {top:g})")

    return text_cell(
        f"running {one(s.running_concurrency, s.running_max)}, waiting {one(s.waiting_mean, s.waiting_max)}"
    )


def beside_mean(mean_cell: Cell, marked: Sequence[CellSummary], open_loop: bool) -> Cell:
    """A table cell holding the mean of the ok cells, with each degraded cell of the same group beside it, marked and
    left out of the mean by name: ``4.00 / 4; left out: round 3 degraded 3.00 / 4``."""
    if not marked:
        return mean_cell
    extra = "; ".join(f"round {s.repeat} {s.status} {achieved_cell(s, open_loop).text}" for s in marked)
    return Cell(mean_cell.value, f"{mean_cell.text}; left out: {extra}")

"""The open-loop table of a run (``bench --request-rate``): scheduled and achieved rate, requests in flight and
goodput per cell, from :func:`specscope.stats.goodput.rate_cells`."""

from __future__ import annotations

from collections.abc import Sequence

from specscope.config import RunOptions
from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.stats.goodput import RateCell

__all__ = ["rate_table", "side_by_side_note"]


def _req_s(x: float | None) -> Cell:
    """Requests per second, two decimals (the column carries ``req/s``)."""
    return Cell(float(x), f"{x:.2f}") if x is not None else units.missing()


def rate_table(cells: Sequence[RateCell], options: RunOptions) -> list[Table]:
    """One table of the open-loop cells (none when the run has none); goodput columns only with an SLO."""
    if not cells:
        return []
    ttft_s, tpot_s = options.slo_ttft_s, options.slo_tpot_s
    has_slo = ttft_s is not None or tpot_s is not None
    cols = [Column("config"), Column("workload"), Column("repeat"), Column("rate", "req/s")]
    cols += [Column("achieved", "req/s"), Column("requests"), Column("ok"), Column("in flight mean / max")]
    if has_slo:
        cols += [Column("met SLO"), Column("goodput", "req/s")]
    rows = []
    for c in sorted(cells, key=lambda c: (c.config, c.workload, c.rate_per_s, c.repeat)):
        row = [text_cell(c.config), text_cell(c.workload), units.count(c.repeat), _req_s(c.rate_per_s)]
        row += [_req_s(c.achieved_rate_per_s), units.count(c.requests), units.count(c.ok)]
        row.append(Cell(c.in_flight_mean, f"{c.in_flight_mean:.2f} / {c.in_flight_max}"))
        if has_slo:
            row += [units.count(c.met_slo), _req_s(c.goodput_per_s)]
        rows.append(row)
    targets = []
    if ttft_s is not None:
        targets.append(f"TTFT <= {ttft_s:g} s")
    if tpot_s is not None:
        targets.append(f"TPOT <= {tpot_s * 1000:g} ms")
    note = (
        f"Open loop ({'the trace' if options.trace else options.arrival or 'poisson'} arrivals); "
        "TTFT from the scheduled send. "
        + (f"Goodput: ok requests with {' and '.join(targets)} per second of the cell. " if has_slo else "")
        + "Client: "
        + "; ".join(sorted({c.client_decision for c in cells if c.client_decision}))
        + "."
    )
    return [Table("open_loop", "Open-loop rates: achieved rate, requests in flight, goodput", cols, rows, note)]


def side_by_side_note(options: RunOptions) -> list[str]:
    """The report's note for a run whose configs ran at the same time (``--parallel-configs``)."""
    if not options.parallel_configs:
        return []
    return [
        "Configs ran side by side (--parallel-configs), each on its own server: their comparison shares the time "
        "of day, not the hardware."
    ]

"""Aggregate tok/s and decode tok/s side by side, so a long prefill (TTFT) is not read as slow decoding.

* aggregate tok/s: sum of ``usage.completion_tokens`` / (last stream end - first send) of a cell
  (``CellSummary.output_tok_s``), prefill and queueing included;
* decode tok/s: one stream's rate after its first token, ``1 / tpot_p50_s``
  (:func:`specscope.stats.groups.metric_value`, ``decode_tok_s``), beside the median TTFT (s).

Means over the ok repeats of each config x workload x N (:func:`specscope.stats.descriptive.group_mean`).
"""

from __future__ import annotations

from specscope.report import units
from specscope.report.document import Cell, Table
from specscope.report.tables import RunCells, config_grid
from specscope.stats.descriptive import group_mean

__all__ = ["rates_table"]


def _side_by_side(rc: RunCells, config: str, workload: str, n: int) -> Cell:
    cells = rc.ok(config, workload, n)
    agg = group_mean(cells, "output_tok_s")
    dec = group_mean(cells, "decode_tok_s")
    ttft = group_mean(cells, "ttft_p50_s")
    if agg is None:
        return units.missing()
    text = f"{units.tok_s(agg).text} / {units.tok_s(dec).text} (TTFT {units.seconds(ttft).text})"
    return Cell(agg, text)


def rates_table(rc: RunCells) -> Table | None:
    """One row per workload x N, one column per config: ``aggregate / decode tok/s (TTFT p50)``."""
    if not rc.cells:
        return None
    note = (
        "Aggregate = all tokens / (last end - first send), prefill included; decode = 1 / median time per "
        "output token after the first. Mean over ok repeats."
    )
    title = "Aggregate tok/s / decode tok/s per config (TTFT p50 in brackets)"
    return config_grid(rc, "rates", title, "tok/s", _side_by_side, note)

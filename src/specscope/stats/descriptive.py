"""The descriptive figures of a group's cells that the report's tables and charts show (issue 33: computed here,
rendered there; the screens never take a mean, a median or a percentile themselves).

The caller picks the cells (a group's ok repeats: :func:`specscope.stats.groups.group_cells`, or the report's
``RunCells.ok``); these functions say what a figure over them is:

* :func:`group_mean`: the mean over the cells of one figure per cell (:func:`specscope.stats.timeline.mean`, absent
  figures left out). ``figure`` names a cell figure in its own unit: one of
  :data:`specscope.stats.groups.METRICS` is read by :func:`~specscope.stats.groups.metric_value` (so
  ``decode_tok_s`` is ``1 / tpot_p50_s``, tokens/s), any other name is the ``CellSummary`` field of that name
  (``ttfo_p50_s`` s, ``running_concurrency`` requests, ``prompt_tokens_mean`` tokens...).
* :func:`mean_ratio`: the ratio of two groups' means of one figure (two runs side by side: not a paired speedup).
* :func:`pooled_median`: the median over every stream of the cells of a per-stream field (``stream_tok_s``,
  ``decode_tok_s``: tuples of tokens/s), by :func:`statistics.median`.
* :func:`mean_stream_quantiles` / :func:`pooled_stream_quantiles`: the per-stream tok/s quantiles
  :data:`STREAM_QUANTILES_PCT` (min, p05, p50, p95, max; numpy's linear percentiles, as
  :func:`specscope.stats.timeline.percentile`) taken per cell then averaged over the cells, or over the cells'
  streams pooled.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

import numpy as np

from specscope.stats.groups import METRICS, metric_value
from specscope.stats.summary import CellSummary
from specscope.stats.timeline import mean

__all__ = [
    "STREAM_QUANTILES_PCT",
    "group_mean",
    "mean_ratio",
    "mean_stream_quantiles",
    "pooled_median",
    "pooled_stream_quantiles",
]

#: the per-stream quantiles a report shows, in percent: min, p05, p50, p95, max
STREAM_QUANTILES_PCT = (0, 5, 50, 95, 100)


def _figure(cell: CellSummary, figure: str) -> float | None:
    if figure in METRICS:
        return metric_value(cell, figure)
    value = getattr(cell, figure)
    return None if value is None else float(value)


def group_mean(cells: Iterable[CellSummary], figure: str) -> float | None:
    """The mean of ``figure`` (in its own unit) over ``cells``, the cells without it left out; None when none has
    it or there are no cells."""
    return mean([_figure(c, figure) for c in cells])


def mean_ratio(cells: Iterable[CellSummary], reference: Iterable[CellSummary], figure: str) -> float | None:
    """``group_mean(cells) / group_mean(reference)`` (a plain ratio of means, x); None when either mean is absent
    or the reference's is 0."""
    mine, ref = group_mean(cells, figure), group_mean(reference, figure)
    return None if mine is None or not ref else mine / ref


def pooled_median(cells: Iterable[CellSummary], field: str) -> float | None:
    """The median over every stream of ``cells`` of a per-stream tuple field (its unit), None without streams."""
    values = [v for c in cells for v in getattr(c, field)]
    return statistics.median(values) if values else None


def mean_stream_quantiles(cells: Iterable[CellSummary]) -> tuple[float, ...] | None:
    """Each cell's per-stream tok/s quantiles (:data:`STREAM_QUANTILES_PCT`), averaged over the cells with streams
    (tokens/s, 5 values ascending); None when no cell has a stream rate."""
    per_cell = [np.percentile(c.stream_tok_s, STREAM_QUANTILES_PCT) for c in cells if c.stream_tok_s]
    if not per_cell:
        return None
    return tuple(float(v) for v in np.mean(per_cell, axis=0))


def pooled_stream_quantiles(cells: Iterable[CellSummary]) -> tuple[float, ...] | None:
    """The per-stream tok/s quantiles (:data:`STREAM_QUANTILES_PCT`) over every stream of ``cells`` pooled
    (tokens/s, 5 values ascending); None without streams."""
    pooled = [v for c in cells for v in c.stream_tok_s]
    if not pooled:
        return None
    return tuple(float(x) for x in np.percentile(pooled, STREAM_QUANTILES_PCT))

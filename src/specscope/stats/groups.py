"""Index a run's cells by (config, workload, requested concurrency) and pull one figure out of them.

A run holds one :class:`~specscope.stats.summary.CellSummary` per config x workload x concurrency x
repeat. Every statistic in ``specscope.stats`` works on the repeats of one *group* (the first three
keys), so this module is the one place that decides which cells count:

* ``status == "ok"`` cells are used;
* ``degraded`` cells are used only when the caller asks (``include_degraded=True``);
* ``failed`` and ``server_crash`` cells never contribute a number.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from specscope.errors import require_one_of
from specscope.stats.summary import CellSummary

__all__ = ["GroupKey", "METRICS", "group_cells", "metric_value", "usable", "configs_of", "workloads_of", "levels_of"]


@dataclass(frozen=True, order=True)
class GroupKey:
    """The repeats of one config x workload x requested concurrency."""

    config: str
    workload: str
    concurrency: int


# Figures a speedup / chart can be computed on; all are "higher is better" rates in tokens/s except
# the TTFT ones (seconds, lower is better), which are only charted.
METRICS = ("output_tok_s", "decode_tok_s", "ttft_p50_s", "ttft_p95_s", "achieved_concurrency")


def metric_value(cell: CellSummary, metric: str) -> float | None:
    """One figure of a cell, or None when the cell does not have it.

    ``decode_tok_s`` is ``1 / tpot_p50_s`` (tokens/s of one stream after its first token), the rate a
    bandwidth model predicts; the others are the CellSummary fields of the same name.

    Raises:
        ConfigError: ``metric`` is not one of :data:`METRICS`.
    """
    require_one_of(metric, METRICS, f"unknown metric {metric!r}", fix="pick one of the listed metrics")
    if metric == "decode_tok_s":
        tpot_s = cell.tpot_p50_s
        return None if not tpot_s or tpot_s <= 0 else 1.0 / tpot_s
    value = getattr(cell, metric)
    return None if value is None else float(value)


def usable(cell: CellSummary, include_degraded: bool = False) -> bool:
    """Whether a cell's numbers may enter a statistic (see the module docstring)."""
    if cell.status == "ok":
        return True
    return include_degraded and cell.status == "degraded"


def group_cells(
    summaries: Iterable[CellSummary], include_degraded: bool = False
) -> dict[GroupKey, dict[int, CellSummary]]:
    """Usable cells by group, then by repeat index (a run stores at most one cell per key and repeat)."""
    out: dict[GroupKey, dict[int, CellSummary]] = defaultdict(dict)
    for cell in summaries:
        if usable(cell, include_degraded):
            out[GroupKey(cell.config, cell.workload, cell.concurrency)][cell.repeat] = cell
    return dict(out)


def configs_of(summaries: Iterable[CellSummary]) -> list[str]:
    """Config names in first-seen order."""
    return list(dict.fromkeys(c.config for c in summaries))


def workloads_of(summaries: Iterable[CellSummary]) -> list[str]:
    """Workload names in first-seen order."""
    return list(dict.fromkeys(c.workload for c in summaries))


def levels_of(summaries: Iterable[CellSummary]) -> list[int]:
    """Requested concurrency levels, ascending."""
    return sorted({c.concurrency for c in summaries})

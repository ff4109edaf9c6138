"""Index a run's cells by (config, workload, requested concurrency) and pull one figure out of them.

A run holds one :class:`~specscope.stats.summary.CellSummary` per config x workload x concurrency x
repeat. Every statistic in ``specscope.stats`` works on the repeats of one *group* (the first three
keys), so this module is the one place that decides which cells count:

* ``status == "ok"`` cells are used;
* ``degraded`` cells are used only when the caller asks (``include_degraded=True``);
* ``failed`` and ``server_crash`` cells never contribute a number.

It is also the one home of two facts about a run's load that every judged figure depends on:

* **the speed figure** (:func:`speed_metric`): under a *closed loop* (``--max-concurrency``: N streams, each sends
  its next request when the last ends) the aggregate output tok/s is what the server delivers, so it is the speed.
  Under an *open loop* (``--request-rate``, ``--trace``: requests arrive on a schedule whatever the server does)
  the output tok/s is the offered load (a server 20 % faster delivers the same tokens per second, each sooner), so
  it says nothing about speed; the figure there is the decode rate ``1 / TPOT p50`` (``decode_tok_s``): the time
  per output token each stream saw at that load, which a faster server lowers. A cell is open loop when its client
  facts carry ``open_loop`` (``specscope.bench.openloop_cell``, ``trace_cell``: the scheduled rate and arrivals).
* **the level axis** (:func:`level_axis`): a cell's ``concurrency`` key is the requested N of a closed loop, but the
  position of the rate (1-based, in ``--request-rate`` order) of an open-loop rate run and 1 for a trace replay;
  :class:`LevelAxis` names a level as a person reads it (``N=2``, ``4 req/s``, ``the replay``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from specscope.errors import require_one_of
from specscope.records import OpenLoopFacts
from specscope.stats.summary import CellSummary

__all__ = [
    "GroupKey",
    "METRICS",
    "METRIC_WORDS",
    "LevelAxis",
    "group_cells",
    "metric_value",
    "open_loop",
    "speed_metric",
    "speed_value",
    "level_axis",
    "usable",
    "configs_of",
    "workloads_of",
    "levels_of",
]


@dataclass(frozen=True, order=True)
class GroupKey:
    """The repeats of one config x workload x requested concurrency."""

    config: str
    workload: str
    concurrency: int


# Figures a speedup / chart can be computed on; all are "higher is better" rates in tokens/s except
# the TTFT ones (seconds, lower is better), which are only charted.
METRICS = ("output_tok_s", "decode_tok_s", "ttft_p50_s", "ttft_p95_s", "achieved_concurrency")
#: how a report names the figure a speedup was judged on
METRIC_WORDS = {
    "output_tok_s": "aggregate tok/s",
    "decode_tok_s": "decode tok/s = 1 / median TPOT",
}


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


def open_loop(cell: CellSummary) -> OpenLoopFacts | None:
    """The open-loop facts of a cell (``rate_per_s``, ``arrival``: ``poisson``, ``constant`` or ``trace``), None for a
    closed-loop cell (module docstring)."""
    return cell.client.open_loop


def speed_metric(cells: Iterable[CellSummary]) -> str:
    """The figure that means speed for these cells' load (module docstring): ``decode_tok_s`` when any is open loop,
    else ``output_tok_s``."""
    return "decode_tok_s" if any(open_loop(c) is not None for c in cells) else "output_tok_s"


def speed_value(cell: CellSummary) -> float | None:
    """A cell's speed figure for its own load (:func:`speed_metric`), None when it has none."""
    return metric_value(cell, speed_metric([cell]))


@dataclass(frozen=True)
class LevelAxis:
    """What a run's levels are (module docstring): ``kind`` ``concurrency`` (requested streams), ``rate`` (``rates``:
    level -> scheduled requests per second) or ``trace`` (a replay on the trace's own clock)."""

    kind: Literal["concurrency", "rate", "trace"] = "concurrency"
    rates: tuple[tuple[int, float], ...] = ()

    @property
    def open(self) -> bool:
        """True for an open loop (rate or trace)."""
        return self.kind != "concurrency"

    def rate(self, level: int) -> float | None:
        """The scheduled rate of ``level`` (requests/s), None off a rate axis."""
        return dict(self.rates).get(level)

    @property
    def name(self) -> str:
        """The column a level goes in: ``N``, ``rate`` or ``load``."""
        return {"concurrency": "N", "rate": "rate", "trace": "load"}[self.kind]

    @property
    def unit(self) -> str:
        """The unit of that column: ``streams``, ``req/s`` or ``""``."""
        return {"concurrency": "streams", "rate": "req/s", "trace": ""}[self.kind]

    def value(self, level: int) -> str:
        """A level as its column shows it: ``2`` (streams), ``4`` (req/s), ``replay``."""
        if self.kind == "trace":
            return "replay"
        r = self.rate(level)
        return f"{level}" if self.kind == "concurrency" or r is None else f"{r:g}"

    def label(self, level: int) -> str:
        """A level in a sentence: ``N=2``, ``4 req/s``, ``the replay`` (of a trace)."""
        if self.kind == "trace":
            return "the replay"
        r = self.rate(level)
        if self.kind == "rate":
            return f"{r:g} req/s" if r is not None else f"rate #{level}"
        return f"N={level}"

    def labels(self, levels: Iterable[int]) -> str:
        """Several levels in a sentence: ``N=1,2,4``, ``4,8 req/s``, ``the replay``."""
        values = [self.value(n) for n in levels]
        if self.kind == "trace":
            return "the replay"
        return f"N={','.join(values)}" if self.kind == "concurrency" else f"{','.join(values)} req/s"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rates": [{"level": lev, "rate_per_s": r} for lev, r in self.rates]}


def level_axis(cells: Iterable[CellSummary]) -> LevelAxis:
    """The level axis of a run's cells (module docstring): a trace replay when an open-loop cell's arrivals are the
    trace's, a rate axis when they are scheduled rates, else concurrency."""
    rates: dict[int, float] = {}
    trace = False
    for c in cells:
        facts = open_loop(c)
        if facts is None:
            continue
        if facts.arrival == "trace":
            trace = True
        elif facts.rate_per_s is not None:
            rates.setdefault(c.concurrency, facts.rate_per_s)
    if trace:
        return LevelAxis("trace")
    if rates:
        return LevelAxis("rate", tuple(sorted(rates.items())))
    return LevelAxis()

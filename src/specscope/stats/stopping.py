"""When a comparison needs no more rounds: the adaptive design's stopping rule (``bench --target-ci``), decided here
beside the verdict rule it reads, and applied by :mod:`specscope.bench.adaptive` (its module docstring has the
design and the measurements behind it).

* **decided**: the verdict is ``faster``, ``slower``, ``equivalent`` or ``not_engaged`` (:data:`DECIDED`); or the
  comparison is futile (:func:`futile`); or its interval's relative half-width
  (:func:`specscope.stats.speedup.relative_half_width`, ``sqrt(high / low) - 1``) is at most ``target_ci`` and the
  interval lies inside ``1 +- 2 * min_effect``.
* **futile**: over at least :data:`FUTILITY_MIN_ROUNDS` rounds, the interval projected to ``max_repeats`` rounds
  (:func:`specscope.stats.speedup.projected_half_width`, log scale) around the current speedup would neither exclude
  1 with an effect beyond ``min_effect`` nor lie within ``1 +- min_effect``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specscope.stats.speedup import projected_half_width, relative_half_width
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison

__all__ = ["DECIDED", "FUTILITY_MIN_ROUNDS", "DesignCost", "decided", "design_cost", "futile"]

DECIDED = frozenset({"faster", "slower", "equivalent", "not_engaged"})


FUTILITY_MIN_ROUNDS = 3  # the futility clause judges a spread from at least this many paired rounds


def futile(c: Comparison, max_repeats: int, min_effect: float) -> bool:
    """True when ``max_repeats`` rounds could not decide ``c`` if its centre and spread stayed as they are: over
    at least :data:`FUTILITY_MIN_ROUNDS` rounds, the interval projected to ``max_repeats``
    (:func:`specscope.stats.speedup.projected_half_width`, log scale) around the current speedup would neither
    exclude 1 with an effect beyond ``min_effect`` (``faster`` / ``slower``) nor lie within ``1 +- min_effect``
    (``equivalent``)."""
    if c.speedup is None or c.speedup <= 0 or c.rounds < FUTILITY_MIN_ROUNDS or c.rounds >= max_repeats:
        return False
    h = projected_half_width(c.low, c.high, c.rounds, max_repeats)
    if h is None:
        return False
    centre, bound = abs(math.log(c.speedup)), math.log1p(min_effect)
    could_differ = centre > h and centre > bound
    could_be_equivalent = centre + h <= bound
    return not (could_differ or could_be_equivalent)


def decided(c: Comparison, target_ci: float, min_effect: float, max_repeats: int | None = None) -> bool:
    """True when comparison ``c`` needs no more rounds (module docstring)."""
    if c.verdict in DECIDED:
        return True
    if max_repeats is not None and futile(c, max_repeats, min_effect):
        return True
    half = relative_half_width(c.low, c.high)
    if half is None or c.low is None or c.high is None:
        return False
    return half <= target_ci and 1.0 - 2.0 * min_effect <= c.low and c.high <= 1.0 + 2.0 * min_effect


@dataclass(frozen=True)
class DesignCost:
    """What an adaptive run's cells cost against the fixed design.

    Attributes:
        spent_s: the cell time the run spent, summed over the cells with both instants (s).
        fixed_s: the fixed design's estimate: every config x workload x level group ``max_repeats`` rounds, each at
            its config's mean time per cell (s; a config with no timed cell counts 0).
    """

    spent_s: float
    fixed_s: float


def design_cost(cells: Sequence[CellSummary], max_repeats: int) -> DesignCost:
    """The cell time an adaptive run spent (``ended_at_s - started_at_s`` of each timed cell) and the fixed design's
    estimate for the same groups (:class:`DesignCost`)."""
    timed = [c for c in cells if c.started_at_s is not None and c.ended_at_s is not None]
    spent_s = sum((c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in timed)
    per_config: dict[str, list[float]] = {}
    for c in timed:
        per_config.setdefault(c.config, []).append((c.ended_at_s or 0.0) - (c.started_at_s or 0.0))
    groups = {(c.config, c.workload, c.concurrency) for c in cells}
    fixed_s = sum(max_repeats * float(np.mean(per_config.get(g[0]) or [0.0])) for g in groups)
    return DesignCost(spent_s, fixed_s)

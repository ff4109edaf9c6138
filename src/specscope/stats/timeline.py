"""Percentiles and the mean of present values (achieved concurrency lives in ``specscope.client.runner``, the
coefficient of variation in ``specscope.stats.speedup``).

Percentiles are numpy's (``method="linear"``, the same as ``numpy.percentile``'s default), never home-made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["percentile", "mean", "time_left_s"]


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) of ``values`` by numpy's linear interpolation; None when empty."""
    if len(values) == 0:
        return None
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def mean(values: Sequence[float | None]) -> float | None:
    """The arithmetic mean of the values that are present (None left out); None when none is. The one mean the
    report's tables and charts take over a group's cells."""
    present = [float(v) for v in values if v is not None]
    return float(np.mean(present)) if present else None


def time_left_s(times_s: Mapping[str, Sequence[float]], left: Mapping[str, int]) -> float | None:
    """Seconds the cells ``left`` (count per config) will take: each at its config's :func:`mean` measured time per
    cell in ``times_s`` (s), a config not measured yet at the mean over every measured cell; None before any cell
    was measured (a bench run's ETA, :mod:`specscope.cli.progress`)."""
    overall = mean([t for ts in times_s.values() for t in ts])
    if overall is None:
        return None
    total_s = 0.0
    for config, n in left.items():
        own = mean(times_s.get(config) or [])
        total_s += n * (overall if own is None else own)
    return total_s

"""Summary statistics: percentiles and spread (achieved concurrency lives in ``specscope.client.runner``).

Percentiles are numpy's (``method="linear"``, the same as ``numpy.percentile``'s default), never home-made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["percentile", "coefficient_of_variation"]


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) of ``values`` by numpy's linear interpolation; None when empty."""
    if len(values) == 0:
        return None
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof=1) over the mean; None with fewer than two values or a zero mean."""
    if len(values) < 2:
        return None
    a = np.asarray(values, dtype=np.float64)
    m = float(a.mean())
    if m == 0:
        return None
    return float(a.std(ddof=1) / m)

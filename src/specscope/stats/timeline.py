"""Percentiles (achieved concurrency lives in ``specscope.client.runner``, the coefficient of variation in
``specscope.stats.speedup``).

Percentiles are numpy's (``method="linear"``, the same as ``numpy.percentile``'s default), never home-made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["percentile"]


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) of ``values`` by numpy's linear interpolation; None when empty."""
    if len(values) == 0:
        return None
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))

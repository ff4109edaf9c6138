"""Statistics over stream instants: achieved concurrency, percentiles, spread.

Percentiles are numpy's (``method="linear"``, the same as ``numpy.percentile``'s default), never home-made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["achieved_concurrency", "percentile", "coefficient_of_variation"]


def achieved_concurrency(intervals_ns: Sequence[tuple[int, int]]) -> float | None:
    """Time-weighted mean number of requests in flight over [first start, last end].

    Args:
        intervals_ns: (start_ns, end_ns) per request, ``perf_counter_ns`` instants. Use the wire send
            instant as start (not the instant the user scheduled it; case C16), and the stream end.

    Returns:
        The integral of the in-flight count divided by the span, which equals
        sum(end - start) / (max end - min start). ``None`` for no intervals or a zero span.

    Source: the definition in shared case C16 (guidellm issue #487), Little's law check included there.
    """
    if not intervals_ns:
        return None
    a = np.asarray(intervals_ns, dtype=np.int64)  # [n, 2] ns
    span_ns = int(a[:, 1].max() - a[:, 0].min())
    if span_ns <= 0:
        return None
    busy_ns = int((a[:, 1] - a[:, 0]).sum())
    return busy_ns / span_ns


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

"""Achieved concurrency: the time-weighted number of streams in flight (case C16).

Derived at read time from the stored per-stream instants (``send_ns``, ``intended_ns``, ``end_ns``).
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.records import StreamRecord

__all__ = ["achieved_concurrency", "client_view_concurrency", "in_flight"]


def in_flight(intervals: Sequence[tuple[float, float]]) -> float:
    """Time-weighted mean count of open intervals over [min start, max end] = sum(lengths) / span: the one
    definition of achieved concurrency, for measured streams and for another tool's per-request start instants and
    latencies (:mod:`specscope.stats.imported`). 0.0 for no intervals."""
    if not intervals:
        return 0.0
    start = min(s for s, _ in intervals)
    end = max(e for _, e in intervals)
    if end <= start:
        return float(len(intervals))
    return sum(e - s for s, e in intervals) / (end - start)


def achieved_concurrency(streams: Sequence[StreamRecord]) -> float:
    """Time-weighted number of streams in flight between send and end, over [first send, last end].

    The integral of the in-flight count divided by the span equals sum(end - send) / (last end - first
    send). This is the load the server saw (case C16); queueing inside the client before ``send_ns``
    is not counted. 0.0 for no streams.
    """
    return in_flight([(s.send_ns, s.end_ns) for s in streams])


def client_view_concurrency(streams: Sequence[StreamRecord]) -> float:
    """Like :func:`achieved_concurrency` but from ``intended_ns`` (the client's bookkeeping; never label it
    "concurrency": it counts client-side queueing too, case C16)."""
    return in_flight([(s.intended_ns, s.end_ns) for s in streams])

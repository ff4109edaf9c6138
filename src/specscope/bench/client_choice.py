"""How many client processes a fixed-concurrency cell gets, decided from what the client measured, not assumed.

``ClientSettings(workers="auto")`` alone rests on an assumed event rate per stream
(:data:`specscope.client.workers.ASSUMED_STREAM_EVENTS_PER_S`). In a bench run each config's earlier cells
measured two things that replace the assumption:

- the SSE event rate per stream (content + reasoning chunks / the cell's span, events/s per stream);
- whether the client kept up (its self-check: send / loop / read lag p99 against the thresholds).

The next cell's process count W is ``auto_workers(N, expected_events_per_s = measured rate x N)``; if the last cell
of that config fell behind with W processes, at least ``W + 1``. The first cell of a config, with nothing measured
yet, uses the assumed rule and says so. The decision is stored with the cell (``client["client_decision"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from specscope.records import StreamRecord

__all__ = ["ClientHistory", "choose_settings"]


@dataclass
class ClientHistory:
    """What one config's earlier cells measured: events/s per stream, and the last cell's lag verdict.

    Attributes:
        events_per_stream_s: the last measured SSE events per second per stream (None before the first cell).
        workers: the client processes of the last cell.
        limited: the last cell's CLIENT_LIMITED reason, if the client fell behind.
    """

    events_per_stream_s: float | None = None
    workers: int = 1
    limited: str | None = None

    def record(self, streams: Sequence[StreamRecord], span_ns: int, workers: int, limited: str | None) -> None:
        """Take the measurements of a finished cell (its streams and its span, ns)."""
        events = sum(s.content_chunks + getattr(s, "reasoning_chunks", 0) for s in streams)
        if streams and span_ns > 0:
            self.events_per_stream_s = events / (span_ns / 1e9) / len(streams)
        self.workers, self.limited = workers, limited


def choose_settings(settings: Any, concurrency: int, n_requests: int, history: ClientHistory) -> tuple[Any, str]:
    """The settings of the next cell and the sentence that says why (stored with the cell).

    Args:
        settings: the run's :class:`~specscope.client.settings.ClientSettings`; an explicit int ``workers`` is kept.
        concurrency: the cell's N.
        n_requests: requests in the cell.
        history: the config's :class:`ClientHistory`.
    """
    from specscope.client import auto_workers

    if settings.workers != "auto":
        return settings, f"{settings.workers} client process(es), as set"
    if history.events_per_stream_s is None:
        w = auto_workers(concurrency, n_requests)
        why = f"{w} client process(es): nothing measured yet, assumed per-stream event rate"
        return settings.model_copy(update={"workers": w}), why
    rate = history.events_per_stream_s * concurrency
    w = auto_workers(concurrency, n_requests, expected_events_per_s=rate)
    why = f"{w} client process(es) for a measured {rate:,.0f} events/s ({history.events_per_stream_s:,.0f} per stream)"
    if history.limited is not None:
        w = max(w, min(history.workers + 1, concurrency, n_requests))
        why += f"; the last cell fell behind with {history.workers} ({history.limited}): {w}"
    return settings.model_copy(update={"workers": w}), why

"""What the server really ran: running / waiting figures of a cell from its sampled gauges, and per-stream rates.

Sources: the cell's :class:`~specscope.records.GaugeSample` readings (the running / waiting gauges each adapter
declares, ``specscope.adapters.<engine>.metrics`` rows of role ``gauge``, summed over engines, sampled a few times a
second by ``specscope.client.gauges``) and the streams' wire instants.

The window: a fixed-concurrency cell offers its requested load N only while all N requests are out, from the last
send to the first end (after that the cell drains). The figures are time-weighted over the samples in that window
less :data:`GUARD_NS` at each end (a request sent just before the last send may not have reached the server yet,
and the first response ends on the server before the client sees it), each sample holding until the next one and the
last one until the window ends; a window with fewer than
:data:`MIN_SAMPLES` samples (streams too short for the sampling rate) uses the whole cell, first send to last end,
and says so (``window="cell"``). An open loop (a request rate, a trace replay) requests no N: its window is the whole
cell, and it is never ``CAPACITY_LIMITED``.

Queueing: the server's queue-time histogram (observed per finished request; the adapters' ``queue_sum`` /
``queue_count`` rows) read at the first and last sample gives the cell's mean queue time (:func:`queue_mean_s`); the
queue wait each response reported (``StreamRecord.queue_s``, read by an adapter's ``per_response.queue_s`` from its
``QUEUE_FIELD``) gives its median over the cell's streams (:func:`queue_p50_s`); a server whose adapter declares
neither reports neither.

A cell whose ``running_concurrency`` stays more than :data:`SHORT_BY` below the requested N while requests wait
(``waiting_mean`` at least :data:`WAITING_AT_LEAST`) is ``CAPACITY_LIMITED(ceiling=C, requested=N)``, C being the
most requests it ever ran at once (the seed card's DFlash finding: 64 requested, stuck at 22, 43 waiting). The code
goes to the cell's ``reasons`` (``specscope.stats.cells``) without changing its status: it is a correct measurement
of a limited server, so its speedups are computed like any ok cell's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from specscope.records import CellResult, GaugeSample, StreamRecord
from specscope.stats.timeline import percentile

__all__ = [
    "client_limited_reason",
    "Capacity",
    "capacity",
    "capacity_fields",
    "limited_reasons",
    "decode_tok_s",
    "queue_mean_s",
    "queue_p50_s",
    "ttfo_s",
    "MIN_SAMPLES",
    "GUARD_NS",
    "SHORT_BY",
    "WAITING_AT_LEAST",
    "LIMITED_CODE",
]

MIN_SAMPLES = 3
GUARD_NS = 20_000_000  # 20 ms
SHORT_BY = 0.5  # requests: running this far below the requested level counts as not reaching it
WAITING_AT_LEAST = 0.5  # requests: a mean queue this long counts as "requests wait"
LIMITED_CODE = "CAPACITY_LIMITED"  # the reason code, followed by (ceiling=C, requested=N)


@dataclass(frozen=True)
class Capacity:
    """A cell's server-side concurrency from its gauges.

    Attributes:
        running_concurrency: time-weighted mean of the running gauge over the window (requests).
        waiting_mean: time-weighted mean of the waiting gauge over the window (requests).
        running_max: the most requests running in any sample of the cell (requests): the ceiling reached.
        waiting_max: the most requests waiting in any sample of the cell (requests).
        samples: gauge readings in the window.
        window: ``"offered"`` (last send to first end, all N requests out) or ``"cell"`` (first send to last end).
        limited: ``CAPACITY_LIMITED(ceiling=C, requested=N)`` or None.
    """

    running_concurrency: float
    waiting_mean: float
    running_max: float
    waiting_max: float
    samples: int
    window: Literal["offered", "cell"]
    limited: str | None


def _columns(samples: Sequence[GaugeSample]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The samples' instants (ns, int64), running and waiting (float64), ordered by instant (a stable sort: equal
    instants keep their stored order). One pass over the samples, the rest vectorised: a cell may hold hundreds of
    thousands of samples."""
    n = len(samples)
    t = np.fromiter((g.t_ns for g in samples), dtype=np.int64, count=n)
    running = np.fromiter((g.running for g in samples), dtype=np.float64, count=n)
    waiting = np.fromiter((g.waiting for g in samples), dtype=np.float64, count=n)
    order = np.argsort(t, kind="stable")
    return t[order], running[order], waiting[order]


def _weighted(t: np.ndarray, running: np.ndarray, waiting: np.ndarray, end_ns: int) -> tuple[float, float]:
    """Time-weighted means of running and waiting over samples ordered by instant ``t``; each sample holds until the
    next, the last until ``end_ns``."""
    nxt = np.append(t[1:], max(end_ns, int(t[-1])))
    w = (nxt - t).astype(np.float64)
    total = float(w.sum())
    if total <= 0:  # all samples at one instant
        return float(running.mean()), float(waiting.mean())
    return float(w @ running) / total, float(w @ waiting) / total


def capacity(gauges: Sequence[GaugeSample], streams: Sequence[StreamRecord], requested: int | None) -> Capacity | None:
    """The cell's :class:`Capacity`, or None without gauge samples or streams that got an answer.

    Args:
        gauges: the cell's gauge samples (any order).
        streams: the cell's stream records; failed ones are left out of the window.
        requested: the cell's requested concurrency N (requests); None for an open loop (a request rate or a trace
            replay), which requests no concurrency: its window is the whole cell and it is never
            ``CAPACITY_LIMITED``.
    """
    timed = [s for s in streams if s.status != "failed"]
    if not gauges or not timed:
        return None
    t, running, waiting = _columns(gauges)
    lo, hi = max(s.send_ns for s in timed) + GUARD_NS, min(s.end_ns for s in timed) - GUARD_NS
    inside = (t >= lo) & (t <= hi) if requested is not None else np.zeros(len(t), dtype=bool)
    window: Literal["offered", "cell"] = "offered"
    if int(inside.sum()) < MIN_SAMPLES:
        lo, hi, window = min(s.send_ns for s in timed), max(s.end_ns for s in timed), "cell"
        inside = (t >= lo) & (t <= hi)
    count = int(inside.sum())
    if not count:
        return None
    run_mean, wait_mean = _weighted(t[inside], running[inside], waiting[inside], hi)
    running_max = float(running.max())
    limited = None
    if requested is not None and run_mean < requested - SHORT_BY and wait_mean >= WAITING_AT_LEAST:
        limited = f"{LIMITED_CODE}(ceiling={running_max:g}, requested={requested})"
    return Capacity(run_mean, wait_mean, running_max, float(waiting.max()), count, window, limited)


def queue_mean_s(gauges: Sequence[GaugeSample]) -> float | None:
    """Mean time a request of the cell waited for the server to schedule it (s): the delta of the queue-time
    histogram's sum over the delta of its count, between the first and the last sample that carry
    them (the sampler reads once before the cell's requests and once after they all ended); None without the
    histogram or with no request finished in between. Linear: the first and last such sample by instant (the
    earliest stored of equal instants, as a stable sort takes them)."""
    first = last = None
    for g in gauges:
        if g.queue_sum_s is None or g.queue_count is None:
            continue
        if first is None or g.t_ns < first.t_ns:
            first = g
        if last is None or g.t_ns >= last.t_ns:
            last = g
    if first is None or last is None or first is last:
        return None
    n = (last.queue_count or 0.0) - (first.queue_count or 0.0)
    return None if n <= 0 else ((last.queue_sum_s or 0.0) - (first.queue_sum_s or 0.0)) / n


def queue_p50_s(streams: Sequence[StreamRecord]) -> float | None:
    """Median of the queue waits the responses reported (``StreamRecord.queue_s``, s) over the streams that got an
    answer; None when none reported one."""
    return percentile([s.queue_s for s in streams if s.status != "failed" and s.queue_s is not None], 50)


def decode_tok_s(stream: StreamRecord) -> float | None:
    """The stream's own decode rate: (tokens - 1) / (last token - first token), tokens/s (the seed card's per-stream
    rate: no queueing, no prefill); None with fewer than 2 tokens, no usage or no token instants."""
    tpot_ns = stream.tpot_ns
    return None if tpot_ns is None or tpot_ns <= 0 else 1e9 / tpot_ns


def ttfo_s(stream: StreamRecord) -> float | None:
    """Time to first output: send to the first ``content`` token, after any reasoning (s); None without content."""
    return None if stream.first_content_ns is None else (stream.first_content_ns - stream.send_ns) / 1e9


#: CellSummary field -> Capacity attribute it is copied from.
_SUMMARY_FIELDS = {
    "running_concurrency": "running_concurrency",
    "waiting_mean": "waiting_mean",
    "running_max": "running_max",
    "waiting_max": "waiting_max",
    "gauge_samples": "samples",
    "gauge_window": "window",
    "capacity_limited": "limited",
}


def capacity_fields(result: CellResult) -> dict[str, Any]:
    """The :class:`~specscope.stats.summary.CellSummary` fields of this module for one cell (keyword arguments)."""
    timed = [s for s in result.streams if s.status != "failed"]
    rates = sorted(r for r in (decode_tok_s(s) for s in timed) if r is not None)
    ttfos = [t for t in (ttfo_s(s) for s in timed) if t is not None]
    fields: dict[str, Any] = {"decode_tok_s": tuple(rates), "ttfo_p50_s": percentile(ttfos, 50)}
    fields["queue_mean_s"] = queue_mean_s(result.gauges)
    fields["queue_p50_s"] = queue_p50_s(result.streams)
    cap = capacity(result.gauges, result.streams, None if result.client.open_loop else result.key.concurrency)
    if cap is not None:
        fields.update({summary_field: getattr(cap, name) for summary_field, name in _SUMMARY_FIELDS.items()})
    return fields


def limited_reasons(fields: dict[str, Any]) -> tuple[str, ...]:
    """The reason codes of :func:`capacity_fields`' result: ``(CAPACITY_LIMITED(ceiling=C, requested=N),)`` or ()."""
    limited = fields.get("capacity_limited")
    return (limited,) if limited else ()


def client_limited_reason(reason: str, fields: dict[str, Any], level: int | None) -> str:
    """A ``CLIENT_LIMITED(...)`` reason with what the server was doing meanwhile, from its gauges (issue 35): when no
    request waited and fewer than the ``level`` requested ran, the server was idle while the client could not send
    (``CLIENT_LIMITED(loop lag p99 12 ms > 10 ms; server idle meanwhile: running at most 3 of N=4, waiting 0)``);
    otherwise the gauges alone (``server running at most 4, waiting at most 2``); unchanged without gauges.

    Args:
        reason: the client self-check's reason (:mod:`specscope.client.checks`).
        fields: :func:`capacity_fields` of the cell (``running_max`` / ``waiting_max``: requests).
        level: the requested concurrency N (None for an open loop).
    """
    running, waiting = fields.get("running_max"), fields.get("waiting_max")
    if not reason.startswith("CLIENT_LIMITED(") or running is None or waiting is None:
        return reason
    if level is not None and waiting == 0 and running < level:
        said = f"server idle meanwhile: running at most {running:g} of N={level}, waiting 0"
    else:
        said = f"server running at most {running:g}, waiting at most {waiting:g}"
    return f"{reason[:-1]}; {said})"

"""Open-loop load: requests sent at a constant or Poisson rate, whatever the server's pace, and a rate sweep.

Each request's ``intended_ns`` is its instant on the schedule, not when the client managed to send it, so
latency measured from ``intended_ns`` (``first_token_ns - intended_ns``) includes any time the request waited
in the client (a late timer, a full connection pool): no coordinated omission (Gil Tene, "How NOT to measure
latency", 2015; the open-loop arrival modes of vLLM's ``benchmarks/benchmark_serving.py``). ``ttft_ns``
(from ``send_ns``) stays the server-facing figure; the gap between the two is the send lag, checked by
:class:`~specscope.client.checks.ClientCheck`.

Schedules: ``constant`` sends request i at ``i / rate``; ``poisson`` draws exponential gaps with mean
``1 / rate`` from ``numpy.random.default_rng(seed)`` (first request at 0), so a seed fixes the schedule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any, Literal

import numpy as np

from specscope.client.checks import CheckThresholds, ClientCheck, ClientMonitor
from specscope.client.parse import RawCapture, parse_capture
from specscope.client.polling import busy_polling
from specscope.client.settings import ClientSettings
from specscope.client.stream import (
    api_url,
    capture_stream,
    make_session,
    max_tokens_of,
    prepare_body,
    request_headers,
)
from specscope.errors import ConfigError
from specscope.records import StreamRecord

__all__ = [
    "Arrival",
    "arrival_offsets_ns",
    "capture_open_loop",
    "OpenLoopSchedule",
    "run_open_loop",
    "run_open_loop_checked",
    "SweepPoint",
    "run_rate_sweep",
]

Arrival = Literal["constant", "poisson"]
_LEAD_NS = 2_000_000  # the schedule starts 2 ms after the call, once the session exists
# The dispatcher's timer sleep ends this long before each instant and it yields until the instant: a sleeping loop
# wakes up to 1 ms early (libuv's cached clock) and on a loaded 2-core machine 2-3 ms late (CI, 2026-12-05: send
# error p99 2.6 ms over 200 requests 20 ms apart); polling the last 2 ms costs <= 10 % of a core at 50 requests/s.
_SPIN_NS = 2_000_000


def arrival_offsets_ns(n: int, rate_per_s: float, arrival: Arrival = "constant", seed: int = 0) -> np.ndarray:
    """Send instants of ``n`` requests relative to the first; ns.

    Args:
        n: number of requests.
        rate_per_s: mean request rate; requests per second (> 0).
        arrival: ``constant`` (even spacing) or ``poisson`` (exponential gaps, mean ``1 / rate``).
        seed: the Poisson generator's seed (``numpy.random.default_rng``).

    Returns:
        int64 array, shape (n,), starting at 0, non-decreasing.

    Raises:
        ConfigError: ``rate_per_s`` <= 0, ``n`` < 0, or an unknown ``arrival``.
    """
    if not rate_per_s > 0 or n < 0:
        raise ConfigError(
            "an open-loop schedule needs a positive rate and request count",
            found=f"rate_per_s={rate_per_s}, n={n}",
            expected="rate_per_s > 0, n >= 0",
            fix="pass a positive --rate",
        )
    gap_ns = 1e9 / rate_per_s
    if arrival == "constant":
        out: np.ndarray = np.rint(np.arange(n) * gap_ns).astype(np.int64)  # (n,)
        return out
    if arrival == "poisson":
        gaps = np.random.default_rng(seed).exponential(gap_ns, size=max(n - 1, 0))  # (n-1,) ns
        return np.rint(np.concatenate(([0.0], np.cumsum(gaps)))[:n]).astype(np.int64)  # (n,)
    raise ConfigError(
        "unknown arrival process",
        found=arrival,
        expected="constant or poisson",
        fix="use --arrival constant or --arrival poisson",
    )


async def capture_open_loop(
    base_url: str, requests: Sequence[tuple[str, dict[str, Any]]], offsets_ns: np.ndarray, settings: ClientSettings
) -> list[RawCapture]:
    """Send request i at ``start + offsets_ns[i]`` (never waiting for earlier answers); raw captures in order.

    The dispatcher sleeps until 2 ms before each instant and yields until the instant has really passed (a timer
    wakes up to 1 ms early, or late on a loaded machine), then starts the request, never early; each capture's
    ``intended_ns`` is its scheduled instant. With ``settings.busy_poll`` the loop polls instead of sleeping
    (:mod:`specscope.client.polling`).
    """
    url = api_url(base_url, settings.endpoint)
    prepared = [
        (pid, prepare_body(body, settings.endpoint), max_tokens_of(body)) for pid, body in requests
    ]  # off the hot path
    hdrs = request_headers(settings)  # Authorization when --api-key / OPENAI_API_KEY is set
    tasks: list[asyncio.Task[RawCapture]] = []
    async with busy_polling(settings.busy_poll), make_session(settings) as session:
        loop = asyncio.get_running_loop()
        start_ns = perf_counter_ns() + _LEAD_NS
        for (pid, body, mt), off in zip(prepared, offsets_ns.tolist(), strict=True):
            target = start_ns + off
            wait = target - _SPIN_NS - perf_counter_ns()
            if wait > 0:
                await asyncio.sleep(wait / 1e9)
            while perf_counter_ns() < target:  # the last 2 ms polled: neither early nor a late timer wake-up
                await asyncio.sleep(0)
            coro = capture_stream(
                session,
                url,
                pid,
                body,
                max_tokens=mt,
                headers=hdrs,
                intended_ns=target,
                settings=settings,
            )
            tasks.append(loop.create_task(coro))
        return list(await asyncio.gather(*tasks))


@dataclass(frozen=True, slots=True)
class OpenLoopSchedule:
    """When an open-loop run sends its requests: mean ``rate_per_s`` (requests per second), the ``arrival`` process
    (``constant`` or ``poisson``) and the Poisson generator's ``seed`` (see :func:`arrival_offsets_ns`)."""

    rate_per_s: float
    arrival: Arrival = "constant"
    seed: int = 0

    def offsets_ns(self, n: int) -> np.ndarray:
        """Send instants of ``n`` requests relative to the first; ns, shape (n,). Raises ConfigError (bad rate)."""
        return arrival_offsets_ns(n, self.rate_per_s, self.arrival, self.seed)


Requests = Sequence[tuple[str, dict[str, Any]]]  # (prompt_id, chat-completions body) in sending order


async def run_open_loop(
    base_url: str, requests: Requests, schedule: OpenLoopSchedule, settings: ClientSettings | None = None
) -> list[StreamRecord]:
    """Open-loop run: ``requests`` sent on ``schedule`` to ``base_url`` (server root or OpenAI base URL), latency
    from the schedule.

    ``settings``: connection limit and timeouts; requests beyond the limit wait in the pool, which shows as send
    lag (``send_ns - intended_ns``) and stays in the latency from ``intended_ns``.

    Returns:
        One :class:`StreamRecord` per request, in order, ``intended_ns`` from the schedule.

    Raises:
        ConfigError: bad rate or arrival.
    """
    offsets = schedule.offsets_ns(len(requests))
    return [
        parse_capture(r) for r in await capture_open_loop(base_url, requests, offsets, settings or ClientSettings())
    ]


async def run_open_loop_checked(
    base_url: str,
    requests: Requests,
    schedule: OpenLoopSchedule,
    settings: ClientSettings | None = None,
    thresholds: CheckThresholds | None = None,
) -> tuple[list[StreamRecord], ClientCheck]:
    """:func:`run_open_loop` inside a :class:`ClientMonitor` (the client self-checks); returns ``(records, check)``."""
    settings = settings or ClientSettings()
    async with ClientMonitor(settings, thresholds) as mon:
        records = await run_open_loop(base_url, requests, schedule, settings)
    return records, mon.result(records)


@dataclass(frozen=True, slots=True)
class SweepPoint:
    """One rate of a sweep.

    Attributes:
        rate_per_s: the requested mean rate; requests per second.
        records: the streams, in sending order.
        check: the client self-check of this rate.
    """

    rate_per_s: float
    records: tuple[StreamRecord, ...]
    check: ClientCheck

    @property
    def sent_rate_per_s(self) -> float:
        """Requests actually sent per second: (n - 1) / (last send - first send); 0.0 below 2 requests."""
        if len(self.records) < 2:
            return 0.0
        sends = [r.send_ns for r in self.records]
        span = max(sends) - min(sends)
        return (len(sends) - 1) / (span / 1e9) if span > 0 else 0.0

    @property
    def output_tok_s(self) -> float:
        """Output tokens (usage) / (last end - first send); tokens per second."""
        toks = sum(r.output_tokens or 0 for r in self.records)
        if not self.records:
            return 0.0
        span = max(r.end_ns for r in self.records) - min(r.send_ns for r in self.records)
        return toks / (span / 1e9) if span > 0 else 0.0


async def run_rate_sweep(
    base_url: str,
    requests: Sequence[tuple[str, dict[str, Any]]],
    rates_per_s: Sequence[float],
    *,
    arrival: Arrival = "constant",
    seed: int = 0,
    settings: ClientSettings | None = None,
    thresholds: CheckThresholds | None = None,
) -> list[SweepPoint]:
    """Run the same requests open-loop at each rate in turn (one after the other, never overlapping).

    Returns:
        One :class:`SweepPoint` per rate, in the order given. A point whose ``check.limited_reason()`` is
        not ``None`` measured the client, not the server.

    Raises:
        ConfigError: an empty ``rates_per_s`` or a bad rate.
    """
    if not rates_per_s:
        raise ConfigError(
            "a rate sweep needs at least one rate",
            found="[]",
            expected="e.g. [1, 2, 4, 8]",
            fix="pass rates in requests per second",
        )
    out = []
    for rate in rates_per_s:
        schedule = OpenLoopSchedule(rate, arrival, seed)
        recs, check = await run_open_loop_checked(base_url, requests, schedule, settings, thresholds)
        out.append(SweepPoint(float(rate), tuple(recs), check))
    return out

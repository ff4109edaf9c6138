"""Open-loop bench cells (``bench --request-rate 1,2,4``): requests at a rate, whatever the server's pace.

A rate cell sends ``round(rate x rate_window_s)`` requests (2 to 64, the pack size) on a seeded Poisson or
constant schedule (:func:`specscope.client.openloop.arrival_offsets_ns`); its key's level is the rate's
1-based position in ``--request-rate`` and the cell's client facts carry ``open_loop`` (the rate, the arrivals,
the request count and the client's decision about its own processes). Goodput and the achieved rate are
derived when the run is read (:mod:`specscope.stats.goodput`).

The client's process count is decided from a measurement, not an assumed per-stream rate: the cell runs in
one process while the client's own send lag and loop lag (measured during the cell by
:class:`specscope.client.checks.ClientMonitor`) stay under their thresholds, and the cell's facts say so; a
cell where one process fell behind is flagged ``CLIENT_LIMITED`` with the measured lag (open-loop sending is
not split over processes: its schedule is one timeline).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specscope.config import BenchOptions
from specscope.records import CellKey, OpenLoopFacts, StreamRecord

__all__ = ["cell_label", "rate_of", "rate_requests", "run_rate_cell"]

MAX_REQUESTS = 64  # a pack's prompts: every request of a cell has its own prompt


def rate_of(options: BenchOptions, key: CellKey) -> float:
    """The request rate of an open-loop cell (requests per second): ``rates[level - 1]``."""
    return options.rates[key.concurrency - 1]


def cell_label(options: BenchOptions, key: CellKey) -> str:
    """How progress lines name a cell: ``base/prose/c2/r0`` at concurrency 2, ``base/prose/2req/s/r0`` at a request
    rate of 2 per second (an open loop: the level is the rate's position, not a concurrency), ``base/trace/replay/r0``
    for a trace replay (its own clock)."""
    if options.rates:
        level = f"{rate_of(options, key):g}req/s"
    elif options.trace:
        level = "replay"
    else:
        level = f"c{key.concurrency}"
    return f"{key.config}/{key.workload}/{level}/r{key.repeat}"


def rate_requests(options: BenchOptions, key: CellKey) -> int:
    """Requests of an open-loop cell: ``round(rate x rate_window_s)``, at least 2, at most ``MAX_REQUESTS``."""
    return max(2, min(MAX_REQUESTS, round(rate_of(options, key) * options.rate_window_s)))


async def run_rate_cell(
    base_url: str, requests: Sequence[tuple[str, dict[str, Any]]], options: BenchOptions, key: CellKey, settings: Any
) -> tuple[list[StreamRecord], Any, OpenLoopFacts]:
    """Send ``requests`` open-loop at the cell's rate; returns ``(streams, client check, open_loop facts)``.

    Args:
        base_url: the server (or router) root.
        requests: ``(prompt_id, chat body)`` in sending order.
        options: the run's options (``rates``, ``arrival``, ``seed``).
        key: the cell (its level picks the rate).
        settings: the :class:`~specscope.client.settings.ClientSettings` in force.
    """
    from specscope.client import OpenLoopSchedule, run_open_loop_checked

    rate = rate_of(options, key)
    seed = options.seed * 1_000_003 + key.repeat * 101 + key.concurrency  # one schedule per rate and repeat
    schedule = OpenLoopSchedule(rate, options.arrival, seed)
    streams, check = await run_open_loop_checked(base_url, requests, schedule, settings)
    lag = check.limited_reasons()
    facts = OpenLoopFacts(
        rate_per_s=rate,
        arrival=options.arrival,
        schedule_seed=seed,
        requests=len(requests),
        client_processes=1,
        client_decision=(
            f"one process fell behind ({'; '.join(lag)}): the cell measured the client"
            if lag
            else (
                f"one process kept up (measured send lag p99 {check.send_lag_p99_ns / 1e6:.1f} ms, "
                f"loop lag p99 {check.loop_lag_p99_ns / 1e6:.1f} ms, under the thresholds)"
            )
        ),
    )
    return list(streams), check, facts

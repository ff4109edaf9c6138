"""Client scaling: a fixed-concurrency cell run by several client processes with one clock (issue 8, "Client scaling").

Where one event loop is not enough, the N stream slots and the request list are split across W worker processes
(started with multiprocessing's ``spawn`` context: a process that runs an event loop is never forked). Each worker
runs the single-process path (:func:`specscope.client.capture.capture_fixed_concurrency`, which parses its streams
as they grow, then builds their records) on its share and pickles back its :class:`~specscope.records.StreamRecord`
list and its raw self-check samples; the parent puts the records back in request order and recomputes the
:class:`ClientCheck` from the pooled samples (send lag from the merged records, loop / read lag from every worker's
samples).

One clock: every instant is ``time.perf_counter_ns()``, which on Linux reads CLOCK_MONOTONIC, a single clock for
every process of the machine (PEP 418; CPython ``Python/pytime.c`` uses ``clock_gettime(CLOCK_MONOTONIC)`` for
``perf_counter``), so instants taken in different workers compare directly (tested in
tests/client/test_multiproc.py against instants taken in the parent around a pipe message).

Start barrier: each worker imports, starts its self-check monitor and reports ready; the parent says go to all
of them at once, so the first N requests start together across workers (the server sees N in flight).

Never a hang: a worker that does not report ready within ``start_timeout_s``, dies (its pipe closes), or does not
finish within the bound on its share (``ceil(requests / slots) x settings.total_timeout_s`` + margin) ends the
cell with :class:`ClientWorkerError`; the other workers are terminated.

Spawned workers import the caller's ``__main__`` module again (multiprocessing's spawn rule), so a script that
runs a cell with W > 1 must keep its top-level work under ``if __name__ == "__main__":`` (the ``specscope`` CLI
and pytest do).
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing as mp
import os
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from time import perf_counter
from typing import Any

from specscope import errors
from specscope.client.capture import capture_fixed_concurrency, run_sync
from specscope.client.checks import MS, CheckThresholds, ClientCheck, ClientMonitor, SampleSpan, check_from_samples
from specscope.client.parse import parse_capture
from specscope.client.settings import ClientSettings
from specscope.errors import ClientWorkerError, SpecscopeError
from specscope.records import StreamRecord

__all__ = [
    "auto_workers",
    "resolve_workers",
    "split_load",
    "run_in_workers",
    "ClientWorkerError",
    "PROCESS_EVENTS_PER_S",
    "ASSUMED_STREAM_EVENTS_PER_S",
]

# Measured (recorded in benchmarks/RESULTS.md, "Client scaling"): firehose truth server pinned to CPU 0,
# one client process pinned to CPU 1, concurrency 64, 256 tokens per request, 1 token per SSE event, this 2-core
# machine shared with other test suites (load ~2.3): the wire hot path cost 2.6-2.8 us of client CPU per event
# (5-10 events per socket read; 0.7-1.3 us at 16 events per write) and the client streamed 94k-158k events/s at
# 25-42 % of its core (the server was the limit); parsing afterwards cost 4.6-6.4 us per event.
# So one process saturated near 1 / 2.7 us = ~370k events/s while streaming; 150k events/s kept it below ~45 %
# of a core, where its loop and read lag stay low. Above that budget, more processes. Since issue 30 the streams are
# parsed while they run (folds), at ~0.8 us per event (benchmarks/client_overhead.py, parse table): streaming and
# parsing together cost 1.1 us of client CPU per event at 1 token/event and 1.5 us at 4 (its CPU line, 2026-12-03,
# load 6-11), so 150k events/s keeps a process at ~15-25 % of a core.
PROCESS_EVENTS_PER_S = 150_000
# Upper bound on one stream's event rate assumed when the caller does not know it: 1 event per ms per stream
# (TPOT 1 ms; engines stream a request at 30-300 events/s, the firehose truth server much faster).
ASSUMED_STREAM_EVENTS_PER_S = 1_000


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def auto_workers(
    concurrency: int,
    n_requests: int | None = None,
    *,
    expected_events_per_s: float | None = None,
    cpu_count: int | None = None,
) -> int:
    """How many client processes a fixed-concurrency cell needs (the ``workers="auto"`` rule; a pure function).

    ``rate = expected_events_per_s`` or, when unknown, ``concurrency x ASSUMED_STREAM_EVENTS_PER_S`` (events/s).
    ``W = 1`` while ``rate <= PROCESS_EVENTS_PER_S`` (150k events/s, measured: see the module constants), else
    ``W = min(ceil(rate / PROCESS_EVENTS_PER_S), cpu_count, concurrency, n_requests)``. With the defaults: W = 1
    up to concurrency 150, 2 up to 300, ... capped by the cores. Examples: ``auto_workers(64, cpu_count=2) == 1``,
    ``auto_workers(256, cpu_count=2) == 2``, ``auto_workers(1000, cpu_count=16) == 7``.

    Args:
        concurrency: N, streams in flight.
        n_requests: requests in the cell (a worker without a request is useless); ``None``: no cap.
        expected_events_per_s: the cell's expected aggregate SSE event rate, events/s, if known.
        cpu_count: cores available; default: this process's CPU affinity (``os.sched_getaffinity``).

    Raises:
        ConfigError: ``concurrency`` < 1 or a negative rate.
    """
    fix = "pass a positive concurrency level"
    errors.require_at_least(concurrency, 1, "concurrency must be at least 1", expected=">= 1", fix=fix)
    rate = concurrency * ASSUMED_STREAM_EVENTS_PER_S if expected_events_per_s is None else expected_events_per_s
    fix = "pass the expected aggregate SSE events per second, or None"
    errors.require_at_least(rate, 0, "the expected event rate is negative", expected=">= 0 events/s", fix=fix)
    if rate <= PROCESS_EVENTS_PER_S:
        return 1
    w = min(math.ceil(rate / PROCESS_EVENTS_PER_S), cpu_count or _available_cpus(), concurrency)
    if n_requests is not None:
        w = min(w, n_requests)
    return max(w, 1)


def resolve_workers(settings: ClientSettings, concurrency: int, n_requests: int) -> int:
    """W actually used: ``settings.workers`` (``"auto"``: :func:`auto_workers`), capped at N and at the request
    count (each worker needs at least one slot and one request); at least 1."""
    w = auto_workers(concurrency, n_requests) if settings.workers == "auto" else int(settings.workers)
    return max(1, min(w, concurrency, n_requests))


def split_load(n_requests: int, concurrency: int, workers: int) -> list[tuple[int, list[int]]]:
    """Split N slots and the request indices over W workers: ``[(slots, [request index, ...]), ...]``.

    Slot j of the N goes to worker ``j % W`` (worker w gets ``N // W + (w < N % W)`` slots); request i goes to the
    worker of slot ``i % N``. So the first N requests start together exactly as in one process, and every run of N
    consecutive requests is shared in proportion to the slots (no worker gets all the long prompts of a sorted
    list). Each index list is in ascending order.

    Raises:
        ConfigError: ``workers`` < 1 or > ``concurrency``.
    """
    if workers < 1 or workers > concurrency:
        raise errors.ConfigError(
            "each client worker needs at least one stream slot",
            found=f"workers={workers}, concurrency={concurrency}",
            expected="1 <= workers <= concurrency",
            fix="use fewer workers (ClientSettings.workers)",
        )
    slots = [concurrency // workers + (w < concurrency % workers) for w in range(workers)]
    idx: list[list[int]] = [[] for _ in range(workers)]
    for i in range(n_requests):
        idx[(i % concurrency) % workers].append(i)
    return list(zip(slots, idx, strict=True))


# --------------------------------------------------------------------------------------- worker process side
async def _readable(conn: Connection, timeout_s: float | None, poll_s: float = 0.001) -> None:
    """Wait until ``conn`` has a message (or EOF) without blocking the event loop: ``conn.poll()`` every
    ``poll_s``. (Not ``loop.add_reader``: uvloop makes the fd non-blocking, and a large pickled message then
    fails mid-transfer with BlockingIOError.)

    Raises:
        asyncio.TimeoutError: nothing within ``timeout_s``.
    """
    deadline = None if timeout_s is None else perf_counter() + timeout_s
    while not conn.poll():
        if deadline is not None and perf_counter() > deadline:
            raise TimeoutError
        await asyncio.sleep(poll_s)


async def _worker_cell(conn: Connection, job: dict[str, Any]) -> tuple[Any, ...]:
    settings: ClientSettings = job["settings"]
    requests, slots = job["requests"], job["slots"]
    if job["check"]:
        mon = ClientMonitor(settings, job["thresholds"])
        mon.start()
        await mon.ready()
    conn.send(("ready",))
    await _readable(conn, job["go_timeout_s"])
    if conn.recv() != "go":
        raise RuntimeError("the parent did not say go")
    if not job["check"]:
        raws = await capture_fixed_concurrency(job["base_url"], requests, slots, settings)
        return [parse_capture(r) for r in raws], [], [], 0, 0
    mon.restart()
    try:
        raws = await capture_fixed_concurrency(job["base_url"], requests, slots, settings)
    finally:
        await mon.stop()
    records = [parse_capture(r) for r in raws]  # after the monitor stopped: building records is never lag
    return records, mon.loop_lags_ns, mon.read_lags_ns, mon._t1 - mon._t0, mon._cpu1 - mon._cpu0


def _worker_main(conn: Connection, job: dict[str, Any]) -> None:
    """Entry point of a spawned worker: run the share, send ``("ok", payload)`` or ``("error", ...)``."""
    try:
        out = run_sync(_worker_cell(conn, job))
        conn.send(("ok", out))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises a SpecscopeError
        info = (
            type(exc).__name__,
            str(exc),
            getattr(exc, "found", None),
            getattr(exc, "expected", None),
            getattr(exc, "fix", None),
            traceback.format_exc(limit=6),
        )
        try:
            conn.send(("error", info))
        except OSError:
            pass
    finally:
        conn.close()


# --------------------------------------------------------------------------------------- parent side
def _reraise(w: int, info: tuple[Any, ...]) -> None:
    name, msg, found, expected, fix, tb = info
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, SpecscopeError):
        raise cls(msg, found=found, expected=expected, fix=fix)
    raise ClientWorkerError(
        f"client worker {w} failed: {name}: {msg}",
        found=tb.strip().splitlines()[-1],
        expected="a worker that runs its share of the cell",
        fix="run with ClientSettings(workers=1) to see the error in this process",
    )


async def _recv(conn: Connection, w: int, timeout_s: float, what: str) -> Any:
    try:
        await _readable(conn, timeout_s, poll_s=0.005)
        msg = conn.recv()  # blocking: the worker is writing it now
    except TimeoutError:
        raise ClientWorkerError(
            f"client worker {w} did not {what} in time",
            found=f"no answer after {timeout_s:g} s",
            expected=f"worker {what}",
            fix="check the machine's load, or use ClientSettings(workers=1)",
        ) from None
    except (EOFError, OSError):
        raise ClientWorkerError(
            f"client worker {w} died before it could {what}",
            found="its pipe closed",
            expected=f"worker {what}",
            fix="check memory limits, or use ClientSettings(workers=1)",
        ) from None
    if msg[0] == "error":
        _reraise(w, msg[1])
    return msg


async def run_in_workers(
    base_url: str,
    requests: Sequence[tuple[str, dict[str, Any]]],
    concurrency: int,
    settings: ClientSettings,
    workers: int,
    *,
    thresholds: CheckThresholds | None = None,
    check: bool = True,
    start_timeout_s: float = 120.0,
) -> tuple[list[StreamRecord], ClientCheck | None]:
    """Run a fixed-concurrency cell with ``workers`` spawned client processes (see the module docstring).

    Args:
        base_url, requests, concurrency, settings: as :func:`specscope.client.runner.run_fixed_concurrency`.
        workers: W, 1 <= W <= concurrency (one process per core at most is the caller's choice; see
            :func:`auto_workers`).
        thresholds: the CLIENT_LIMITED rule for the merged check.
        check: run each worker's self-check monitor and return the merged :class:`ClientCheck` (else ``None``).
        start_timeout_s: bound on a worker's start (spawn, imports, monitor), s.

    Returns:
        ``(records, check)``: one record per request in the order of ``requests``; ``check.workers == W``.

    Raises:
        ConfigError: W out of range. ClientWorkerError: a worker failed to start, died or ran past its bound.
        A SpecscopeError raised inside a worker is raised again here with the same class and fields.
    """
    thresholds = thresholds or CheckThresholds()
    shares = split_load(len(requests), concurrency, workers)
    ctx = mp.get_context("spawn")
    loop = asyncio.get_running_loop()
    procs: list[tuple[Any, Connection]] = []
    ok = False
    try:
        for slots, idx in shares:
            parent, child = ctx.Pipe(duplex=True)
            job = {
                "base_url": base_url,
                "requests": [requests[i] for i in idx],
                "slots": slots,
                "settings": settings,
                "thresholds": thresholds,
                "check": check,
                "go_timeout_s": start_timeout_s * 2,
            }
            p = ctx.Process(target=_worker_main, args=(child, job), daemon=True, name="specscope-client-worker")
            await loop.run_in_executor(None, p.start)  # spawn pickles the job; keep the loop free meanwhile
            child.close()
            procs.append((p, parent))
        for w, (_, conn) in enumerate(procs):
            await _recv(conn, w, start_timeout_s, "start")
        for _, conn in procs:  # go: all shares start together
            conn.send("go")
        bound_s = max(math.ceil(len(idx) / slots) for slots, idx in shares) * settings.total_timeout_s + 60.0
        tasks = [asyncio.ensure_future(_recv(conn, w, bound_s, "finish")) for w, (_, conn) in enumerate(procs)]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for t in tasks:  # the first worker error (in worker order) is raised, never a CancelledError
            if not t.cancelled() and t.exception() is not None:
                raise t.exception()  # type: ignore[misc]
        outs = [t.result() for t in tasks]
        ok = True
    finally:
        for p, conn in procs:
            conn.close()
            if not ok:
                p.terminate()  # only our own worker processes, by object
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
    records: list[StreamRecord | None] = [None] * len(requests)
    loop_lags: list[int] = []
    read_lags: list[int] = []
    wall_ns = cpu_ns = 0
    for (_, idx), (_, (recs, ll, rl, wall, cpu)) in zip(shares, outs, strict=True):
        for i, r in zip(idx, recs, strict=True):
            records[i] = r
        loop_lags += ll
        read_lags += rl
        wall_ns = max(wall_ns, wall)
        cpu_ns += cpu
    merged = [r for r in records if r is not None]
    if not check:
        return merged, None
    return merged, check_from_samples(
        merged,
        loop_lags,
        read_lags,
        SampleSpan(wall_ns=wall_ns, client_cpu_ns=cpu_ns, interval_ns=MS, workers=workers),
        thresholds=thresholds,
        settings=settings,
    )

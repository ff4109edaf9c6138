"""The hot phase of a fixed-concurrency cell: N streams in flight, each capture parsed in folds as it grows.

Shared by the single-process runner (:mod:`specscope.client.runner`) and each spawned client worker
(:mod:`specscope.client.workers`), so neither imports the other. :func:`run_sync` runs a coroutine on uvloop.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from specscope.client.parse import RawCapture
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

try:  # the fast path needs httptools; without it every run uses aiohttp
    from specscope.client.wire import WireConnection, WireTarget, capture_wire, open_wire
except ImportError:  # pragma: no cover - depends on the environment
    WireTarget = None  # type: ignore[assignment,misc]
from specscope.errors import ConfigError

__all__ = ["capture_fixed_concurrency", "run_sync"]

T = TypeVar("T")


def _check_concurrency(concurrency: int, settings: ClientSettings) -> None:
    if concurrency < 1:
        raise ConfigError(
            "concurrency must be at least 1",
            found=concurrency,
            expected=">= 1",
            fix="pass a positive concurrency level",
        )
    if settings.connection_limit < concurrency:
        raise ConfigError(
            "the client's connection limit is below the requested concurrency",
            found=f"connection_limit={settings.connection_limit}, concurrency={concurrency}",
            expected="connection_limit >= concurrency",
            fix="raise ClientSettings.connection_limit",
        )


async def capture_fixed_concurrency(
    base_url: str, requests: Sequence[tuple[str, dict[str, Any]]], concurrency: int, settings: ClientSettings
) -> list[RawCapture]:
    """The hot phase of :func:`run_fixed_concurrency`: one folded capture per request (same arguments, same errors).

    With ``settings.hot_path == "wire"`` and an ``http://`` URL, each of the N workers owns one keep-alive
    connection (:mod:`specscope.client.wire`; no pool, so no hidden queue); otherwise one aiohttp session is shared.
    Either way each capture is parsed in folds as it grows (:meth:`~specscope.client.parse.RawCapture.fold`), so
    :func:`~specscope.client.parse.parse_capture` only builds the records. With
    ``settings.busy_poll`` the loop polls instead of sleeping while the streams are in flight
    (:mod:`specscope.client.polling`)."""
    _check_concurrency(concurrency, settings)
    async with busy_polling(settings.busy_poll):
        return await _capture(base_url, requests, concurrency, settings)


async def _capture(
    base_url: str, requests: Sequence[tuple[str, dict[str, Any]]], concurrency: int, settings: ClientSettings
) -> list[RawCapture]:
    url = api_url(base_url, settings.endpoint)
    target = None
    if settings.hot_path == "wire" and WireTarget is not None:
        try:
            target = WireTarget(url, settings.auth_headers())
        except ValueError:
            target = None  # https or odd URL: aiohttp handles it
    # request bodies (and, on the wire path, whole requests) are built before the first send
    prepared = [(pid, prepare_body(body, settings.endpoint), max_tokens_of(body)) for pid, body in requests]
    if target is not None:
        prepared = [(pid, target.request(b), mt) for pid, b, mt in prepared]
    raws: list[RawCapture | None] = [None] * len(prepared)
    options = settings.parse_options()
    next_i = 0
    n_workers = min(concurrency, len(prepared))

    if target is not None:
        # all N connections open before the first send, so the first N requests really start together
        opened = await asyncio.gather(*(open_wire(target, settings) for _ in range(n_workers)), return_exceptions=True)

        async def wire_worker(conn: WireConnection | BaseException) -> None:
            nonlocal next_i
            # a connection that failed to open: the worker retries it, and records the failure
            slot: list[WireConnection | None] = [conn if isinstance(conn, WireConnection) else None]
            try:
                while next_i < len(prepared):
                    i = next_i
                    next_i += 1
                    pid, req, mt = prepared[i]
                    raws[i] = await capture_wire(slot, target, pid, req, settings, max_tokens=mt, options=options)
            finally:
                if slot[0] is not None:
                    slot[0].close()

        await asyncio.gather(*(wire_worker(c) for c in opened))
        return [r for r in raws if r is not None]

    hdrs = request_headers(settings)
    async with make_session(settings) as session:

        async def worker() -> None:
            nonlocal next_i
            while next_i < len(prepared):
                i = next_i
                next_i += 1
                pid, body, mt = prepared[i]
                raws[i] = await capture_stream(
                    session,
                    url,
                    pid,
                    body,
                    max_tokens=mt,
                    headers=hdrs,
                    settings=settings,
                )

        await asyncio.gather(*(worker() for _ in range(n_workers)))
    return [r for r in raws if r is not None]


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on uvloop's event loop when installed (measured here: server-write to
    client-read wake-up about 0.25 ms instead of 0.45 ms with asyncio's loop), else asyncio's default.

    SIGTERM while the loop runs cancels the coroutine (as asyncio's runner does for Ctrl-C), and the process's own
    SIGTERM handler runs once the loop has unwound: under the CLI it raises ``Terminated`` here, outside every
    callback. Raised from inside a transport callback, an exception is reported and swallowed by the loop and the
    run goes on (CI 2026-12-05: ``kill PID`` mid-cell, the bench finished every cell and exited 0).
    """
    try:
        import uvloop
    except ImportError:
        factory = None
    else:
        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as r:
        return _run_deferring_sigterm(r, coro)


def _run_deferring_sigterm(runner: asyncio.Runner, coro: Coroutine[Any, Any, T]) -> T:
    """``runner.run(coro)`` with a Python-level SIGTERM handler deferred until the loop returns (see run_sync)."""
    old = signal.getsignal(signal.SIGTERM)
    if not callable(old) or threading.current_thread() is not threading.main_thread():
        return runner.run(coro)
    loop = runner.get_loop()
    terminated: list[bool] = []

    async def main() -> T:
        task = asyncio.current_task()

        def on_sigterm() -> None:
            terminated.append(True)
            if task is not None:
                task.cancel()

        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        try:
            return await coro
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            signal.signal(signal.SIGTERM, old)

    try:
        out = runner.run(main())  # main's finally has put ``old`` back before this returns or raises
    except asyncio.CancelledError:
        if terminated:
            old(signal.SIGTERM, None)  # under the CLI: raises Terminated
        raise
    if terminated:  # the coroutine finished despite the cancel: the signal is still delivered
        old(signal.SIGTERM, None)
    return out

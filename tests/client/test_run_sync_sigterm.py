"""SIGTERM during :func:`specscope.client.run_sync`: the process's handler runs after the loop has unwound.

CI 2026-12-05: ``kill PID`` landed while uvloop was inside a transport's ``data_received``; the CLI's handler raised
there, the loop reported and swallowed it ("Fatal error on transport"), and the bench finished every cell and
exited 0 instead of 143. Real sockets on 127.0.0.1; the signal is sent from inside the callback, so the old code
fails every time.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from hangguard import HANG_S
from specscope.client import run_sync


class _Stop(Exception):
    pass


def _raise_stop(_signum: int, _frame: object) -> None:
    raise _Stop


@pytest.fixture
def sigterm_raises_stop():
    old = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


async def _kill_self_inside_data_received(seconds_after: float, slept: list[float]) -> str:
    """A server writes one line; the client's ``data_received`` sends SIGTERM to this process and spins a little
    (the handler runs at the next bytecode there under the old code), then the coroutine waits ``seconds_after`` and
    records that it did in ``slept``: a cancelled coroutine never gets there."""

    async def serve(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(b"hello\n")
        await w.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    got = asyncio.get_running_loop().create_future()

    class Client(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            total = 0
            for i in range(200_000):
                total += i
            if not got.done():
                got.set_result(data.decode())

    transport, _ = await asyncio.get_running_loop().create_connection(Client, "127.0.0.1", port)
    try:
        line = await asyncio.wait_for(got, HANG_S)  # the hang guard: the line is sent at once (issue 37)
        await asyncio.sleep(seconds_after)
        slept.append(seconds_after)
        return line
    finally:
        transport.close()
        server.close()


def test_sigterm_inside_a_transport_callback_reaches_the_process_handler(sigterm_raises_stop):
    slept: list[float] = []
    with pytest.raises(_Stop):
        run_sync(_kill_self_inside_data_received(5.0, slept))
    assert slept == [], "the coroutine was not cancelled: it waited its 5 s out"  # what it did, not how long it took
    assert signal.getsignal(signal.SIGTERM) is _raise_stop  # the handler is back for the next call


def test_run_sync_without_a_signal_keeps_the_result_and_the_handler(sigterm_raises_stop):
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert run_sync(answer()) == 42
    assert signal.getsignal(signal.SIGTERM) is _raise_stop

"""Per-stream budgets (issue 29, "Unbounded"): a stream past ``max_tokens`` by the margin, past ``max_stream_bytes``,
or holding an unfinished event over ``max_event_bytes`` is cut and failed ``RUNAWAY``; a stream's memory does not
grow with its length (raw bytes are folded and dropped, text kept only on request). Pure parsing first, then real
servers on 127.0.0.1 (the truth server; a raw socket server that never ends an event)."""

from __future__ import annotations

import asyncio
import resource
import threading

import pytest

from hangguard import HANG_S
from specscope.client.parse import (
    FOLD_BYTES,
    ParseOptions,
    RawCapture,
    StreamParser,
    parse_capture,
    runaway_token_limit,
)
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

# one read of the wire path holds at most uvloop's read buffer (256 KiB); a fold runs once FOLD_BYTES are held
MAX_READ = 256 * 1024
TOKEN = b'data: {"choices":[{"index":0,"delta":{"content":" x"},"finish_reason":null}]}\n\n'


def test_the_token_budget_is_max_tokens_plus_a_quarter_and_at_least_64():
    assert [runaway_token_limit(m) for m in (None, 0, 16, 256, 1000)] == [None, 64, 80, 320, 1250]


def test_token_events_past_the_limit_fail_the_stream_at_that_event():
    p = StreamParser(max_tokens=16)
    assert p.feed([(1, TOKEN * 80)]) is None and p.token_events == 80
    assert p.feed([(2, TOKEN * 5)]) == "RUNAWAY(more than 80 tokens for max_tokens 16)"
    assert (p.token_events, p.content_chunks, p.last_token) == (81, 80, 2)  # the 81st passed it; nothing after
    assert p.feed([(3, TOKEN)]) == p.runaway and p.token_events == 81


def test_reported_tokens_past_the_limit_are_a_runaway_too():
    usage = b'data: {"choices":[],"usage":{"completion_tokens":81}}\n\n'
    p = StreamParser(max_tokens=16)
    assert p.feed([(1, TOKEN + usage)]) == "RUNAWAY(more than 80 tokens for max_tokens 16)"
    assert p.output_tokens is None  # the lie is not taken as the count


def test_byte_and_event_budgets():
    p = StreamParser(None, ParseOptions(max_stream_bytes=4096))
    assert p.feed([(1, TOKEN * 60)]) == "RUNAWAY(more than max_stream_bytes 4096 bytes)"
    assert p.token_events == 0  # the read that passed the budget is not parsed
    p = StreamParser(None, ParseOptions(max_event_bytes=2048))
    assert p.feed([(1, TOKEN), (2, b"data: " + b"y" * 4000)]) == (
        "RUNAWAY(an unfinished SSE event over max_event_bytes 2048)"
    )
    assert p.token_events == 1
    # no max_tokens: no token budget
    p = StreamParser(None)
    assert p.feed([(1, TOKEN * 10_000)]) is None and p.token_events == 10_000


def test_a_runaway_record_is_failed_whatever_came_before():
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=16, chunks=[(1, TOKEN * 100)], end_ns=5)
    r = parse_capture(raw)
    assert (r.status, r.reason, r.content_chunks, r.first_token_ns) == (
        "failed",
        "RUNAWAY(more than 80 tokens for max_tokens 16)",
        80,
        1,
    )


def test_folding_drops_the_raw_bytes_and_keeps_no_text_by_default():
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=None)
    for i in range(1000):
        raw.chunks.append((i, TOKEN))
        raw.pending_bytes += len(TOKEN)
        if raw.pending_bytes >= FOLD_BYTES:
            assert raw.fold() is None
            assert raw.chunks == [] and raw.pending_bytes == 0
        assert len(raw.chunks) * len(TOKEN) < FOLD_BYTES
    r = parse_capture(raw)
    assert (r.content_chunks, r.text, r.bytes_received, r.last_token_ns) == (1000, None, 1000 * len(TOKEN), 999)


# --------------------------------------------------------------------------------------- real servers
def _body(max_tokens: int | None) -> dict:
    b: dict = {"model": "truth", "messages": [{"role": "user", "content": "go"}]}
    if max_tokens is not None:
        b["max_tokens"] = max_tokens
    return b


@pytest.mark.integration
@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
def test_a_server_that_ignores_max_tokens_is_cut_runaway_and_the_run_goes_on(hot_path):
    """Before: it streamed on (client memory ~20 MB/s) until the fixed 3,600 s total timeout."""
    forever = ResponsePlan(output_tokens=200_000, usage="absent")  # as good as forever: cut at 80
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4), by_prompt={"go": forever})) as ts:
        reqs = [("runaway", _body(16)), ("fine", {**_body(16), "messages": [{"role": "user", "content": "ok"}]})]
        recs = run_sync(run_fixed_concurrency(ts.base_url, reqs, 2, ClientSettings(hot_path=hot_path)))
        served = {r["prompt"]: r for r in ts.served()}
    runaway, fine = recs
    assert (runaway.status, runaway.reason) == ("failed", "RUNAWAY(more than 80 tokens for max_tokens 16)")
    assert (runaway.content_chunks, runaway.output_tokens) == (80, None)
    # cut within a fold of the budget (aiohttp's reads can hold more: only the wire path is held to it)
    assert hot_path == "aiohttp" or runaway.bytes_received < 80 * len(TOKEN) + FOLD_BYTES + MAX_READ
    assert (fine.status, fine.output_tokens) == ("ok", 4)
    assert served["go"]["dropped"]  # the client closed the connection


class _EndlessEventServer:
    """A real HTTP/1.1 server on 127.0.0.1 whose answer is one SSE event that never ends (``data: xxxx...`` with no
    blank line), sent until the client goes away or 64 MiB are out; in a thread with its own loop."""

    def __init__(self) -> None:
        self.sent = 0
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int([h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0])
        await reader.readexactly(length)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        block = b"x" * 32768
        try:
            writer.write(b"%x\r\ndata: \r\n" % 6)
            while self.sent < 64 * 1024 * 1024:
                writer.write(b"%x\r\n%s\r\n" % (len(block), block))
                self.sent += len(block)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        writer.close()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    def __enter__(self) -> _EndlessEventServer:
        self.thread.start()
        self.ready.wait(HANG_S)
        return self

    def __exit__(self, *exc: object) -> None:
        async def shutdown() -> None:  # end the handlers before the loop stops (no task destroyed pending)
            self.server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.mark.integration
@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
def test_an_event_that_never_ends_is_cut_and_memory_stays_flat(hot_path):
    settings = ClientSettings(hot_path=hot_path, max_event_bytes=1024 * 1024)
    rss0_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with _EndlessEventServer() as srv:
        (r,) = run_sync(run_fixed_concurrency(f"http://127.0.0.1:{srv.port}", [("p", _body(16))], 1, settings))
        sent = srv.sent
    assert (r.status, r.reason) == ("failed", "RUNAWAY(an unfinished SSE event over max_event_bytes 1048576)")
    # cut within a read of the bound (aiohttp's reads can hold its whole buffer, read_buffer_bytes x 2)
    assert r.bytes_received < 1024 * 1024 + 2 * ClientSettings().read_buffer_bytes and sent < 64 * 1024 * 1024
    grew_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0_kib) / 1024
    assert grew_mib < 48, grew_mib


@pytest.mark.integration
def test_the_byte_budget_cuts_a_stream_without_max_tokens():
    plan = ResponsePlan(output_tokens=200_000, usage="absent")
    with TruthServer(TruthScript(default=plan)) as ts:
        settings = ClientSettings(max_stream_bytes=256 * 1024)
        (r,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", _body(None))], 1, settings))
    assert (r.status, r.reason) == ("failed", "RUNAWAY(more than max_stream_bytes 262144 bytes)")
    assert 256 * 1024 < r.bytes_received <= 256 * 1024 + FOLD_BYTES + MAX_READ

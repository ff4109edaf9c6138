"""The fast hot path for fixed-concurrency load: one raw asyncio connection per stream slot, bytes timestamped.

Why not aiohttp here (measured with ``py-spy record --native``, client pinned to one core, firehose truth
server on the other, concurrency 64, 256 tokens per request): aiohttp spent ~40% of the client's core on
per-request machinery (``ClientSession._request``: request object, connector, trace, timers) and ~40% on
per-HTTP-chunk Python calls (``StreamReader.feed_data`` / ``end_http_chunk_receiving`` /
``_read_nowait_chunk`` + ``resume_reading`` for every SSE event), which capped it near 1,100 requests/s
(~290k tokens/s) whatever the tokens per event, while a client that only counted bytes got 1.4-2.3M.

This path does, per socket read, exactly: ``perf_counter_ns()``, one list append of ``(ns, bytes)``, and
one ``httptools.HttpResponseParser.feed_data`` (llhttp, C) with no body callback, so chunked framing is
followed in C and Python only hears the head's few header callbacks and ``on_message_complete``. Every
:data:`~specscope.client.parse.FOLD_BYTES` of
held reads, and once when the response ends, :meth:`~specscope.client.parse.RawCapture.fold` parses them: a
:class:`WireBody` (a second httptools parser, body callback on) turns the raw reads into the same
``(arrival_ns, body bytes)`` per read that the aiohttp path captures, and the shared
:class:`~specscope.client.parse.StreamParser` takes them, so both paths classify streams identically. A fold that
finds a budget passed (``RUNAWAY``) ends the response and closes the connection.

HTTP/1.1 only (RFC 9112), ``http://`` only (``https://`` URLs use the aiohttp path); keep-alive per
connection, reconnect when the server closes or says ``Connection: close``; a request written on a kept-alive
connection that the server closes before one byte of response (it closed the idle connection as the request went
out: llama.cpp's server does after a long response) is sent once more on a new connection (RFC 9112 section 9.3.1).
Timeouts follow :class:`~specscope.client.settings.ClientSettings`: connect, read (silence between reads), total.
Transport problems are recorded in the capture (``timeout``, ``connection dropped``,
``connect failed: <OSError>``, ``http parse error: ...``), never raised.
"""

from __future__ import annotations

import asyncio
import base64
from time import perf_counter_ns
from typing import cast
from urllib.parse import unquote, urlsplit

import httptools

from specscope.client.parse import FOLD_BYTES, ParseOptions, RawCapture
from specscope.client.settings import ClientSettings

__all__ = ["WireTarget", "WireConnection", "WireBody", "open_wire", "body_reads", "capture_wire"]

_FRAMING_HEADERS = (b"content-length", b"transfer-encoding")


class WireTarget:
    """Where and how to send: host, port and the pre-built request head for one API's URL.

    Args:
        url: an ``http://host:port/path`` URL (from :func:`~specscope.client.stream.api_url`).
        headers: extra request headers (``Authorization`` from :meth:`ClientSettings.auth_headers`).

    Raises:
        ValueError: not an ``http://`` URL (callers fall back to the aiohttp path).
    """

    def __init__(self, url: str, headers: dict[str, str] | None = None):
        u = urlsplit(url)
        if u.scheme != "http" or not u.hostname:
            raise ValueError(f"the raw hot path speaks plain http only, got {url!r}")
        self.host = u.hostname
        self.port = u.port or 80
        path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        host_hdr = u.netloc.rsplit("@", 1)[-1]
        headers = dict(headers or {})
        if u.username is not None and not any(k.lower() == "authorization" for k in headers):
            # credentials in the URL (http://user:pw@host) are HTTP Basic auth (RFC 9110 section 11; RFC 7617), as
            # httpx and aiohttp send them on every other request to this server (issue 37, A1)
            pair = f"{unquote(u.username)}:{unquote(u.password or '')}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self._head = (
            f"POST {path} HTTP/1.1\r\nHost: {host_hdr}\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nAccept-Encoding: identity\r\n{extra}"
        ).encode("latin-1")

    def request(self, body: bytes) -> bytes:
        """The whole request (head + ``Content-Length`` + body) as one bytes object, built off the hot path."""
        return self._head + b"Content-Length: %d\r\n\r\n" % len(body) + body


class WireConnection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection carrying one request at a time (the hot path: see module doc)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.keep_alive = True
        self._raw: RawCapture | None = None  # the capture of the response in flight
        self._last_ns = 0  # arrival of the latest read of the response in flight (0: none yet)
        self._done: asyncio.Future[str | None] | None = None
        self._parser = httptools.HttpResponseParser(self)
        self._head_done = False  # the response in flight's head has been read
        self._framed = False  # ... and it has Content-Length or Transfer-Encoding (else the close ends its body)

    # -- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports are not asyncio's classes

    def data_received(self, data: bytes) -> None:
        raw = self._raw
        if raw is None:  # bytes outside a request (a server talking out of turn): drop the connection
            self.keep_alive = False
            return
        self._last_ns = t = perf_counter_ns()
        raw.chunks.append((t, data))
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._finish(f"http parse error: {exc}"[:200])
            return
        raw.pending_bytes += len(data)
        if raw.pending_bytes >= FOLD_BYTES and self._raw is not None:  # bound what a long response holds
            cut = raw.fold()
            if cut is not None:  # past a budget: end it here, and the connection with it
                self.keep_alive = False
                self._finish(cut)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        # a body with neither Content-Length nor chunked framing ends when the server closes (RFC 9112 section 6.3,
        # item 8): a clean close after its head is the response's end, not a drop (issue 37, H1)
        close_delimited = exc is None and self._head_done and not self._framed
        self._finish(None if close_delimited else "connection dropped")

    # -- httptools callbacks: the head's (a few per response), and the end of the message
    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() in _FRAMING_HEADERS:
            self._framed = True

    def on_headers_complete(self) -> None:
        self._head_done = True

    def on_message_complete(self) -> None:
        self.keep_alive = self._parser.should_keep_alive()
        self._finish(None)

    def _finish(self, error: str | None) -> None:
        self._raw = None
        d = self._done
        if d is not None and not d.done():
            d.set_result(error)

    async def exchange(self, request: bytes, raw: RawCapture, settings: ClientSettings, start_ns: int) -> str | None:
        """Write ``request`` and collect ``(ns, bytes)`` reads into ``raw`` (folded as they grow) until the response
        ends.

        Returns:
            ``None`` when the response completed, else the transport problem (``timeout``, ``RUNAWAY(...)``, ...).
        """
        transport = self.transport
        if transport is None:
            return "connection dropped"
        loop = asyncio.get_running_loop()
        self._parser = httptools.HttpResponseParser(self)
        self._head_done = self._framed = False
        done: asyncio.Future[str | None] = loop.create_future()
        self._done = done
        self._raw = raw
        self._last_ns = 0
        transport.write(request)
        watch = _SilenceWatch(self, loop, settings, start_ns)
        try:
            return await done
        finally:
            watch.cancel()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()
        self.closed = True


class _SilenceWatch:
    """The timeouts of one exchange with one loop timer (never one per read, and no ``asyncio.wait_for`` per request:
    profiled, that cost ~30 us a request): the first byte may take ``read_timeout_s``; once the response has started,
    silence longer than ``stall_timeout_s`` (else ``read_timeout_s``) ends it (``STALLED`` when a stall timeout is
    set, else ``timeout``); the whole request may take ``total_timeout_s`` (``timeout``). The timer fires at most
    once per stall period and re-arms from the latest read."""

    __slots__ = ("conn", "loop", "read_ns", "stall_ns", "deadline_ns", "stall_set", "last_ns", "handle")

    def __init__(
        self, conn: WireConnection, loop: asyncio.AbstractEventLoop, settings: ClientSettings, start_ns: int
    ) -> None:
        self.conn, self.loop = conn, loop
        self.read_ns = int(settings.read_timeout_s * 1e9)
        self.stall_ns = int((settings.stall_timeout_s or settings.read_timeout_s) * 1e9)
        self.deadline_ns = start_ns + int(settings.total_timeout_s * 1e9)
        self.stall_set = settings.stall_timeout_s is not None
        self.last_ns = perf_counter_ns()  # the request was just written
        self.handle: asyncio.TimerHandle | None = None
        self.check()

    def check(self) -> None:
        conn = self.conn
        started = conn._last_ns > 0
        if started:  # the response has started: silence from here on is a stall
            self.last_ns = max(self.last_ns, conn._last_ns)
        now = perf_counter_ns()
        give_up_ns = min(self.last_ns + (self.stall_ns if started else self.read_ns), self.deadline_ns)
        if now >= give_up_ns:
            conn.keep_alive = False
            stalled = started and self.stall_set and give_up_ns < self.deadline_ns
            conn._finish("STALLED" if stalled else "timeout")
            return
        self.handle = self.loop.call_later((min(give_up_ns, now + self.stall_ns) - now) / 1e9, self.check)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()


async def open_wire(target: WireTarget, settings: ClientSettings) -> WireConnection:
    """Open one connection (TCP_NODELAY is set by asyncio); raises OSError / asyncio.TimeoutError."""
    loop = asyncio.get_running_loop()
    _, proto = await asyncio.wait_for(
        loop.create_connection(WireConnection, target.host, target.port), settings.connect_timeout_s
    )
    return proto


async def capture_wire(
    slot: list[WireConnection | None],
    target: WireTarget,
    prompt_id: str,
    request: bytes,
    settings: ClientSettings,
    *,
    max_tokens: int | None = None,
    intended_ns: int | None = None,
    options: ParseOptions | None = None,
) -> RawCapture:
    """One request on the slot's connection (``slot[0]``, opened or reopened as needed); raw reads kept.

    Args:
        slot: a one-item list holding this worker's :class:`WireConnection` or ``None`` (reused across calls).
        target: from :class:`WireTarget`.
        request: from :meth:`WireTarget.request`.
        max_tokens, intended_ns: as :func:`~specscope.client.stream.capture_stream`.
        options: ``settings.parse_options()``, made once per cell by the caller (default: made here).

    Returns:
        A :class:`RawCapture` already folded (its parse is done; ``http_status`` from the response head). Errors are
        recorded, never raised.
    """
    start_ns = perf_counter_ns()
    raw = RawCapture(
        prompt_id,
        intended_ns if intended_ns is not None else start_ns,
        start_ns,
        max_tokens=max_tokens,
        options=options or settings.parse_options(),
        unframe=WireBody(),
    )
    for attempt in (1, 2):  # a kept-alive connection the server closed before reading: once more on a new one
        conn = slot[0]
        reused = conn is not None and not conn.closed and conn.keep_alive
        if conn is None or not reused:
            if conn is not None:
                conn.close()
            slot[0] = None
            try:
                conn = slot[0] = await open_wire(target, settings)
            except TimeoutError:
                raw.error = "timeout"
            except OSError as exc:
                raw.error = f"connect failed: {exc}"[:200]
            if raw.error or conn is None:
                raw.end_ns = perf_counter_ns()
                return raw
        raw.send_ns = perf_counter_ns()
        raw.error = await conn.exchange(request, raw, settings, start_ns)
        raw.end_ns = perf_counter_ns()
        if raw.error is not None:
            conn.close()
            slot[0] = None
        if not (reused and attempt == 1 and raw.error == "connection dropped" and conn._last_ns == 0):
            break
        raw.error = None  # RFC 9112 9.3.1: a request on a reused connection closed with no response may be retried
    runaway = raw.finish()  # the rest of the response, parsed now: a finished stream holds no raw bytes
    raw.error = raw.error or runaway
    return raw


class WireBody:
    """The wire path's ``unframe`` (:attr:`RawCapture.unframe`): raw socket reads in, ``(arrival_ns, body bytes)``
    per read that carried body bytes out, following the HTTP/1.1 framing across calls with its own httptools parser
    (body callback on); sets the capture's ``http_status`` once the head is in. After an HTTP parse error it yields
    nothing more (the hot path recorded the error)."""

    __slots__ = ("_parser", "_pieces", "_head", "_broken", "on_body")

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self.on_body = self._pieces.append  # httptools' body callback: a C method, no Python frame per HTTP chunk
        self._head = False
        self._broken = False
        self._parser = httptools.HttpResponseParser(self)

    def on_headers_complete(self) -> None:
        self._head = True

    def __call__(self, raw: RawCapture, reads: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
        out: list[tuple[int, bytes]] = []
        pieces = self._pieces
        for t, data in reads:
            if self._broken:
                break
            try:
                self._parser.feed_data(data)
            except httptools.HttpParserError:
                self._broken = True
            if pieces:
                out.append((t, pieces[0] if len(pieces) == 1 else b"".join(pieces)))
                pieces.clear()
        if self._head and raw.http_status is None:
            raw.http_status = self._parser.get_status_code()
        return out


def body_reads(raw: RawCapture) -> RawCapture:
    """Turn a wire capture's held raw socket reads into the aiohttp path's form, in place: ``chunks`` become
    ``(arrival_ns, body bytes)`` per read that carried body bytes, and ``http_status`` is set from the response head
    (``None`` if no head arrived). Returns ``raw``."""
    raw.chunks = WireBody()(raw, raw.chunks)
    raw.unframe = None
    return raw

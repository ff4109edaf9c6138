"""Firehose mode of the ground-truth server: token chunks as fast as one core can write them, to measure clients.

A raw ``asyncio.Protocol`` HTTP/1.1 server (no aiohttp.web, no per-request task): it reads a request head
and ``Content-Length`` body, takes ``max_tokens`` from the JSON body, and streams a chat completion in
``Transfer-Encoding: chunked`` with keep-alive, in the wire format of :mod:`specscope.truth.script`
(role chunk, token chunks, finish chunk, usage chunk with empty ``choices``, ``data: [DONE]``), one SSE
event per HTTP chunk. Every response's writes are encoded once per (plan, size) and reused. One scheduler
coroutine writes one batch of ``TruthScript.firehose_events_per_write`` (K) events per active stream per
pass (so a client sees streams interleaved as from a real server, K events at a time) and yields to the
loop between passes; the last batch carries the finish/usage/``[DONE]`` tail. A stream whose transport
asked to pause (write buffer above the high-water mark) is skipped until it resumes, so a slow client is
never flooded past the kernel buffer.

Why batches (measured with ``py-spy record --native`` on this server pinned to one core, concurrency 64,
1 token per event): with K = 1, ~72% of the core was in the ``write`` syscall and a client that only counts
bytes got ~60k events/s, so every client measured against it saw the server's limit, not its own.

Programmed by the script's ``default`` plan only: ``output_tokens`` (``None``: the request's ``max_tokens``),
``tokens_per_chunk`` (int or cycled list), ``prompt_tokens``. Delays, failures, reasoning and the truth log
are not served in this mode (the aiohttp server in :mod:`specscope.truth.server` does those).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from typing import Any

from specscope.truth.script import ResponsePlan, TruthScript

__all__ = ["FirehoseState", "serve_firehose"]

_HEAD_200 = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nnot found\n"
_OK_HEALTH = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"status":"ok"}\n'


def _http_chunk(payload: bytes) -> bytes:
    """One HTTP/1.1 chunk (RFC 9112 section 7.1): hex size, CRLF, data, CRLF."""
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def _event(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


class FirehoseState:
    """Pre-encoded responses of one plan: ``head``, then ``writes(n)`` (batches of ``events_per_write``
    token events; the last one ends with the tail) per response of n tokens.

    Args:
        plan: the script's ``default`` plan (``output_tokens``, ``tokens_per_chunk``, ``prompt_tokens``).
        events_per_write: SSE token events per socket write (>= 1).
    """

    def __init__(self, plan: ResponsePlan, events_per_write: int = 1):
        self.plan = plan
        self.events_per_write = max(1, int(events_per_write))
        base = {"id": "chatcmpl-firehose", "object": "chat.completion.chunk", "created": 1767225600, "model": "truth"}
        self._base = base
        self.head = _HEAD_200 + _http_chunk(
            _event(
                {
                    **base,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"role": "assistant", "content": ""},
                            "logprobs": None,
                            "finish_reason": None,
                        }
                    ],
                }
            )
        )
        self._by_size: dict[int, bytes] = {}
        self._tails: dict[int, bytes] = {}
        self._writes: dict[int, list[bytes]] = {}
        self.requests = 0
        self.tokens = 0

    def _token_chunk(self, k: int) -> bytes:
        c = self._by_size.get(k)
        if c is None:
            c = self._by_size[k] = _http_chunk(
                _event(
                    {
                        **self._base,
                        "choices": [
                            {"index": 0, "delta": {"content": " x" * k}, "logprobs": None, "finish_reason": None}
                        ],
                    }
                )
            )
        return c

    def chunks(self, n_tokens: int) -> list[bytes]:
        """The token events of a response of ``n_tokens`` tokens, one HTTP chunk each (not batched)."""
        return [self._token_chunk(k) for k in self.plan.chunk_sizes(n_tokens)]

    def writes(self, n_tokens: int) -> list[bytes]:
        """The socket writes after ``head`` for a response of ``n_tokens`` tokens (cached per size): token
        events joined K at a time, the tail appended to the last batch; at least one write."""
        w = self._writes.get(n_tokens)
        if w is None:
            ev = self.chunks(n_tokens)
            k = self.events_per_write
            w = [b"".join(ev[i : i + k]) for i in range(0, len(ev), k)] or [b""]
            w[-1] += self.tail(n_tokens)
            self._writes[n_tokens] = w
        return w

    def tail(self, n_tokens: int) -> bytes:
        """Finish chunk, usage chunk, ``[DONE]`` and the terminating zero-size chunk."""
        t = self._tails.get(n_tokens)
        if t is None:
            p = self.plan.prompt_tokens
            fin = _event(
                {
                    **self._base,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {},
                            "logprobs": None,
                            "finish_reason": "stop" if self.plan.output_tokens else "length",
                        }
                    ],
                }
            )
            usage = _event(
                {
                    **self._base,
                    "choices": [],
                    "usage": {"prompt_tokens": p, "total_tokens": p + n_tokens, "completion_tokens": n_tokens},
                }
            )
            t = self._tails[n_tokens] = (
                _http_chunk(fin) + _http_chunk(usage) + _http_chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n"
            )
        return t


class _Stream:
    __slots__ = ("proto", "writes", "i")

    def __init__(self, proto: _Conn, writes: list[bytes]):
        self.proto = proto
        self.writes = writes
        self.i = 0


class _Pump:
    """Round-robin writer: one batch per active stream per pass, then yield to the loop."""

    def __init__(self) -> None:
        self.active: deque[_Stream] = deque()
        self.wake = asyncio.Event()

    def add(self, s: _Stream) -> None:
        self.active.append(s)
        self.wake.set()

    async def run(self) -> None:
        active = self.active
        while True:
            if not active:
                self.wake.clear()
                await self.wake.wait()
                continue
            for _ in range(len(active)):
                s = active.popleft()
                p = s.proto
                if p.closed:
                    continue
                if p.paused:
                    active.append(s)
                    continue
                w = s.writes
                p.transport.write(w[s.i])
                s.i += 1
                if s.i < len(w):
                    active.append(s)
                else:
                    p.busy = False
                    p.next_request()
            await asyncio.sleep(0)


class _Conn(asyncio.Protocol):
    def __init__(self, state: FirehoseState, pump: _Pump):
        self.state = state
        self.pump = pump
        self.buf = bytearray()
        self.transport: Any = None
        self.paused = self.closed = self.busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.busy:
            self.next_request()

    def next_request(self) -> None:
        """Parse one complete request from the buffer, if there is one, and start answering it."""
        buf = self.buf
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(buf[:end]).decode("latin-1")
        lines = head.split("\r\n")
        method, path = (lines[0].split(" ") + ["", ""])[:2]
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(buf) < end + 4 + length:
            return
        body = bytes(buf[end + 4 : end + 4 + length])
        del buf[: end + 4 + length]
        if method == "GET" and path == "/health":
            self.transport.write(_OK_HEALTH)
            return self.next_request()
        if method != "POST" or not path.endswith("/chat/completions"):
            self.transport.write(_NOT_FOUND)
            return self.next_request()
        st = self.state
        n = st.plan.output_tokens
        if n is None:
            try:
                req = json.loads(body)
                n = int(req.get("max_completion_tokens") or req.get("max_tokens") or 16)
            except (ValueError, TypeError, AttributeError):
                n = 16
        st.requests += 1
        st.tokens += n
        self.busy = True
        self.transport.write(st.head)
        self.pump.add(_Stream(self, st.writes(n)))


async def serve_firehose(script: TruthScript, host: str, port: int, announce: Callable[[str], None]) -> None:
    """Serve the firehose on ``host:port`` until cancelled; ``announce(base_url)`` once listening."""
    state = FirehoseState(script.default, script.firehose_events_per_write)
    pump = _Pump()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Conn(state, pump), host, port, backlog=1024)
    task = loop.create_task(pump.run())
    bound = server.sockets[0].getsockname()[1]
    announce(f"http://{host}:{bound}")
    try:
        await asyncio.Event().wait()
    finally:
        task.cancel()
        server.close()

"""The raw asyncio+httptools hot path (specscope.client.wire): same records as the aiohttp path on real servers,
reconnects, connect failures, and the after-the-run body split of raw socket reads."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from hangguard import HANG_S
from specscope.client.parse import RawCapture
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.client.wire import WireTarget, body_reads
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

SHAPES = {
    "good": {},
    "multi": dict(tokens_per_chunk=[4, 1]),
    "http503": dict(status=503),
    "drop0": dict(drop_after_chunks=0),
    "drop3": dict(drop_after_chunks=3),
    "nodone": dict(send_done=False),
    "nousage": dict(usage="absent"),
    "short": dict(output_tokens=5, finish_reason=None),
    "empty": dict(output_tokens=0, role_ms=None, finish_reason=None, usage="absent"),
    "early": dict(output_tokens=5, finish_reason=None, usage="absent", send_done=False),
    "llamacpp": dict(output_tokens=5, usage="last_choice_chunk", llamacpp_timings=True),
    # issue 29: events of the wrong shape, a comment with CRLF line ends (the general SSE path), a runaway
    "badchoices": dict(inject_events=[(3, 'data: {"choices":"x"}\n\n')]),
    "badcontent": dict(inject_events=[(3, 'data: {"choices":[{"index":0,"delta":{"content":5}}]}\n\n')]),
    "crlf": dict(inject_events=[(2, ": keep-alive\r\n\r\n")]),
    "runaway": dict(output_tokens=400, usage="absent"),
}
FIELDS = (
    "status",
    "reason",
    "http_status",
    "output_tokens",
    "prompt_tokens",
    "content_chunks",
    "reasoning_chunks",
    "text",
    "reasoning_text",
    "finish_reason",
    "server_draft_tokens",
    "server_accepted_tokens",
)
# (bytes_received is left out: the truth server's response ids count requests, so their width differs between runs)


@pytest.fixture(scope="module")
def truth():
    plan = ResponsePlan(output_tokens=10, inter_chunk_ms=1)
    with TruthServer(
        TruthScript(
            default=plan,
            by_prompt={k: ResponsePlan.model_validate({**plan.model_dump(), **v}) for k, v in SHAPES.items()},
        )
    ) as ts:
        yield ts


def _reqs(names):
    return [
        (f"{k}#{i}", {"model": "truth", "messages": [{"role": "user", "content": k}], "max_tokens": 10})
        for i, k in enumerate(names)
    ]


def test_wire_and_aiohttp_paths_agree_on_every_shape(truth):
    names = [*SHAPES, *SHAPES]
    got = {}
    for hot in ("wire", "aiohttp"):
        settings = ClientSettings(hot_path=hot, keep_text=True)
        recs = run_sync(run_fixed_concurrency(truth.base_url, _reqs(names), 6, settings))
        got[hot] = [tuple(getattr(r, f) for f in FIELDS) for r in recs]
        assert [r.prompt_id for r in recs] == [p for p, _ in _reqs(names)]
    assert got["wire"] == got["aiohttp"]
    wire = dict(zip(names, got["wire"], strict=True))
    assert wire["good"][:8] == ("ok", None, 200, 10, 8, 10, 0, " x" * 10)
    assert wire["http503"][:3] == ("failed", "http 503 on /v1/chat/completions: scripted failure", 503)
    assert wire["drop3"][:2] == ("degraded", "connection dropped; no [DONE]; no usage; short without stop")
    # 10 tokens in chunks 4,1,4,1: 4 events, and usage says 10 (never the chunk count)
    assert wire["multi"][3:8] == (10, 8, 4, 0, " x" * 10)
    assert wire["drop0"][:6] == (
        "failed",
        "connection dropped; no [DONE]; no usage; short without stop",
        200,
        None,
        None,
        0,
    )
    assert wire["drop3"][5:8] == (3, 0, " x x x")
    assert wire["nousage"][:4] == ("ok", None, 200, None)  # finished normally, tokens unknown
    assert wire["empty"][:6] == ("failed", "EMPTY_STREAM", 200, None, None, 0)
    assert wire["early"][:2] == ("failed", "STOPPED_EARLY") and wire["early"][5] == 5
    assert wire["llamacpp"][3] == 5 and wire["llamacpp"][10:] == (0, 0)  # timings present, no drafts programmed
    what = "Expected `array | null`, got `str` - at `$.choices`"
    assert wire["badchoices"][:4] == ("degraded", f"BAD_EVENT(1 events; first: {what})", 200, 10)
    assert wire["badchoices"][5] == 10  # the events around it are read
    what = "Expected `str | null`, got `int` - at `$.choices[0].delta.content`"
    assert wire["badcontent"][:2] == ("degraded", f"BAD_EVENT(1 events; first: {what})")
    assert wire["crlf"][:6] == ("ok", None, 200, 10, 8, 10)
    # max_tokens 10: cut past 10 + 64 token events, the record holds exactly those
    assert wire["runaway"][:2] == ("failed", "RUNAWAY(more than 74 tokens for max_tokens 10)")
    assert wire["runaway"][5] == 74 and wire["runaway"][7] == " x" * 74


def test_connect_failure_is_recorded_not_raised():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    recs = run_sync(
        run_fixed_concurrency(f"http://127.0.0.1:{port}", _reqs(["a", "b"]), 2, ClientSettings(connect_timeout_s=2))
    )
    assert [r.status for r in recs] == ["failed", "failed"]
    assert all(r.reason.startswith("connect failed: ") and r.http_status is None for r in recs)


_SSE = (
    b'data: {"choices":[{"index":0,"delta":{"content":" x"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n'
    b"data: [DONE]\n\n"
)


class _CloseServer:
    """A real HTTP/1.1 server on 127.0.0.1 that answers one request per connection (Content-Length body,
    ``Connection: close``) and counts connections, in a thread with its own loop."""

    def __init__(self) -> None:
        self.connections = 0
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)

    async def _handle(self, reader, writer) -> None:
        self.connections += 1
        head = await reader.readuntil(b"\r\n\r\n")
        length = int([h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0])
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(_SSE), _SSE)
        )
        await writer.drain()
        writer.close()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    def __enter__(self):
        self.thread.start()
        self.ready.wait(HANG_S)
        return self

    def __exit__(self, *exc):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_connection_close_reconnects_per_request():
    with _CloseServer() as srv:
        url = f"http://127.0.0.1:{srv.port}"
        recs = run_sync(run_fixed_concurrency(url, _reqs(["a"] * 5), 1, ClientSettings(keep_text=True)))
    assert [(r.status, r.output_tokens, r.text, r.finish_reason) for r in recs] == [("ok", 1, " x", "stop")] * 5
    assert srv.connections == 5  # one per request: the server said Connection: close each time


class _StaleKeepAliveServer(_CloseServer):
    """Answers the first request of a connection without ``Connection: close`` (kept alive), then closes the
    connection when the next request arrives, unanswered: a server that dropped the idle connection as the client
    reused it (llama.cpp's server after a long response)."""

    async def _handle(self, reader, writer) -> None:
        self.connections += 1
        head = await reader.readuntil(b"\r\n\r\n")
        length = int([h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0])
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s" % (len(_SSE), _SSE)
        )
        await writer.drain()
        await reader.read(1)  # the next request on this connection: dropped before any response byte
        writer.close()


def test_request_on_a_stale_kept_alive_connection_is_sent_again_on_a_new_one():
    with _StaleKeepAliveServer() as srv:
        url = f"http://127.0.0.1:{srv.port}"
        recs = run_sync(run_fixed_concurrency(url, _reqs(["a"] * 3), 1, ClientSettings(keep_text=True)))
    assert [(r.status, r.output_tokens, r.text, r.finish_reason) for r in recs] == [("ok", 1, " x", "stop")] * 3
    assert srv.connections == 3  # requests 2 and 3 each met a dropped connection, then a new one answered them


def test_body_reads_splits_chunked_framing_across_reads():
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    wire = head + b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    # reads cut inside the head, inside a size line and inside chunk data
    cuts = [10, len(head) + 1, len(head) + 6, len(head) + 14, len(wire)]
    reads, prev = [], 0
    for i, c in enumerate(cuts):
        reads.append((1000 + i, wire[prev:c]))
        prev = c
    raw = RawCapture("p", 0, 0, chunks=reads)
    body_reads(raw)
    assert raw.http_status == 200
    assert raw.chunks == [(1002, b"hel"), (1003, b"lo "), (1004, b"world")]


def test_body_reads_without_a_head_leaves_status_none():
    raw = RawCapture("p", 0, 0, chunks=[(5, b"HTTP/1.1 20")])
    body_reads(raw)
    assert (raw.http_status, raw.chunks) == (None, [])


def test_wire_target_builds_request_and_refuses_https():
    t = WireTarget("http://127.0.0.1:8000/v1/chat/completions")
    req = t.request(b'{"a":1}')
    assert req.startswith(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n")
    assert req.endswith(b'Content-Length: 7\r\n\r\n{"a":1}')
    with pytest.raises(ValueError):
        WireTarget("https://example.invalid/v1/chat/completions")

"""Server answers that are legal HTTP and SSE but unusual (issue 37, H1 and SSE1), from a raw socket server on
127.0.0.1 that writes exactly the bytes under test:

- CR-only line ends (the WHATWG event-stream format allows CR, LF or CRLF): the final ``data: [DONE]\\r\\r`` is an
  event, and the stream is complete;
- a body delimited by closing the connection (HTTP/1.1 with neither Content-Length nor chunked framing, RFC 9112
  section 6.3 item 8): ``[DONE]`` and usage arrived, so the stream is ok, not "connection dropped".
Both hot paths (the raw wire and aiohttp) must agree.
"""

from __future__ import annotations

import json
import socket
import threading

import pytest

from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings

TOKENS = ["Hel", "lo", " there"]


def _events(sep: str) -> bytes:
    head = {"id": "x", "object": "chat.completion.chunk", "model": "m"}
    out = []
    for i, t in enumerate(TOKENS):
        finish = "stop" if i == len(TOKENS) - 1 else None
        out.append({**head, "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": finish}]})
    out.append({**head, "choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7}})
    body = "".join(f"data: {json.dumps(e)}{sep}{sep}" for e in out) + f"data: [DONE]{sep}{sep}"
    return body.encode()


RESPONSES = {
    "cr": b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    b"Connection: close\r\n\r\n",
    "close": b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
}


class RawServer:
    """Answers every request on one connection with the ``kind`` response, then closes the connection."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, rest = data.partition(b"\r\n\r\n")
                length = next(
                    int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")
                )
                while len(rest) < length:
                    rest += conn.recv(65536)
                if self.kind == "cr":
                    body = _events("\r")
                    conn.sendall(RESPONSES["cr"] + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
                else:
                    conn.sendall(RESPONSES["close"] + _events("\n"))
                    conn.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
@pytest.mark.parametrize("kind", ["cr", "close"])
def test_unusual_but_legal_answers_are_complete_streams(kind, hot_path):
    server = RawServer(kind)
    try:
        reqs = [
            (f"p{i}", {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8})
            for i in range(2)
        ]
        recs = run_sync(
            run_fixed_concurrency(f"http://127.0.0.1:{server.port}", reqs, 1, ClientSettings(hot_path=hot_path))
        )
    finally:
        server.close()
    for r in recs:
        assert (r.status, r.reason) == ("ok", None), (r.status, r.reason)
        assert (r.output_tokens, r.prompt_tokens, r.content_chunks, r.finish_reason) == (3, 4, 3, "stop")


class AuthServer(RawServer):
    """Answers 200 (the ``close`` response) when the request carries ``Authorization: Basic dTpwQHNz`` (u:p@ss),
    else 401; records each request's Authorization header."""

    def __init__(self) -> None:
        self.seen: list[bytes | None] = []
        super().__init__("auth")

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head = data.partition(b"\r\n\r\n")[0].split(b"\r\n")
                auth = next((h.split(b":", 1)[1].strip() for h in head if h.lower().startswith(b"authorization")), None)
                self.seen.append(auth)
                if auth == b"Basic dTpwQHNz":
                    conn.sendall(RESPONSES["close"] + _events("\n"))
                else:
                    conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                conn.shutdown(socket.SHUT_WR)


@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
def test_credentials_in_the_url_go_with_the_chat_requests(hot_path):
    server = AuthServer()
    try:
        reqs = [("p0", {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8})]
        url = f"http://u:p%40ss@127.0.0.1:{server.port}"  # the password p@ss, percent-encoded as a URL must
        (rec,) = run_sync(run_fixed_concurrency(url, reqs, 1, ClientSettings(hot_path=hot_path)))
    finally:
        server.close()
    assert server.seen == [b"Basic dTpwQHNz"]
    assert (rec.status, rec.output_tokens) == ("ok", 3)


class GzipServer(RawServer):
    """Gzips the ``close`` response when the request accepts gzip (as a proxy with gzip on does), else sends it as
    it is; records each request's Accept-Encoding."""

    def __init__(self) -> None:
        self.accepts: list[bytes | None] = []
        super().__init__("gzip")

    def _serve(self) -> None:
        import gzip

        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head = data.partition(b"\r\n\r\n")[0].split(b"\r\n")
                enc = next(
                    (h.split(b":", 1)[1].strip() for h in head if h.lower().startswith(b"accept-encoding")), None
                )
                self.accepts.append(enc)
                if enc is not None and b"gzip" in enc:
                    conn.sendall(
                        RESPONSES["close"].replace(b"\r\n\r\n", b"\r\nContent-Encoding: gzip\r\n\r\n")
                        + gzip.compress(_events("\n"))
                    )
                else:
                    conn.sendall(RESPONSES["close"] + _events("\n"))
                conn.shutdown(socket.SHUT_WR)


@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
def test_both_hot_paths_ask_for_an_uncompressed_stream(hot_path):
    """The aiohttp path sent aiohttp's default ``Accept-Encoding: gzip, deflate`` but never decompresses (the stream
    is parsed as it arrives): a server that honoured it sent gzip bytes, read as ``EMPTY_STREAM``. Both paths now
    send ``identity``, as the wire path did, and read the same complete stream."""
    server = GzipServer()
    try:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}
        (r,) = run_sync(
            run_fixed_concurrency(
                f"http://127.0.0.1:{server.port}", [("p", body)], 1, ClientSettings(hot_path=hot_path)
            )
        )
    finally:
        server.close()
    assert server.accepts == [b"identity"]
    assert (r.status, r.reason, r.output_tokens, r.content_chunks) == ("ok", None, 3, 3)

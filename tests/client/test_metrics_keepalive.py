"""A ``/metrics`` scrape on a kept-alive connection that the server closes as the request goes out is sent once more
on a new connection (RFC 9112 section 9.3.1: an idempotent request may be retried automatically).

CI 2026-12-06 (stop 47): the vLLM CPU test failed with ``ServerUnreachable ... RemoteProtocolError: Server
disconnected without sending a response`` on the 8th request of one connection. httpx keeps an idle connection 5 s,
uvicorn (vLLM's server) closes one after 5 s idle: a scrape between two cells could go out on a connection the server
was closing. The server here is a real socket server on 127.0.0.1 that answers the first request on each connection
(keep-alive) and closes the connection at the second without a byte of response: the race, made certain.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from hangguard import HANG_S
from specscope.client.metrics import scrape
from specscope.errors import ServerUnreachable

_BODY = b'vllm:spec_decode_num_drafts_total{engine="0"} 7\n'


class _OneAnswerPerConnection:
    """Answers ``answers`` requests per connection (HTTP/1.1 keep-alive), then closes at the next one unanswered."""

    def __init__(self, answers: int) -> None:
        self.answers = answers
        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            for n in range(self.answers + 1):
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                if n == self.answers:
                    return  # the request went out on a connection this server is closing: no response at all
                head = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {len(_BODY)}\r\n\r\n"
                conn.sendall(head.encode() + _BODY)


@pytest.fixture()
def server_one_answer() -> Iterator[_OneAnswerPerConnection]:
    s = _OneAnswerPerConnection(answers=1)
    yield s
    s.sock.close()


def test_a_scrape_on_a_connection_the_server_closed_is_sent_again_on_a_new_one(
    server_one_answer: _OneAnswerPerConnection,
) -> None:
    base = f"http://127.0.0.1:{server_one_answer.port}"

    async def go() -> list[float | None]:
        async with httpx.AsyncClient(timeout=HANG_S) as client:
            return [(await scrape(client, base)).drafts for _ in range(3)]

    assert asyncio.run(go()) == [7, 7, 7]
    # scrape 1: connection 1; scrape 2: connection 1 closed unanswered, again on connection 2; scrape 3: same on 3
    assert server_one_answer.connections == 3


def test_a_server_that_never_answers_is_still_unreachable_after_one_more_try() -> None:
    s = _OneAnswerPerConnection(answers=0)
    try:

        async def go() -> None:
            async with httpx.AsyncClient(timeout=HANG_S) as client:
                await scrape(client, f"http://127.0.0.1:{s.port}")

        with pytest.raises(ServerUnreachable) as info:
            asyncio.run(go())
        assert "Server disconnected without sending a response" in (info.value.found or "")
        assert s.connections == 2  # the first try and one more, no loop
    finally:
        s.sock.close()

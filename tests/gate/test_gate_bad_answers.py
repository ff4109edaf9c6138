"""``gate`` against a server whose ``/tokenize`` or chat answers are JSON of the wrong shape or nested past
Python's parser (issue 37, probed 2026-12-07 through a hostile proxy): ``count_tokens`` called ``.get`` on a list
and ``json.loads`` raised ``RecursionError``, each an exit 3. A bad ``/tokenize`` answer is no count (the filler is
sized by characters); a bad chat answer is that probe's named error; the gate runs to its end."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from clirun import cli

DEEP = "[" * 100_000 + "]" * 100_000
GOOD_CHAT = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "42"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 1},
}


@contextmanager
def hostile(tokenize: str, chat: str) -> Iterator[str]:
    """A server on 127.0.0.1 whose ``GET /v1/models`` lists ``m``, ``POST /tokenize`` answers ``tokenize`` and
    ``POST /v1/chat/completions`` answers ``chat`` (HTTP 200, application/json); yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, body: str) -> None:
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self._send(json.dumps({"object": "list", "data": [{"id": "m"}]}))

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send(tokenize if self.path == "/tokenize" else chat)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize("tokenize", ["[1, 2, 3]", DEEP, '{"count": "7"}', '"text"'])
def test_a_bad_tokenize_answer_is_no_count(tokenize, capsys, monkeypatch, tmp_path):
    with hostile(tokenize, json.dumps(GOOD_CHAT)) as url:
        argv = ["gate", "--server", f"x={url}", "--gate", "long_context", "--limit", "1", "--max-tokens", "8"]
        code, _, err = cli([*argv, "--out", str(tmp_path / "out")], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err


@pytest.mark.parametrize(
    ("chat", "named"),
    [
        ("[1, 2]", "response is not a chat completion"),
        (DEEP, "response is not JSON"),
        ('{"choices": [5]}', "response is not a chat completion"),
        ('{"choices": "abc"}', "response is not a chat completion"),
        ('{"choices": {"a": 1}}', "response is not a chat completion"),
        ('{"choices": [{"message": "hi"}]}', "response is not a chat completion"),
        ('{"choices": [{"message": {"content": "4"}}], "usage": [1]}', "response is not a chat completion"),
    ],
)
def test_a_chat_answer_of_the_wrong_shape_is_the_probes_named_error(chat, named, capsys, monkeypatch, tmp_path):
    with hostile('{"count": 3}', chat) as url:
        argv = ["gate", "--server", f"x={url}", "--gate", "arithmetic", "--limit", "1", "--max-tokens", "8"]
        code, out, err = cli([*argv, "-f", "json", "--out", str(tmp_path / "out")], capsys, monkeypatch, tmp_path)
    assert code == 1, err
    assert named in out

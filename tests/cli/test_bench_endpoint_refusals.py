"""``bench --endpoint``: what cannot be sent is refused before the first request, in one line with the fix, exit 2,
and no run folder: an endpoint given inside ``--server``'s URL, an endpoint specscope does not speak, and
conversations (multi-turn rows) on an API that takes one prompt per request."""

from __future__ import annotations

import json

import pytest

from clirun import cli

#: nothing listens here: every refusal below must come before a server is contacted
NOWHERE = "http://127.0.0.1:9"


def _error(code: int, err: str) -> str:
    assert code == 2, err
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    return line


@pytest.mark.parametrize("path", ["/v1/completions", "/v1/responses", "/v1/chat/completions/"])
def test_an_endpoint_in_the_server_url_is_refused_with_the_fix(path, capsys, monkeypatch, tmp_path):
    out = tmp_path / "runs"
    code, _, err = cli(["bench", "--server", f"base={NOWHERE}{path}", "--out", out], capsys, monkeypatch, tmp_path)
    line = _error(code, err)
    want = path.rstrip("/")
    assert line.startswith(
        f"error: --server takes the server's URL, not an endpoint's: {want} is chosen with --endpoint"
    )
    assert f"found: base={NOWHERE}{path}" in line
    assert line.endswith(f"fix: --server base={NOWHERE} --endpoint {want}")
    assert not out.exists()


def test_an_unknown_endpoint_is_refused_naming_the_three(capsys, monkeypatch, tmp_path):
    out = tmp_path / "runs"
    code, _, err = cli(
        ["bench", "--server", f"base={NOWHERE}", "--endpoint", "/v1/chat", "--out", out], capsys, monkeypatch, tmp_path
    )
    line = _error(code, err)
    assert "/v1/chat" in line
    assert "/v1/chat/completions, /v1/completions, /v1/responses" in line
    assert not out.exists()


def test_conversations_are_refused_on_v1_completions_before_the_run_folder(capsys, monkeypatch, tmp_path):
    rows = tmp_path / "chats.jsonl"
    rows.write_text(
        "\n".join(json.dumps({"turns": [f"question {i}", f"and a follow-up {i}"]}) for i in range(4)) + "\n"
    )
    out = tmp_path / "runs"
    argv = ["bench", "--server", f"base={NOWHERE}", "--workload", f"chats={rows}", "--max-concurrency", "1"]
    code, _, err = cli([*argv, "--endpoint", "/v1/completions", "--out", out], capsys, monkeypatch, tmp_path)
    line = _error(code, err)
    assert line == (
        "error: multi-turn workloads cannot be sent on /v1/completions; found: multi-turn rows in chats; "
        "expected: /v1/completions takes one prompt per request; a conversation's later turns need "
        "/v1/chat/completions's messages; "
        "fix: drop --endpoint /v1/completions for these workloads, or run single-turn workloads on it"
    )
    assert not out.exists()  # refused before the run folder (and before the server, which does not exist)

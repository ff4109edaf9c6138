"""``specscope truth-server`` as a real command."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import httpx
import pytest

from hangguard import HANG_S


def test_bad_script_one_line_error(tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text(json.dumps({"default": {"ttft_ms": "soon"}}))
    p = subprocess.run(
        [sys.executable, "-m", "specscope", "truth-server", "--port", "0", "--script", str(bad)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "default.ttft_ms" in lines[0] and "Traceback" not in p.stderr


def test_serves_script(tmp_path):
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"default": {"output_tokens": 4, "tokens_per_chunk": 2}}))
    p = subprocess.Popen(
        [sys.executable, "-m", "specscope", "truth-server", "--port", "0", "--script", str(good), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = json.loads(p.stdout.readline())["base_url"]
        ask = {"messages": [{"role": "user", "content": "x"}], "stream": True}  # without it: one JSON body
        r = httpx.post(url + "/v1/chat/completions", json=ask, timeout=HANG_S)
        assert r.status_code == 200
        assert r.text.count('"content":" x x"') == 2
        assert r.text.endswith("data: [DONE]\n\n")
    finally:
        p.terminate()
        p.wait(HANG_S)
        p.stdout.close()


def _started(*extra: str) -> subprocess.Popen:
    """``specscope truth-server`` in a child process, returned once it announced its URL (it serves then)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "specscope", "truth-server", "--port", "0", "--format", "json", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        restore_signals=True,
    )
    url = json.loads(p.stdout.readline())["base_url"]
    assert httpx.get(url + "/health", timeout=HANG_S).status_code == 200
    return p


@pytest.mark.parametrize("extra", [(), ("--firehose",)])
def test_ctrl_c_exits_130_like_every_command(extra):
    p = _started(*extra)
    p.send_signal(signal.SIGINT)
    _out, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 130  # as typer ends every other command on Ctrl-C; aiohttp's handler made it 1
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, err


def test_sigterm_is_a_clean_stop_exit_0():
    p = _started()
    p.terminate()
    _out, err = p.communicate(timeout=HANG_S)
    assert (p.returncode, err) == (0, "")


BAD_PLANS = {
    "inter_chunk_ms []": ({"inter_chunk_ms": []}, "default.inter_chunk_ms"),  # each request: ZeroDivisionError
    "inter_chunk_ms NaN": ({"inter_chunk_ms": "NaN"}, "default.inter_chunk_ms"),  # ValueError mid-stream
    "inter_chunk_ms 1e308": ({"inter_chunk_ms": 1e308}, "default.inter_chunk_ms"),  # OverflowError mid-stream
    "ttft_ms inf": ({"ttft_ms": "inf"}, "default.ttft_ms"),
    "stall_ms -100": ({"stall_after_chunks": 1, "stall_ms": -100}, "default.stall_ms"),  # served, no stall
    "status 99": ({"status": 99}, "default.status"),  # a status line no client reads
    "status 10**20": ({"status": 10**20}, "default.status"),
    "output_tokens 10**15": ({"output_tokens": 10**15}, "default.output_tokens"),  # a hang; SIGTERM ignored
    "reasoning_tokens -3": ({"reasoning_tokens": -3}, "default.reasoning_tokens"),
    "drop_after_chunks -1": ({"drop_after_chunks": -1}, "default.drop_after_chunks"),
    # attack50: a count past a float's range (10**400) was served, and each /metrics answer after the response
    # finished was a 500 with a traceback in the server's log (OverflowError: int too large to convert to float)
    "prompt_tokens 10**400": ({"prompt_tokens": 10**400}, "default.prompt_tokens"),
    "drafts 2**63": ({"drafts": 2**63}, "default.drafts"),
    "accepted_per_position [10**400]": ({"accepted_per_position": [10**400]}, "default.accepted_per_position"),
}


@pytest.mark.parametrize("case", sorted(BAD_PLANS))
def test_a_script_value_no_response_can_carry_is_refused_before_serving(case, tmp_path):
    plan, field = BAD_PLANS[case]
    bad = tmp_path / "s.json"
    bad.write_text(json.dumps({"default": plan}))
    p = subprocess.run(
        [sys.executable, "-m", "specscope", "truth-server", "--port", "0", "--script", str(bad)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert p.returncode == 2, p.stdout
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith("error: the script is not a valid TruthScript") and field in line


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"not json", "not a JSON object"),  # json.loads raised: a 500 and a traceback in the server's log
        (b"[1, 2]", "not a JSON object"),
        (b'{"messages": [], "max_tokens": "many"}', "max_tokens"),
        (b'{"messages": [], "max_tokens": 1000000000000000}', "max_tokens"),  # the 10**15-token hang, by request
        (b'{"messages": [], "specscope_truth": {"ttft_ms": "NaN"}}', "specscope_truth"),
    ],
)
def test_a_request_the_truth_server_cannot_serve_is_a_400_and_it_serves_on(body, says):
    p = subprocess.Popen(
        [sys.executable, "-m", "specscope", "truth-server", "--port", "0", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = json.loads(p.stdout.readline())["base_url"] + "/v1/chat/completions"
        r = httpx.post(url, content=body, timeout=HANG_S)
        assert r.status_code == 400 and says in r.json()["error"]["message"]
        ok = httpx.post(url, json={"messages": [{"role": "user", "content": "x"}], "stream": True}, timeout=HANG_S)
        assert ok.status_code == 200 and ok.text.endswith("data: [DONE]\n\n")
    finally:
        p.terminate()
        _, err = p.communicate(timeout=HANG_S)
    assert "Traceback" not in err


@pytest.mark.parametrize(("text", "found"), [("# notes\n", "not JSON"), ("[1, 2]", "not a JSON object")])
def test_a_script_that_is_not_a_json_object_says_so_without_an_empty_field(text, found, tmp_path, capsys, monkeypatch):
    """``truth-server --script README.md`` said ``found: README.md: : Invalid JSON ...; fix: fix the named field``
    with no field named (fresh-user finding, user59): a file that is not a JSON object says what it is and what a
    script looks like."""
    from clirun import cli, one_error

    bad = tmp_path / "script.md"
    bad.write_text(text)
    code, _, err = cli(["truth-server", "--port", "0", "--script", bad], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and line.startswith("error: the script is not a valid TruthScript"), line
    assert f"found: {bad}: {found}" in line and ": :" not in line, line
    assert "fix the named field" not in line
    assert 'fix: write a JSON object of TruthScript fields, e.g. {"default": {"output_tokens": 16}}' in line, line

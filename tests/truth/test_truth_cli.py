"""``specscope truth-server`` as a real command."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import httpx
import pytest


def test_bad_script_one_line_error(tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text(json.dumps({"default": {"ttft_ms": "soon"}}))
    p = subprocess.run(
        [sys.executable, "-m", "specscope", "truth-server", "--port", "0", "--script", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
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
        r = httpx.post(url + "/v1/chat/completions", json={"messages": [{"role": "user", "content": "x"}]}, timeout=10)
        assert r.status_code == 200
        assert r.text.count('"content":" x x"') == 2
        assert r.text.endswith("data: [DONE]\n\n")
    finally:
        p.terminate()
        p.wait(10)
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
    assert httpx.get(url + "/health", timeout=30).status_code == 200
    return p


@pytest.mark.parametrize("extra", [(), ("--firehose",)])
def test_ctrl_c_exits_130_like_every_command(extra):
    p = _started(*extra)
    p.send_signal(signal.SIGINT)
    _out, err = p.communicate(timeout=60)
    assert p.returncode == 130  # as typer ends every other command on Ctrl-C; aiohttp's handler made it 1
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, err


def test_sigterm_is_a_clean_stop_exit_0():
    p = _started()
    p.terminate()
    _out, err = p.communicate(timeout=60)
    assert (p.returncode, err) == (0, "")

"""``specscope truth-server`` as a real command."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx


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

"""A server that echoes the API key back (issue 37, A3): its error event names the key, in no shape a redaction rule
knows (no prefix, no name beside it). The key the user gave is masked wherever specscope writes or prints it: the
run's database, the progress output, the report."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hangguard import HANG_S
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

KEY = "Zq8wPlainKey4471"
ECHO = {"error": {"message": f"quota exceeded for {KEY}", "type": "rate_limit"}}


def test_an_echoed_api_key_is_never_written_or_printed(tmp_path):
    plan = ResponsePlan(
        output_tokens=4, ttft_ms=5, inter_chunk_ms=1, role_ms=None, inject_events=[(2, f"data: {json.dumps(ECHO)}\n\n")]
    )
    with TruthServer(TruthScript(default=plan)) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workloads", "prose", "--max-concurrency", "1"]
        args += ["--repeats", "1", "--max-tokens", "4", "--api-key", KEY, "--out", str(tmp_path / "runs")]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode in (0, 1), res.stderr[-1500:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    written = b"".join(p.read_bytes() for p in run_dir.rglob("*") if p.is_file())
    assert b"quota exceeded for" in written  # the server's message was kept ...
    assert KEY.encode() not in written  # ... without the key
    assert KEY not in res.stdout + res.stderr
    report = subprocess.run([sys.executable, "-m", "specscope", "report", str(run_dir)], capture_output=True, text=True)
    assert KEY not in report.stdout + report.stderr

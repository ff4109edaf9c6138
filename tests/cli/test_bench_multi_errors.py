"""Bad --metrics / --prometheus-selector / --request-rate / --slo input: one clear line, exit 2, before any server is
contacted (port 9 answers nothing)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hangguard import HANG_S


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--metrics", "http://127.0.0.1:9"], "--metrics takes NAME=URL"),
        (["--metrics", "other=http://127.0.0.1:9"], "invalid value for --metrics; found: other=http://127.0.0.1:9; "),
        (["--prometheus-selector", "base=job"], "--prometheus-selector takes NAME={label matchers}"),
        (["--request-rate", "1,x"], "--request-rate takes a positive rate; found: x"),
        (["--request-rate", "0"], "--request-rate takes a positive rate; found: 0"),
        (["--slo", "ttft=2x"], "--slo takes a positive duration; found: ttft=2x"),
        (["--slo", "ttfb=2s"], "invalid value for --slo; found: ttfb=2s; "),
    ],
)
def test_bad_multi_replica_input(tmp_path, args, needle):
    argv = [sys.executable, "-m", "specscope", "bench", "--server", "base=http://127.0.0.1:9", *args]
    res = subprocess.run([*argv, "--out", str(tmp_path)], capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert not list(tmp_path.iterdir())

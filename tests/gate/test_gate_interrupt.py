"""Ctrl-C during `specscope gate`: one ``interrupted`` line, exit 130, no traceback (typer turns the
KeyboardInterrupt into exit 130 before specscope's handler sees it; issue 17)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from gate_scripted_server import ScriptedServer

from hangguard import HANG_S

pytestmark = pytest.mark.integration


def test_sigint_during_gate_says_interrupted(tmp_path):
    with ScriptedServer("slow") as srv:
        argv = [sys.executable, "-m", "specscope", "gate", "--server", f"base={srv.base_url}", "--out", str(tmp_path)]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + HANG_S
        while time.monotonic() < deadline and not srv.requests:  # a probe is in flight
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_S)
    assert srv.requests, f"no probe reached the server within {HANG_S} s"
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "interrupted"

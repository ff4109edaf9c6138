"""Run the ground-truth server in a child process, for tests and benchmarks.

Usage::

    with TruthServer(TruthScript(default=ResponsePlan(ttft_ms=20, inter_chunk_ms=5))) as ts:
        ... stream against ts.base_url ...
        served = ts.served()          # the truth log (see specscope.truth.server)

A child process (not a thread) so the server never competes with the client for the GIL; its stderr goes
to a log file (never an unread pipe), its stdout carries one ``LISTENING <url>`` line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from specscope.errors import ServerStartError
from specscope.truth.script import TruthScript

__all__ = ["TruthServer"]


class TruthServer:
    """A ground-truth server in a child process, usable as a context manager.

    Args:
        script: the programme (default: 16 tokens per request, no delays).
        cpu: pin the child to this CPU core (``os.sched_setaffinity``), or ``None``.
        start_timeout_s: how long to wait for the LISTENING line.

    Attributes:
        base_url: ``http://127.0.0.1:<port>`` once started.

    Raises:
        ServerStartError: the child exited or did not announce itself in time (``log_tail`` has its stderr).
    """

    def __init__(self, script: TruthScript | None = None, *, cpu: int | None = None, start_timeout_s: float = 30.0):
        self.script = script or TruthScript()
        self.cpu = cpu
        self.start_timeout_s = start_timeout_s
        self.base_url = ""
        self._proc: subprocess.Popen | None = None
        self._dir: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> TruthServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="specscope-truth-")
        d = Path(self._dir.name)
        (d / "script.json").write_text(self.script.model_dump_json())
        self._log_path = d / "server.log"
        log = open(self._log_path, "wb")
        cpu = self.cpu
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "specscope.truth.server", "--port", "0", "--script", str(d / "script.json")],
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            preexec_fn=(lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None,
        )
        log.close()
        deadline = time.monotonic() + self.start_timeout_s
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().decode().strip()  # blocks until the line or EOF
        if not line.startswith("LISTENING ") or time.monotonic() > deadline:
            self.stop()
            raise ServerStartError(
                "the ground-truth server did not start",
                found=line or "no output",
                expected="LISTENING <url>",
                fix="see the log tail",
                log_tail=self._tail(),
            )
        self.base_url = line.split(" ", 1)[1]

    def _tail(self) -> str:
        try:
            return self._log_path.read_text()[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(5)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait(5)
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    # -- control endpoints
    def served(self) -> list[dict[str, Any]]:
        """The truth log: one dict per request (``arrival_ns``, ``writes``, ``end_ns``, ``output_tokens``...)."""
        return httpx.get(self.base_url + "/truth/log", timeout=30).json()

    def set_script(self, script: TruthScript) -> None:
        """Replace the programme (counters go back to 0)."""
        self.script = script
        httpx.post(self.base_url + "/truth/script", content=script.model_dump_json(), timeout=10).raise_for_status()

    def reset_counters(self) -> None:
        """All /metrics counters to 0, as a server restart would."""
        httpx.post(self.base_url + "/truth/reset", timeout=10).raise_for_status()

    def clear_log(self) -> None:
        httpx.post(self.base_url + "/truth/clear", timeout=10).raise_for_status()

"""ManagedProcess against real child processes on this machine (no mocks)."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.errors import ServerStartError
from specscope.seam import ManagedProcess, http_probe, log_tail

_SLEEPER = "import time; print('booting the sleeper', flush=True); time.sleep(60)"
_STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ignoring SIGTERM', flush=True); time.sleep(60)"
)


def _wait_for_line(path: Path, text: str, timeout_s: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in log_tail(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert text in log_tail(path)


@pytest.mark.timing  # asserts wall-clock bounds
def test_never_healthy_fails_by_the_deadline_with_the_log_tail(tmp_path: Path) -> None:
    # a listening socket that never accepts: every probe blocks until its timeout, capped to the time left
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/health"
        proc = ManagedProcess([sys.executable, "-c", _SLEEPER], tmp_path / "never.log", name="the sleeper")
        proc.start()
        _wait_for_line(tmp_path / "never.log", "booting the sleeper")
        deadline_s = 1.5
        t0 = time.monotonic()
        with pytest.raises(ServerStartError) as info:
            proc.wait_healthy(http_probe(url), timeout_s=deadline_s, expected="GET /health -> 200")
        elapsed_s = time.monotonic() - t0
        proc.stop()
    assert deadline_s <= elapsed_s < deadline_s + 1.0
    assert info.value.message == "the sleeper not healthy after 1.5 s"
    assert info.value.found == "ReadTimeout after 1.5 s"
    assert "booting the sleeper" in info.value.log_tail


def test_exit_during_start_up_names_the_exit_code(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import sys; print('no model here', flush=True); sys.exit(3)"]
    proc = ManagedProcess(argv, tmp_path / "x.log", name="the crasher", header="# launch: crasher")
    proc.start()
    with pytest.raises(ServerStartError) as info:
        proc.wait_healthy(lambda _t: "not yet", timeout_s=30, expected="ready")
    assert info.value.message == "the crasher exited during start-up"
    assert info.value.found == "exit code 3"
    assert info.value.log_tail == "# launch: crasher\nno model here"
    assert proc.stop() == 3


@pytest.mark.timing  # asserts wall-clock bounds
def test_stop_escalates_to_sigkill_for_a_process_ignoring_sigterm(tmp_path: Path) -> None:
    log = tmp_path / "stubborn.log"
    proc = ManagedProcess([sys.executable, "-c", _STUBBORN], log, name="stubborn", stop_grace_s=0.5)
    proc.start()
    _wait_for_line(log, "ignoring SIGTERM")  # the handler is installed
    t0 = time.monotonic()
    code = proc.stop()
    waited_s = time.monotonic() - t0
    assert code == -9  # SIGKILL
    assert waited_s >= 0.5  # SIGTERM first, then the grace period
    assert proc.running() is False
    assert proc.stop() == -9  # a second stop is harmless


def test_stop_with_sigterm_is_quick(tmp_path: Path) -> None:
    proc = ManagedProcess([sys.executable, "-c", _SLEEPER], tmp_path / "s.log", name="sleeper", stop_grace_s=HANG_S)
    proc.start()
    _wait_for_line(tmp_path / "s.log", "booting the sleeper")
    t0 = time.monotonic()
    assert proc.stop() == -15  # SIGTERM was enough
    assert time.monotonic() - t0 < HANG_S  # the grace period (HANG_S) was not waited out


def test_missing_program_is_a_start_error(tmp_path: Path) -> None:
    proc = ManagedProcess([str(tmp_path / "no-such-server")], tmp_path / "m.log", name="the missing server")
    with pytest.raises(ServerStartError) as info:
        proc.start()
    assert info.value.message == "cannot start the missing server"
    assert proc.stop() is None


def test_log_tail_lines_and_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "l.log"
    p.write_text("".join(f"line {i}\n" for i in range(100)))
    assert log_tail(p, 3) == "line 97\nline 98\nline 99"
    assert log_tail(p, 2, max_bytes=16) == "line 98\nline 99"
    assert log_tail(tmp_path / "none.log") == ""


def test_kill_is_immediate_and_stop_still_reaps(tmp_path: Path) -> None:
    proc = ManagedProcess([sys.executable, "-c", _STUBBORN], tmp_path / "k.log", name="stubborn", stop_grace_s=30)
    proc.start()
    _wait_for_line(tmp_path / "k.log", "ignoring SIGTERM")
    proc.kill()  # as a crash from outside would
    assert proc.popen is not None and proc.popen.wait(timeout=HANG_S) == -9
    assert proc.running() is False and proc.stop() == -9


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"status": "ok"}', None),
        (b'{"status": "loading model"}', "status 'loading model'"),
        (b"[1, 2]", "not the health JSON {\"status\": str}: '[1, 2]'"),
        (b'{"status": 5}', 'not the health JSON {"status": str}: \'{"status": 5}\''),
        (b"<html>bad gateway</html>", "not the health JSON {\"status\": str}: '<html>bad gateway</html>'"),
        (b"[" * 100_000, 'not the health JSON {"status": str}: \'' + "[" * 120 + "...'"),
    ],
)
def test_json_health_probe_names_a_body_of_the_wrong_shape(body: bytes, reason: str | None) -> None:
    """``http_probe(json_status=...)`` (llama.cpp's ``/health``) against a real server on 127.0.0.1 answering 200 with
    ``body``: read by the one answer reader (seam/answers.py), a body that is not ``{"status": str}`` is a named
    reason; before, a list said only "AttributeError" and 100,000 brackets raised RecursionError (issue 37)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/health"
            assert http_probe(url, json_status="ok")(HANG_S) == reason
        finally:
            server.shutdown()

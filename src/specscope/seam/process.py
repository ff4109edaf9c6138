"""One child-process lifecycle for every server specscope starts (embedded engine, vLLM, truth server).

Usage::

    proc = ManagedProcess(argv, log_path, name="vLLM for recipe 'mtp2'")
    proc.start()                                   # stdout+stderr -> log_path (never an unread pipe)
    proc.wait_healthy(http_probe(url + "/health"), timeout_s=900)
    ...
    proc.stop()                                    # SIGTERM to the process group, grace, then SIGKILL

The child runs in a session of its own (``start_new_session``), so a terminal Ctrl-C reaches specscope
only, and :meth:`ManagedProcess.stop` signals the whole group (vLLM runs an API process plus an engine-core
process). :meth:`ManagedProcess.wait_healthy` checks the deadline on every poll and never blocks on the
child's output, so it fails by ``timeout_s`` plus at most one probe timeout (capped to the time left).
Processes still running at interpreter exit are stopped.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import httpx

from specscope.errors import ServerError, ServerStartError
from specscope.seam.answers import HealthAnswer, read_answer

__all__ = ["ManagedProcess", "Probe", "free_port", "http_probe", "log_tail", "start_announced", "stop_and_clean"]

#: A health probe: called with the seconds it may block; returns ``None`` when healthy, else a short status
#: (``"HTTP 503"``, ``"ConnectError"``) that goes into the error when the deadline passes.
Probe = Callable[[float], str | None]

_POLL_INTERVAL_S = 0.1
_PROBE_TIMEOUT_S = 2.0
_TAIL_MAX_BYTES = 256 * 1024


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (bind to port 0, read it back, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def log_tail(path: Path, lines: int = 40, max_bytes: int = _TAIL_MAX_BYTES) -> str:
    """The last ``lines`` lines of a text file, reading at most its last ``max_bytes`` bytes; ``""`` when
    it cannot be read. Undecodable bytes are replaced (logs mix encodings)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size_bytes = f.tell()
            f.seek(max(0, size_bytes - max_bytes))
            data = f.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", errors="replace").splitlines()[-lines:])


def http_probe(url: str, *, json_status: str | None = None) -> Probe:
    """A probe that is healthy when ``GET url`` answers 200 (and, with ``json_status``, a JSON body whose
    ``"status"`` equals it, as llama.cpp's ``/health`` ``{"status": "ok"}``). Proxies are ignored."""

    def probe(timeout_s: float) -> str | None:
        # httpx times each phase on its own: half for connect, half for the answer keeps the sum in timeout_s
        try:
            with httpx.Client(timeout=httpx.Timeout(timeout_s / 2), trust_env=False) as client:
                resp = client.get(url)
                if resp.status_code != 200:
                    return f"HTTP {resp.status_code}"
                if json_status is None:
                    return None
                try:  # the one answer reader: HTML, a list, 100,000 brackets deep are a named reason
                    status = read_answer(HealthAnswer, resp.content, path=url, fix="").status
                except ServerError as exc:
                    return f'not the health JSON {{"status": str}}: {exc.found}'
                return None if status == json_status else f"status {status!r}"
        except (httpx.HTTPError, ValueError) as exc:
            return type(exc).__name__

    return probe


def start_announced(proc: ManagedProcess, log_path: Path, timeout_s: float, prefix: str = "LISTENING ") -> str:
    """Start ``proc`` and wait up to ``timeout_s`` seconds for a log line ``<prefix><url>`` in ``log_path``
    (its last 200 lines); the URL.

    Raises:
        ServerStartError: the child exited or did not announce itself in time.
    """
    url = ""

    def announced(_timeout_s: float) -> str | None:
        nonlocal url
        for line in log_tail(log_path, 200).splitlines():
            if line.startswith(prefix):
                url = line[len(prefix) :].strip()
                return None
        return f"no {prefix.strip()} line"

    proc.start()
    proc.wait_healthy(announced, timeout_s=timeout_s, expected=f"{prefix}<url>")
    return url


def stop_and_clean(proc: ManagedProcess | None, folder: tempfile.TemporaryDirectory[str] | None) -> tuple[None, None]:
    """Stop ``proc``, then remove ``folder`` (either may be None); ``(None, None)`` to assign back to both."""
    if proc is not None:
        proc.stop()
    if folder is not None:
        folder.cleanup()
    return None, None


class ManagedProcess:
    """A child process with its output in a log file; start, wait healthy, stop.

    Args:
        argv: the command.
        log_path: file that receives stdout and stderr (appended; parent folders are created).
        name: how errors name it (``"embedded engine 'base'"``).
        env: the child's whole environment (default: this process's).
        header: a line written to the log before the child starts (e.g. the command line).
        stop_grace_s: seconds between SIGTERM and SIGKILL in :meth:`stop`.
        cpu: pin the child to this CPU core (``os.sched_setaffinity``), or ``None``.

    Attributes:
        popen: the ``subprocess.Popen`` after :meth:`start` (kept after :meth:`stop` for its return code).
        started_ns: ``time.perf_counter_ns()`` at spawn.
    """

    def __init__(
        self,
        argv: Sequence[str],
        log_path: Path,
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        header: str | None = None,
        stop_grace_s: float = 10.0,
        cpu: int | None = None,
    ) -> None:
        self.argv = list(argv)
        self.log_path = Path(log_path)
        self.name = name
        self.env = dict(env) if env is not None else None
        self.header = header
        self.stop_grace_s = stop_grace_s
        self.cpu = cpu
        self.popen: subprocess.Popen[bytes] | None = None
        self.started_ns = 0
        self._stopped = False

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the child with stdout and stderr appended to ``log_path``.

        Raises:
            ServerStartError: the program cannot be executed (missing, not executable).
        """
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            if self.header is not None:
                log.write(f"{self.header}\n".encode())
                log.flush()
            cpu = self.cpu
            try:
                self.popen = subprocess.Popen(
                    self.argv,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=self.env,
                    start_new_session=True,  # terminal Ctrl-C goes to us; we stop the child ourselves
                    preexec_fn=(lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None,
                )
                self._stopped = False
            except OSError as exc:
                raise ServerStartError(
                    f"cannot start {self.name}",
                    found=f"{type(exc).__name__}: {exc}",
                    expected=f"an executable {self.argv[0]!r}",
                    fix="install the program or fix the command",
                ) from None
        self.started_ns = time.perf_counter_ns()
        _LIVE.add(self)

    def wait_healthy(self, probe: Probe, *, timeout_s: float, expected: str) -> float:
        """Poll ``probe`` until it reports healthy; return the seconds since spawn.

        The deadline is checked on every poll, and each probe may block at most the time left (and at most
        2 s), so this returns or raises by ``timeout_s`` plus scheduling noise.

        Raises:
            ServerStartError: the child exited, or the deadline passed; ``log_tail`` holds the log's last lines.
        """
        assert self.popen is not None, "start() first"
        deadline = time.monotonic() + timeout_s
        last = "no answer"
        while True:
            code = self.popen.poll()
            if code is not None:
                raise self.failure(f"{self.name} exited during start-up", f"exit code {code}", expected)
            left_s = deadline - time.monotonic()
            if left_s <= 0:
                raise self.failure(
                    f"{self.name} not healthy after {timeout_s:g} s", f"{last} after {timeout_s:g} s", expected
                )
            status = probe(min(_PROBE_TIMEOUT_S, left_s))
            if status is None:
                return (time.perf_counter_ns() - self.started_ns) / 1e9
            last = status
            time.sleep(max(0.0, min(_POLL_INTERVAL_S, deadline - time.monotonic())))

    def failure(self, message: str, found: str, expected: str, fix: str | None = None) -> ServerStartError:
        """A :class:`ServerStartError` with the log's tail attached."""
        return ServerStartError(
            message,
            found=found,
            expected=expected,
            fix=fix or f"read {self.log_path} (its last lines are attached to this error)",
            log_tail=log_tail(self.log_path),
        )

    def stop(self) -> int | None:
        """SIGTERM to the child's process group, wait ``stop_grace_s``, then SIGKILL; reap it.

        Returns the child's exit code (negative: killed by that signal), ``None`` if never started.
        Idempotent; children that outlived the leader are killed with the group.
        """
        proc = self.popen
        _LIVE.discard(self)
        if proc is None or self._stopped:
            return None if proc is None else proc.returncode
        self._stopped = True
        if proc.poll() is None:
            self._signal_group(signal.SIGTERM)
            try:
                proc.wait(timeout=self.stop_grace_s)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                proc.wait()
        self._signal_group(signal.SIGKILL)
        return proc.returncode

    def kill(self) -> None:
        """SIGKILL the child's process group now, without waiting (what a crash or an OOM kill looks like);
        :meth:`stop` still reaps it."""
        self._signal_group(signal.SIGKILL)

    def _signal_group(self, sig: signal.Signals) -> None:
        if self.popen is None:
            return
        try:
            os.killpg(self.popen.pid, sig)  # start_new_session=True: the group id is the child's pid
        except (ProcessLookupError, PermissionError):
            pass

    # -- state -----------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The child's process id once started."""
        return self.popen.pid if self.popen is not None else None

    def running(self) -> bool:
        """True while the child process has not exited."""
        return self.popen is not None and self.popen.poll() is None

    def tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the log."""
        return log_tail(self.log_path, lines)


class _LiveProcesses:
    """Children still running at interpreter exit get stopped."""

    def __init__(self) -> None:
        self._procs: list[ManagedProcess] = []
        atexit.register(self.stop_all)

    def add(self, proc: ManagedProcess) -> None:
        if proc not in self._procs:
            self._procs.append(proc)

    def discard(self, proc: ManagedProcess) -> None:
        if proc in self._procs:
            self._procs.remove(proc)

    def stop_all(self) -> None:
        for proc in list(self._procs):
            proc.stop()


_LIVE = _LiveProcesses()

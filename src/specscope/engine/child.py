"""One llama.cpp server child (``python -m specscope.engine.serve``) for prepared model files.

The piece that both :mod:`specscope.engine.server` (a config with its derived draft) and
:mod:`specscope.engine.cost` (a model timed alone) need; it imports neither, so the two do not form an
import circle through :mod:`specscope.engine.draft`.

The parent writes a launch file (config, model and draft paths, alias, host, port, ready path, parent pid;
format in :mod:`specscope.engine.serve`), starts the child with :class:`specscope.seam.ManagedProcess`
(stdout and stderr to the log file), and waits until the child has written its listening address to the
ready file and ``GET /health`` answers ``{"status": "ok"}`` (llama.cpp ``tools/server/README.md``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from specscope.engine.config import EngineConfig, command_line, llama_server_argv
from specscope.errors import ServerStartError
from specscope.seam import ManagedProcess, http_probe
from specscope.seam.process import Probe

__all__ = ["LlamaChild"]

_STOP_GRACE_S = 10.0
_HEALTH_EXPECTED = 'GET /health -> 200 {"status": "ok"}'


class LlamaChild:
    """llama.cpp's server for one config and prepared model files, in a child process.

    Args:
        config: the engine config.
        model_path: the target GGUF. draft_path: the draft GGUF, or ``None``.
        alias: the model name the server answers to.
        log_path: file that receives the child's stdout and stderr (appended).
        host: interface to listen on. port: TCP port, 0 = a free one picked by the server (no race).
        name: how its log header and errors name it (a run's config); None: the config's name.

    Attributes (after :meth:`start`): base_url (``http://host:port``), command_line (an equivalent
    ``llama-server`` command line), startup_s (seconds from spawn to healthy).
    """

    def __init__(
        self,
        config: EngineConfig,
        *,
        model_path: Path,
        draft_path: Path | None,
        alias: str,
        log_path: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        name: str | None = None,
    ) -> None:
        self.config = config
        self.name = name or config.name
        self.model_path = model_path
        self.draft_path = draft_path
        self.alias = alias
        self.log_path = Path(log_path)
        self.host = host
        self.port = port
        self.base_url: str | None = None
        self.command_line: str | None = None
        self.startup_s: float | None = None
        self.process: ManagedProcess | None = None
        self._launch_dir: Path | None = None

    def start(self, start_timeout_s: float) -> None:
        """Spawn and wait healthy; on any failure the child is stopped.

        Raises:
            ServerStartError: the child exited or was not healthy within ``start_timeout_s`` (log tail attached).
        """
        self._launch_dir = Path(tempfile.mkdtemp(prefix="specscope-engine-"))
        ready = self._launch_dir / "ready.json"
        launch = {
            "config": self.config.model_dump(mode="json"),
            "model_path": str(self.model_path),
            "draft_path": str(self.draft_path) if self.draft_path else None,
            "alias": self.alias,
            "host": self.host,
            "port": self.port,
            "ready_path": str(ready),
            "parent_pid": os.getpid(),
        }
        launch_file = self._launch_dir / "launch.json"
        launch_file.write_text(json.dumps(launch))
        name = f"embedded engine {self.name!r}"
        self.process = ManagedProcess(
            [sys.executable, "-m", "specscope.engine.serve", str(launch_file)],
            self.log_path,
            name=name,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            header=f"--- specscope: starting embedded engine config {self.config.name!r}",
            stop_grace_s=_STOP_GRACE_S,
        )
        try:
            self.process.start()
            self.startup_s = self.process.wait_healthy(
                self._probe(ready), timeout_s=start_timeout_s, expected=_HEALTH_EXPECTED
            )
        except ServerStartError as exc:
            self.stop()
            if "exited during start-up" in exc.message:  # the child's own last line says why
                code = str(exc.found).removeprefix("exit code ")
                last = exc.log_tail.splitlines()[-1] if exc.log_tail else exc.found
                raise ServerStartError(
                    f"{name} exited during start (exit {code})",
                    found=last,
                    expected=_HEALTH_EXPECTED,
                    fix=f"see the server log {self.log_path}",
                    log_tail=exc.log_tail,
                ) from None
            exc.fix = f"see the server log {self.log_path}"
            raise
        except BaseException:
            self.stop()
            raise

    def _probe(self, ready: Path) -> Probe:
        """Healthy once the ready file names the address and ``/health`` says ok."""
        health: Probe | None = None

        def probe(timeout_s: float) -> str | None:
            nonlocal health
            if health is None:
                if not ready.is_file():
                    return "no listening address yet"
                address = json.loads(ready.read_text())["address"].rstrip("/")
                port = int(address.rsplit(":", 1)[1])
                self.base_url = f"http://{self.host}:{port}"
                argv = llama_server_argv(
                    self.config,
                    model_path=self.model_path,
                    draft_path=self.draft_path,
                    host=self.host,
                    port=port,
                    alias=self.alias,
                )
                self.command_line = command_line(argv)
                health = http_probe(f"{self.base_url}/health", json_status="ok")
            return health(timeout_s)

        return probe

    def running(self) -> bool:
        """True while the child process is alive."""
        return self.process is not None and self.process.running()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None and self.process.running() else None

    def stop(self) -> None:
        """SIGTERM the child's session, SIGKILL after a grace period; remove the launch folder. Idempotent."""
        if self.process is not None:
            self.process.stop()
            self.process = None
        if self._launch_dir is not None:
            shutil.rmtree(self._launch_dir, ignore_errors=True)
            self._launch_dir = None

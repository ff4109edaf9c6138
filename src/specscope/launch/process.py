"""Start and stop a vLLM server from a recipe: a local child process or a docker container.

Usage::

    with VllmServer(recipe, run_dir / "server-mtp2.log") as server:
        ... stream against server.base_url, model server.model_name ...
        facts = server.log_facts()          # LogFacts parsed from the log so far

The child's stdout and stderr go to ``log_path`` (never an unread pipe, which blocks the child once it
fills). The first line of the log is ``# specscope launch: <command line>``. Start-up waits for
``GET /health`` = 200 (vLLM's health route, vllm/entrypoints/serve/instrumentator/health.py); stop sends
SIGTERM to the child's whole process group (vLLM runs an API process plus an engine-core process), waits,
then SIGKILL (both through :class:`specscope.seam.ManagedProcess`). It has the
:class:`specscope.seam.ServerTarget` shape: ``name``, ``base_url``, ``kind``, ``model_name``,
``metrics_url``, ``log_path``, ``alive()``, ``facts()``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import httpx

from specscope.errors import ServerError, ServerStartError
from specscope.launch.logfacts import LogFacts, parse_log_facts
from specscope.launch.recipes import Recipe, docker_argv, vllm_argv
from specscope.seam import ManagedProcess, free_port, http_probe, log_tail
from specscope.seam.answers import ModelsAnswer, read_answer

#: how long a launched recipe server may take to answer /health, seconds (a large model's load and compile)
RECIPE_START_TIMEOUT_S = 900.0

__all__ = ["VllmServer", "free_port", "log_tail"]


class VllmServer:
    """A vLLM server launched from a :class:`Recipe`, as a context manager.

    Args:
        recipe: what to serve (see specscope.launch.recipes).
        log_path: file that receives the child's stdout+stderr (appended; parent folders are created).
        port: TCP port on 127.0.0.1; a free one is picked when None.
        docker: run the recipe's docker form instead of a local process.
        start_timeout_s: how long to wait for ``/health`` before giving up.
        stop_timeout_s: how long to wait after SIGTERM before SIGKILL.
        warmup_requests: chat requests (8 tokens, greedy) sent after start so the first measured cell does
            not pay one-off costs (lazy initialisation, first-call compilation).
        env: extra environment for the child (on top of ``recipe.env``).
        config: the run config it serves, as its errors name it (the A/A control ``base-again`` runs recipe
            ``base``); default: the recipe's name.

    Attributes:
        name: the recipe name. base_url: ``http://127.0.0.1:PORT`` (no ``/v1``). model_name: the id the
        server reports in ``/v1/models`` (after start). command_line: the exact command, shell-quoted.

    Raises (on entry):
        ServerStartError: the child exited, or ``/health`` did not answer 200 within ``start_timeout_s``;
            ``log_tail`` holds the last lines of the log and ``found`` names any known failure signature.
    """

    def __init__(  # noqa: PLR0913 - each keyword one setting of the launch
        self,
        recipe: Recipe,
        log_path: str | Path,
        port: int | None = None,
        *,
        docker: bool = False,
        start_timeout_s: float = RECIPE_START_TIMEOUT_S,
        stop_timeout_s: float = 30.0,
        warmup_requests: int = 1,
        env: dict[str, str] | None = None,
        config: str | None = None,
    ):
        self.recipe = recipe
        self.name = recipe.name or "vllm"
        #: how errors name this server: ``recipe 'base'``, or ``config 'base-again' (recipe 'base')``
        self.who = (
            f"recipe {self.name!r}" if config in (None, self.name) else f"config {config!r} (recipe {self.name!r})"
        )
        self.log_path = Path(log_path)
        self.port = port if port is not None else free_port()
        self.docker = docker
        self.start_timeout_s = start_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.warmup_requests = warmup_requests
        self._env = dict(env or {})
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.model_name = recipe.display_model_name()
        self.container_name = f"specscope-{self.name}-{self.port}".replace("/", "-")
        if docker:
            self.argv = docker_argv(recipe, port=self.port, container_name=self.container_name)
        else:
            self.argv = vllm_argv(recipe, port=self.port)
        self.command_line = shlex.join(self.argv)
        self.kind = "vllm-docker" if docker else "vllm"
        self.metrics_url = f"{self.base_url}/metrics"
        self.startup_s: float | None = None
        self.pid: int | None = None
        self._managed: ManagedProcess | None = None

    @property
    def _proc(self) -> subprocess.Popen[bytes] | None:
        return self._managed.popen if self._managed is not None else None

    # -- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> VllmServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Launch the child and wait until it is healthy (see the class doc for errors)."""
        self._managed = ManagedProcess(
            self.argv,
            self.log_path,
            name=f"vLLM for recipe {self.name!r}",
            env={**os.environ, **self.recipe.env, **self._env},
            header=f"# specscope launch: {self.command_line}",
            stop_grace_s=self.stop_timeout_s,
        )
        try:
            self._managed.start()
        except ServerStartError as exc:
            raise ServerStartError(
                f"cannot start vLLM for {self.who}",
                found=exc.found,
                expected=exc.expected,
                fix="install vLLM (or run scripts/vllm_cpu/install.sh for the CPU build) or fix vllm_command",
            ) from None
        self.pid = self._managed.pid
        try:
            self.startup_s = self._wait_healthy()
            self._read_model_name()
            self._warm_up()
        except BaseException:
            self.stop()
            raise

    def _wait_healthy(self) -> float:
        assert self._managed is not None
        expected = "GET /health -> 200"
        try:
            return self._managed.wait_healthy(
                http_probe(f"{self.base_url}/health"), timeout_s=self.start_timeout_s, expected=expected
            )
        except ServerStartError as exc:
            message = exc.message
            if "not healthy" in message:
                message = f"vLLM for {self.who} did not become healthy"
            found = str(exc.found)
            facts = parse_log_facts(exc.log_tail)
            if facts.failures:
                first = facts.failures[0]
                found = f"{found}; log shows {first.code}: {first.explanation}"
                fix = first.fix
            else:
                fix = f"read {self.log_path} (last lines are attached to this error)"
            raise ServerStartError(message, found=found, expected=expected, fix=fix, log_tail=exc.log_tail) from None

    def _read_model_name(self) -> None:
        """The first id ``GET /v1/models`` lists, read by the one answer reader (:mod:`specscope.seam.answers`);
        an answer that is no models list (HTML, a list, 100,000 brackets deep) keeps the recipe's name: the bench
        reads ``/v1/models`` again and names a bad answer there."""
        try:
            r = httpx.get(f"{self.base_url}/v1/models", timeout=10.0)
            answer = read_answer(ModelsAnswer, r.content, path="/v1/models", fix="")
        except (httpx.HTTPError, ServerError):
            return
        if answer.data:
            self.model_name = answer.data[0].id

    def _warm_up(self) -> None:
        body = {
            "model": self.model_name,
            "messages": [{"role": "user", "content": "Say hello."}],
            "max_tokens": 8,
            "temperature": 0,
        }
        for _ in range(self.warmup_requests):
            try:
                httpx.post(f"{self.base_url}/v1/chat/completions", json=body, timeout=120.0)
            except httpx.HTTPError:
                pass  # a warm-up failure shows up in the first cell; alive() tells whether it died

    def stop(self) -> int | None:
        """Stop the server: SIGTERM to its process group, wait ``stop_timeout_s``, then SIGKILL.

        Returns the child's exit code (None if it was never started). Safe to call twice.
        """
        if self._managed is None or self._managed.popen is None:
            return None
        code = self._managed.stop()
        if self.docker:
            subprocess.run(
                ["docker", "rm", "-f", self.container_name],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
        return code

    # -- state -----------------------------------------------------------------------------------
    def alive(self) -> bool:
        """True when the child runs and ``/health`` answers 200."""
        if self._proc is None or self._proc.poll() is not None:
            return False
        try:
            return httpx.get(f"{self.base_url}/health", timeout=5.0).status_code == 200
        except httpx.HTTPError:
            return False

    def log_facts(self) -> LogFacts:
        """Facts parsed from the whole log so far (see specscope.launch.logfacts)."""
        try:
            text = self.log_path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        return parse_log_facts(text)

    def facts(self) -> dict[str, Any]:
        """What goes in the run manifest: kind, recipe, command line, URL, model, log path, start time, log facts."""
        return {
            "kind": self.kind,
            "name": self.name,
            "recipe": self.recipe.model_dump(),
            "command_line": self.command_line,
            "base_url": self.base_url,
            "model": self.model_name,
            "log_path": str(self.log_path),
            "pid": self.pid,
            "startup_s": self.startup_s,
            "log_facts": self.log_facts().model_dump(),
        }

    describe = facts  # the name bench and gate used before the ServerTarget seam

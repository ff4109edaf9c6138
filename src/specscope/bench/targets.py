"""Servers a bench run measures: the embedded engine (one start per config) or servers the user started.

Both kinds have the same shape: a context manager with ``name``, ``base_url``, ``model_name``,
``alive()`` and ``describe()`` (what goes in the run manifest).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import httpx

from specscope.errors import ConfigError, MetricsUnavailable, ServerUnreachable

__all__ = [
    "ServerTarget",
    "ExternalServer",
    "parse_server_specs",
    "embedded_target",
    "embedded_config_names",
    "launched_target",
    "recipe_names",
]


class ServerTarget(Protocol):
    name: str
    base_url: str
    model_name: str

    def alive(self) -> bool: ...

    def describe(self) -> dict[str, Any]: ...


class ExternalServer:
    """A server the user started (vLLM, SGLang, llama.cpp...), reached at ``base_url``.

    On entry it checks that the server answers (``GET /v1/models``, whose first model id becomes
    ``model_name`` unless given) and that it has a Prometheus ``/metrics`` endpoint.

    Raises (on entry):
        ServerUnreachable: nothing answers at the URL.
        MetricsUnavailable: ``/metrics`` is missing or not Prometheus text.
    """

    def __init__(self, name: str, base_url: str, model_name: str | None = None, timeout_s: float = 10.0):
        self.name = name
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        self.model_name = model_name or ""
        self._timeout_s = timeout_s
        self._models: list[str] = []
        self.server_kind = "openai"

    def __enter__(self) -> ExternalServer:
        try:
            with httpx.Client(timeout=self._timeout_s) as c:
                r = c.get(f"{self.base_url}/v1/models")
                if r.status_code == 200:
                    self._models = [m.get("id", "") for m in r.json().get("data", [])]
                m = c.get(f"{self.base_url}/metrics")
        except httpx.HTTPError as exc:
            raise ServerUnreachable(
                f"server {self.name!r} at {self.base_url} cannot be reached",
                found=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
                expected="an OpenAI-compatible server answering on that URL",
                fix="start the server first, or check host and port (e.g. --server http://127.0.0.1:8000)",
            ) from None
        if m.status_code != 200 or "# TYPE" not in m.text and ":" not in m.text:
            raise MetricsUnavailable(
                f"server {self.name!r} at {self.base_url} has no Prometheus /metrics endpoint",
                found=f"HTTP {m.status_code} on GET /metrics",
                expected="HTTP 200 with Prometheus text (vLLM serves it by default; llama-server needs --metrics)",
                fix="enable metrics on the server; acceptance is measured from its counters",
            )
        if not self.model_name:
            self.model_name = self._models[0] if self._models else "default"
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def alive(self) -> bool:
        try:
            with httpx.Client(timeout=5.0) as c:
                return c.get(f"{self.base_url}/health").status_code < 500
        except httpx.HTTPError:
            return False

    def describe(self) -> dict[str, Any]:
        return {"kind": "external", "base_url": self.base_url, "model": self.model_name, "models": self._models}


def parse_server_specs(specs: list[str]) -> dict[str, str]:
    """``["http://h:8000"]`` -> {"server": url}; ``["mtp3=http://h:8000", "base=http://h:8001"]`` -> by name.

    Raises:
        ConfigError: a name repeats, or an entry is not a URL.
    """
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, url = spec.partition("=")
        if not sep:
            name, url = "server", spec
        if not url.startswith(("http://", "https://")):
            raise ConfigError(
                "--server must be a URL or NAME=URL", found=spec, expected="http://HOST:PORT or NAME=http://HOST:PORT"
            )
        if not name.strip():
            raise ConfigError(
                "--server has an empty config name",
                found=spec,
                expected="NAME=URL or URL",
                fix="e.g. --server mtp3=http://127.0.0.1:8000",
            )
        if name in out:
            raise ConfigError("--server names repeat", found=name, expected="one URL per config name")
        out[name] = url
    return out


class _Embedded:
    """Adapter giving :class:`specscope.engine.EmbeddedServer` the ServerTarget shape."""

    def __init__(self, name: str, server: Any):
        self.name = name
        self._server = server
        self.base_url = server.base_url
        self.model_name = server.model_name
        self.server_kind = "llamacpp"

    def alive(self) -> bool:
        return self._server.is_running()

    def describe(self) -> dict[str, Any]:
        return {"kind": "embedded", **self._server.describe()}


def embedded_config_names() -> tuple[str, ...]:
    """Names of the embedded engine's configs."""
    from specscope.engine import named_configs

    return tuple(named_configs())


@contextlib.contextmanager
def embedded_target(
    config_name: str, log_path: Path, *, threads: int, n_parallel: int, draft_cache: Path | None
) -> Iterator[_Embedded]:
    """Start the embedded llama.cpp engine with named config ``config_name`` (``-np`` at least
    ``n_parallel``); stop it on exit, also on errors and Ctrl-C."""
    from specscope.engine import EmbeddedServer, get_config

    cfg = get_config(config_name)
    updates: dict[str, Any] = {"threads": threads, "n_parallel": max(n_parallel, cfg.n_parallel)}
    if draft_cache is not None:
        updates["draft_cache_dir"] = draft_cache
    cfg = cfg.with_updates(**updates)
    with EmbeddedServer(cfg, log_path) as server:
        yield _Embedded(config_name, server)


class _Launched:
    """Adapter giving :class:`specscope.launch.VllmServer` the ServerTarget shape."""

    def __init__(self, name: str, server: Any):
        self.name = name
        self._server = server
        self.base_url = server.base_url
        self.model_name = server.model_name
        self.server_kind = "vllm"

    def alive(self) -> bool:
        return self._server.alive()

    def describe(self) -> dict[str, Any]:
        return self._server.describe()


def recipe_names(recipes: Path | None) -> tuple[str, ...]:
    """Names of the vLLM recipes in ``recipes`` (default: the file shipped with specscope)."""
    from specscope.launch.recipes import load_recipes

    return tuple(load_recipes(recipes).recipes)


@contextlib.contextmanager
def launched_target(recipe_name: str, log_path: Path, *, recipes: Path | None) -> Iterator[_Launched]:
    """Launch vLLM from recipe ``recipe_name``, wait for health; stop it (SIGTERM, then SIGKILL) on exit."""
    from specscope.launch.process import VllmServer
    from specscope.launch.recipes import load_recipes

    recipe = load_recipes(recipes).get(recipe_name)
    with VllmServer(recipe, log_path) as server:
        yield _Launched(recipe_name, server)

"""Server targets: the embedded engine (one start per config), vLLM launched from a recipe, or a server
the user started; each yields a :class:`specscope.seam.ServerTarget` (``name``, ``base_url``, ``kind``,
``model_name``, ``metrics_url``, ``log_path``, ``alive()``, ``facts()``; ``describe()`` is kept as an alias
of ``facts()`` and ``server_kind`` names the request dialect).

:func:`open_target` starts what a :class:`~specscope.targets.plan.TargetPlan` says for one config.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from specscope.engine import EmbeddedServer, get_config, named_configs
from specscope.errors import MetricsUnavailable, ServerError, ServerUnreachable
from specscope.launch.process import RECIPE_START_TIMEOUT_S, VllmServer
from specscope.launch.recipes import load_recipes
from specscope.readfile import SCRAPE_MAX_BYTES
from specscope.seam import ServerTarget
from specscope.seam.answers import ModelsAnswer, quote_body, read_answer
from specscope.strictjson import loads
from specscope.targets.plan import TargetPlan

__all__ = [
    "EmbeddedTarget",
    "ExternalServer",
    "LaunchedTarget",
    "embedded_config_names",
    "embedded_target",
    "launched_target",
    "open_target",
    "recipe_names",
    "served_model_name",
]

MODELS_TRIES = 3  # GET /v1/models answers that are not a models list, asked again before the run is refused
UNLISTED_MODEL = "default"  # the served name asked for when GET /v1/models lists nothing (404, empty list)


def served_model_name(models: list[str]) -> str:
    """The model name to request from a server whose ``GET /v1/models`` listed ``models``: the first id, else
    :data:`UNLISTED_MODEL` (a server that lists none serves whatever name it is asked; bench and gate both)."""
    return models[0] if models else UNLISTED_MODEL


def _facts_endpoints(client: httpx.Client, base_url: str) -> dict[str, Any]:
    """What the server's facts endpoints say (:func:`specscope.adapters.facts.facts_endpoints`): path -> the adapter's
    reading of a 200 JSON answer; a path the server does not answer (404, not JSON) is left out."""
    from specscope.adapters.facts import facts_endpoints

    out = {}
    for path, read in facts_endpoints():
        r = client.get(f"{base_url}{path}")
        if r.status_code != 200:
            continue
        try:  # any JSON, each adapter reads its own shape; 100,000 brackets deep is malformed JSON (strictjson)
            out[path] = read(loads(r.content))
        except ValueError:
            continue
    return out


def _json_metrics(name: str, base_url: str, text: str) -> bool:
    """Whether ``text`` is a JSON metrics body an engine adapter reads (an empty drained list included).

    Raises:
        MetricsUnavailable: JSON that no adapter reads (refused before the run starts).
    """
    from specscope.client.metrics import read_json_body

    try:
        return read_json_body(text) is not None
    except MetricsUnavailable as exc:
        raise MetricsUnavailable(
            f"server {name!r} at {base_url} serves /metrics as JSON that no engine adapter reads",
            found=exc.found,
            expected=exc.expected,
            fix="point --server at the engine's own server (its /metrics as the engine writes it)",
        ) from None


class ExternalServer:
    """A server the user started (vLLM, SGLang, llama.cpp...), reached at ``base_url``.

    On entry it checks that the server answers (``GET /v1/models``, whose first model id becomes
    ``model_name`` unless given) and that it has a Prometheus ``/metrics`` endpoint.

    Raises (on entry):
        ServerUnreachable: nothing answers at the URL.
        MetricsUnavailable: ``/metrics`` is missing or not Prometheus text.
    """

    def __init__(
        self,
        name: str,
        base_url: str,
        model_name: str | None = None,
        timeout_s: float = 10.0,
        headers: dict[str, str] | None = None,
    ):
        self.name = name
        self._headers = dict(headers or {})  # Authorization for a server started with --api-key; never described
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        self.model_name = model_name or ""
        self._timeout_s = timeout_s
        self._models: list[str] = []
        self._endpoints: dict[str, Any] = {}
        self.kind = "external"
        self.server_kind = "openai"
        self.metrics_url = f"{self.base_url}/metrics"
        self.log_path: Path | None = None
        #: named warnings of the start-up answers (``MODEL_FIELD_UNREADABLE(...)``: a field not understood, absent)
        self.warnings: list[str] = []
        #: whether ``/metrics`` answered JSON that drains on read at start (False: Prometheus text); None: not read.
        #: Engine detection is at start only: a later body of the other kind is unreadable, not another engine.
        self.metrics_drains: bool | None = None

    def __enter__(self) -> ExternalServer:
        try:
            with httpx.Client(timeout=self._timeout_s, headers=self._headers) as c:
                self._models = self._served_models(c)
                self._check_metrics(c)
                self._endpoints = _facts_endpoints(c, self.base_url)
        except httpx.HTTPError as exc:
            raise ServerUnreachable(
                f"server {self.name!r} at {self.base_url} cannot be reached",
                found=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
                expected="an OpenAI-compatible server answering on that URL",
                fix="start the server first, or check host and port (e.g. --server http://127.0.0.1:8000)",
            ) from None
        if not self.model_name:
            self.model_name = served_model_name(self._models)
        return self

    def _check_metrics(self, c: httpx.Client) -> None:
        """That ``GET /metrics`` answers Prometheus text or an engine's JSON metrics.

        An answer that is not (a proxy's error page with 200, a 5xx, a dropped connection) is asked again,
        :data:`MODELS_TRIES` times in all, as ``/v1/models`` is: one bad answer of a busy proxy must not refuse a
        run (issue 37); a 404 (no endpoint) is refused at once.

        Raises:
            MetricsUnavailable: no usable answer; ``found`` quotes the last body (bounded, secrets masked).
            httpx.HTTPError: every try failed to reach the server.
        """
        from specscope.client.metrics import enable_metrics_hint

        for attempt in range(MODELS_TRIES):
            last = attempt + 1 == MODELS_TRIES
            try:
                with c.stream("GET", self.metrics_url) as m:
                    text = _scrape_text(m, self.name)
            except httpx.RemoteProtocolError:
                if last:
                    raise
                continue
            try:  # JSON of no engine's shape (a proxy's JSON error page) is a bad answer too: asked again
                json_body = m.status_code == 200 and _json_metrics(self.name, self.base_url, text)
            except MetricsUnavailable:
                if last:
                    raise
                continue
            if m.status_code == 200 and ("# TYPE" in text or ":" in text or json_body):
                self.metrics_drains = json_body  # the one reading of what the server's /metrics is
                return
            if m.status_code == 404 or last:
                raise MetricsUnavailable(
                    f"server {self.name!r} at {self.base_url} has no usable /metrics endpoint",
                    found=f"HTTP {m.status_code} on GET /metrics: {quote_body(text)}",
                    expected="HTTP 200 with Prometheus text or an engine's JSON metrics",
                    fix=enable_metrics_hint() + "; acceptance is measured from its counters",
                )

    def __exit__(self, *exc: object) -> None:
        return None

    def _served_models(self, c: httpx.Client) -> list[str]:
        """The model ids of ``GET /v1/models`` (:class:`specscope.seam.answers.ModelsAnswer`); empty on a 404.

        A bad body (a proxy's error page answered with 200) is asked again, :data:`MODELS_TRIES` times in all,
        since one bad answer of a busy proxy must not refuse a run (issue 37); a given served name needs no list.

        Raises:
            ServerError: every answer was a bad body, or a 5xx, and no model name was given.
            httpx.HTTPError: the server cannot be reached (the caller names it).
        """
        fix = f"check what answers at {self.base_url}/v1/models (a proxy's error page?)"
        for attempt in range(MODELS_TRIES):
            try:
                r = c.get(f"{self.base_url}/v1/models")
            except httpx.RemoteProtocolError:  # a dropped connection: asked again, as a bad body is
                if attempt + 1 == MODELS_TRIES:
                    raise
                continue
            if r.status_code >= 500 and attempt + 1 < MODELS_TRIES:  # a busy proxy's 502/503: asked again
                continue
            if r.status_code >= 500 and not self.model_name:  # never "no model": requests would name "default"
                raise ServerError(
                    f"server {self.name!r} at {self.base_url} does not say which model it serves",
                    found=f"HTTP {r.status_code} from GET /v1/models x{MODELS_TRIES}: {quote_body(r.text)}",
                    expected='a model list (HTTP 200 with {"data": [{"id": ...}]})',
                    fix=f"check the server at {self.base_url} (its log, a proxy in front of it) and run again",
                )
            if r.status_code != 200:
                return []
            try:
                listed = read_answer(ModelsAnswer, r.content, path="GET /v1/models", fix=fix).data
                self.warnings = [w for m in listed for w in m.unreadable]  # a fact not understood: absent, named
                return [m.id for m in listed]
            except ServerError:
                if self.model_name:
                    return []
                if attempt + 1 == MODELS_TRIES:
                    raise
        return []

    def alive(self) -> bool:
        try:
            with httpx.Client(timeout=5.0) as c:
                return c.get(f"{self.base_url}/health").status_code < 500
        except httpx.HTTPError:
            return False

    def facts(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "external", "base_url": self.base_url, "model": self.model_name}
        out["models"] = self._models
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self._endpoints:
            out["endpoints"] = self._endpoints
        return out

    describe = facts  # the name used before the ServerTarget seam


class EmbeddedTarget:
    """:class:`specscope.engine.EmbeddedServer` (started) in the ServerTarget shape."""

    kind = "embedded"
    server_kind = "llamacpp"  # the request dialect (specscope.workload.chat_request)

    def __init__(self, name: str, server: EmbeddedServer):
        assert server.base_url is not None and server.model_name is not None, "start the server first"
        self.name = name
        self._server = server
        self.base_url: str = server.base_url
        self.model_name: str = server.model_name
        self.metrics_url = server.metrics_url
        self.log_path: Path | None = server.log_path

    def alive(self) -> bool:
        return self._server.is_running()

    @property
    def pid(self) -> int | None:
        """The engine process's id (its CPU time is recorded per cell), or None when it is not running."""
        return self._server.pid

    def facts(self) -> dict[str, Any]:
        return {"kind": "embedded", **self._server.facts()}

    describe = facts


def embedded_config_names() -> tuple[str, ...]:
    """Names of the embedded engine's configs."""
    return tuple(named_configs())


@contextlib.contextmanager
def embedded_target(  # noqa: PLR0913 - each keyword one setting of the start
    config_name: str,
    log_path: Path,
    *,
    threads: int,
    n_parallel: int,
    draft_cache: Path | None,
    start_timeout_s: float | None = None,
    name: str | None = None,
) -> Iterator[EmbeddedTarget]:
    """Start the embedded llama.cpp engine with named config ``config_name`` (``-np`` at least
    ``n_parallel``); stop it on exit, also on errors and Ctrl-C. ``start_timeout_s``: the longest wait for its
    ``/health``, seconds (None: :class:`EmbeddedServer`'s default); ``name``: the run config it serves, as its
    errors name it (the A/A control ``base-again`` on ``base``'s config; default ``config_name``)."""
    cfg = get_config(config_name)
    updates: dict[str, Any] = {"threads": threads, "n_parallel": max(n_parallel, cfg.n_parallel)}
    if draft_cache is not None:
        updates["draft_cache_dir"] = draft_cache
    cfg = cfg.with_updates(**updates)
    server = (
        EmbeddedServer(cfg, log_path, name=name)
        if start_timeout_s is None
        else EmbeddedServer(cfg, log_path, name=name, start_timeout_s=start_timeout_s)
    )
    with server:
        yield EmbeddedTarget(config_name, server)


class LaunchedTarget:
    """:class:`specscope.launch.VllmServer` (started) in the ServerTarget shape, named by its config."""

    server_kind = "vllm"

    def __init__(self, name: str, server: VllmServer):
        self.name = name
        self._server = server
        self.kind = server.kind
        self.base_url = server.base_url
        self.model_name = server.model_name
        self.metrics_url = server.metrics_url
        self.log_path: Path | None = server.log_path

    def alive(self) -> bool:
        return self._server.alive()

    def facts(self) -> dict[str, Any]:
        return self._server.facts()

    describe = facts


def recipe_names(recipes: Path | None) -> tuple[str, ...]:
    """Names of the vLLM recipes in ``recipes`` (default: the file shipped with specscope)."""
    return tuple(load_recipes(recipes).recipes)


@contextlib.contextmanager
def launched_target(
    recipe_name: str,
    log_path: Path,
    *,
    recipes: Path | None,
    start_timeout_s: float | None = None,
    name: str | None = None,
) -> Iterator[LaunchedTarget]:
    """Launch vLLM from recipe ``recipe_name``, wait for health (at most ``start_timeout_s`` seconds; None:
    :class:`VllmServer`'s default); stop it (SIGTERM, then SIGKILL) on exit. ``name``: the run config it serves, as
    its errors name it (the A/A control ``base-again`` on recipe ``base``; default ``recipe_name``)."""
    recipe = load_recipes(recipes).get(recipe_name)
    limit_s = RECIPE_START_TIMEOUT_S if start_timeout_s is None else start_timeout_s
    with VllmServer(recipe, log_path, start_timeout_s=limit_s, config=name) as server:
        yield LaunchedTarget(recipe_name, server)


def open_target(
    plan: TargetPlan,
    name: str,
    log_path: Path,
    *,
    threads: int | None = None,
    n_parallel: int = 1,
    draft_cache: Path | None = None,
) -> contextlib.AbstractContextManager[ServerTarget]:
    """A context manager that starts (or, for ``external``, checks) the server of config ``name`` and
    yields it as a :class:`ServerTarget`; launched servers stop on exit, also on errors and Ctrl-C.

    Args:
        plan: who serves the configs. name: the config (embedded config, recipe or ``--server`` name).
        log_path: the server log (launched servers). threads: the embedded engine's compute threads
            (``None``: the config's). n_parallel: the embedded engine's slots, at least (concurrent streams).
        draft_cache: the embedded engine's draft cache folder (``None``: the default).
    """
    if plan.kind == "external":
        return ExternalServer(name, plan.servers[name])
    limit = plan.start_timeout_s
    if plan.kind == "vllm":
        return launched_target(name, log_path, recipes=plan.recipes, start_timeout_s=limit)
    if threads is None:
        threads = get_config(name).threads
    return embedded_target(
        name, log_path, threads=threads, n_parallel=n_parallel, draft_cache=draft_cache, start_timeout_s=limit
    )


def _scrape_text(resp: httpx.Response, name: str) -> str:
    """The ``/metrics`` body of ``resp`` as text, read up to :data:`specscope.readfile.SCRAPE_MAX_BYTES` (the one
    limit of every scrape; the rest is never read).

    Raises:
        MetricsUnavailable: a body above the limit.
    """
    body = bytearray()
    for chunk in resp.iter_bytes():
        body += chunk
        if len(body) > SCRAPE_MAX_BYTES:
            raise MetricsUnavailable(
                f"server {name!r}: the /metrics answer is larger than one scrape may be",
                found=f"GET {resp.url}: more than {SCRAPE_MAX_BYTES:,} bytes",
                expected=f"at most {SCRAPE_MAX_BYTES // 2**20} MiB ({SCRAPE_MAX_BYTES:,} bytes) of Prometheus text "
                "per scrape",
                fix="point --server (or --metrics NAME=URL) at the engine's own /metrics, not a federation or "
                "aggregation endpoint",
            )
    return body.decode("utf-8", errors="replace")

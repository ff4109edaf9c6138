"""Run a bench matrix cell by cell and commit each finished cell to the run store.

One cell (config, workload, N, repeat):
1. one warm-up request (a prompt not used by the cell), so the cell does not pay a cold start;
2. scrape ``/metrics`` (before), waiting briefly for the server to be idle;
3. start N streams at once from N distinct prompts and wait for all of them;
4. scrape ``/metrics`` (after), waiting briefly for the server to be idle;
5. commit the cell's facts + streams in one transaction (figures are derived when read:
   :func:`specscope.stats.cells.summarize_run`); the progress line summarizes the cell once.

A server that died during a cell gives a ``server_crash`` cell and ends that config's sweep; the run goes
on with the next config.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import hashlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from specscope.bench.client_choice import ClientHistory, choose_settings
from specscope.bench.controls import redacted_log
from specscope.bench.counters_source import counter_source
from specscope.bench.machine import machine_facts, versions
from specscope.bench.openloop_cell import rate_requests, run_rate_cell
from specscope.bench.parallel import SideJob, sweep_side_by_side
from specscope.bench.plan import check_names, plan_cells
from specscope.bench.resume import RunControls, cells_to_skip, check_resume_options, is_finished
from specscope.bench.targets import ExternalServer, ServerTarget, embedded_target, launched_target
from specscope.config import BenchOptions
from specscope.errors import SpecscopeError, StoreError
from specscope.records import CRASH_REASON, CellKey, CellResult, StreamRecord
from specscope.stats.cells import summarize_cell, summarize_run
from specscope.stats.summary import CellSummary
from specscope.store import Run, create_run, open_run

if TYPE_CHECKING:
    from specscope.client.settings import ClientSettings

__all__ = ["BenchProgress", "EngineFiles", "run_bench", "new_run_dir"]


IDLE_WAIT_S = 5.0


@dataclass
class BenchProgress:
    """What a progress display needs after each cell."""

    done: int
    total: int
    key: CellKey
    summary: CellSummary
    total_output_tokens: int
    elapsed_s: float


def cache_salt(run_name: str, key: CellKey, prompt_id: str) -> str:
    """A per-request prefix-cache salt: 32 hex characters (vLLM accepts at most 128 and no '@', '/', '\\')."""
    return hashlib.sha256(f"{run_name}|{key.label()}|{prompt_id}".encode()).hexdigest()[:32]


def pack_name(workload: str, edit_form: str) -> str:
    """The prompt pack behind a workload name: ``edit`` is the pre-filled pack when ``edit_form == "prefill"``."""
    return "edit-prefill" if workload == "edit" and edit_form == "prefill" else workload


def new_run_dir(out: Path) -> Path:
    """A fresh run folder name under ``out``: ``run-YYYYmmdd-HHMMSS`` (suffixed if taken)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path(out) / f"run-{stamp}"
    i = 1
    while path.exists():
        path = Path(out) / f"run-{stamp}-{i}"
        i += 1
    return path


@dataclass(frozen=True)
class EngineFiles:
    """Files the servers that specscope launches use.

    Attributes:
        recipes: the vLLM recipes file (``engine="vllm"``); None: the file shipped with specscope.
        draft_cache: where the embedded engine keeps its derived draft model; None: its default.
    """

    recipes: Path | None = None
    draft_cache: Path | None = None


class _BenchServer(ServerTarget, Protocol):
    """What a cell needs of a running server: a target of :mod:`specscope.bench.targets` and its request dialect."""

    server_kind: str


@dataclass
class _Tally:
    """Running totals behind the progress callback (counts of cells, tokens; ``t0_ns`` is perf_counter_ns)."""

    on_cell: Callable[[BenchProgress], None] | None
    total: int
    done: int
    t0_ns: int
    tokens: int

    def add(self, key: CellKey, summary: CellSummary) -> None:
        self.done += 1
        self.tokens += summary.output_tokens
        if self.on_cell is not None:
            elapsed_s = (time.perf_counter_ns() - self.t0_ns) / 1e9
            self.on_cell(BenchProgress(self.done, self.total, key, summary, self.tokens, elapsed_s))


@dataclass(frozen=True)
class _ConfigRun:
    """Everything the cells of one config share: the run, its server, the matrix options and the tallies."""

    run: Run
    server: _BenchServer
    options: BenchOptions
    settings: ClientSettings
    tally: _Tally
    history: ClientHistory = field(default_factory=ClientHistory)


def run_bench(  # noqa: PLR0913 - the one library entry point behind `specscope bench`
    options: BenchOptions | None = None,
    *,
    out: Path = Path("runs"),
    servers: dict[str, str] | None = None,
    resume: Path | None = None,
    on_cell: Callable[[BenchProgress], None] | None = None,
    run_dir: Path | None = None,
    engine: str = "embedded",
    files: EngineFiles | None = None,
    controls: RunControls | None = None,
) -> Path:
    """Run (or resume) a bench matrix; returns the run folder.

    Args:
        options: the matrix; ignored when resuming (the run's own options are used).
        out: folder that receives the new run folder.
        servers: config name -> URL of servers the user started; None launches servers (``engine``).
        engine: ``embedded`` (llama.cpp via xllamacpp, the default) or ``vllm`` (configs are recipe names,
            each launched in turn from ``files.recipes``, default the recipes file shipped with specscope).
        resume: an existing run folder to finish; cells already stored are skipped.
        files: the recipes file and the embedded engine's draft cache (:class:`EngineFiles`).
        on_cell: called after each finished cell (progress display).
        run_dir: exact folder for a new run (default: a timestamped folder under ``out``).
        controls: client settings (timeouts, API key) and the resume choices (:mod:`specscope.bench.resume`).

    Raises:
        ConfigError: unknown config / workload names.
        StoreError: ``resume`` is not a run, or a new run folder is not empty.
        ServerUnreachable / MetricsUnavailable: an external server cannot be used.
    """
    files = files or EngineFiles()
    controls = controls or RunControls()
    if resume is not None:
        run = open_run(resume)
        if run.manifest.get("kind") != "bench":
            run.close()
            raise StoreError(f"{resume} is not a bench run", found=run.manifest.get("kind"), expected="bench")
        try:
            run.ensure_writable()
        except StoreError:
            run.close()
            raise
        try:
            check_resume_options(run.manifest["options"], controls.given, resume)
        except SpecscopeError:
            run.close()
            raise
        options = BenchOptions(**run.manifest["options"])
        servers = run.manifest.get("external_servers") or None
        engine = run.manifest.get("engine", "embedded")
        recipes = Path(run.manifest["recipes"]) if run.manifest.get("recipes") else None
        files = EngineFiles(recipes, files.draft_cache)
    else:
        options = options or BenchOptions()
        engine = "external" if servers else engine
        run = _new_run(options, servers, engine, files.recipes, run_dir or new_run_dir(out), controls.client)
    check_names(options, servers, engine, files.recipes)
    plan = plan_cells(options)
    stored = summarize_run(run)
    done = cells_to_skip(stored, controls.retry_failed)
    if controls.retry_failed:
        run.update_manifest(crashes={})
    tally = _Tally(
        on_cell, len(plan), len(done), time.perf_counter_ns(), sum(s.output_tokens for s in stored if _key(s) in done)
    )
    try:
        auth = controls.client.auth_headers() if controls.client else {}
        sweeps = [(c, [k for k in plan if k.config == c and k not in done]) for c in options.configs]
        sweeps = [(config, todo) for config, todo in sweeps if todo]
        if options.parallel_configs and len(sweeps) > 1:
            side = [(c, todo, _target(c, run, options, servers, engine, files, auth)) for c, todo in sweeps]
            sweep_side_by_side([_side_job(run, c, todo, options, t, tally, controls.client) for c, todo, t in side])
        else:
            for config, todo in sweeps:
                target = _target(config, run, options, servers, engine, files, auth)
                _sweep_config(run, config, todo, options, target, tally, controls.client)
    finally:  # finished: every planned cell measured (ok / degraded); failed and crashed cells leave it unfinished
        finished = is_finished(plan, summarize_run(run))
        run.update_manifest(finished=finished, cells_done=len(run.done_keys()), cells_total=len(plan))
        run.close()
    return run.path


def _key(s: CellSummary) -> CellKey:
    return CellKey(s.config, s.workload, s.concurrency, s.repeat)


def _new_run(
    options: BenchOptions,
    servers: dict[str, str] | None,
    engine: str,
    recipes: Path | None,
    path: Path,
    settings: ClientSettings | None = None,
) -> Run:
    """Check the names and the external servers, then create the run folder with its manifest."""
    from specscope.bench.workloads import check_sources, sources_manifest
    from specscope.client.settings import ClientSettings

    check_names(options, servers, engine, recipes)
    check_sources(options)
    for name, url in (servers or {}).items():  # fail before a run folder exists
        with ExternalServer(name, url, headers=(settings or ClientSettings()).auth_headers()):
            pass
    return create_run(
        path,
        {
            "kind": "bench",
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "options": options.model_dump(mode="json"),
            "external_servers": servers,
            "engine": engine,
            "recipes": None if recipes is None else str(Path(recipes).resolve()),
            "baseline": options.baseline_config(),
            "client": (settings or ClientSettings()).describe(),
            "machine": machine_facts(),
            "versions": versions(),
            "packs": sources_manifest(options, lambda w: pack_name(w, options.edit_form)),
            "token_source": "usage.completion_tokens",
            "acceptance_source": "server /metrics counter deltas around each cell",
            "command": sys.argv,
        },
    )


def _log_path(run: Run, config: str) -> Path:
    """``logs/CONFIG.log``; a resumed config gets a fresh, timestamped log beside the old one."""
    log_path = run.path / "logs" / f"{config}.log"
    if log_path.exists():
        log_path = run.path / "logs" / f"{config}.{time.strftime('%Y%m%d-%H%M%S')}.log"
    return log_path


def _target(
    config: str,
    run: Run,
    options: BenchOptions,
    servers: dict[str, str] | None,
    engine: str,
    files: EngineFiles,
    headers: dict[str, str] | None = None,
) -> tuple[AbstractContextManager[Any], Path]:
    """The server context of ``config`` (external, launched vLLM or embedded) and the log it writes."""
    log_path = _log_path(run, config)
    if servers:
        return ExternalServer(config, servers[config], headers=headers), log_path
    if engine == "vllm":
        return launched_target(config, log_path, recipes=files.recipes), log_path
    return (
        embedded_target(
            config, log_path, threads=options.threads, n_parallel=max(options.levels), draft_cache=files.draft_cache
        ),
        log_path,
    )


def _sweep_config(
    run: Run,
    config: str,
    todo: Sequence[CellKey],
    options: BenchOptions,
    target: tuple[AbstractContextManager[Any], Path],
    tally: _Tally,
    settings: ClientSettings | None = None,
) -> None:
    """Start ``config``'s server, run its cells (``settings``: the client's, default ones when None), and
    record the server's facts before and after."""
    from specscope.client import ClientSettings, run_sync

    ctx, log_path = target
    facts = {"log": str(log_path.relative_to(run.path))}
    with redacted_log(log_path), ctx as server:  # the log is masked once the server has stopped
        run.save_server_facts(config, {**server.describe(), **facts})
        try:
            run_sync(_run_config(_ConfigRun(run, server, options, settings or ClientSettings(), tally), todo))
        finally:  # the log has grown (periodic metrics, a crash): read the server's facts again
            run.save_server_facts(config, {**server.describe(), **facts})


@contextmanager
def _masked(ctx: AbstractContextManager[Any], log_path: Path) -> Iterator[Any]:
    """``ctx`` (a server) whose log is rewritten with secrets masked once it has stopped."""
    with redacted_log(log_path), ctx as server:
        yield server


def _side_job(
    run: Run,
    config: str,
    todo: Sequence[CellKey],
    options: BenchOptions,
    target: tuple[AbstractContextManager[Any], Path],
    tally: _Tally,
    settings: ClientSettings | None = None,
) -> SideJob:
    """``config``'s sweep as a job of :func:`specscope.bench.parallel.sweep_side_by_side` (``settings``: the
    client's, default ones when None; the server log is masked once the server has stopped)."""
    from specscope.client import ClientSettings

    ctx, log_path = target
    facts = {"log": str(log_path.relative_to(run.path))}
    return SideJob(
        _masked(ctx, log_path),
        lambda server: _run_config(_ConfigRun(run, server, options, settings or ClientSettings(), tally), todo),
        lambda server: run.save_server_facts(config, {**server.describe(), **facts}),
    )


def _chat_body(c: _ConfigRun, key: CellKey, prompt: Any, max_tokens: int) -> dict[str, Any]:
    """The chat-completions body of one request of cell ``key`` (cache salt per cell and prompt when defeating)."""
    from specscope.bench.workloads import cell_request
    from specscope.workload import chat_request

    o = c.options
    salt = cache_salt(c.run.path.name, key, prompt.prompt_id) if o.prefix_cache == "defeat" else None
    return chat_request(
        prompt,
        model=c.server.model_name,
        server_kind=c.server.server_kind,
        cache_salt=salt,
        **cell_request(o, key.workload, prompt, max_tokens),
    )


async def _measure_cell(c: _ConfigRun, http: httpx.AsyncClient, key: CellKey, packs: Any, warm: Any) -> CellResult:
    """Warm up, scrape, run the N streams of ``key``, scrape again; a server that died gives a crashed cell."""
    from specscope.client import run_fixed_concurrency, run_fixed_concurrency_checked
    from specscope.client.gauges import GaugeSampler
    from specscope.workload import schedule

    base = c.server.base_url
    n = rate_requests(c.options, key) if c.options.rates else key.concurrency
    cell_prompts = schedule(packs[key.workload], n, repeat=key.repeat, seed=c.options.seed)
    open_loop: dict[str, Any] | None = None
    decision: str | None = None
    counters = counter_source(c.options, key.config, base, IDLE_WAIT_S)
    streams: list[StreamRecord] = []
    start_ns = end_ns = time.perf_counter_ns()
    before = after = None
    crashed = False
    try:
        warm_req = [(warm.prompt_id, _chat_body(c, key, warm, c.options.warmup_max_tokens))]
        await run_fixed_concurrency(base, warm_req, 1, c.settings)
        before = await counters.before(http)
        start_ns = time.perf_counter_ns()
        reqs = [(p.prompt_id, _chat_body(c, key, p, c.options.max_tokens)) for p in cell_prompts]
        sampler = GaugeSampler(base)  # the server's running / waiting gauges, from a child process
        sampler.start()
        try:
            if c.options.rates:
                streams, check, open_loop = await run_rate_cell(base, reqs, c.options, key, c.settings)
            else:
                settings, decision = choose_settings(c.settings, key.concurrency, len(reqs), c.history)
                streams, check = await run_fixed_concurrency_checked(base, reqs, key.concurrency, settings)
                c.history.record(streams, time.perf_counter_ns() - start_ns, settings.workers, check.limited_reason())
        finally:
            gauges = await asyncio.to_thread(sampler.stop)
        end_ns = time.perf_counter_ns()
        after = await counters.after(http)
    except SpecscopeError:
        if c.server.alive():
            raise
        crashed = True
    if crashed or not c.server.alive():
        client: dict[str, Any] = {"client_settings": c.settings.describe()}
        return CellResult(
            key, tuple(streams), start_ns, time.perf_counter_ns(), before, None, client, True, (CRASH_REASON,)
        )
    client = {"client_settings": c.settings.describe(), "warmup_prompt_id": warm.prompt_id}
    client["self_check"] = check.to_dict()
    client["counter_source"], flags = counters.facts((end_ns - start_ns) / 1e9)
    if open_loop is not None:
        client["open_loop"] = open_loop
    if decision is not None:
        client["client_decision"] = decision
    limited = check.limited_reason()
    reasons = ((limited,) if limited else ()) + flags
    return CellResult(key, tuple(streams), start_ns, end_ns, before, after, client, reasons=reasons, gauges=gauges)


async def _run_config(c: _ConfigRun, todo: Sequence[CellKey]) -> None:
    """Measure and store the cells of one config in order; a server crash stores that cell and ends the sweep."""
    from specscope.bench.workloads import prepare_workloads

    o = c.options
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        packs, warmups = await prepare_workloads(o, lambda w: pack_name(w, o.edit_form), http, c.server)
        for key in todo:
            result = await _measure_cell(c, http, key, packs, warmups[key.workload])
            c.run.save_cell(result)
            if result.crashed:
                crashes = dict(c.run.manifest.get("crashes") or {})
                crashes[key.config] = key.label()
                c.run.update_manifest(crashes=crashes)
                break
            c.tally.add(key, summarize_cell(result))

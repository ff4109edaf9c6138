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
import contextlib
import datetime as _dt
import hashlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from specscope.bench.adaptive import adaptive_rounds, resumed_rounds
from specscope.bench.clock import clock_facts, mark
from specscope.bench.machine import machine_facts, versions
from specscope.bench.order import segments, server_config
from specscope.bench.plan import check_names, design_of, plan_cells
from specscope.bench.targets import ExternalServer, ServerTarget, embedded_target, launched_target
from specscope.config import BenchOptions
from specscope.errors import SpecscopeError, StoreError
from specscope.records import CRASH_REASON, CellKey, CellResult, SpecCounters, StreamRecord
from specscope.stats.cells import summarize_cell, summarize_run
from specscope.stats.summary import CellSummary
from specscope.store import Run, create_run, open_run

if TYPE_CHECKING:
    from specscope.client.settings import ClientSettings

__all__ = ["BenchProgress", "EngineFiles", "run_bench", "new_run_dir"]


IDLE_WAIT_S = 5.0


@dataclass
class BenchProgress:
    """What a progress display needs after each cell: counts, the cell, run totals (tokens, s since the start),
    ``cell_s`` (s since the previous cell ended, warm-up and scrapes included) and the cells left per config."""

    done: int
    total: int
    key: CellKey
    summary: CellSummary
    total_output_tokens: int
    elapsed_s: float
    cell_s: float = 0.0
    left_by_config: dict[str, int] = field(default_factory=dict)


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
    left: dict[str, int] = field(default_factory=dict)
    last_ns: int = 0

    def add(self, key: CellKey, summary: CellSummary) -> None:
        self.done += 1
        self.tokens += summary.output_tokens
        self.left[key.config] = max(0, self.left.get(key.config, 0) - 1)
        now = time.perf_counter_ns()
        cell_s = (now - (self.last_ns or self.t0_ns)) / 1e9
        self.last_ns = now
        if self.on_cell is not None:
            elapsed_s = (now - self.t0_ns) / 1e9
            self.on_cell(
                BenchProgress(self.done, self.total, key, summary, self.tokens, elapsed_s, cell_s, dict(self.left))
            )


@dataclass(frozen=True)
class _ConfigRun:
    """Everything the cells of one config share: the run, its server, the matrix options and the tallies."""

    run: Run
    server: _BenchServer
    options: BenchOptions
    settings: ClientSettings
    tally: _Tally


def run_bench(
    options: BenchOptions | None = None,
    *,
    out: Path = Path("runs"),
    servers: dict[str, str] | None = None,
    resume: Path | None = None,
    on_cell: Callable[[BenchProgress], None] | None = None,
    run_dir: Path | None = None,
    engine: str = "embedded",
    files: EngineFiles | None = None,
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

    Raises:
        ConfigError: unknown config / workload names.
        StoreError: ``resume`` is not a run, or a new run folder is not empty.
        ServerUnreachable / MetricsUnavailable: an external server cannot be used.
    """
    files = files or EngineFiles()
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
        options = BenchOptions(**run.manifest["options"])
        servers = run.manifest.get("external_servers") or None
        engine = run.manifest.get("engine", "embedded")
        recipes = Path(run.manifest["recipes"]) if run.manifest.get("recipes") else None
        files = EngineFiles(recipes, files.draft_cache)
    else:
        options = options or BenchOptions()
        engine = "external" if servers else engine
        run = _new_run(options, servers, engine, files.recipes, run_dir or new_run_dir(out))
    check_names(options, servers, engine, files.recipes)
    design = design_of(servers, engine, options.order)
    plan = plan_cells(options, design)
    done = run.done_keys()
    tally = _Tally(
        on_cell, len(plan), len(done), time.perf_counter_ns(), sum(s.output_tokens for s in summarize_run(run))
    )
    tally.left = dict(Counter(k.config for k in plan if k not in done))
    try:
        more = adaptive_rounds(run, options, tally) if design == "interleaved" and options.target_ci else None
        for seg in segments([k for k in plan if k not in done], design) or resumed_rounds(options, more):
            targets = {c: _target(c, run, options, servers, engine, files) for c in seg.servers}
            _sweep(run, seg.cells, options, targets, tally, more)
    finally:
        crashed = set(run.manifest.get("crashes") or {})
        left = [k for k in plan if k not in run.done_keys() and server_config(k.config) not in crashed]
        run.update_manifest(finished=not left, cells_done=len(run.done_keys()), cells_total=len(plan))
        run.close()
    return run.path


def _new_run(
    options: BenchOptions, servers: dict[str, str] | None, engine: str, recipes: Path | None, path: Path
) -> Run:
    """Check the names and the external servers, then create the run folder with its manifest."""
    from specscope.client.settings import ClientSettings
    from specscope.workload import pack_manifest

    check_names(options, servers, engine, recipes)
    for name, url in (servers or {}).items():  # fail before a run folder exists
        with ExternalServer(name, url):
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
            "client": ClientSettings().describe(),
            "machine": machine_facts(),
            "versions": versions(),
            "packs": {w: pack_manifest(pack_name(w, options.edit_form), seed=options.seed) for w in options.workloads},
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
    config: str, run: Run, options: BenchOptions, servers: dict[str, str] | None, engine: str, files: EngineFiles
) -> tuple[AbstractContextManager[Any], Path]:
    """The server context of ``config`` (external, launched vLLM or embedded) and the log it writes."""
    log_path = _log_path(run, config)
    if servers:
        return ExternalServer(config, servers.get(config) or servers[server_config(config)]), log_path
    if engine == "vllm":
        return launched_target(server_config(config), log_path, recipes=files.recipes), log_path
    return (
        embedded_target(
            server_config(config),
            log_path,
            threads=options.threads,
            n_parallel=max(options.levels),
            draft_cache=files.draft_cache,
        ),
        log_path,
    )


def _sweep(
    run: Run,
    cells: Sequence[CellKey],
    options: BenchOptions,
    targets: dict[str, tuple[AbstractContextManager[Any], Path]],
    tally: _Tally,
    more: Callable[[], list[CellKey]] | None = None,
) -> None:
    """Start the servers of ``targets`` together, run ``cells`` in order on them, and record each server's facts
    before and after (:mod:`specscope.bench.order`: a sentinel cell runs on its baseline's server)."""
    from specscope.client import ClientSettings, run_sync

    with contextlib.ExitStack() as stack:
        runs: dict[str, _ConfigRun] = {}
        facts: dict[str, dict[str, Any]] = {}
        for config, (ctx, log_path) in targets.items():
            server = stack.enter_context(ctx)
            facts[config] = {"log": str(log_path.relative_to(run.path))}
            run.save_server_facts(config, {**server.describe(), **facts[config]})
            runs[config] = _ConfigRun(run, server, options, ClientSettings(), tally)
        try:
            run_sync(_run_cells(runs, cells, more))
        finally:  # the logs have grown (periodic metrics, a crash): read the servers' facts again
            for config, c in runs.items():
                run.save_server_facts(config, {**c.server.describe(), **facts[config]})


def _chat_body(c: _ConfigRun, key: CellKey, prompt: Any, max_tokens: int) -> dict[str, Any]:
    """The chat-completions body of one request of cell ``key`` (cache salt per cell and prompt when defeating)."""
    from specscope.workload import chat_request

    o = c.options
    salt = cache_salt(c.run.path.name, key, prompt.prompt_id) if o.prefix_cache == "defeat" else None
    return chat_request(
        prompt,
        model=c.server.model_name,
        max_tokens=max_tokens,
        temperature=o.temperature,
        server_kind=c.server.server_kind,
        cache_salt=salt,
    )


async def _idle_scrape(http: httpx.AsyncClient, base_url: str) -> SpecCounters:
    """A /metrics snapshot, waiting up to ``IDLE_WAIT_S`` for no request to be running."""
    from specscope.client.metrics import scrape

    deadline = time.monotonic() + IDLE_WAIT_S
    snap = await scrape(http, base_url)
    while (snap.running or 0) > 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        snap = await scrape(http, base_url)
    return snap


async def _measure_cell(c: _ConfigRun, http: httpx.AsyncClient, key: CellKey, packs: Any, warm: Any) -> CellResult:
    """Warm up, scrape, run the N streams of ``key``, scrape again; a server that died gives a crashed cell."""
    from specscope.client import run_fixed_concurrency, run_fixed_concurrency_checked
    from specscope.workload import schedule

    base = c.server.base_url
    cell_prompts = schedule(packs[key.workload], key.concurrency, repeat=key.repeat, seed=c.options.seed)
    streams: list[StreamRecord] = []
    start_ns = end_ns = time.perf_counter_ns()
    before = after = None
    crashed = False
    try:
        warm_req = [(warm.prompt_id, _chat_body(c, key, warm, c.options.warmup_max_tokens))]
        await run_fixed_concurrency(base, warm_req, 1, c.settings)
        before = await _idle_scrape(http, base)
        t0 = mark(getattr(c.server, "pid", None))
        start_ns = time.perf_counter_ns()
        reqs = [(p.prompt_id, _chat_body(c, key, p, c.options.max_tokens)) for p in cell_prompts]
        streams, check = await run_fixed_concurrency_checked(base, reqs, key.concurrency, c.settings)
        end_ns = time.perf_counter_ns()
        client_clock = clock_facts(t0, mark(getattr(c.server, "pid", None)))
        after = await _idle_scrape(http, base)
    except SpecscopeError:
        if c.server.alive():
            raise
        crashed = True
    if crashed or not c.server.alive():
        client = {"client_settings": c.settings.describe()}
        return CellResult(
            key, tuple(streams), start_ns, time.perf_counter_ns(), before, None, client, True, (CRASH_REASON,)
        )
    client = {"client_settings": c.settings.describe(), "warmup_prompt_id": warm.prompt_id, "clock": client_clock}
    client["self_check"] = check.to_dict()
    limited = check.limited_reason()
    return CellResult(
        key, tuple(streams), start_ns, end_ns, before, after, client, reasons=(limited,) if limited else ()
    )


async def _run_cells(
    runs: dict[str, _ConfigRun], todo: Sequence[CellKey], more: Callable[[], list[CellKey]] | None = None
) -> None:
    """Measure and store ``todo`` in order, each on its config's server, then the rounds ``more`` asks for (adaptive
    repeats) until it asks for none; a server crash stores that cell and skips the config's remaining cells."""
    from specscope.workload import load_pack, warmup_prompt

    o = next(iter(runs.values())).options
    packs = {w: load_pack(pack_name(w, o.edit_form), seed=o.seed) for w in o.workloads}
    warmups = {w: warmup_prompt(pack_name(w, o.edit_form), seed=o.seed) for w in o.workloads}
    crashed: set[str] = set()
    queue = list(todo)
    next(iter(runs.values())).tally.last_ns = time.perf_counter_ns()  # server starts are not a cell's time
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        while queue:
            key = queue.pop(0)
            owner = key.config if key.config in runs else server_config(key.config)
            if owner not in crashed:
                c = runs[owner]
                result = await _measure_cell(c, http, key, packs, warmups[key.workload])
                c.run.save_cell(result)
                if result.crashed:
                    crashed.add(owner)
                    c.run.update_manifest(crashes={**(c.run.manifest.get("crashes") or {}), owner: key.label()})
                else:
                    c.tally.add(key, summarize_cell(result))
            if not queue and more is not None:
                queue = [k for k in more() if server_config(k.config) not in crashed]

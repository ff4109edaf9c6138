"""Run a bench matrix cell by cell and commit each finished cell to the run store.

One cell (config, workload, N, repeat):
1. one warm-up request (a prompt not used by the cell), so the cell does not pay a cold start;
2. scrape ``/metrics`` (before), waiting briefly for the server to be idle;
3. start N streams at once from N distinct prompts and wait for all of them;
4. scrape ``/metrics`` (after), waiting briefly for the server to be idle;
5. summarize (:func:`specscope.stats.cells.summarize_cell`) and commit cell + streams in one transaction.

A server that died during a cell gives a ``server_crash`` cell and ends that config's sweep; the run goes
on with the next config.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import hashlib
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from specscope.bench.plan import plan_cells
from specscope.bench.targets import (
    ExternalServer,
    embedded_config_names,
    embedded_target,
    launched_target,
    recipe_names,
)
from specscope.config import BenchOptions
from specscope.errors import ConfigError, SpecscopeError, StoreError
from specscope.records import CellKey, CellResult, SpecCounters
from specscope.stats.cells import summarize_cell
from specscope.stats.summary import CellSummary
from specscope.store import Run, create_run, open_run

__all__ = ["BenchProgress", "run_bench", "new_run_dir"]

IDLE_WAIT_S = 5.0
EMBEDDED_MAX_PARALLEL = 256  # the embedded engine's slot limit (specscope.engine.EngineConfig.n_parallel)


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


def _machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_bytes = None
    try:
        mem_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "memory_bytes": mem_bytes,
        "python": sys.version.split()[0],
        "hostname": platform.node(),
    }


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {}
    for dist in ("specscope", "httpx", "aiohttp", "xllamacpp", "gguf", "prometheus-client", "numpy", "scipy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def _check_names(options: BenchOptions, servers: dict[str, str] | None, engine: str, recipes: Path | None) -> None:
    from specscope.workload import PACK_NAMES

    unknown_w = [w for w in options.workloads if w not in PACK_NAMES]
    if unknown_w:
        raise ConfigError(
            f"unknown workload {unknown_w[0]!r}",
            found=unknown_w,
            expected=f"one of {', '.join(PACK_NAMES)}",
            fix="pass e.g. --workloads prose,code,edit",
        )
    if servers:
        known = tuple(servers)
        fix = "name each server's config with --server NAME=URL"
    elif engine == "vllm":
        known = recipe_names(recipes)
        fix = "pick recipes from `specscope serve --list`, or pass --recipes FILE"
    else:
        known = embedded_config_names()
        fix = "the embedded engine has base, ngram and draft; pass --server URL for your own server"
    unknown_c = [c for c in options.configs if c not in known]
    if not servers and engine == "embedded" and max(options.levels) > EMBEDDED_MAX_PARALLEL:
        raise ConfigError(
            "concurrency level too high for the embedded engine",
            found=max(options.levels),
            expected=f"at most {EMBEDDED_MAX_PARALLEL} streams (llama.cpp slots)",
            fix=f"pass --levels up to {EMBEDDED_MAX_PARALLEL}, or --server URL for a bigger server",
        )
    if options.baseline is not None and options.baseline not in options.configs:
        raise ConfigError(
            f"baseline {options.baseline!r} is not among the configs",
            found=options.baseline,
            expected=f"one of {', '.join(options.configs)}",
        )
    if unknown_c:
        raise ConfigError(
            f"unknown config {unknown_c[0]!r}", found=unknown_c, expected=f"one of {', '.join(known)}", fix=fix
        )


def run_bench(
    options: BenchOptions | None = None,
    *,
    out: Path = Path("runs"),
    servers: dict[str, str] | None = None,
    resume: Path | None = None,
    draft_cache: Path | None = None,
    on_cell: Callable[[BenchProgress], None] | None = None,
    run_dir: Path | None = None,
    engine: str = "embedded",
    recipes: Path | None = None,
) -> Path:
    """Run (or resume) a bench matrix; returns the run folder.

    Args:
        options: the matrix; ignored when resuming (the run's own options are used).
        out: folder that receives the new run folder.
        servers: config name -> URL of servers the user started; None launches servers (``engine``).
        engine: ``embedded`` (llama.cpp via xllamacpp, the default) or ``vllm`` (configs are recipe names,
            each launched in turn from ``recipes``, default the recipes file shipped with specscope).
        resume: an existing run folder to finish; cells already stored are skipped.
        draft_cache: where the embedded engine keeps its derived draft model.
        on_cell: called after each finished cell (progress display).
        run_dir: exact folder for a new run (default: a timestamped folder under ``out``).

    Raises:
        ConfigError: unknown config / workload names.
        StoreError: ``resume`` is not a run, or a new run folder is not empty.
        ServerUnreachable / MetricsUnavailable: an external server cannot be used.
    """
    from specscope.client import ClientSettings, run_sync
    from specscope.workload import pack_manifest

    if resume is not None:
        run = open_run(resume)
        if run.manifest.get("kind") != "bench":
            raise StoreError(f"{resume} is not a bench run", found=run.manifest.get("kind"), expected="bench")
        options = BenchOptions(**run.manifest["options"])
        servers = run.manifest.get("external_servers") or None
        engine = run.manifest.get("engine", "embedded")
        recipes = Path(run.manifest["recipes"]) if run.manifest.get("recipes") else None
    else:
        options = options or BenchOptions()
        if servers:
            engine = "external"
        _check_names(options, servers, engine, recipes)
        for name, url in (servers or {}).items():  # fail before a run folder exists
            with ExternalServer(name, url):
                pass
        settings = ClientSettings()
        run = create_run(
            run_dir or new_run_dir(out),
            {
                "kind": "bench",
                "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                "options": options.model_dump(mode="json"),
                "external_servers": servers,
                "engine": engine,
                "recipes": None if recipes is None else str(Path(recipes).resolve()),
                "baseline": options.baseline_config(),
                "client": settings.describe(),
                "machine": _machine(),
                "versions": _versions(),
                "packs": {
                    w: pack_manifest(pack_name(w, options.edit_form), seed=options.seed) for w in options.workloads
                },
                "token_source": "usage.completion_tokens",
                "acceptance_source": "server /metrics counter deltas around each cell",
                "command": sys.argv,
            },
        )
    settings = ClientSettings()
    _check_names(options, servers, engine, recipes)
    plan = plan_cells(options)
    done = run.done_keys()
    total = len(plan)
    t0 = time.perf_counter_ns()
    tokens = sum(s.output_tokens for s in run.summaries())
    n_done = len(done)
    try:
        for config in options.configs:
            todo = [k for k in plan if k.config == config and k not in done]
            if not todo:
                continue
            log_path = run.path / "logs" / f"{config}.log"
            if log_path.exists():  # a resumed config gets a fresh log beside the old one
                log_path = run.path / "logs" / f"{config}.{time.strftime('%Y%m%d-%H%M%S')}.log"
            if servers:
                ctx = ExternalServer(config, servers[config])
            elif engine == "vllm":
                ctx = launched_target(config, log_path, recipes=recipes)
            else:
                ctx = embedded_target(
                    config, log_path, threads=options.threads, n_parallel=max(options.levels), draft_cache=draft_cache
                )
            with ctx as server:
                run.save_server_facts(config, {**server.describe(), "log": str(log_path.relative_to(run.path))})
                facts = {"log": str(log_path.relative_to(run.path))}
                try:
                    n_new, tokens = run_sync(
                        _run_config(run, server, todo, options, settings, on_cell, total, n_done, t0, tokens)
                    )
                    n_done += n_new
                finally:  # the log has grown (periodic metrics, a crash): read the server's facts again
                    run.save_server_facts(config, {**server.describe(), **facts})
    finally:
        crashed = set(run.manifest.get("crashes") or {})
        left = [k for k in plan if k not in run.done_keys() and k.config not in crashed]
        run.update_manifest(finished=not left, cells_done=len(run.done_keys()), cells_total=total)
        run.close()
    return run.path


async def _run_config(
    run: Run,
    server: Any,
    todo: Sequence[CellKey],
    options: BenchOptions,
    settings: Any,
    on_cell: Callable[[BenchProgress], None] | None,
    total: int,
    n_done: int,
    t0: int,
    tokens: int,
) -> tuple[int, int]:
    from specscope.client import run_fixed_concurrency, run_fixed_concurrency_checked
    from specscope.client.metrics import scrape
    from specscope.workload import chat_request, load_pack, schedule, warmup_prompt

    packs = {w: load_pack(pack_name(w, options.edit_form), seed=options.seed) for w in options.workloads}
    warmups = {w: warmup_prompt(pack_name(w, options.edit_form), seed=options.seed) for w in options.workloads}
    finished = 0
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:

        async def idle_scrape() -> SpecCounters:
            deadline = time.monotonic() + IDLE_WAIT_S
            snap = await scrape(http, server.base_url)
            while (snap.running or 0) > 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                snap = await scrape(http, server.base_url)
            return snap

        for key in todo:
            prompts = packs[key.workload]
            cell_prompts = schedule(prompts, key.concurrency, repeat=key.repeat, seed=options.seed)
            warm = warmups[key.workload]

            def body(p, max_tokens):
                salt = cache_salt(run.path.name, key, p.prompt_id) if options.prefix_cache == "defeat" else None
                return chat_request(
                    p,
                    model=server.model_name,
                    max_tokens=max_tokens,
                    temperature=options.temperature,
                    server_kind=server.server_kind,
                    cache_salt=salt,
                )

            crashed = False
            streams: list = []
            start_ns = end_ns = time.perf_counter_ns()
            before = after = None
            try:
                await run_fixed_concurrency(
                    server.base_url, [(warm.prompt_id, body(warm, options.warmup_max_tokens))], 1, settings
                )
                before = await idle_scrape()
                start_ns = time.perf_counter_ns()
                streams, check = await run_fixed_concurrency_checked(
                    server.base_url,
                    [(p.prompt_id, body(p, options.max_tokens)) for p in cell_prompts],
                    key.concurrency,
                    settings,
                )
                end_ns = time.perf_counter_ns()
                after = await idle_scrape()
            except SpecscopeError:
                if server.alive():
                    raise
                crashed = True
            if crashed or not server.alive():
                result = CellResult(
                    key,
                    tuple(streams),
                    start_ns,
                    time.perf_counter_ns(),
                    before,
                    None,
                    {"client_settings": settings.describe()},
                )
                summary = summarize_cell(result, extra_reasons=("SERVER_CRASH",), status_override="server_crash")
                run.save_cell(result, summary)
                crashes = dict(run.manifest.get("crashes") or {})
                crashes[key.config] = key.label()
                run.update_manifest(crashes=crashes)
                break
            result = CellResult(
                key,
                tuple(streams),
                start_ns,
                end_ns,
                before,
                after,
                {
                    "client_settings": settings.describe(),
                    "warmup_prompt_id": warm.prompt_id,
                    "self_check": check.to_dict(),
                },
            )
            limited = check.limited_reason()
            summary = summarize_cell(result, extra_reasons=(limited,) if limited else ())
            run.save_cell(result, summary)
            finished += 1
            tokens += summary.output_tokens
            if on_cell is not None:
                on_cell(
                    BenchProgress(n_done + finished, total, key, summary, tokens, (time.perf_counter_ns() - t0) / 1e9)
                )
    return finished, tokens

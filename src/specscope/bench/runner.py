"""Run a bench matrix cell by cell and commit each finished cell to the run store.

One cell (config, workload, N, repeat):
1. one warm-up request (a prompt not used by the cell), so the cell does not pay a cold start: the workload's
   full-shape warm-up on a server's first cell of that workload, a short one after
   (:func:`specscope.bench.cell.measure_cell`);
2. scrape ``/metrics`` (before), waiting briefly for the server to be idle;
3. start N streams at once from N distinct prompts and wait for all of them;
4. scrape ``/metrics`` (after), waiting briefly for the server to be idle;
5. commit the cell's facts + streams in one transaction (figures are derived when read:
   :func:`specscope.stats.cells.summarize_run`); the progress line summarizes the cell once.

A server that died during a cell gives a ``server_crash`` cell; with ``--crash-trials T`` a server specscope started
is started afresh T times to run that level again, and the config goes on below it
(:mod:`specscope.bench.crash_trials`); else that config's sweep ends. The run goes on with the next config.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from specscope.bench.adaptive import adaptive_rounds, resumed_rounds
from specscope.bench.cell import (
    BenchProgress,
    ConfigRun,
    Tally,
    cache_salt,  # re-exported: the request helpers of a cell
    pack_name,
    run_cells,
)
from specscope.bench.controls import redacted_log
from specscope.bench.crash_trials import Restart, log_name
from specscope.bench.machine import machine_facts, versions
from specscope.bench.openloop_cell import cell_label
from specscope.bench.order import segments, server_config
from specscope.bench.parallel import SideJob, sweep_side_by_side
from specscope.bench.plan import check_names, design_of, plan_cells
from specscope.bench.resume import (
    RunControls,
    cells_to_skip,
    check_plan_matches,
    check_resume_options,
    is_finished,
    nothing_left_line,
    refuse_imported,
    resumed_client,
    resumed_servers,
    started_matrix,
)
from specscope.bench.targets import ExternalServer, embedded_target, launched_target
from specscope.config import BenchOptions
from specscope.errors import SpecscopeError, StoreError
from specscope.records import CellKey
from specscope.redact import redact_text
from specscope.stats.cells import summarize_run
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import min_effect_of
from specscope.store import Run, create_run, open_run
from specscope.store.manifest import SCHEMA_VERSION, stored_bench_options
from specscope.textsafe import shell_word

if TYPE_CHECKING:
    from specscope.client.settings import ClientSettings

__all__ = ["BenchProgress", "EngineFiles", "run_bench", "judged_options", "new_run_dir", "cache_salt", "pack_name"]


def judged_options(options: BenchOptions) -> BenchOptions:
    """``options`` as a new run records them: the minimum effect given, else the judging rule's default
    (:func:`specscope.stats.verdict.min_effect_of`), so that the run is judged later as it was judged while it ran."""
    return options.model_copy(update={"min_effect": min_effect_of(None, options.min_effect)})


def new_run_dir(out: Path) -> Path:
    """The name a new run folder under ``out`` starts from: ``run-YYYYmmdd-HHMMSS``; the store makes it unique
    (``-1``, ``-2``... with an atomic ``mkdir``, :func:`specscope.store.create_run` ``unique=True``)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(out) / f"run-{stamp}"


@dataclass(frozen=True)
class EngineFiles:
    """Files the servers that specscope launches use, and how long their start may take.

    Attributes:
        recipes: the vLLM recipes file (``engine="vllm"``); None: the file shipped with specscope.
        draft_cache: where the embedded engine keeps its derived draft model; None: its default.
        start_timeout_s: longest wait for a launched server's ``/health`` (``--start-timeout``), seconds; None:
            the server's own default (:class:`~specscope.engine.EmbeddedServer`, :class:`~specscope.launch.VllmServer`).
    """

    recipes: Path | None = None
    draft_cache: Path | None = None
    start_timeout_s: float | None = None


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
        with closing(open_run(resume)) as looked:  # refusals first, read-only: a refused resume writes nothing
            _resume_choices(looked, resume, controls, servers)
        run = open_run(resume, writable=True)  # locked until the run ends: a second writer is refused
        try:
            run.ensure_writable()
            options, controls, servers = _resume_choices(run, resume, controls, servers)
        except SpecscopeError:
            run.close()
            raise
        engine = run.manifest.get("engine", "embedded")
        recipes = Path(run.manifest["recipes"]) if run.manifest.get("recipes") else None
        files = EngineFiles(recipes, files.draft_cache, files.start_timeout_s)
    else:
        options = judged_options(options or BenchOptions())
        engine = "external" if servers else engine
        path, unique = (run_dir, False) if run_dir is not None else (new_run_dir(out), True)
        run = _new_run(options, servers, engine, files.recipes, path, controls, unique=unique)
    check_names(options, servers, engine, files.recipes)
    if controls.on_start is not None:
        controls.on_start(run.path)
    design = design_of(servers, engine, options.order)
    plan = plan_cells(options, design)
    stored = summarize_run(run)
    done = cells_to_skip(stored, controls.retry_failed)
    _say_if_nothing_left(controls, plan, stored, resume is not None and not options.target_ci)
    _mark_started(run, plan, stored, controls.retry_failed)
    tally = Tally(
        on_cell,
        len(plan),
        len(done),
        time.perf_counter_ns(),
        sum(s.rated_output_tokens for s in stored if _key(s) in done),  # what the rates count
    )
    tally.left = dict(Counter(k.config for k in plan if k not in done))
    tally.label_of = partial(cell_label, options)
    try:
        auth = controls.client.auth_headers() if controls.client else {}
        todo = [k for k in plan if k not in done]
        sweeps = [(c, [k for k in todo if server_config(k.config) == c]) for c in options.configs]
        sweeps = [(config, cells) for config, cells in sweeps if cells]
        if options.parallel_configs and len(sweeps) > 1:
            side = [(c, cells, _target(c, run, options, servers, engine, files, auth)) for c, cells in sweeps]
            sweep_side_by_side([_side_job(run, c, cells, options, t, tally, controls.client) for c, cells, t in side])
        else:
            more = adaptive_rounds(run, options, tally) if design == "interleaved" and options.target_ci else None
            for seg in segments(todo, design) or resumed_rounds(options, more):
                targets = {c: _target(c, run, options, servers, engine, files, auth) for c in seg.servers}
                restarts = None if servers else {c: _restarter(c, run, options, engine, files) for c in seg.servers}
                _sweep(run, seg.cells, options, targets, tally, more, controls.client, restarts)
    except SpecscopeError as exc:  # a refusal after the folder was made: the folder says so (report, advise, resume)
        run.update_manifest(stopped=redact_text(exc.one_line()))
        if not run.done_keys() and controls.on_note is not None:
            where = shell_word(str(run.path))
            controls.on_note(f"the run folder {run.path} keeps no cell; `specscope bench --resume {where}` tries again")
        raise
    finally:  # finished: every planned cell measured (ok / degraded); failed and crashed cells leave it unfinished
        finished = is_finished(plan, summarize_run(run))
        run.update_manifest(finished=finished, cells_done=len(run.done_keys()), cells_total=len(plan))
        run.close()
    return run.path


def _resume_choices(
    run: Run, resume: Path, controls: RunControls, servers: dict[str, str] | None
) -> tuple[BenchOptions, RunControls, dict[str, str] | None]:
    """What a resume of ``run`` goes on with: its stored matrix, the client settings and the servers, after the
    refusals (not a bench run, an imported run, options that contradict the stored ones, servers that differ).

    Raises:
        StoreError / ConfigError: the resume is refused (:func:`check_resume_options`, :func:`resumed_servers`).
    """
    if run.manifest.get("kind") != "bench":
        raise StoreError(f"{resume} is not a bench run", found=run.manifest.get("kind"), expected="bench")
    refuse_imported(run.manifest, resume)
    options = stored_bench_options(run.manifest, run.path / "manifest.json")
    check_resume_options(run.manifest, controls.given, resume, controls.spec)
    controls = replace(controls, client=resumed_client(run.manifest.get("client") or {}, controls))
    servers = resumed_servers(run.manifest.get("external_servers"), servers, resume)
    if run.schema_version == SCHEMA_VERSION:  # an older run is refused as read only (ensure_writable), in its words
        design = design_of(servers, run.manifest.get("engine", "embedded"), options.order)
        plan, began = plan_cells(options, design), started_matrix(run.manifest, options)
        started = len(plan) if began == options else len(plan_cells(began, design))
        check_plan_matches(run.manifest, options, plan, [_key(s) for s in summarize_run(run)], resume, started)
    return options, controls, servers


def _say_if_nothing_left(
    controls: RunControls, plan: list[CellKey], stored: list[CellSummary], resumed_fixed: bool
) -> None:
    """A resumed run of a fixed matrix (adaptive rounds may add cells) with no planned cell left to measure says so
    before its report (:func:`specscope.bench.resume.nothing_left_line`)."""
    left = nothing_left_line(plan, stored, controls.retry_failed) if resumed_fixed else None
    if left is not None and controls.on_note is not None:
        controls.on_note(left)


def _mark_started(run: Run, plan: list[CellKey], stored: list[CellSummary], retry_failed: bool) -> None:
    """Write the plan's size and whether it is finished before the first cell (a run read while bench goes, or one
    killed, says what it lacks; bench's end writes them again); ``--retry-failed`` forgets the recorded crashes."""
    retried: dict[str, Any] = {"crashes": {}, "crash_trials": {}} if retry_failed else {}
    finished = is_finished(plan, stored)
    run.update_manifest(
        **retried, stopped=None, finished=finished, cells_done=len(run.done_keys()), cells_total=len(plan)
    )


def _key(s: CellSummary) -> CellKey:
    return CellKey(s.config, s.workload, s.concurrency, s.repeat)


def _new_run(
    options: BenchOptions,
    servers: dict[str, str] | None,
    engine: str,
    recipes: Path | None,
    path: Path,
    controls: RunControls,
    *,
    unique: bool = False,
) -> Run:
    """Check the names and the external servers, then create the run folder with its manifest (``run_options``:
    the options it was given, :func:`specscope.bench.setup.bench_setup`; ``unique``: ``path`` is a name to start
    from, see :func:`new_run_dir`)."""
    from specscope.bench.trace_cell import trace_manifest
    from specscope.bench.workloads import check_sources, datasets_manifest, sources_manifest
    from specscope.client.settings import ClientSettings

    settings = controls.client
    check_names(options, servers, engine, recipes)
    check_sources(options, (settings or ClientSettings()).endpoint)
    for name, url in (servers or {}).items():  # fail before a run folder exists
        with ExternalServer(name, url, headers=(settings or ClientSettings()).auth_headers()) as checked:
            for w in checked.warnings:  # a start-up fact not understood: absent, named, the run goes on
                print(f"warning: server {name!r}: GET /v1/models: {w}; that fact is left absent", file=sys.stderr)
    return create_run(
        path,
        unique=unique,
        manifest={
            "kind": "bench",
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "options": options.model_dump(mode="json"),
            "run_options": None if controls.record is None else dict(controls.record),
            "external_servers": servers,
            "engine": engine,
            "recipes": None if recipes is None else str(Path(recipes).resolve()),
            "baseline": options.baseline_config(),
            "client": (settings or ClientSettings()).describe(),
            "machine": machine_facts(),
            "versions": versions(),
            "packs": sources_manifest(options, lambda w: pack_name(w, options.edit_form)),
            "datasets": datasets_manifest(options),
            "trace": trace_manifest(options),
            "token_source": "usage.completion_tokens",
            "acceptance_source": "server /metrics counter deltas around each cell",
            "command": sys.argv,
        },
    )


def _log_path(run: Run, config: str) -> Path:
    """``logs/CONFIG.log``; a resumed config gets a fresh, timestamped log beside the old one."""
    return run.log_path(f"{config}.log")


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
        url = servers.get(config) or servers[server_config(config)]
        return ExternalServer(config, url, headers=headers), log_path
    return _launch(config, log_path, options, engine, files), log_path


def _launch(config: str, log_path: Path, options: BenchOptions, engine: str, files: EngineFiles) -> Any:
    """The context of a server specscope starts for ``config``: a vLLM recipe or the embedded engine."""
    limit = files.start_timeout_s
    if engine == "vllm":
        return launched_target(
            server_config(config), log_path, recipes=files.recipes, start_timeout_s=limit, name=config
        )
    return embedded_target(
        server_config(config),
        log_path,
        threads=options.threads,
        n_parallel=max(options.levels),
        draft_cache=files.draft_cache,
        start_timeout_s=limit,
        name=config,
    )


def _restarter(config: str, run: Run, options: BenchOptions, engine: str, files: EngineFiles) -> Restart:
    """Starts ``config``'s server afresh after a crash (:mod:`specscope.bench.crash_trials`), log ``CONFIG.TAG.log``
    masked once the server has stopped."""

    def start(tag: str) -> AbstractContextManager[Any]:
        log_path = run.log_path(log_name(config, tag))
        return _masked(_launch(config, log_path, options, engine, files), log_path)

    return start


def _sweep(
    run: Run,
    cells: Sequence[CellKey],
    options: BenchOptions,
    targets: dict[str, tuple[AbstractContextManager[Any], Path]],
    tally: Tally,
    more: Callable[[], list[CellKey]] | None = None,
    settings: ClientSettings | None = None,
    restarts: dict[str, Restart] | None = None,
) -> None:
    """Start the servers of ``targets`` together, run ``cells`` in order on them (``settings``: the client's,
    default ones when None), and record each server's facts before and after (:mod:`specscope.bench.order`: a
    sentinel cell runs on its baseline's server); each log is masked once its server has stopped. ``restarts``:
    per config, how to start its server afresh after a crash (None: servers the user started)."""
    from specscope.client import ClientSettings, run_sync

    with contextlib.ExitStack() as stack:
        runs: dict[str, ConfigRun] = {}
        facts: dict[str, dict[str, Any]] = {}
        for config, (ctx, log_path) in targets.items():
            server = stack.enter_context(_masked(ctx, log_path))
            facts[config] = {"log": str(log_path.relative_to(run.path))}
            run.save_server_facts(config, {**server.describe(), **facts[config]})
            restart = (restarts or {}).get(config)
            runs[config] = ConfigRun(run, server, options, settings or ClientSettings(), tally, restart=restart)
        try:
            run_sync(run_cells(runs, cells, more))
        finally:  # the logs have grown (periodic metrics, a crash): read the servers' facts again
            for config, c in runs.items():
                run.save_server_facts(config, {**c.server.describe(), **facts[config]})


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
    tally: Tally,
    settings: ClientSettings | None = None,
) -> SideJob:
    """``config``'s sweep as a job of :func:`specscope.bench.parallel.sweep_side_by_side` (``settings``: the
    client's, default ones when None; the server log is masked once the server has stopped)."""
    from specscope.client import ClientSettings

    ctx, log_path = target
    facts = {"log": str(log_path.relative_to(run.path))}
    return SideJob(
        _masked(ctx, log_path),
        lambda server: run_cells({config: ConfigRun(run, server, options, settings or ClientSettings(), tally)}, todo),
        lambda server: run.save_server_facts(config, {**server.describe(), **facts}),
    )

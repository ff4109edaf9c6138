"""``specscope bench``: run the speculative-decoding matrix and print its report.

Its flags are generated from the one option spec (:data:`specscope.bench.spec.BENCH_SPEC`): each option becomes a
typer option in its group's help panel; the command reads the given values through the spec
(:func:`specscope.bench.runfile.given_options`), so a value means the same on the command line, in a run file and
in a stored run.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Annotated, Any

import typer

from specscope.bench.spec import BENCH_SPEC, GROUPS, Opt
from specscope.cli.vocab import VocabCommand
from specscope.config import PROFILES, profile_options
from specscope.textsafe import shell_word

__all__ = ["EXAMPLES", "bench_command", "register"]

#: ``bench --help``'s closing examples.
EXAMPLES = """Examples:

  specscope bench                                    # quick profile, embedded engine (2 min 15 s on 2 quiet cores)

  specscope bench --configs base,draft --workloads edit --max-concurrency 1,2,4 --repeats 3

  specscope bench --server base=http://127.0.0.1:8000 --server mtp=http://127.0.0.1:8001

  specscope bench --launch vllm --configs cpu-base,cpu-ngram

  specscope bench --resume runs/run-20261129-120000

  specscope bench --like runs/run-20261129-120000 --max-tokens 256

  specscope bench --profile card --print-run-file > card.toml; specscope bench --run-file card.toml
"""

_QUICK = PROFILES["quick"]

# The quick profile's shape is read from the profile itself, so the help cannot drift from what runs.
HELP = f"""Run configs x workloads x concurrency levels x shuffled repeats and print the report.

With no options: the quick profile on the embedded llama.cpp engine (SmolLM2-135M, no GPU): configs
{", ".join(_QUICK["configs"])}{" and the A/A control" if _QUICK.get("aa") else ""}, workloads
{", ".join(_QUICK["workloads"])}, concurrency {", ".join(str(n) for n in _QUICK["levels"])},
{_QUICK["repeats"]} repeats, {_QUICK["max_tokens"]} tokens per request. Every cell is committed to a run folder
(printed first) that --resume finishes and --like repeats.

Exit codes: 0 done (failed cells are listed in the report); 1 done, but a config has no ok or degraded cell (every
one failed or crashed; the run folder and report are still written), or the report raises an alarm for a draft
that is (almost) never accepted, a --server-log's LOW_ACCEPTANCE among them, or for a --server-log whose counts
contradict each other (as `report` and `counters` exit 1 on it); 2 bad input (unknown config or workload,
unreachable server, no /metrics, options with --resume that differ from the run's); 130 interrupted, 143 terminated
by SIGTERM (finished cells are kept: --resume)."""


def _profile_default(opt: Opt) -> str:
    """`` (default: quick 48; card 512)`` (one value when the profiles agree) for an option whose value a profile
    fills, read from :func:`specscope.config.profile_options`; "" for one whose help says its default or that has
    none (None, empty)."""
    if opt.field is None or "default" in opt.help or opt.kind == "switch":
        return ""
    shown = {name: _as_text(getattr(profile_options(name), opt.field, None)) for name in PROFILES}
    if not all(shown.values()):
        return ""
    if len(set(shown.values())) == 1:
        return f" (default: {next(iter(shown.values()))})"
    return " (default: " + "; ".join(f"{name} {v}" for name, v in shown.items()) + ")"


def _as_text(value: Any) -> str:
    """A default as it is typed on the command line (``(1, 2)`` -> ``1,2``); "" for None or an empty value."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return "" if value is None or isinstance(value, dict) else str(value)


def _param(opt: Opt) -> inspect.Parameter:
    """The typer parameter of ``opt``: its flags, help panel, metavar; every value comes in as text (or a list of
    texts, or a switch) and is read by the spec, so an error is the spec's (found / expected / fix, exit 2)."""
    panel = GROUPS[opt.group].split(":")[0]
    flags = [opt.flag + (f"/--no-{opt.flag[2:]}" if opt.negative else "")] + ([opt.short] if opt.short else [])
    common: dict[str, Any] = {"help": opt.help + _profile_default(opt), "rich_help_panel": panel, "show_default": False}
    if opt.envvar:
        common |= {"envvar": opt.envvar, "show_envvar": True}
    annotation: Any
    if opt.kind == "switch":
        annotation = Annotated[bool | None, typer.Option(*flags, **common)]
    elif opt.kind in ("items", "names"):
        annotation = Annotated[list[str] | None, typer.Option(*flags, metavar=opt.metavar, **common)]
    else:
        annotation = Annotated[str | None, typer.Option(*flags, metavar=opt.metavar or "TEXT", **common)]
    return inspect.Parameter(opt.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)


def bench_command(spec: tuple[Opt, ...] = BENCH_SPEC) -> Any:
    """The ``bench`` command function, its signature generated from ``spec``."""

    def bench(**raw: Any) -> None:
        _bench(raw, spec)

    params = [_param(o) for o in spec]
    bench.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    bench.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    bench.__doc__ = HELP
    return bench


def _interrupted(planned: Path, exc: KeyboardInterrupt) -> Exception:
    """What bench says when Ctrl-C or SIGTERM stops it (printed by :func:`specscope.cli.crash.run_guarded`, exit
    130 or 143)."""
    from specscope.cli.crash import Interrupted

    if (planned / "manifest.json").is_file():
        return Interrupted.of(
            exc,
            f"interrupted: finished cells are kept in {planned}; "
            f"finish with: specscope bench --resume {shell_word(planned)}",
        )
    return Interrupted.of(exc, "interrupted before the run folder was made: nothing to resume")


def _print_run_file(given: dict[str, Any], spec: tuple[Opt, ...]) -> None:
    """Print every option that decides the run as a TOML run file: the given ones, the defaults of recorded ones
    (profile, launch) and each matrix option's value in force (the profile's); with ``--resume RUN``, the run's
    own. Nothing runs and no file named in the options is read."""
    from specscope.bench.runfile import dump_run_file, in_force_values, stored_options
    from specscope.bench.setup import matrix_in_force, with_defaults

    recorded = tuple(o for o in spec if o.record)
    if given.get("resume"):
        run = Path(given["resume"])
        record, options = stored_options(run)
        head = f"# the options of {run}; `specscope bench --resume {shell_word(run)}` finishes it\n"
        values = in_force_values(with_defaults(record, recorded), options, spec)
        typer.echo(head + dump_run_file(values, spec), nl=False)
        return
    values = in_force_values(with_defaults(given, recorded), matrix_in_force(given, spec), spec)
    typer.echo(dump_run_file(values, spec), nl=False)


def _engine(setup: Any) -> str:
    """The engine that serves the plan's configs: the launched recipes' kind, else the embedded one."""
    return "embedded" if setup.plan.kind != "vllm" else str(setup.plan.kind)


def _dry_run(setup: Any, given: dict[str, Any]) -> None:
    """``--dry-run``: the workloads read as the run reads them, printed as text or JSON
    (:mod:`specscope.bench.dry_run`); nothing is started or contacted."""
    from specscope.bench.dry_run import dry_run, dry_run_text
    from specscope.cli.output import emit_doc, report_target
    from specscope.client.settings import ClientSettings
    from specscope.errors import ConfigError

    fmt, output = report_target(given.get("format"), given.get("output"), ("text", "json"))
    if fmt not in ("text", "json"):
        raise ConfigError(
            f"--dry-run prints text or json, not {fmt}",
            found=f"-f {fmt}",
            expected="-f text or -f json",
            fix="drop -f, or pass -f json",
        )
    from specscope.bench.plan import check_names

    # the names the run refuses before it starts, refused here too (a config the engine cannot run at its k)
    servers = dict(setup.plan.servers) or None
    check_names(setup.options, servers, "external" if servers else _engine(setup), setup.plan.recipes)
    doc = dry_run(setup.options, (setup.controls.client or ClientSettings()).endpoint)  # the run's own endpoint
    emit_doc(fmt, output, given.get("width"), doc, dry_run_text(doc))


def _bench(raw: dict[str, Any], spec: tuple[Opt, ...]) -> None:
    """Read the options through the spec, then run (or resume) the matrix and print its report."""
    from rich.console import Console

    from specscope.bench import run_bench
    from specscope.bench.runfile import given_options, read_like, read_run_file
    from specscope.bench.runner import EngineFiles, new_run_dir
    from specscope.bench.setup import bench_setup, with_defaults
    from specscope.cli.output import report_target
    from specscope.cli.vocab import key_aliases

    def say(line: str) -> None:
        typer.echo(line, err=True)

    run_file = None
    if raw.get("run_file"):
        run_file = read_run_file(Path(raw["run_file"]), spec, aliases=key_aliases("bench"), warn=say)
    like = read_like(Path(raw["like"])) if raw.get("like") else None
    given = given_options(raw, run_file=run_file, like=like, spec=spec, note=say)
    if like is not None:
        from specscope.bench.resume import check_like_servers

        check_like_servers(given, Path(raw["like"]))
    if given.get("print_run_file"):
        _print_run_file(given, spec)
        return
    setup = bench_setup(given, spec)
    if given.get("dry_run"):
        _dry_run(setup, given)
        return
    values = with_defaults(given, spec)
    # never written (-o over them: refused before a cell runs; a resumed run's folder too, once refused only after
    # every missing cell was measured, when the report was written)
    reads = (raw.get("run_file"), raw.get("like"), given.get("trace"), values.get("resume"))
    fmt, output = report_target(
        given.get("format"), given.get("output"), ("text", "markdown", "json", "html"), reads=reads
    )
    checked: dict[str, Any] = {}
    if setup.options is not None:  # audit every recipe before one starts (vllm only)
        from specscope.targets.preflight import preflight_plan

        checked = preflight_plan(setup.plan, setup.options.configs, skip=bool(values.get("no_preflight")))
    out, resume = Path(values["out"]), Path(values["resume"]) if values.get("resume") else None
    # the folder an interrupted run names: the resumed one, or the new one once the store has made it (unique)
    planned = resume if resume is not None else new_run_dir(out)
    console = Console(stderr=True)

    def started(path: Path) -> None:  # printed once the folder exists: a refused start stays one error line
        nonlocal planned
        planned = path
        console.print(f"run folder: {path}", markup=False, highlight=False, soft_wrap=True)
        if setup.options is not None:  # what each cell sends of a file or dataset (issue 35)
            from specscope.bench.workload_rows import rows_notice

            for line in rows_notice(setup.options):
                console.print(line, markup=False, highlight=False, soft_wrap=True)

    controls = dataclasses.replace(
        setup.controls,
        on_start=started,
        on_note=lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True),
    )
    from specscope.cli.progress import progress

    draft_cache = Path(values["draft_cache"]) if values.get("draft_cache") else None
    try:
        with progress(console) as on_cell:
            run_dir = run_bench(
                setup.options,
                out=out,
                servers=dict(setup.plan.servers) or None,
                resume=resume,
                on_cell=on_cell,
                engine=_engine(setup),
                files=EngineFiles(setup.plan.recipes, draft_cache, values.get("start_timeout")),
                run_dir=None,  # run_bench names a new run's folder (unique even within one second)
                controls=controls,
            )
    except KeyboardInterrupt as exc:
        raise _interrupted(planned, exc) from None
    from specscope.bench.server_logs import attach_server_logs

    for line in attach_server_logs(run_dir, setup.server_logs, checked):  # the folder was named once, at the start
        typer.echo(line, err=True)  # each captured log's pooled acceptance and alarm
    from specscope.cli.report import emit_report

    alarmed = emit_report([run_dir], fmt, output, width=given.get("width"), html_in_run=True)
    from specscope.bench.outcome import configs_without_ok_cell, failed_configs_line

    failed = configs_without_ok_cell(run_dir)
    if failed:  # exit 1: the run finished, but a config's figures are all missing
        from specscope.cli.crash import error_line

        error_line(failed_configs_line(failed, run_dir))
    if failed or alarmed:  # or a draft that is not accepted (the report's alarm, as `report` exits 1 on it)
        raise typer.Exit(1)


def register(app: typer.Typer, spec: tuple[Opt, ...] = BENCH_SPEC) -> None:
    """Add ``bench`` (its flags from ``spec``) to ``app``."""
    app.command("bench", cls=VocabCommand, epilog=EXAMPLES, help=HELP)(bench_command(spec))

"""``specscope serve``: show or run a vLLM recipe, list recipes, or read facts out of a server log of any engine.

Usage::

    specscope serve RECIPE --print [--docker] [--port 8000] [--recipes FILE] [--format json]
    specscope serve RECIPE [--log FILE] [--port N] [--docker] [--no-preflight]   # audit, then run until Ctrl-C
    specscope serve --list [--recipes FILE] [--format json]
    specscope serve --parse-log FILE [--plan requests=20,tokens=32768,max-num-seqs=20] [--format json]

Exit codes: 0 success; 1 ``--parse-log`` found a failure signature of severity error in the log (warnings such
as the min_p one are printed, exit 0), the low-acceptance alarm over an engine's pooled statistics
(:mod:`specscope.launch.logpool`), or counts that contradict each other (``ACCEPTED_OVER_DRAFTED``,
``PER_POSITION_RATE`` ...: the rules ``counters`` exits 1 on, each named with its line); 2 bad input (unknown
recipe, invalid recipe file, missing log, a log in which no engine's lines are recognised) or a server that did not
start; 130 interrupted (normal end of a run).
"""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from specscope.cli.command_options import (
    CensusOption,
    DockerOption,
    ListRecipesOption,
    ParseLogOption,
    PlanOption,
    PrintOnlyOption,
    ServeLogOption,
    ServePortOption,
    StartTimeoutOption,
)
from specscope.cli.options import (
    TEXT_JSON,
    NoPreflightOption,
    OutputOption,
    RecipesOption,
    TextJsonFormatOption,
    WidthOption,
)
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError, ServerError
from specscope.strictjson import dumps_strict
from specscope.textsafe import shell_word

if TYPE_CHECKING:
    from rich.console import Console

    from specscope.launch.logfacts import LogFacts
    from specscope.launch.recipes import Recipe

#: the forms of ``specscope serve`` (a missing RECIPE names them all)
USAGE = (
    "`specscope serve RECIPE --print`, `specscope serve RECIPE`, `specscope serve --list` or "
    "`specscope serve --parse-log FILE`"
)
LIST_FIX = "run `specscope serve --list` to see the recipes"


def _census_check(facts: LogFacts, census: str | None) -> dict[str, object] | None:
    """ "Model loading took X GiB" against the audit's byte census of ``census`` (a model folder or hub id)."""
    if census is None:
        return None
    from specscope.audit import audit_checkpoint
    from specscope.launch.serverlog import loaded_vs_census

    report = audit_checkpoint(census)
    return loaded_vs_census(facts.weights_loaded_gib, report.census.total_bytes if report.census else None)


def _loaded_line(loaded: dict[str, object] | None) -> str:
    if loaded is None:
        return "model loading vs census: not comparable (no 'Model loading took' line or no census)"
    verdict = "agrees" if loaded["agrees"] else "DIFFERS: a different build, skipped packed tensors, or a drafter"
    return (
        f"model loading vs census: log {loaded['loaded_gib']} GiB, census {loaded['census_gib']:.2f} GiB "
        f"({loaded['difference_gib']:+.2f} GiB): {verdict}"
    )


def _stated(value: object) -> object:
    """``value`` without the entries of its mappings that state nothing (None, empty), as a fact the log does not
    state is not a row: an n-gram ``speculative_config`` has no drafter model, and ``'model': None`` is not shown."""
    if isinstance(value, dict):
        return {k: _stated(v) for k, v in value.items() if _stated(v) not in (None, [], {}, "")}
    return value


def _print_facts(
    path: Path,
    fmt: str,
    plan: str | None = None,
    census: str | None = None,
    width: int | None = None,
    output: Path | None = None,
) -> int:
    """Print the facts of server log ``path`` (``fmt`` text or json) on stdout, or write them to ``output``; the
    exit code (1: a failure of error severity, an alarm or counts that contradict each other)."""
    from rich.table import Table

    from specscope.cli.output import emit, make_console, write_file
    from specscope.launch.serverlog import read_server_log

    log = read_server_log(path)  # exit 2 naming every engine and form tried when none is recognised
    facts = log.facts
    from specscope.adapters.logs import log_summaries
    from specscope.launch.capacity import capacity_from_log
    from specscope.launch.logstats import cumulative_spec_total, pooled_spec_windows
    from specscope.stats.low_acceptance import low_acceptance_bound_alarm

    loaded = _census_check(facts, census)
    has_kv = facts.kv_cache_size_tokens or facts.gpu_blocks
    engines = tuple(r.engine for r in log.readings)
    capacity = capacity_from_log(facts, plan, engines=engines, log=str(path)) if plan is not None or has_kv else None
    spec = facts.speculative_config or {}
    method, k = spec.get("method"), spec.get("num_speculative_tokens")
    k = k if isinstance(k, int) and not isinstance(k, bool) and k > 0 else None
    pooled = pooled_spec_windows(facts.spec_decoding, method, k)
    cumulative = cumulative_spec_total(facts.spec_cumulative, method, k)
    # the adapters' summaries of statistics their engines print without counts (SGLang's windows), in registry order
    summaries = [(s, s.summarise(facts, low_acceptance_bound_alarm)) for s in log_summaries()]
    found = (pooled.alarm, cumulative.alarm if cumulative else None, *(x.alarm for _s, x in summaries if x))
    alarms = list(dict.fromkeys(a for a in (*found, *(p.alarm for p in log.pools)) if a))  # one line per alarm
    wrong = [(p.engine, r) for p in log.pools for r in p.inconsistencies]  # counters' rules on each statistic
    if fmt == "json":
        doc = facts.model_dump()
        if census is not None:
            doc["loaded_vs_census"] = loaded
        if capacity is not None:
            doc["capacity"] = capacity[0].model_dump()
            doc["plan"] = None if capacity[1] is None else capacity[1].model_dump()
        doc["spec_decoding_pooled"] = pooled.model_dump() if facts.spec_decoding else None
        doc["spec_decoding_cumulative_total"] = cumulative.model_dump() if cumulative else None
        for s, x in summaries:
            doc[s.key] = x.model_dump() if x else None
        doc["engine_logs"] = [r.model_dump() for r in log.readings]
        doc["log_pools"] = [p.model_dump() for p in log.pools]
        emit(dumps_strict(doc, indent=2), output)
    else:
        named = ", ".join(engines)
        table = Table(title=f"server log facts{f' ({named})' if named else ''}: {path}", show_header=False)
        hidden = {"failures", "spec_decoding", "spec_cumulative", "non_default_args", "stats", "unreadable_lines"}
        hidden |= {name for s, _x in summaries for name in s.hidden}
        shown = facts.model_dump(exclude=hidden)
        for key, value in shown.items():
            if _stated(value) not in (None, [], {}, ""):  # a fact the log does not state is not a row (never empty)
                table.add_row(key, str(_stated(value)))
        from specscope.launch.logpool import log_pool_lines
        from specscope.launch.logstats import cumulative_lines, pooled_lines

        # the windows and V0 totals are pooled in the engine-neutral pool too (log_pool_lines): each figure is shown
        # once, from that pool; the older rows stay only where no pool has counts (and V0's own-count rows)
        superseded = any(p.draft_tokens is not None for p in log.pools)
        for key, value in (
            (pooled_lines(pooled) if facts.spec_decoding and not superseded else [])
            + (cumulative_lines(cumulative) if cumulative and not superseded else [])
            + [row for s, x in summaries if x for row in s.lines(x)]
            + [row for p in log.pools for row in log_pool_lines(p)]
            + (cumulative_lines(cumulative, only_v0=True) if cumulative and superseded else [])
        ):
            table.add_row(key, value)
        for key, value in _stats_rows(facts):
            table.add_row(key, value)
        console, buf = make_console(output, width)  # --width, else 120 columns in a pipe (Console() alone: 80)
        console.print(table)
        lines = [_loaded_line(loaded)] if census is not None else []
        if capacity is not None:
            from specscope.launch.capacity import capacity_lines

            lines += capacity_lines(*capacity)
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        _print_verdicts(console, facts, alarms, wrong)
        if output is not None and buf is not None:
            write_file(output, buf.getvalue())
    return 1 if any(f.severity == "error" for f in facts.failures) or alarms or wrong else 0


def _print_verdicts(console: Console, facts: LogFacts, alarms: list[str], wrong: list[tuple[str, str]]) -> None:
    """The log's failure signatures, alarms and counts that contradict each other (engine, reason), a line each; an
    alarm's checks follow the log's method (an n-gram drafter has no head to audit)."""
    from rich.markup import escape

    from specscope.stats.low_acceptance import accepting_nothing_advice

    method = (facts.speculative_config or {}).get("method")
    checks = accepting_nothing_advice(method if isinstance(method, str) else None)[1][:-1]  # the last: this log
    for warning in facts.unreadable_lines:  # a start-up line that gave no fact, named
        console.print(warning, markup=False, highlight=False)
    for f in facts.failures:
        console.print(f"[red]{f.code}[/red] (line {f.line_number}, {f.count}x): {f.explanation} fix: {f.fix}")
    for alarm in alarms:
        console.print(f"[red]ALARM {escape(alarm)}[/red]: check {escape('; '.join(checks))}")
    for engine, r in wrong:
        console.print(f"[red]INCONSISTENT {engine} {r}[/red]: counts that contradict each other are no measurement")


def preflight_recipe(recipe: Recipe, *, skip: bool, name: str = "") -> dict[str, object]:
    """Audit a recipe's model / draft before launch (:func:`specscope.audit.preflight.require_preflight`).

    Returns what a run records (``{"status": "passed" | "not needed" | "skipped (--no-preflight)", ...}``).
    Raises PreflightRefused (exit 2) with the finding and its fix; nothing has been started then.
    """
    if skip:
        typer.echo(f"pre-flight audit skipped (--no-preflight) for {name or recipe.name}", err=True)
        return {"status": "skipped (--no-preflight)", "method": recipe.method, "model": recipe.model}
    from specscope.audit.preflight import require_preflight

    return require_preflight(recipe.model, recipe.draft_model, recipe.method, recipe=name or recipe.name).describe()


#: what only --parse-log reads
PARSE_LOG_ONLY = ("--plan", "--census", "--width")


def _stats_rows(facts: LogFacts) -> list[tuple[str, str]]:
    """The rows of the log's periodic stats lines: how many, and the peak KV cache usage (one engine's lines first)."""
    if not facts.stats:
        return []
    own = [s for s in facts.stats if s.engines_pooled is None] or facts.stats
    peak = max(own, key=lambda s: s.kv_cache_usage_percent)
    mean_of = (
        f"; the mean over {peak.engines_pooled} engines (requests summed): one engine's may be higher"
        if peak.engines_pooled is not None
        else ""
    )
    usage = (
        f"{peak.kv_cache_usage_percent}% (running {peak.running_reqs}, waiting {peak.waiting_reqs}, "
        f"line {peak.line_number}{mean_of})"
    )
    return [("stats_samples", str(len(facts.stats))), ("peak_kv_cache_usage", usage)]


def _recipe_line(r: Recipe) -> str:
    """``METHOD [k=K] MODEL``: a recipe as ``serve --list`` lists it."""
    k = f" k={r.num_speculative_tokens}" if r.num_speculative_tokens else ""
    return f"{r.method}{k} {r.model}"


def _refuse_out_of_mode(parse_log: Path | None, given: dict[str, object]) -> None:
    """Refuse, by name, what the chosen mode does not read: with ``--parse-log`` a recipe and the options that
    show, list or run one; without it ``--plan`` and ``--census`` (they read the parsed log).

    Raises:
        ConfigError: such an option is given.
    """
    named = [n for n, v in given.items() if v is not None]
    if parse_log is not None:
        wrong = [n for n in named if n not in PARSE_LOG_ONLY]
        if wrong:
            raise ConfigError(
                f"--parse-log reads a log only: {', '.join(wrong)} do{'es' if len(wrong) == 1 else ''} not apply",
                found=f"--parse-log {parse_log} with {', '.join(wrong)}",
                expected="--parse-log FILE [--plan ...] [--census MODEL] [--format json] [--width N]",
                fix=f"drop {', '.join(wrong)}, or run that in a separate `specscope serve` without --parse-log",
            )
        return
    wrong = [n for n in named if n in PARSE_LOG_ONLY]
    if wrong:
        raise ConfigError(
            f"{', '.join(wrong)} need{'s' if len(wrong) == 1 else ''} --parse-log",
            found=f"{', '.join(wrong)} without --parse-log",
            expected="--parse-log FILE: the server log whose facts they read",
            fix=f"specscope serve --parse-log SERVER.log {' '.join(f'{n} ...' for n in wrong)}",
        )


def register(app: typer.Typer) -> None:
    @app.command("serve", cls=VocabCommand)
    def serve(
        recipe: Annotated[str | None, typer.Argument(help="Recipe name from the recipe file.")] = None,
        recipes: RecipesOption = None,
        print_only: PrintOnlyOption = False,
        docker: DockerOption = False,
        port: ServePortOption = 8000,
        log: ServeLogOption = None,
        parse_log: ParseLogOption = None,
        plan: PlanOption = None,
        census: CensusOption = None,
        list_recipes: ListRecipesOption = False,
        start_timeout: StartTimeoutOption = "15m",
        format: TextJsonFormatOption = None,
        output: OutputOption = None,
        no_preflight: NoPreflightOption = False,
        width: WidthOption = None,
    ) -> None:
        """Show or run a vLLM recipe, list recipes, or read any engine's server log (--parse-log FILE).

        Exit 0 ok; 1 the parsed log shows a failure (error severity), the low-acceptance alarm, or counts that
        contradict each other (more accepted than drafted ..., as counters exits 1 on); 2 bad input or a server that
        did not start."""
        from specscope.launch.recipes import docker_argv, load_recipes, speculative_config, vllm_argv
        from specscope.values import TIMEOUT_BOUNDS_S, parse_duration_s

        start_timeout_s = parse_duration_s(start_timeout, "--start-timeout", bounds=TIMEOUT_BOUNDS_S)

        _refuse_out_of_mode(
            parse_log,
            {
                "RECIPE": recipe,
                "--print": print_only or None,
                "--docker": docker or None,
                "--port": None if port == 8000 else port,
                "--log": log,
                "--list": list_recipes or None,
                "--recipes": recipes,
                "--no-preflight": no_preflight or None,
                "--plan": plan,
                "--census": census,
                "--width": width,
            },
        )
        from specscope.cli.output import emit, report_target

        format, out = report_target(format, output, TEXT_JSON, reads=(parse_log, recipes))
        if parse_log is not None:
            raise typer.Exit(_print_facts(parse_log, format, plan, census, width, out))
        book = load_recipes(recipes)
        if list_recipes:
            if format == "json":
                emit(json.dumps({n: r.model_dump() for n, r in book.recipes.items()}, indent=2), out)
            else:
                emit("".join(f"{n}: {_recipe_line(r)}\n" for n, r in book.recipes.items()), out)
            return
        if recipe is None:
            raise ConfigError("no recipe given", found="nothing", expected=USAGE, fix=LIST_FIX)
        r = book.get(recipe, "RECIPE")
        if print_only:
            argv = (
                docker_argv(r, port=port, container_name=f"specscope-{recipe}-{port}")
                if docker
                else vllm_argv(r, port=port)
            )
            if format == "json":
                emit(
                    json.dumps(
                        {
                            "recipe": recipe,
                            "argv": argv,
                            "command_line": shlex.join(argv),
                            "speculative_config": speculative_config(r),
                            "env": r.env,
                        },
                        indent=2,
                    ),
                    out,
                )
            else:
                prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(r.env.items()))
                emit((prefix + " " if prefix and not docker else "") + shlex.join(argv), out)
            return
        if out is not None:  # a server runs: what it prints is its address while it serves, no document
            raise ConfigError(
                "--output does not apply to running a recipe",
                found=f"--output {out} with RECIPE {recipe}",
                expected="--output with --parse-log, --list or --print (a document to write)",
                fix="drop --output",
            )
        checked = preflight_recipe(r, skip=no_preflight, name=recipe)  # before any process starts
        from specscope.launch.process import VllmServer

        log_path = log or Path(f"vllm-{recipe}.log")
        with VllmServer(r, log_path, port, docker=docker, start_timeout_s=start_timeout_s) as server:
            info = {
                "base_url": server.base_url,
                "model": server.model_name,
                "log": str(log_path),
                "startup_s": server.startup_s,
                "preflight": checked,
            }
            from specscope.launch.serverlog import loaded_vs_census

            census_bytes = checked.get("census_bytes")
            info["loaded_vs_census"] = loaded_vs_census(
                server.log_facts().weights_loaded_gib, census_bytes if isinstance(census_bytes, int) else None
            )
            typer.echo(
                json.dumps(info)
                if format == "json"
                else f"serving {server.model_name} at {server.base_url} (log {log_path}); Ctrl-C stops it"
            )
            while server.alive():
                time.sleep(2.0)
        raise ServerError(
            "vLLM stopped on its own",
            found=f"see {log_path}",
            expected="a running server",
            fix=f"specscope serve --parse-log {shell_word(log_path)}",
        )

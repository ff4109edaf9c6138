"""``specscope gate``: run the quality gates against servers (the embedded engine by default) and store a
gate run. Targets come from the same options as ``bench`` (:mod:`specscope.cli.options`).

Exit codes: 0 every gate passed; 1 the suite ran and at least one gate failed; 2 bad input (unknown gate or
config, invalid profile, unreachable server, an --out folder holding another kind of run).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from specscope.cli.command_options import (
    GateContextTokensOption,
    GateLimitOption,
    GateMaxTokensOption,
    GateNamesOption,
    GatePrintRunFileOption,
    GateRunFileOption,
    GateStartTimeoutOption,
)
from specscope.cli.options import (
    ApiKeyOption,
    ConfigsOption,
    LaunchOption,
    NoPreflightOption,
    OutOption,
    OutputOption,
    RecipesOption,
    ServerOption,
    TableFormatOption,
    WidthOption,
)
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError
from specscope.strictjson import dumps_strict

if TYPE_CHECKING:
    from rich.console import Console

    from specscope.gate.model import GateRun, ProbeResult
    from specscope.targets import TargetPlan


def _print_run(run: GateRun, run_dir: Path, format: str, width: int | None = None, output: Path | None = None) -> None:
    """The gate run in ``format`` on stdout, or written to ``output`` (its path printed)."""
    from specscope.cli.output import emit
    from specscope.gate import render_gate_markdown, render_gate_table, render_thinking_table

    if format == "json":
        emit(dumps_strict({"run_folder": str(run_dir), **run.to_dict()}, indent=2, ensure_ascii=False), output)
    elif format == "markdown":
        emit(render_gate_markdown(run), output)
    else:

        def tables(console: Console) -> None:  # --width, else the terminal's, 120 to a file or a pipe
            console.print(render_gate_table(run))
            if any(r.gate == "thinking" for r in run.results):
                console.print(render_thinking_table(run))

        emit(tables, output, width)


def _with_start_timeout(plan: TargetPlan, text: str) -> TargetPlan:
    """``plan`` with ``--start-timeout`` (a duration, read as bench and serve read it) for the servers gate starts;
    refused with ``--server`` (gate starts none of them: the option would be silently ignored)."""
    from dataclasses import replace

    from specscope.values import TIMEOUT_BOUNDS_S, parse_duration_s

    if plan.kind == "external":
        raise ConfigError(
            "--start-timeout does not apply to --server",
            found=f"--start-timeout {text} with --server",
            expected="--start-timeout with servers gate starts (--launch)",
            fix="drop --start-timeout (gate starts no --server)",
        )
    return replace(plan, start_timeout_s=parse_duration_s(text, "--start-timeout", bounds=TIMEOUT_BOUNDS_S))


def register(app: typer.Typer) -> None:
    @app.command("gate", cls=VocabCommand)
    def gate(
        configs: ConfigsOption = None,
        server: ServerOption = None,
        launch: LaunchOption = "embedded",
        recipes: RecipesOption = None,
        start_timeout: GateStartTimeoutOption = None,
        run_file: GateRunFileOption = None,
        gates: GateNamesOption = None,
        limit: GateLimitOption = None,
        max_tokens: GateMaxTokensOption = None,
        context_tokens: GateContextTokensOption = None,
        out: OutOption = Path("runs"),
        format: TableFormatOption = None,
        output: OutputOption = None,
        print_run_file: GatePrintRunFileOption = False,
        no_preflight: NoPreflightOption = False,
        api_key: ApiKeyOption = None,
        width: WidthOption = None,
    ) -> None:
        """Run the quality gates (thinking termination, arithmetic, code, tool call, long context, repetition,
        base vs speculative) and store the run. With no --server,
        the embedded llama.cpp engine serves the configs (default base,ngram); the first is the baseline.

        Exit codes: 0 every gate passed; 1 a gate failed; 2 bad input or an unreachable server."""
        from rich.console import Console
        from rich.markup import escape

        from specscope.gate.budget import budget_profile, parse_gate_context_tokens, run_file_text
        from specscope.gate.session import run_gate
        from specscope.targets import parse_targets

        context_n = parse_gate_context_tokens(context_tokens)
        from specscope.cli.options import TABLE_FORMATS
        from specscope.cli.output import emit, report_target

        if print_run_file:
            if gates:  # the profile holds every gate's budget: a choice of gates is no part of it
                raise ConfigError(
                    "--print-run-file and --gate cannot be given together",
                    found=f"--print-run-file and --gate {','.join(gates)}",
                    expected="--print-run-file (it prints every gate's budgets, merged from --run-file and the limits)",
                    fix="drop --gate to print the profile, or drop --print-run-file to run those gates",
                )
            # the profile is TOML whatever -o's suffix: -o writes it to the file
            emit(run_file_text(run_file, limit=limit, max_tokens=max_tokens, context_tokens=context_n), output)
            return
        format, output = report_target(format, output, TABLE_FORMATS, reads=(run_file,))
        if api_key is not None:  # read as bench reads it: an empty or blank key is refused, never sent
            from specscope.bench.spec import by_name

            api_key = by_name()["api_key"].parse(api_key)
        plan = parse_targets(configs=configs, servers=server, launch=launch, recipes=recipes)
        if start_timeout is not None:
            plan = _with_start_timeout(plan, start_timeout)
        prof, notes = budget_profile(plan, run_file, limit=limit, max_tokens=max_tokens, context_tokens=context_n)
        from specscope.gate.session import DEFAULT_EMBEDDED_CONFIGS
        from specscope.targets.preflight import preflight_plan

        names = plan.names(DEFAULT_EMBEDDED_CONFIGS if plan.kind == "embedded" else ())
        checked = preflight_plan(plan, names, skip=no_preflight)
        console = Console(stderr=True)

        def on_result(r: ProbeResult) -> None:
            mark = "[green]pass[/]" if r.check.passed else "[red]FAIL[/]"
            why = r.check.why
            if r.gate == "compare":  # checked only base against speculative (gate/runner.decide), never alone
                mark, why = "sent", f"{why}; judged as a pair with the baseline, not alone"
            console.print(
                f"{r.config:>10} {r.gate:<12} {r.probe_id:<24} {mark} {escape(why)}",
                highlight=False,
                soft_wrap=True,
            )

        def on_start(run_dir: Path) -> None:
            console.print(f"run folder: {run_dir} (written after every probe)", soft_wrap=True, highlight=False)
            for note in notes:
                console.print(f"note: {note}", markup=False, soft_wrap=True, highlight=False)

        run, run_dir = run_gate(
            plan,
            prof,
            out,
            gates=gates,
            on_result=on_result,
            preflight=checked,
            notes=notes,
            on_start=on_start,
            api_key=api_key,
        )
        _print_run(run, run_dir, format, width, output)
        if not run.passed:
            raise typer.Exit(1)

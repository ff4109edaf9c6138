"""``specscope bench``: run the speculative-decoding matrix and print its report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from specscope.cli.options import ConfigsOption, LaunchOption, OutOption, RecipesOption, ServerOption
from specscope.cli.progress import progress
from specscope.cli.report import ReportFormat, emit_report


def _interrupted(console: Any, planned: Path) -> typer.Exit:
    if (planned / "manifest.json").is_file():
        console.print(
            f"interrupted: finished cells are kept in {planned}; finish with: specscope bench --resume {planned}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    else:
        console.print("interrupted before the run folder was made: nothing to resume", markup=False)
    return typer.Exit(130)


def register(app: typer.Typer) -> None:
    @app.command("bench")
    def bench(
        configs: ConfigsOption = None,
        workloads: Annotated[str | None, typer.Option(help="Workload packs, comma-separated: prose,code,edit.")] = None,
        levels: Annotated[str | None, typer.Option(help="Concurrency levels, comma-separated, e.g. 1,2,4.")] = None,
        repeats: Annotated[int | None, typer.Option(help="Shuffled repeats of the matrix.")] = None,
        max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="max_tokens of each request.")] = None,
        temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
        seed: Annotated[int | None, typer.Option(help="Seed of prompt schedules and shuffles.")] = None,
        edit_form: Annotated[str | None, typer.Option("--edit-form", help="prefill (default) or plain.")] = None,
        threads: Annotated[int | None, typer.Option(help="Compute threads of the embedded engine.")] = None,
        profile: Annotated[str, typer.Option(help="Named profile: quick (default) or card.")] = "quick",
        server: ServerOption = None,
        out: OutOption = Path("runs"),
        resume: Annotated[Path | None, typer.Option(help="Finish an interrupted run folder.")] = None,
        format: Annotated[
            ReportFormat, typer.Option("--format", "-f", help="Report format printed at the end.")
        ] = ReportFormat.text,
        draft_cache: Annotated[Path | None, typer.Option(help="Cache folder of the derived draft model.")] = None,
        launch: LaunchOption = "embedded",
        recipes: RecipesOption = None,
        baseline: Annotated[str | None, typer.Option(help="Config that speedups are measured against.")] = None,
        server_log: Annotated[
            list[str] | None,
            typer.Option("--server-log", help="NAME=FILE: the captured log of --server NAME (KV table, signatures)."),
        ] = None,
        aa: Annotated[
            bool | None,
            typer.Option("--aa/--no-aa", help="Add the A/A control BASELINE-again (noise floor); on in quick."),
        ] = None,
        order: Annotated[
            str | None,
            typer.Option(help="Cell order: auto (default), interleaved, or blocks (ABC, CBA... with sentinels)."),
        ] = None,
        target_ci: Annotated[
            float | None,
            typer.Option("--target-ci", help="Adaptive repeats: relative half-width of the speedup interval to reach."),
        ] = None,
        min_repeats: Annotated[
            int | None, typer.Option("--min-repeats", help="Adaptive: rounds of every cell.")
        ] = None,
        max_repeats: Annotated[
            int | None, typer.Option("--max-repeats", help="Adaptive: most rounds of a cell.")
        ] = None,
        no_preflight: Annotated[
            bool, typer.Option("--no-preflight", help="--launch vllm: skip the audit of each recipe's model/draft.")
        ] = False,
    ) -> None:
        """Run configs x workloads x concurrency levels x shuffled repeats, commit every cell to a run folder,
        and print the report. With no --server, the embedded llama.cpp engine serves SmolLM2-135M.

        Exit codes: 0 done; 2 bad input (unknown config or workload, unreachable server, no /metrics,
        a --resume folder that is not a run); 130 interrupted (finished cells are kept: resume with --resume)."""
        from rich.console import Console

        from specscope.bench import run_bench
        from specscope.bench.runner import EngineFiles, new_run_dir
        from specscope.config import parse_csv_ints, parse_csv_names, profile_options
        from specscope.targets import parse_targets

        plan = parse_targets(configs=configs, servers=server, launch=launch, recipes=recipes)
        from specscope.launch.serverlog import parse_server_log_specs

        logs = parse_server_log_specs(list(server_log or []), tuple(plan.servers))  # checked before the run
        options = None
        if resume is None:
            options = profile_options(
                profile,
                configs=plan.configs or (tuple(plan.servers) or None),
                workloads=parse_csv_names(workloads),
                levels=parse_csv_ints(levels, "--levels"),
                repeats=repeats,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                edit_form=edit_form,
                threads=threads,
                baseline=baseline,
                aa=aa,
                order=order,
                target_ci=target_ci,
                min_repeats=min_repeats,
                max_repeats=max_repeats,
            )
        if options is not None:  # audit every recipe before one starts (vllm only)
            from specscope.targets.preflight import preflight_plan

            checked = preflight_plan(plan, options.configs, skip=no_preflight)
        else:
            checked = {}
        # the folder is named here, so that an interrupted run can say where it is
        planned = resume if resume is not None else new_run_dir(out)
        console = Console(stderr=True)
        console.print(f"run folder: {planned}", markup=False, highlight=False, soft_wrap=True)
        try:
            with progress(console) as on_cell:
                run_dir = run_bench(
                    options,
                    out=out,
                    servers=dict(plan.servers) or None,
                    resume=resume,
                    on_cell=on_cell,
                    engine="vllm" if plan.kind == "vllm" else "embedded",
                    files=EngineFiles(recipes=plan.recipes, draft_cache=draft_cache),
                    run_dir=None if resume is not None else planned,
                )
        except KeyboardInterrupt:
            raise _interrupted(console, planned) from None
        from specscope.bench.server_logs import attach_server_logs

        attach_server_logs(run_dir, logs, checked)
        console.print(f"run folder: {run_dir}")
        emit_report([run_dir], format, None)

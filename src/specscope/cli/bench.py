"""``specscope bench``: run the speculative-decoding matrix and print its report."""

from __future__ import annotations

import dataclasses
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
        metrics: Annotated[
            list[str] | None,
            typer.Option("--metrics", help="NAME=URL: a replica's /metrics for config NAME (repeat per replica)."),
        ] = None,
        prometheus: Annotated[
            str | None, typer.Option(help="Read every config's counters from this Prometheus server (its root URL).")
        ] = None,
        prometheus_selector: Annotated[
            list[str] | None,
            typer.Option(
                "--prometheus-selector", help='NAME=SELECTOR: the series of config NAME (default {job="NAME"}).'
            ),
        ] = None,
        rates: Annotated[
            str | None, typer.Option(help="Open-loop request rates per second, comma-separated (instead of --levels).")
        ] = None,
        arrival: Annotated[str | None, typer.Option(help="Open-loop arrivals: poisson (default) or constant.")] = None,
        slo: Annotated[str | None, typer.Option(help="Goodput targets, e.g. ttft=2s,tpot=50ms.")] = None,
        parallel_configs: Annotated[
            bool, typer.Option("--parallel-configs", help="Run different configs' cells at the same time.")
        ] = False,
        workload: Annotated[
            list[str] | None, typer.Option("--workload", help="NAME=FILE: your own prompts (JSONL or text).")
        ] = None,
        dataset: Annotated[
            list[str] | None,
            typer.Option("--dataset", help="speed-bench[:CONFIG] or spec-bench: one workload per category."),
        ] = None,
        dataset_path: Annotated[
            str | None, typer.Option("--dataset-path", help="Local parquet/JSONL file or folder of --dataset.")
        ] = None,
        context: Annotated[str | None, typer.Option("--context", help="Input lengths in tokens, e.g. 2k,8k.")] = None,
        temperatures: Annotated[
            str | None, typer.Option("--temperatures", help="Temperature axis, e.g. 0,0.6,1.0.")
        ] = None,
        thinking: Annotated[str | None, typer.Option("--thinking", help="off (default), on or both.")] = None,
        k: Annotated[
            str | None,
            typer.Option("--k", help="Draft lengths, e.g. 1,2,4: each speculative config runs once per k (NAME-kK)."),
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
        retry_failed: Annotated[
            bool, typer.Option("--retry-failed", help="With --resume: measure failed and crashed cells again.")
        ] = False,
        read_timeout: Annotated[
            float | None, typer.Option("--read-timeout", help="Seconds to wait for a response's first byte.")
        ] = None,
        stall_timeout: Annotated[
            float | None,
            typer.Option("--stall-timeout", help="Seconds of silence mid-stream before the stream fails STALLED."),
        ] = None,
        api_key: Annotated[
            str | None,
            typer.Option("--api-key", envvar="OPENAI_API_KEY", show_envvar=True, help="Bearer token (never stored)."),
        ] = None,
    ) -> None:
        """Run configs x workloads x concurrency levels x shuffled repeats, commit every cell to a run folder,
        and print the report. With no --server, the embedded llama.cpp engine serves SmolLM2-135M.

        Exit codes: 0 done (a few failed cells are listed in the report); 1 done, but some config has no ok
        cell (one line names it and its first failure; the run folder and report are still written); 2 bad
        input (unknown config or workload, unreachable server, no /metrics, a --resume folder that is not a
        run, options given with --resume that differ from the run's);
        130 interrupted (finished cells are kept: resume with --resume)."""
        from rich.console import Console

        from specscope.bench import run_bench
        from specscope.bench.controls import client_controls
        from specscope.bench.runner import EngineFiles, new_run_dir
        from specscope.config import parse_csv_ints, parse_csv_names, profile_options
        from specscope.targets import parse_targets

        plan = parse_targets(configs=configs, servers=server, launch=launch, recipes=recipes)
        if k is not None:
            from specscope.config import BenchOptions
            from specscope.targets.k_axis import expand_plan_k

            plan = expand_plan_k(plan, k, BenchOptions().configs)
            aa = False if aa is None else aa  # a k sweep compares draft lengths: the A/A control only when asked
        from specscope.launch.serverlog import parse_server_log_specs

        logs = parse_server_log_specs(list(server_log or []), tuple(plan.servers))  # checked before the run
        given: dict[str, Any] = {
            "configs": plan.configs or (tuple(plan.servers) or None),
            "workloads": parse_csv_names(workloads),
        }
        given |= {"levels": parse_csv_ints(levels, "--levels"), "repeats": repeats, "max_tokens": max_tokens}
        given |= {"temperature": temperature, "seed": seed, "edit_form": edit_form, "threads": threads}
        controls = client_controls(read_timeout, stall_timeout, api_key, retry_failed, {**given, "baseline": baseline})
        options = None
        if resume is None:
            from specscope.bench.counters_source import parse_metrics_specs, parse_selectors
            from specscope.bench.openloop_cell import parse_rates, parse_slo

            names = plan.configs or tuple(plan.servers)
            replicas = parse_metrics_specs(metrics or [], names or ("base", "ngram", "draft"))
            from specscope.bench.workloads import cli_overrides

            axes = cli_overrides(parse_csv_names(workloads), workload, dataset, dataset_path, context, temperatures)
            options = profile_options(
                profile,
                metrics=replicas or None,
                parallel_configs=parallel_configs or None,
                rates=parse_rates(rates),
                prometheus=prometheus,
                prometheus_selectors=parse_selectors(prometheus_selector or [], names or ("base", "ngram", "draft")),
                arrival=arrival,
                **parse_slo(slo),
                configs=plan.configs or (tuple(plan.servers) or None),
                thinking=thinking,
                **axes,
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

        def started(path: Path) -> None:  # printed once the folder exists: a refused start stays one error line
            console.print(f"run folder: {path}", markup=False, highlight=False, soft_wrap=True)

        controls = dataclasses.replace(controls, on_start=started)
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
                    controls=controls,
                )
        except KeyboardInterrupt:
            raise _interrupted(console, planned) from None
        from specscope.bench.server_logs import attach_server_logs

        attach_server_logs(run_dir, logs, checked)
        console.print(f"run folder: {run_dir}", markup=False, highlight=False, soft_wrap=True)
        emit_report([run_dir], format, None)
        from specscope.bench.outcome import configs_without_ok_cell, failed_configs_line

        failed = configs_without_ok_cell(run_dir)
        if failed:  # exit 1: the run finished, but a config's figures are all missing
            from specscope.cli.crash import error_line

            error_line(failed_configs_line(failed, run_dir))
            raise typer.Exit(1)

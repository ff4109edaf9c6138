"""``specscope bench``: run the speculative-decoding matrix and print its report."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import typer

from specscope.cli.bench_options import (
    AAOption,
    ApiKeyOption,
    ArrivalOption,
    BenchBaselineOption,
    BusyPollOption,
    ContextOption,
    CrashTrialsOption,
    DatasetOption,
    DatasetPathOption,
    DraftCacheOption,
    DropBadRowsOption,
    EditFormOption,
    KOption,
    LevelsOption,
    MaxRepeatsOption,
    MaxTokensOption,
    MetricsOption,
    MinRepeatsOption,
    OrderOption,
    ParallelConfigsOption,
    ProfileOption,
    PrometheusOption,
    PrometheusSelectorOption,
    RatesOption,
    ReadTimeoutOption,
    RepeatsOption,
    ResumeOption,
    RetryFailedOption,
    SeedOption,
    ServerLogOption,
    SloOption,
    StallTimeoutOption,
    TargetCiOption,
    TemperatureOption,
    TemperaturesOption,
    ThinkingOption,
    ThreadsOption,
    TraceOption,
    TraceRowsOption,
    TraceScaleOption,
    WorkloadFileOption,
    WorkloadsOption,
)
from specscope.cli.options import (
    ConfigsOption,
    LaunchOption,
    MinEffectOption,
    NoPreflightOption,
    OutOption,
    RecipesOption,
    ReportFormat,
    ReportFormatOption,
    ServerOption,
)
from specscope.cli.progress import progress
from specscope.cli.report import emit_report


def _interrupted(planned: Path) -> Exception:
    """What bench says when Ctrl-C stops it (printed by :func:`specscope.cli.crash.run_guarded`, exit 130)."""
    from specscope.cli.crash import Interrupted

    if (planned / "manifest.json").is_file():
        return Interrupted(
            f"interrupted: finished cells are kept in {planned}; finish with: specscope bench --resume {planned}"
        )
    return Interrupted("interrupted before the run folder was made: nothing to resume")


def register(app: typer.Typer) -> None:
    @app.command("bench")
    def bench(
        configs: ConfigsOption = None,
        workloads: WorkloadsOption = None,
        levels: LevelsOption = None,
        repeats: RepeatsOption = None,
        max_tokens: MaxTokensOption = None,
        temperature: TemperatureOption = None,
        seed: SeedOption = None,
        edit_form: EditFormOption = None,
        threads: ThreadsOption = None,
        profile: ProfileOption = "quick",
        server: ServerOption = None,
        out: OutOption = Path("runs"),
        resume: ResumeOption = None,
        format: ReportFormatOption = ReportFormat.text,
        draft_cache: DraftCacheOption = None,
        launch: LaunchOption = "embedded",
        recipes: RecipesOption = None,
        baseline: BenchBaselineOption = None,
        server_log: ServerLogOption = None,
        metrics: MetricsOption = None,
        prometheus: PrometheusOption = None,
        prometheus_selector: PrometheusSelectorOption = None,
        rates: RatesOption = None,
        arrival: ArrivalOption = None,
        slo: SloOption = None,
        trace: TraceOption = None,
        trace_scale: TraceScaleOption = None,
        trace_rows: TraceRowsOption = None,
        parallel_configs: ParallelConfigsOption = False,
        workload: WorkloadFileOption = None,
        dataset: DatasetOption = None,
        dataset_path: DatasetPathOption = None,
        drop_bad_rows: DropBadRowsOption = False,
        context: ContextOption = None,
        temperatures: TemperaturesOption = None,
        thinking: ThinkingOption = None,
        k: KOption = None,
        aa: AAOption = None,
        order: OrderOption = None,
        target_ci: TargetCiOption = None,
        min_repeats: MinRepeatsOption = None,
        max_repeats: MaxRepeatsOption = None,
        min_effect: MinEffectOption = None,
        no_preflight: NoPreflightOption = False,
        retry_failed: RetryFailedOption = False,
        read_timeout: ReadTimeoutOption = None,
        stall_timeout: StallTimeoutOption = None,
        busy_poll: BusyPollOption = None,
        crash_trials: CrashTrialsOption = None,
        api_key: ApiKeyOption = None,
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
        aa_given = aa  # --aa / --no-aa as typed (None: not given), checked against the run's with --resume
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
        given |= {"temperature": temperature, "seed": seed, "edit_form": edit_form, "threads": threads, "aa": aa_given}
        given["min_effect"] = min_effect
        controls = client_controls(
            read_timeout, stall_timeout, api_key, retry_failed, {**given, "baseline": baseline}, busy_poll=busy_poll
        )
        options = None
        if resume is None:
            from specscope.bench.counters_source import parse_metrics_specs, parse_selectors
            from specscope.bench.openloop_cell import parse_rates, parse_slo

            names = plan.configs or tuple(plan.servers)
            replicas = parse_metrics_specs(metrics or [], names or ("base", "ngram", "draft"))
            from specscope.bench.trace_cell import trace_overrides
            from specscope.bench.workloads import cli_overrides

            axes = cli_overrides(
                parse_csv_names(workloads), workload, dataset, dataset_path, context, temperatures, drop_bad_rows
            ) | trace_overrides(trace, trace_scale, trace_rows)
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
                min_effect=min_effect,
                crash_trials=crash_trials,
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
            raise _interrupted(planned) from None
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

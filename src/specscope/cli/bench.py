"""``specscope bench``: run the speculative-decoding matrix and print its report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from specscope.cli.report import ReportFormat, emit_report


def register(app: typer.Typer) -> None:
    @app.command("bench")
    def bench(
        configs: Annotated[
            str | None, typer.Option(help="Server configs, comma-separated (embedded: base,ngram,draft).")
        ] = None,
        workloads: Annotated[str | None, typer.Option(help="Workload packs, comma-separated: prose,code,edit.")] = None,
        levels: Annotated[str | None, typer.Option(help="Concurrency levels, comma-separated, e.g. 1,2,4.")] = None,
        repeats: Annotated[int | None, typer.Option(help="Shuffled repeats of the matrix.")] = None,
        max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="max_tokens of each request.")] = None,
        temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
        seed: Annotated[int | None, typer.Option(help="Seed of prompt schedules and shuffles.")] = None,
        edit_form: Annotated[str | None, typer.Option("--edit-form", help="prefill (default) or plain.")] = None,
        threads: Annotated[int | None, typer.Option(help="Compute threads of the embedded engine.")] = None,
        profile: Annotated[str, typer.Option(help="Named profile: quick (default) or card.")] = "quick",
        server: Annotated[
            list[str] | None,
            typer.Option(
                "--server", help="An OpenAI-compatible server you started: URL or NAME=URL (repeat per config)."
            ),
        ] = None,
        out: Annotated[Path, typer.Option(help="Folder that receives run folders.")] = Path("runs"),
        resume: Annotated[Path | None, typer.Option(help="Finish an interrupted run folder.")] = None,
        format: Annotated[
            ReportFormat, typer.Option("--format", "-f", help="Report format printed at the end.")
        ] = ReportFormat.text,
        draft_cache: Annotated[Path | None, typer.Option(help="Cache folder of the derived draft model.")] = None,
        launch: Annotated[
            str,
            typer.Option(
                help="Who serves the configs when no --server is given: embedded (llama.cpp) or vllm (configs are recipe "
                "names, launched one at a time)."
            ),
        ] = "embedded",
        recipes: Annotated[Path | None, typer.Option(help="vLLM recipes TOML for --launch vllm.")] = None,
        baseline: Annotated[str | None, typer.Option(help="Config that speedups are measured against.")] = None,
        server_log: Annotated[
            list[str] | None,
            typer.Option("--server-log", help="NAME=FILE: the captured log of --server NAME (KV table, signatures)."),
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
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from specscope.bench import run_bench
        from specscope.bench.runner import new_run_dir
        from specscope.bench.targets import parse_server_specs
        from specscope.config import parse_csv_ints, parse_csv_names, profile_options

        servers = parse_server_specs(server) if server else None
        from specscope.launch.serverlog import parse_server_log_specs

        logs = parse_server_log_specs(list(server_log or []), tuple(servers or ()))  # checked before the run
        checked: dict[str, dict[str, object]] = {}
        cfg_names = parse_csv_names(configs)
        if servers and cfg_names is None:
            cfg_names = tuple(servers)
        options = None
        if resume is None:
            options = profile_options(
                profile,
                configs=cfg_names,
                workloads=parse_csv_names(workloads),
                levels=parse_csv_ints(levels, "--levels"),
                repeats=repeats,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                edit_form=edit_form,
                threads=threads,
                baseline=baseline,
            )
        if launch not in ("embedded", "vllm"):
            from specscope.errors import ConfigError

            raise ConfigError("unknown --launch", found=launch, expected="embedded or vllm")
        if launch == "vllm" and not servers and options is not None:  # audit every recipe before one starts
            from specscope.cli.serve import preflight_recipe
            from specscope.launch.recipes import load_recipes

            book = load_recipes(recipes)
            checked = {name: preflight_recipe(book.get(name), skip=no_preflight, name=name) for name in options.configs}
        console = Console(stderr=True)
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[rate]}"),
            console=console,
            transient=False,
        ) as progress:
            task = progress.add_task("cells", total=None, rate="")

            def on_cell(p) -> None:
                rate = p.total_output_tokens / p.elapsed_s if p.elapsed_s > 0 else 0.0
                last = p.summary.output_tok_s or 0.0
                progress.update(
                    task,
                    total=p.total,
                    completed=p.done,
                    description=p.key.label(),
                    rate=f"last {last:.1f} tok/s · run {rate:.1f} tok/s · {p.summary.status}",
                )

            # the folder is named here, so that an interrupted run can say where it is
            planned = resume if resume is not None else new_run_dir(out)
            try:
                run_dir = run_bench(
                    options,
                    out=out,
                    servers=servers,
                    resume=resume,
                    draft_cache=draft_cache,
                    on_cell=on_cell,
                    engine=launch,
                    recipes=recipes,
                    run_dir=None if resume is not None else planned,
                )
            except KeyboardInterrupt:
                progress.stop()
                if (planned / "manifest.json").is_file():
                    console.print(
                        f"interrupted: finished cells are kept in {planned}; "
                        f"finish with: specscope bench --resume {planned}",
                        markup=False,
                        highlight=False,
                        soft_wrap=True,
                    )
                else:
                    console.print("interrupted before the run folder was made: nothing to resume", markup=False)
                raise typer.Exit(130) from None
        from specscope.bench.server_logs import attach_server_logs

        attach_server_logs(run_dir, logs, checked)
        console.print(f"run folder: {run_dir}")
        emit_report([run_dir], format, None)

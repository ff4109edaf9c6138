"""``specscope report RUN [RUN ...]``: the seed-card tables of one or more runs."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from specscope.errors import ConfigError


class ReportFormat(str, Enum):
    text = "text"
    markdown = "markdown"
    json = "json"
    html = "html"


def emit_report(runs: list[Path], fmt: ReportFormat, output: Path | None) -> None:
    """Build and write/print the report of ``runs`` in ``fmt``."""
    from rich.console import Console

    from specscope.report.build import load_run_report
    from specscope.report.render import json_document, markdown_tables, print_tables
    from specscope.store import write_json_atomic

    reports = [load_run_report(p) for p in runs]
    if fmt is ReportFormat.html:
        from specscope.report.html import write_report_html

        target = output or (runs[0] / "report.html")
        write_report_html(runs, target)
        typer.echo(str(target))
        return
    if fmt is ReportFormat.json:
        doc = reports[0].to_json() if len(reports) == 1 else {"runs": [r.to_json() for r in reports]}
        if output:
            write_json_atomic(output, doc)
        else:
            typer.echo(json_document(doc))
        return
    if fmt is ReportFormat.markdown:
        text = "\n".join(markdown_tables(r.tables, heading=f"specscope run {r.path.name}") for r in reports)
        if output:
            from specscope.report.files import write_text_atomic

            write_text_atomic(output, text)
        else:
            typer.echo(text)
        return
    console = Console()
    for r in reports:
        console.rule(f"run {r.path}")
        print_tables(r.tables, console)


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        runs: Annotated[list[Path], typer.Argument(help="Run folder(s) made by `specscope bench`.")],
        format: Annotated[ReportFormat, typer.Option("--format", "-f", help="text, markdown, json or html.")] = ReportFormat.text,
        output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    ) -> None:
        """Print the tables of a run: acceptance, throughput vs base, per-stream spread, TTFT, concurrency, CV,
        and every cell that was not ok. Exit 2 when a folder is not a run."""
        if not runs:
            raise ConfigError("no run folder given", expected="specscope report RUN")
        emit_report(runs, format, output)

"""``specscope report RUN [RUN ...]``: the seed-card tables of one or more runs."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from specscope.cli.options import MinEffectOption, MixOption, OutputFileOption, ReportFormat, ReportFormatOption
from specscope.errors import ConfigError

if TYPE_CHECKING:  # the CLI imports the report lazily, so that `specscope --help` stays fast
    from rich.console import Console

    from specscope.report.build import Judging
    from specscope.report.document import Document


def _check_output(output: Path | None) -> None:
    """Refuse an ``--output`` that is a folder; make its parent folder (as the HTML and markdown writers do).

    Raises:
        ConfigError: ``output`` is an existing folder, or its parent cannot be made.
    """
    if output is None:
        return
    if output.is_dir():
        raise ConfigError(
            "--output is a folder",
            found=str(output),
            expected="a file path, e.g. report.html",
            fix=f"pass a file inside it, e.g. --output {output / 'report.html'}",
        )
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            "cannot make the folder of --output",
            found=f"{output.parent}: {exc.strerror or exc}",
            expected="a writable folder",
            fix="pass an --output path in a folder you can write",
        ) from None


def _console(output: Path | None, natural_cols: int = 160) -> tuple[Console, io.StringIO | None]:
    """A console for the text tables: stdout, or a plain-text buffer (no colour) for --output.

    Width (characters): for ``--output``, ``natural_cols`` (the widest table's natural width: a file has no
    terminal, so every row stays on one line whatever ``$COLUMNS`` says); on stdout, ``$COLUMNS`` when set, else
    the terminal's when stdout is one, else ``natural_cols``, so that ``specscope report RUN > file`` keeps every
    row on one line instead of rich's 80-column default for a pipe. Returns ``(console, buffer)``; ``buffer`` is
    None when printing to stdout.
    """
    import os

    from rich.console import Console

    cols = os.environ.get("COLUMNS", "")
    width = int(cols) if cols.isdigit() and int(cols) > 0 else None
    if output is None:
        console = Console(width=width)
        if width is None and not console.is_terminal:
            console = Console(width=natural_cols)
        return console, None
    buf = io.StringIO()
    return Console(file=buf, width=natural_cols, color_system=None, force_terminal=False), buf


def _emit_gate(runs: list[Path], fmt: ReportFormat, output: Path | None) -> None:
    """Gate runs: the pass/fail table per config (seed 002's shape) and the thinking-token table."""
    from specscope.gate import load_gate_run, render_gate_markdown, render_gate_table, render_thinking_table
    from specscope.report.files import write_text_atomic

    loaded = [load_gate_run(p) for p in runs]
    if fmt is ReportFormat.json:
        import json

        docs = [r.to_dict() for r in loaded]
        text = json.dumps(docs[0] if len(docs) == 1 else {"runs": docs}, indent=2, default=str)
    elif fmt is ReportFormat.markdown:
        text = "\n".join(render_gate_markdown(r) for r in loaded)
    elif fmt is ReportFormat.html:
        raise ConfigError(
            "gate runs have no HTML report",
            found="--format html",
            expected="text, markdown or json",
            fix="use --format markdown (a gate run is one pass/fail table)",
        )
    else:
        from specscope.report.render import natural_width

        tables = [t for r in loaded for t in (render_gate_table(r), render_thinking_table(r))]
        console, buf = _console(output, natural_width(tables))
        for p, r in zip(runs, loaded, strict=True):
            console.rule(f"gate run {p}")
            console.print(render_gate_table(r))
            console.print(render_thinking_table(r))
        if buf is None:
            return
        text = buf.getvalue()
    if output:
        write_text_atomic(output, text)
    else:
        typer.echo(text)


def emit_document(doc: Document, fmt: ReportFormat, output: Path | None, html_path: Path) -> None:
    """Write/print a report document in ``fmt`` (html: to ``output`` or ``html_path``, its path printed)."""
    from specscope.report.files import write_text_atomic
    from specscope.report.html import render_document_html
    from specscope.report.render import document_width, json_document, markdown_document, print_document

    if fmt is ReportFormat.html:
        target = output or html_path
        write_text_atomic(target, render_document_html(doc))
        typer.echo(str(target))
        return
    if fmt is ReportFormat.text:
        console, buf = _console(output, document_width(doc))
        print_document(doc, console)
        if buf is None:
            return
        text = buf.getvalue()
    else:
        text = json_document(doc) if fmt is ReportFormat.json else markdown_document(doc)
    if output:
        write_text_atomic(output, text)
    else:
        typer.echo(text)


def emit_report(runs: list[Path], fmt: ReportFormat, output: Path | None, judging: Judging | None = None) -> None:
    """Build the report document of ``runs`` and write/print it in ``fmt``; ``judging``
    (:class:`specscope.report.build.Judging`): a minimum effect and a mix given on the command line.

    Raises:
        ConfigError: ``output`` is a folder; gate runs mixed with bench runs; a gate run asked for HTML.
        StoreError: a folder is not a run.
    """
    from specscope.report.build import load_document, run_kind

    _check_output(output)
    gate_runs = [p for p in runs if run_kind(p) == "gate"]
    if gate_runs:
        if len(gate_runs) != len(runs):
            raise ConfigError(
                "gate runs and bench runs cannot share one report",
                found=[str(p) for p in runs],
                expected="only gate runs or only bench runs",
            )
        _emit_gate(gate_runs, fmt, output)
        return
    emit_document(load_document(runs, judging=judging), fmt, output, runs[0] / "report.html")


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        runs: Annotated[list[Path], typer.Argument(help="Run folder(s) made by `specscope bench`.")],
        format: ReportFormatOption = ReportFormat.text,
        output: OutputFileOption = None,
        min_effect: MinEffectOption = None,
        mix: MixOption = None,
    ) -> None:
        """Print the tables of a run: acceptance, throughput vs base, per-stream spread, TTFT, concurrency, CV,
        the comparisons with their verdicts, the picks for a mix (--mix; equal shares by default), and every cell
        that was not ok. --min-effect re-judges a stored run. Exit 2 when a folder is not a run."""
        if not runs:
            raise ConfigError("no run folder given", expected="specscope report RUN")
        from specscope.report.build import Judging
        from specscope.stats.choices import Traffic
        from specscope.stats.mix import parse_mix

        shares = parse_mix(mix) if mix else None
        traffic = None if shares is None else Traffic(shares.shares, notes=[n for n in [shares.note] if n])
        emit_report(runs, format, output, Judging(min_effect, traffic))

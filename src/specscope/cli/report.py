"""``specscope report RUN [RUN ...]``: the seed-card tables of one or more runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from specscope.cli.options import (
    REPORT_FORMATS,
    MinEffectOption,
    MixOption,
    OutputOption,
    ReportFormatOption,
    WidthOption,
)
from specscope.cli.output import emit, report_target, write_file
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError
from specscope.strictjson import dumps_strict
from specscope.textsafe import shell_word

if TYPE_CHECKING:  # the CLI imports the report lazily, so that `specscope --help` stays fast
    from specscope.report.build import Judging
    from specscope.report.document import Document


def _emit_gate(runs: list[Path], fmt: str, output: Path | None, width: int | None) -> None:
    """Gate runs: the pass/fail table per config (seed 002's shape) and the thinking-token table."""
    from specscope.gate import load_gate_run, render_gate_markdown, render_gate_table, render_thinking_table

    loaded = [load_gate_run(p) for p in runs]
    if fmt == "json":
        docs = [r.to_dict() for r in loaded]
        emit(dumps_strict(docs[0] if len(docs) == 1 else {"runs": docs}, indent=2, default=str), output)
    elif fmt == "markdown":
        emit("\n".join(render_gate_markdown(r) for r in loaded), output)
    elif fmt == "html":
        raise ConfigError(
            "gate runs have no HTML report",
            found="--format html",
            expected="text, markdown or json",
            fix="use --format markdown (a gate run is one pass/fail table)",
        )
    else:

        def tables(console: Any) -> None:
            for p, r in zip(runs, loaded, strict=True):
                console.rule(f"gate run {p}")
                console.print(render_gate_table(r))
                if any(x.gate == "thinking" for x in r.results):  # as `gate` prints it: no empty table
                    console.print(render_thinking_table(r))

        emit(tables, output, width)


def emit_document(
    doc: Document, fmt: str, output: Path | None, html_path: Path | None = None, width: int | None = None
) -> int:
    """Write/print a report document in ``fmt`` to ``output`` (its path printed) or stdout; html without ``output``
    goes to ``html_path`` when given (bench's own run folder, written while bench owns it), else to stdout like every
    format: ``report`` and ``advise`` only read a run (a run folder is read-only after bench); text at ``width``
    (:mod:`specscope.cli.output`).

    Returns:
        the exit code the document calls for: 1 when it raises an alarm of
        :data:`specscope.stats.alarms.PROBLEM_CODES` (a draft that is not accepted, as ``counters`` and ``serve
        --parse-log`` exit 1 on it), else 0.
    """
    from specscope.report.html import render_document_html
    from specscope.report.render import json_document, markdown_document, print_document
    from specscope.stats.alarms import found_problem

    if fmt == "html":
        target = output or html_path
        page = render_document_html(doc)
        if target is None:
            emit(page, None)
        else:
            write_file(target, page)
    elif fmt == "text":
        emit(lambda console: print_document(doc, console), output, width)
    else:
        emit(json_document(doc) if fmt == "json" else markdown_document(doc), output)
    return 1 if found_problem([a.code for a in doc.alarms]) else 0


def emit_report(
    runs: list[Path],
    fmt: str | None,
    output: Path | None,
    judging: Judging | None = None,
    *,
    width: int | None = None,
    html_in_run: bool = False,
) -> int:
    """Build the report document of ``runs`` and write/print it in ``fmt`` (None: ``text``, or ``output``'s suffix);
    ``judging`` (:class:`specscope.report.build.Judging`): a minimum effect and a mix given on the command line;
    ``html_in_run``: html without ``output`` goes to ``RUN/report.html`` (bench, which owns the run it made), else to
    stdout.

    Raises:
        ConfigError: ``output`` is a folder or names no format; gate runs mixed with bench runs; a gate run asked
            for HTML.
        StoreError: a folder is not a run.
    """
    from specscope.report.build import load_document, run_kind

    fmt, output = report_target(fmt, output, REPORT_FORMATS, reads=runs)
    gate_runs = [p for p in runs if run_kind(p) == "gate"]
    if gate_runs:
        if len(gate_runs) != len(runs):
            raise ConfigError(
                "gate runs and bench runs cannot share one report",
                found=[str(p) for p in runs],
                expected="only gate runs or only bench runs",
                fix="give them to two report commands",
            )
        _emit_gate(gate_runs, fmt, output, width)
        return 0
    html_path = runs[0] / "report.html" if html_in_run else None
    return emit_document(load_document(runs, judging=judging), fmt, output, html_path, width)


def _run_workloads(run: Path) -> list[str] | None:
    """The workloads of a bench run's cells, for ``--mix``'s check and fix; None for a gate run (the report refuses
    ``--mix`` there itself)."""
    from specscope.report.build import run_kind
    from specscope.stats.cells import summarize_run
    from specscope.stats.groups import workloads_of
    from specscope.store import open_run

    if run_kind(run) == "gate":
        return None
    with open_run(run) as r:
        return workloads_of(summarize_run(r))


def register(app: typer.Typer) -> None:
    @app.command("report", cls=VocabCommand)
    def report(
        runs: Annotated[list[Path], typer.Argument(help="Run folder(s) made by specscope bench, import or gate.")],
        format: ReportFormatOption = None,
        output: OutputOption = None,
        width: WidthOption = None,
        min_effect: MinEffectOption = None,
        mix: MixOption = None,
    ) -> None:
        """Print the tables of a run: acceptance, throughput vs base, per-stream spread, TTFT, concurrency, CV,
        the comparisons with their verdicts, the picks for a mix (--mix; equal shares by default), and every cell
        that was not ok. --min-effect re-judges a stored run.

        Exit codes: 0 printed; 1 printed, with a draft that is (almost) never accepted (ACCEPTANCE_NEAR_ZERO,
        ACCEPTANCE_FAR_BELOW, ACCEPTING_NOTHING, a stored server log's LOW_ACCEPTANCE: the rule counters and serve
        --parse-log exit 1 on) or a stored server log whose counts contradict each other (INCONSISTENT); 2 a folder
        is not a run."""
        if not runs:
            raise ConfigError("no run folder given", expected="specscope report RUN", fix="name a run folder")
        seen: dict[Path, Path] = {}
        for r in runs:  # the same folder twice printed its tables twice: refused, as a repeated rate or level is
            if (first := seen.setdefault(r.resolve(), r)) is not r:
                raise ConfigError(
                    "a run folder is given twice",
                    found=f"{first} and {r}" if str(first) != str(r) else str(r),
                    expected="each run folder once (report RUN [RUN ...]; advise takes one RUN)",
                    fix="drop the repeat",
                )
        from specscope.report.build import Judging
        from specscope.stats.choices import Traffic
        from specscope.stats.mix import parse_mix
        from specscope.store.run import parent_of_runs_error

        for r in runs:  # bench's --out folder given for the run inside it: name that run
            if (parent := parent_of_runs_error(r, lambda run: f"specscope report {shell_word(run)}")) is not None:
                raise parent

        shares = (
            parse_mix(mix, _run_workloads(runs[0]), f"specscope report {shell_word(runs[0])}")
            if mix is not None
            else None
        )
        traffic = None if shares is None else Traffic(shares.shares, notes=[n for n in [shares.note] if n])
        code = emit_report(runs, format, output, Judging(min_effect, traffic), width=width)
        if code:
            raise typer.Exit(code)

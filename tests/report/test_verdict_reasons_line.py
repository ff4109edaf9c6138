"""The short verdict lines name their reasons (issue 50 item 2).

``verdict: ngram on edit at N=1: 1.03x (1 round) undetermined`` hid the reasons its comparison carries in the judgement
(COLD_START, NO_DRAFTS): each short line now names its comparison's reason codes, read from the judgement's
comparison (never re-derived), and the grouped line counts them; text, markdown and HTML print the same lines."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from cells import summary
from rich.console import Console

from quickrun import make_quick_run
from specscope.report.build import load_document
from specscope.report.html import render_document_html
from specscope.report.render import markdown_document, print_document
from specscope.report.tables import RunCells
from specscope.report.verdicts import verdict_lines
from specscope.stats.verdict import Reason


def test_a_short_line_names_its_comparisons_reasons():
    cells = [summary("base", "edit", 1, 0, 10.0), summary("ngram", "edit", 1, 0, 10.3)]
    j = RunCells.of(cells, "base").judgement
    ng = j.get("ngram", "edit", 1)
    extra = (Reason("COLD_START", 1, "1 cell(s) left out as cold starts"), Reason("NO_DRAFTS", 1, "0 drafts in 1 of 2"))
    j = replace(j, comparisons=tuple(replace(c, reasons=(*c.reasons, *extra)) if c is ng else c for c in j.comparisons))
    # TOO_FEW_ROUNDS is what "(1 round)" says; the others are named by their codes
    assert verdict_lines(j) == ["ngram on edit at N=1: 1.03x (1 round) undetermined (COLD_START, NO_DRAFTS)"]


def test_the_grouped_line_counts_its_reasons_in_every_format(tmp_path: Path):
    run = make_quick_run(tmp_path / "run", repeats=1)
    doc = load_document([run])
    line = (
        "ngram on 6 comparisons (code N=1,2; edit N=1,2; prose N=1,2): 0.98x to 1.29x undetermined (TOO_FEW_ROUNDS 6)"
    )
    assert line in doc.sections[0].verdicts
    console = Console(file=io.StringIO(), width=400)
    print_document(doc, console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    for rendered in (text, markdown_document(doc), render_document_html(doc)):
        assert line in rendered

"""A table without rows is its title and note, in text and Markdown (fresh-user check, 2026-12-05: "Cells not ok
(0 of 48)" printed a header row over nothing, which reads as a table that failed to render)."""

from __future__ import annotations

import io

from rich.console import Console

from specscope.report.document import Column, Document, Section, Table, text_cell
from specscope.report.render import markdown_document, print_document


def _doc() -> Document:
    empty = Table("not_ok", "Cells not ok (0 of 4)", [Column("config"), Column("reasons")], [], "Every cell was ok.")
    full = Table("t", "Speeds", [Column("config"), Column("tok/s")], [[text_cell("base"), text_cell("10.0")]], "n.")
    return Document("r", [Section("s", "S", [empty, full])])


def test_markdown_shows_the_note_of_an_empty_table_and_no_header():
    md = markdown_document(_doc())
    assert "### Cells not ok (0 of 4)\n\n_Every cell was ok._\n" in md
    assert "| config | reasons |" not in md
    assert "| config | tok/s |\n|---|---:|\n| base | 10.0 |" in md


def test_text_shows_the_title_and_note_of_an_empty_table():
    buf = io.StringIO()
    print_document(_doc(), Console(file=buf, width=100, color_system=None))
    text = buf.getvalue()
    assert "Cells not ok (0 of 4)\nEvery cell was ok." in text
    assert "reasons" not in text and "tok/s" in text

"""Render :class:`ReportTable` lists as rich terminal tables, Markdown, or one JSON document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from specscope.report.tables import ReportTable

__all__ = ["print_tables", "markdown_tables", "json_document"]


def print_tables(tables: Sequence[ReportTable], console: Console | None = None) -> None:
    console = console or Console()
    for t in tables:
        rt = Table(title=t.title, title_justify="left", show_lines=False)
        for i, col in enumerate(t.columns):
            rt.add_column(col, justify="left" if i == 0 else "right")
        for row in t.rows:
            rt.add_row(*row)
        console.print(rt)
        if t.note:
            console.print(f"[dim]{t.note}[/dim]")
        console.print()


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|")


def markdown_tables(tables: Sequence[ReportTable], heading: str | None = None) -> str:
    out: list[str] = []
    if heading:
        out += [f"# {heading}", ""]
    for t in tables:
        out += [f"## {t.title}", ""]
        out.append("| " + " | ".join(_md_cell(c) for c in t.columns) + " |")
        out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(t.columns))) + "|")
        for row in t.rows:
            out.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
        if t.note:
            out += ["", f"_{t.note}_"]
        out.append("")
    return "\n".join(out)


def json_document(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, default=str)

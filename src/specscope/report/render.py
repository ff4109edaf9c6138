"""Render a report :class:`~specscope.report.document.Document` as rich terminal text, Markdown or JSON.

Renderers compute nothing: they print the document's cell texts, alarms, verdicts and notes as they are (the
terminal text clips a run of more than 200 characters without a space: :func:`specscope.textsafe.clip_words`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table as RichTable

from specscope.report.document import Document, Section, Table
from specscope.strictjson import dumps_strict
from specscope.textsafe import clip_words

__all__ = ["print_document", "markdown_document", "json_document", "natural_width", "document_width"]


def _t(text: str) -> str:
    """Text as the terminal shows it: a run of more than 200 characters without a space clipped (a config name of
    100,000 characters made rich's highlighter and wrapping take ~20 s and the tables 14 MB); Markdown and JSON keep
    it whole. Printed without rich's repr highlighting (``highlight=False``) for the same reason."""
    return clip_words(text)


def _rich_table(t: Table) -> RichTable:
    rt = RichTable(title=_t(t.title), title_justify="left", show_lines=False)
    for i, col in enumerate(t.headers):
        rt.add_column(_t(col), justify="left" if i == 0 else "right", overflow="fold")
    for row in t.rows:
        rt.add_row(*(escape(_t(c)) for c in row))
    return rt


def natural_width(renderables: Iterable[RenderableType], floor_cols: int = 80) -> int:
    """Columns (characters) the widest of ``renderables`` needs so that none wraps (rich's measurement of its
    natural width, borders and padding included), at least ``floor_cols``."""
    probe = Console(file=io.StringIO(), width=100_000, color_system=None)
    return max([floor_cols, *(Measurement.get(probe, probe.options, r).maximum for r in renderables)])


def document_width(doc: Document) -> int:
    """Columns (characters) that print every table of ``doc`` unwrapped: :func:`natural_width` of its tables."""
    return natural_width(_rich_table(t) for s in doc.sections for t in s.tables)


def _print_table(t: Table, console: Console) -> None:
    """One table; without rows its title and note only (as in Markdown)."""
    if not t.rows:
        console.print(f"[italic]{escape(_t(t.title))}[/italic]", highlight=False)
    else:
        console.print(_rich_table(t), highlight=False)
    if t.note:
        console.print(f"[dim]{escape(_t(t.note))}[/dim]", highlight=False)
    console.print()


def _print_section(s: Section, console: Console) -> None:
    console.rule(escape(_t(s.title)))
    for a in s.alarms:
        console.print(f"[bold red]{escape(_t(a.text))}[/bold red]", highlight=False)
    for v in s.verdicts:
        console.print(f"verdict: {escape(_t(v))}", highlight=False)
    for n in s.notes:
        console.print(f"note: {escape(_t(n))}", highlight=False)
    if s.alarms or s.verdicts or s.notes:
        console.print()
    for t in s.tables:
        _print_table(t, console)


def print_document(doc: Document, console: Console | None = None) -> None:
    """The document as rich tables on ``console`` (the terminal when None)."""
    console = console or Console()
    for line in doc.headline:
        console.print(f"[bold]headline: {escape(_t(line))}[/bold]", highlight=False)
    if doc.headline:
        console.print()
    for s in doc.sections:
        _print_section(s, console)


def _md(s: str) -> str:
    return s.replace("|", "\\|")


def _md_table(t: Table) -> list[str]:
    """One ``###`` table; a table without rows is its title and note only (a header row over nothing reads as a
    table that failed to render)."""
    out = [f"### {t.title}", ""]
    if t.rows:
        out.append("| " + " | ".join(_md(c) for c in t.headers) + " |")
        out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(t.headers))) + "|")
        out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in t.rows]
    if t.note:
        out += ["", f"_{t.note}_"] if t.rows else [f"_{t.note}_"]
    out.append("")
    return out


def markdown_document(doc: Document) -> str:
    """The document as Markdown: one ``##`` heading per section, alarms as block quotes, ``###`` per table."""
    out = [f"# {doc.title}", ""]
    out += [f"**headline: {_md(line)}**\n" for line in doc.headline]
    for s in doc.sections:
        out += [f"## {s.title}", ""]
        out += [f"> **{a.text}**\n" for a in s.alarms]
        out += [f"- verdict: {v}" for v in s.verdicts]
        out += [f"- note: {n}" for n in s.notes]
        if s.verdicts or s.notes:
            out.append("")
        for t in s.tables:
            out += _md_table(t)
    return "\n".join(out)


def json_document(doc: Document | dict[str, Any]) -> str:
    """The document's ``to_dict`` (or a plain dict) as indented JSON."""
    data = doc.to_dict() if isinstance(doc, Document) else doc
    return dumps_strict(data, indent=2, default=str)  # NaN / Infinity as null with a reason

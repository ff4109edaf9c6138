"""One self-contained HTML page for a report :class:`~specscope.report.document.Document`.

The page lays out the document (alarms, verdicts, notes, tables, charts) and computes nothing, so it
prints the same strings as the terminal, Markdown and JSON. Charts are drawn by
:mod:`specscope.report.charts` as base64 SVG ``<img>`` elements; there are no scripts, fonts,
stylesheets or images from anywhere else: the page opens from disk with no network.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from specscope.report.build import RunData, build_document, load_document
from specscope.report.charts import charts_available, draw_chart
from specscope.report.document import Cell, Document, Section, Table
from specscope.report.files import write_text_atomic

__all__ = ["RunView", "render_html", "render_document_html", "write_html", "write_report_html"]

RunView = RunData  # the name the page's callers used before the document existed

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem auto;max-width:1200px;color:#222;
padding:0 1rem}
h1{font-size:1.5rem}h2{border-bottom:2px solid #ccc;padding-bottom:.2rem;margin-top:2.5rem}h3{margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}
th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:right}th{background:#f0f0f0}
td.l,th.l{text-align:left}.faster{background:#d8f0d8}.slower{background:#f6d6d6}.not_engaged{background:#fff3c4}
.alarm{background:#fde2e1;border:2px solid #a40000;color:#600;padding:.6rem;margin:.6rem 0;font-weight:600}
pre{background:#f7f7f7;padding:.6rem;overflow:auto;font-size:.8rem;max-height:30rem}
figure{margin:1rem 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.85rem;color:#555}
.note{color:#555;font-size:.85rem}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _td(cell: Cell, left: bool) -> str:
    """A table cell; its ``tone`` (a verdict, set where the cell was built) is its CSS class."""
    cls = (["l"] if left else []) + ([cell.tone] if cell.tone else [])
    attr = f' class="{" ".join(cls)}"' if cls else ""
    return f"<td{attr}>{_e(cell.text)}</td>"


def _table(t: Table) -> str:
    left = sum(1 for c in t.columns if not c.unit) or 1
    head = "".join(f'<th class="l">{_e(h)}</th>' if i < left else f"<th>{_e(h)}</th>" for i, h in enumerate(t.headers))
    body = "".join("<tr>" + "".join(_td(c, i < left) for i, c in enumerate(row)) + "</tr>" for row in t.cells)
    out = f"<h3>{_e(t.title)}</h3>"
    if not t.rows:  # nothing to tabulate (e.g. every cell ok): the title and the note say it
        return out + (f'<p class="note">{_e(t.note)}</p>' if t.note else "")
    out += f'<table class="{_e(t.key.split(":")[0])}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return out + (f'<p class="note">{_e(t.note)}</p>' if t.note else "")


def _charts(s: Section) -> list[str]:
    if not s.charts:
        return []
    ok, hint = charts_available()
    parts = ["<h3>Charts</h3>"]
    if not ok:
        return parts + [f'<p class="note charts-missing">{_e(hint)}</p>']
    for data in s.charts:
        ch = draw_chart(data)
        caption = _e(ch.title) + (f"<br>{_e(ch.note)}" if ch.note else "")
        parts.append(
            f'<figure class="chart" data-chart="{_e(ch.name)}"><img src="{ch.data_uri}" alt="{_e(ch.title)}">'
            f"<figcaption>{caption}</figcaption></figure>"
        )
    return parts


def _section(s: Section, idx: int, manifest: Mapping[str, Any] | None) -> str:
    parts = [f'<section class="run" id="section-{idx}"><h2>{_e(s.title)}</h2>']
    parts += [f'<div class="alarm">{_e(a.text)}</div>' for a in s.alarms]
    if s.verdicts:
        parts.append('<ul class="verdicts">' + "".join(f"<li>{_e(v)}</li>" for v in s.verdicts) + "</ul>")
    parts += [f'<p class="note">{_e(n)}</p>' for n in s.notes]
    parts += [_table(t) for t in s.tables]
    parts += _charts(s)
    if manifest is not None:
        dump = _e(json.dumps(dict(manifest), indent=2, sort_keys=True, default=str))
        parts.append(f"<h3>Manifest</h3><details><summary>manifest.json</summary><pre>{dump}</pre></details>")
    parts.append("</section>")
    return "\n".join(parts)


def render_document_html(doc: Document) -> str:
    """The page of a document, as one HTML string (UTF-8 text)."""
    raw = doc.data.get("runs") or [doc.data]
    manifests = {f"run:{Path(str(r.get('run', ''))).name}": r.get("manifest") for r in raw}
    body = [f"<h1>{_e(doc.title)}</h1>"]
    body += [f'<p class="headline"><strong>headline: {_e(line)}</strong></p>' for line in doc.headline]
    body += [_section(s, i, manifests.get(s.key)) for i, s in enumerate(doc.sections)]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(doc.title)}</title>'
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def render_html(runs: Sequence[RunData], *, baseline: str = "base", title: str | None = None) -> str:
    """The page for ``runs`` (see :func:`specscope.report.build.build_document`)."""
    return render_document_html(build_document(runs, baseline, title))


def write_html(path: str | os.PathLike[str], runs: Sequence[RunData], **kw: Any) -> Path:
    """Render ``runs`` and write the page atomically (temp file in the same folder, then ``os.replace``)."""
    target = Path(path)
    write_text_atomic(target, render_html(runs, **kw))
    return target


def write_report_html(run_paths: Sequence[str | os.PathLike[str]], target: str | os.PathLike[str]) -> Path:
    """Open the run folders, write their page atomically to ``target``. Raises StoreError for a non-run folder."""
    out = Path(target)
    write_text_atomic(out, render_document_html(load_document([Path(p) for p in run_paths])))
    return out

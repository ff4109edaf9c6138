"""The keys a Markdown document's tables name: each table's first column's backticked names, in order."""

from __future__ import annotations

import re
from pathlib import Path

REPORT_JSON_DOC = Path(__file__).resolve().parents[1] / "docs" / "report-json.md"


def documented_tables(doc: Path = REPORT_JSON_DOC) -> list[set[str]]:
    """The keys of each table of ``doc``, in order (``| `key` | what |`` rows)."""
    tables: list[set[str]] = []
    in_rows = False
    for line in doc.read_text().splitlines():
        m = re.match(r"\| `([a-z_0-9]+)` \|", line)
        if m and not in_rows:
            tables.append(set())
        if m:
            tables[-1].add(m.group(1))
        in_rows = bool(m)
    return tables

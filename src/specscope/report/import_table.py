"""The result files a run was imported from (``specscope import``; manifest ``imports``): per cell its file,
SHA-256, record, tool, load, and what the tool did not record (:mod:`specscope.importers`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from specscope.report.document import Column, Table, text_cell

__all__ = ["imports_table"]


def imports_table(manifest: Mapping[str, Any]) -> Table | None:
    """The imports table, None for a run measured by specscope itself."""
    entries = list(manifest.get("imports") or [])
    if not entries:
        return None
    cols = [Column("cell"), Column("file"), Column("tool"), Column("load"), Column("not recorded by the tool")]
    rows = [
        [
            text_cell(str(e.get("cell"))),
            text_cell(f"{Path(str(e.get('file'))).name}#{e.get('record')} sha256:{str(e.get('sha256'))[:12]}"),
            text_cell(str(e.get("tool"))),
            text_cell(str(e.get("load"))),
            text_cell("; ".join(map(str, e.get("not_recorded") or [])) or "—"),
        ]
        for e in entries
    ]
    note = (
        "Cells imported from other tools' result files: figures are the tool's own (its totals and per-request "
        "arrays), derived as for a measured cell; a figure the tool did not record is absent, never filled. The "
        "rounds were not interleaved: each config's rounds are paired with the baseline's by import order."
    )
    return Table("imports", "Imported result files", cols, rows, note)

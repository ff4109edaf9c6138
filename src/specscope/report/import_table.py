"""The result files a run was imported from (``specscope import``; manifest ``imports``): per cell its file,
SHA-256, record, tool, load, and what the tool did not record; per record left out, why (:mod:`specscope.importers`)."""

from __future__ import annotations

from pathlib import Path

from specscope.report.document import Column, Table, text_cell
from specscope.store.manifest import RunManifest

__all__ = ["imports_table"]


def imports_table(manifest: RunManifest) -> Table | None:
    """The imports table, None for a run measured by specscope itself."""
    entries = list(manifest.imports or [])
    if not entries:
        return None
    cols = [
        Column("cell"),
        Column("file"),
        Column("tool"),
        Column("load"),
        Column("not recorded by the tool, or why left out"),
    ]
    rows = [
        [
            text_cell("left out" if e.cell is None else str(e.cell)),
            text_cell(f"{Path(str(e.file)).name}#{e.record} sha256:{str(e.sha256)[:12]}"),
            text_cell(str(e.tool)),
            text_cell(str(e.load)),
            text_cell(f"left out: {e.left_out}" if e.left_out else "; ".join(map(str, e.not_recorded)) or "—"),
        ]
        for e in entries
    ]
    note = (
        "Cells imported from other tools' result files: figures are the tool's own (its totals and per-request "
        "arrays), derived as for a measured cell; a figure the tool did not record is absent, never filled. The "
        "rounds were not interleaved: each config's rounds are paired with the baseline's by import order."
    )
    return Table("imports", "Imported result files", cols, rows, note)

"""Where a run's prompts came from: each ``--dataset`` (config, revision, files with SHA-256, rows used and refused
with reasons) and the ``--trace`` replayed, read from the manifest (``datasets``, ``trace``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from specscope.report import units
from specscope.report.document import Column, Table, text_cell
from specscope.report.import_table import imports_table
from specscope.store.manifest import RunManifest

__all__ = ["source_tables"]

_SHOWN = 20  # refused rows listed one by one; the rest are counted in the note


def _files(files: list[Mapping[str, Any]]) -> str:
    parts = []
    for f in files:
        if "sha256" in f:
            parts.append(f"{Path(str(f['path'])).name} sha256:{str(f['sha256'])[:12]}")
        else:
            parts.append(f"hub {f.get('hub_id')} split {f.get('split')}")
    return ", ".join(parts) or "—"


def _refused(refused: list[Mapping[str, Any]]) -> str:
    kinds = Counter(str(r.get("kind")) for r in refused)
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"


def _provenance(manifest: RunManifest) -> Table | None:
    entries = list(manifest.datasets or [])
    trace = manifest.trace
    if not entries and not trace:
        return None
    cols = [Column("source"), Column("config"), Column("revision"), Column("files")]
    cols += [Column("rows"), Column("used"), Column("refused"), Column("context check"), Column("sent / repeat")]
    rows = []
    for e in entries:
        rows.append(
            [
                text_cell(str(e.get("dataset"))),
                text_cell(str(e.get("config") or "—")),
                text_cell(str(e.get("revision") or "not named")),
                text_cell(_files(list(e.get("files") or []))),
                units.count(e.get("rows_total")),
                units.count(e.get("rows_used")),
                text_cell(_refused(list(e.get("rows_refused") or []))),
                text_cell(str(e.get("context_check") or "—")),
                units.count(e.get("rows_sent_per_repeat")),
            ]
        )
    if trace:
        name = f"{Path(str(trace.get('path'))).name} sha256:{str(trace.get('sha256'))[:12]}"
        scale = f"time scale {trace.get('time_scale')}" + (", reordered by arrival" if trace.get("reordered") else "")
        rows.append(
            [
                text_cell(f"trace ({trace.get('format')})"),
                text_cell(scale),
                text_cell("—"),
                text_cell(name),
                units.count(trace.get("rows_total")),
                units.count(trace.get("rows_used")),
                text_cell(_refused(list(trace.get("rows_refused") or []))),
                text_cell(str(trace.get("context_check") or "—")),
                units.count(trace.get("rows_used")),  # a replay sends every row it uses
            ]
        )
    note = (
        "Revision: as named with --dataset NAME[:CONFIG]@REVISION (local files are named by their SHA-256). "
        "Columns read as each dataset's published definition says (docs/workloads.md)."
    )
    if trace:
        note += f" Trace prompt text in {trace.get('units', 'units not recorded')}."
    note += "".join(_missing(e) for e in entries)
    return Table("workload_sources", "Workload sources: datasets and trace", cols, rows, note)


def _missing(entry: Mapping[str, Any]) -> str:
    """`` NAME holds 3 of its 11 categories; missing: ...`` for a dataset file lacking some (issue 35), else ``""``."""
    cats = entry.get("categories") or {}
    if not cats.get("missing"):
        return ""
    return (
        f" {entry.get('spec') or entry.get('dataset')} holds {len(cats['present'])} of its {len(cats['full_list'])} "
        f"categories; missing: {', '.join(cats['missing'])}."
    )


def _refusals(manifest: RunManifest) -> Table | None:
    refused = [
        (str(e.get("spec") or e.get("dataset")), r)
        for e in manifest.datasets or []
        for r in e.get("rows_refused") or []
    ]
    refused += [("trace", r) for r in (manifest.trace or {}).get("rows_refused") or []]
    if not refused:
        return None
    cols = [Column("source"), Column("row"), Column("kind"), Column("reason")]
    rows = [[text_cell(s), text_cell(str(r.get("row"))), text_cell(str(r.get("kind"))), text_cell(str(r.get("reason")))]
            for s, r in refused[:_SHOWN]]  # fmt: skip
    more = len(refused) - _SHOWN
    note = "Rows run without (--drop-bad-rows)." + (f" {more} more in the manifest (datasets)." if more > 0 else "")
    return Table("rows_refused", "Rows refused", cols, rows, note)


def source_tables(manifest: RunManifest) -> list[Table]:
    """The sources table, the refused rows and the imported result files (each only when the run has them)."""
    return [t for t in (_provenance(manifest), _refusals(manifest), imports_table(manifest)) if t is not None]

"""Where a run's prompts came from: each ``--dataset`` (config, revision, files with SHA-256, rows used and refused
with reasons) and the ``--trace`` replayed, read from the manifest (``datasets``, ``trace``)."""

from __future__ import annotations

from collections import Counter
from itertools import islice
from pathlib import Path

from specscope.report import units
from specscope.report.document import Column, Table, text_cell
from specscope.report.import_table import imports_table
from specscope.store.manifest import DatasetSource, RefusedRow, RunManifest, SourceFile

__all__ = ["source_tables"]

_SHOWN = 20  # refused rows listed one by one; the rest are counted in the note


def _files(files: list[SourceFile]) -> str:
    parts = []
    for f in files:
        if f.sha256 is not None:
            parts.append(f"{Path(str(f.path)).name} sha256:{f.sha256[:12]}")
        else:
            parts.append(f"hub {f.hub_id} split {f.split}")
    return ", ".join(parts) or "—"


def _refused(refused: list[RefusedRow]) -> str:
    kinds = Counter(str(r.kind) for r in refused)
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"


def _provenance(manifest: RunManifest) -> Table | None:
    entries = list(manifest.datasets or [])
    trace = manifest.trace
    if not entries and trace is None:
        return None
    cols = [Column("source"), Column("config"), Column("revision"), Column("files")]
    cols += [Column("rows"), Column("used"), Column("refused"), Column("context check"), Column("sent / repeat")]
    rows = []
    for e in entries:
        rows.append(
            [
                text_cell(str(e.dataset)),
                text_cell(str(e.config or "—")),
                text_cell(str(e.revision or "not named")),
                text_cell(_files(e.files)),
                units.count(e.rows_total),
                units.count(e.rows_used),
                text_cell(_refused(e.rows_refused)),
                text_cell(str(e.context_check or "—")),
                units.count(e.rows_sent_per_repeat),
            ]
        )
    if trace is not None:
        name = f"{Path(str(trace.path)).name} sha256:{str(trace.sha256)[:12]}"
        scale = f"time scale {trace.time_scale}" + (", reordered by arrival" if trace.reordered else "")
        rows.append(
            [
                text_cell(f"trace ({trace.format})"),
                text_cell(scale),
                text_cell("—"),
                text_cell(name),
                units.count(trace.rows_total),
                units.count(trace.rows_used),
                text_cell(_refused(trace.rows_refused)),
                text_cell(str(trace.context_check or "—")),
                units.count(trace.rows_used),  # a replay sends every row it uses
            ]
        )
    note = (
        "Revision: as named with --dataset NAME[:CONFIG]@REVISION (local files are named by their SHA-256). "
        "Columns read as each dataset's published definition says (docs/workloads.md)."
    )
    if trace is not None:
        note += f" Trace prompt text in {trace.units or 'units not recorded'}."
    note += "".join(_missing(e) for e in entries)
    return Table("workload_sources", "Workload sources: datasets and trace", cols, rows, note)


def _missing(entry: DatasetSource) -> str:
    """`` NAME holds 3 of its 11 categories; missing: ...`` for a dataset file lacking some (issue 35), else ``""``."""
    cats = entry.categories
    if cats is None or not cats.missing:
        return ""
    return (
        f" {entry.spec or entry.dataset} holds {len(cats.present)} of its {len(cats.full_list)} "
        f"categories; missing: {', '.join(cats.missing)}."
    )


def _refusals(manifest: RunManifest) -> Table | None:
    refused = [(str(e.spec or e.dataset), r) for e in manifest.datasets or [] for r in e.rows_refused]
    refused += [("trace", r) for r in (manifest.trace.rows_refused if manifest.trace is not None else [])]
    if not refused:
        return None
    cols = [Column("source"), Column("row"), Column("kind"), Column("reason")]
    rows = [[text_cell(s), text_cell(str(r.row)), text_cell(str(r.kind)), text_cell(str(r.reason))]
            for s, r in islice(refused, _SHOWN)]  # fmt: skip
    more = len(refused) - _SHOWN
    note = "Rows run without (--drop-bad-rows)." + (f" {more} more in the manifest (datasets)." if more > 0 else "")
    return Table("rows_refused", "Rows refused", cols, rows, note)


def source_tables(manifest: RunManifest) -> list[Table]:
    """The sources table, the refused rows and the imported result files (each only when the run has them)."""
    return [t for t in (_provenance(manifest), _refusals(manifest), imports_table(manifest)) if t is not None]

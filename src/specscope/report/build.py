"""Build the report :class:`~specscope.report.document.Document` of one or more runs.

This is the only place where a report figure is computed and formatted; the text, Markdown, JSON and
HTML renderers lay the document out. Cell summaries come through :func:`run_cells` and nowhere else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specscope.config import RunOptions, same_server_notes
from specscope.facts import RunFacts
from specscope.records import CellKey, CellResult
from specscope.report import units
from specscope.report.advice import choices_tables, config_ks, flip_lines
from specscope.report.alarms import run_alarms
from specscope.report.capacity import capacity_table, stream_timing_table
from specscope.report.chart_data import run_charts
from specscope.report.crash_trials import crash_trials_table, stable_levels
from specscope.report.document import Column, Document, Section, Table, text_cell
from specscope.report.headline import headline, no_comparison, nothing_measured, stopped_early, unfinished
from specscope.report.k_tables import k_table
from specscope.report.rates import rate_table, side_by_side_note
from specscope.report.server_facts import server_tables
from specscope.report.source_tables import source_tables
from specscope.report.spec_notes import spec_notes
from specscope.report.stream_acceptance_table import stream_acceptance_table
from specscope.report.tables import RunCells, bench_tables
from specscope.report.throughput import rates_table
from specscope.report.trace_tables import trace_table
from specscope.report.turn_tables import turn_table
from specscope.report.unread import unread_notes
from specscope.report.verdicts import comparisons_table, design_note, drift_notes, verdict_lines
from specscope.report.workload_tables import thinking_notes, workload_axis_tables
from specscope.stats.cells import summarize_cells, summarize_run
from specscope.stats.choices import Traffic
from specscope.stats.descriptive import group_mean, mean_ratio
from specscope.stats.goodput import RateCell, rate_cells
from specscope.stats.groups import LevelAxis, workloads_of
from specscope.stats.judgement import Judgement
from specscope.stats.mix import require_workloads
from specscope.stats.server_spec import log_pools_of, methods_of, served_model
from specscope.stats.summary import CellSummary
from specscope.stats.trace import TraceReplay, trace_replays
from specscope.stats.turns import TurnRow, conversation_counts, turn_rows
from specscope.stats.verdict import min_effect_of
from specscope.store import Run, open_run
from specscope.store.manifest import RunManifest, manifest_record
from specscope.store.run import DB_NAME, GATE_RESULT_NAME
from specscope.textsafe import shell_word
from specscope.workload.packs import REPEAT_MAX_TOKENS

__all__ = [
    "RunData",
    "Judging",
    "run_kind",
    "run_cells",
    "run_data",
    "build_document",
    "load_document",
    "RunReport",
    "load_run_report",
]


def run_kind(path: Path | str) -> str | None:
    """The ``kind`` a run folder's manifest.json declares (``bench``, ``gate``), or None when it has none.

    A folder whose manifest cannot be read is a ``gate`` run when it holds ``gate.json`` and no ``run.sqlite``
    (the gate loader then names the damage), else None (``open_run`` names the fault).
    """
    import json

    from specscope.readfile import read_limited
    from specscope.store.manifest import MAX_MANIFEST_BYTES

    try:  # a regular file of bounded size only: a FIFO or /dev/zero named manifest.json is open_run's to name
        kind = json.loads(read_limited(Path(path) / "manifest.json", MAX_MANIFEST_BYTES)).get("kind")
    except (OSError, ValueError, AttributeError, RecursionError):
        folder = Path(path)
        is_gate = (folder / GATE_RESULT_NAME).is_file() and not (folder / DB_NAME).exists()
        return "gate" if is_gate else None
    return None if kind is None else str(kind)


def run_cells(run: Run, stored: Sequence[CellResult] | None = None) -> list[CellSummary]:
    """The cell summaries of an open run (``stored``: its cells when already read, so that they are read once: a cell
    may hold 200,000 gauge samples): the report's one way to get them."""
    return summarize_run(run) if stored is None else summarize_cells(stored)


@dataclass(frozen=True)
class RunData:
    """What the report needs of a run: a name, its folder, the manifest, the cells and the server facts."""

    name: str
    manifest: RunManifest
    cells: Sequence[CellSummary]
    server_facts: RunFacts = field(default_factory=RunFacts)
    path: Path | None = None
    rate_cells: Sequence[RateCell] = ()
    turn_rows: Sequence[TurnRow] = ()
    conversations: tuple[int, int] = (0, 0)
    trace_replays: Sequence[TraceReplay] = ()

    @property
    def options(self) -> RunOptions:
        """The bench options the run stored (absent ones None)."""
        return self.manifest.stored_options()


@dataclass(frozen=True)
class Judging:
    """How ``report`` judges its runs when the command line says: ``min_effect`` (None: each run's own, from its
    manifest, else the default), and the ``traffic`` of the picks (None: equal token shares over each run's
    workloads at every measured level)."""

    min_effect: float | None = None
    traffic: Traffic | None = None


def run_cells_of(data: RunData, baseline: str = "base", judging: Judging | None = None) -> RunCells:
    """A run's cells indexed and ready to be judged: the manifest's baseline, its minimum effect (or the command
    line's), the speculative methods its server facts name, the traffic of the picks."""
    judging = judging or Judging()
    if judging.traffic is not None and judging.traffic.mix:
        require_workloads(judging.traffic.mix, workloads_of(data.cells), f"the run {data.name}")
    return RunCells.of(
        data.cells,
        data.manifest.baseline or baseline,
        min_effect=min_effect_of(data.options, judging.min_effect),
        methods=methods_of(data.server_facts) or None,
        traffic=judging.traffic,
        log_pools=log_pools_of(data.server_facts),
    )


def run_data(run: Run) -> RunData:
    """Read an open store run into a :class:`RunData`."""
    manifest = manifest_record(run.manifest)
    opts = manifest.stored_options()
    stored = run.cells()  # read once: every table below derives from the same facts
    rates = rate_cells(stored, opts) if opts.rates or opts.trace else ()
    replays = trace_replays(stored) if opts.trace else []
    summaries = run_cells(run, stored)
    ok = {(c.config, c.workload, c.concurrency, c.repeat) for c in summaries if c.status == "ok"}

    def usable(k: CellKey) -> bool:
        return (k.config, k.workload, k.concurrency, k.repeat) in ok

    turns = turn_rows(stored, usable) if opts.datasets else []
    convs = conversation_counts(stored, usable) if turns else (0, 0)
    path = Path(run.path)
    return RunData(path.name, manifest, summaries, run.server_facts, path, rates, turns, convs, replays)


def _models(facts: RunFacts) -> str:
    names = {name for _c, f in facts.items() if (name := served_model(f))}
    return ", ".join(sorted(names)) or units.DASH


def _levels_repeats(opts: RunOptions, stored: Sequence[int]) -> str:
    """``[1, 2] x 2``; ``[1, 2, 4, 8] x 1-3 (stored per cell)`` when the cells hold different numbers of repeats (an
    import of uneven files, an unfinished run); for adaptive repeats ``[1, 2] x 2-6 rounds (adaptive, target 5.0 %)``.
    ``stored``: the repeats each (config, workload, level) holds. An open loop shows its load: ``2,4 req/s x 2``
    (its levels are the rates' positions), ``the replay x 1`` (a trace)."""
    levels: object = None if opts.levels is None else list(opts.levels)
    if opts.trace:
        levels = LevelAxis("trace").labels(())
    elif opts.rates and opts.levels is not None:
        levels = LevelAxis("rate", tuple(zip(opts.levels, opts.rates, strict=False))).labels(opts.levels)
    if opts.target_ci is None:
        if stored and min(stored) != max(stored):
            return f"{levels} x {min(stored)}-{max(stored)} (stored per cell)"
        return f"{levels} x {opts.repeats}"
    target = float(opts.target_ci) * 100
    return f"{levels} x {opts.min_repeats}-{opts.max_repeats} rounds (adaptive, target {target:.1f} %)"


def run_table(data: RunData) -> Table:
    """What was run: engine, model, request options, progress of the matrix, machine."""
    manifest, opts = data.manifest, data.options
    planned, cells_stored = manifest.cells_total, len(data.cells)
    if planned is None:
        progress = f"{cells_stored} cells stored"
    else:
        progress = f"{cells_stored} of {planned} cells" + (
            ""
            if not stopped_early(manifest, [c.status for c in data.cells])
            else f" — INCOMPLETE: finish it with `specscope bench --resume {shell_word(data.path or 'RUN')}`"
        )
    if manifest.crashes:
        progress += f"; sweeps stopped by a server crash: {', '.join(manifest.crashes)}"
    machine = manifest.machine
    packs = manifest.packs or {}

    def shown(value: object) -> str:  # an absent figure is a dash, never "None" (an imported run has no max_tokens)
        return units.DASH if value is None or value == "" else str(value)

    cores = None if machine is None else machine.cpu_count
    stored_keys = [(c.config, c.workload, c.concurrency) for c in data.cells]
    workloads = ", ".join(f"{w} ({p.form or ''})" for w, p in packs.items())
    workloads = workloads or ", ".join(dict.fromkeys(c.workload for c in data.cells))  # imported: no pack
    # the repeat pack sends its own answer length in place of --max-tokens: said, so 16 is not read as its length
    own = f" (repeat: {REPEAT_MAX_TOKENS}, its own length)" if "repeat" in packs else ""
    rows = [
        ("engine", shown(manifest.engine)),
        ("model", _models(data.server_facts)),
        ("configs", ", ".join(opts.configs or ())),
        ("baseline", shown(manifest.baseline)),
        ("workloads", workloads or units.DASH),
        ("levels x repeats", _levels_repeats(opts, list(Counter(stored_keys).values()))),
        ("max_tokens / temperature", f"{shown(opts.max_tokens)}{own} / {shown(opts.temperature)}"),
        # a bench run before the option existed allowed the cache; an imported run's files do not say
        ("prefix cache", units.DASH if manifest.imports else str(opts.prefix_cache or "allow")),
        ("cells", progress),
        ("machine", units.DASH if machine is None else f"{machine.cpu or ''} ({shown(cores)} cores)".strip()),
        ("created", shown(manifest.created)),
    ]
    return Table(
        "run",
        "Run",
        [Column("what"), Column("value")],
        [[text_cell(k), text_cell(v)] for k, v in rows],
        "Cells imported from other tools' result files: tokens, durations and acceptance as each file states them "
        "(the manifest's imports name each file's tool and what it did not record)."
        if manifest.imports
        else "Tokens from usage.completion_tokens; acceptance from /metrics counter deltas around each cell.",
    )


def _degraded_notes(rc: RunCells) -> list[str]:
    bad = [c for c in rc.cells if c.status != "ok"]
    if not bad:
        return []
    listing = "; ".join(
        f"{c.config}/{c.workload} {rc.axis.label(c.concurrency)} round {c.repeat} {c.status} "
        f"({', '.join(c.reasons) or units.DASH})"
        for c in bad
    )
    return [f"{len(bad)} of {len(rc.cells)} cells are not ok and are excluded from every average: {listing}"]


def run_section(data: RunData, baseline: str = "base", rc: RunCells | None = None) -> Section:
    """The section of one run: alarms, verdicts, notes, every table and chart (``rc``: the run's cells as
    :func:`run_cells_of` indexes them, so that the run is judged once)."""
    rc = rc or run_cells_of(data, baseline)
    baseline = rc.baseline
    charts = run_charts(rc)
    notes = _degraded_notes(rc) + [c.note for c in charts if c.note] + thinking_notes(data.cells)
    notes += side_by_side_note(data.options)
    # servers the user started (launched ones may reuse a port, one at a time): two configs at one URL are one server
    started = {c: f.base_url for c, f in data.server_facts.items() if f.kind == "external" and f.base_url}
    notes += same_server_notes(started)
    notes += spec_notes(data.cells, data.server_facts)  # issue 26: named speculative warnings, drafting as run
    notes += unread_notes(data.cells, data.server_facts, data.manifest.unknown_fields())  # issue 37: unread keys
    j = rc.judgement
    extra = drift_notes(j)[0] if j is not None else []
    compared = [comparisons_table(j)] if j is not None else []
    compared += [t for t in [rates_table(rc)] if t is not None]
    picks = (
        choices_tables(j.choices, config_ks(rc.others, data.server_facts), j.axis)
        if j is not None and j.choices is not None
        else []
    )
    capacity = [t for t in (capacity_table(rc), stream_timing_table(rc)) if t is not None]
    alarms = run_alarms(j, data.server_facts, data.cells)  # drift's among them, decided in the judgement
    return Section(
        f"run:{data.name}",
        f"Run {data.path or data.name}",
        [
            run_table(data),
            *bench_tables(data.cells, baseline, rc),
            *crash_trials_table(data.manifest, data.cells),
            *compared,
            *picks,
            *rate_table(data.rate_cells, data.options),
            *trace_table(data.trace_replays),
            *source_tables(data.manifest),
            *workload_axis_tables(data.cells),
            *turn_table(data.turn_rows, data.conversations),
            *capacity,
            *k_table(data.cells, baseline, data.server_facts, j),
            *stream_acceptance_table(data.cells),
            *server_tables(data.server_facts, baseline, stable_levels(data.cells)),
        ],
        [] if j is None else verdict_lines(j) + (flip_lines(j.choices, j.crossovers, j.axis) if j.choices else []),
        notes + extra + design_note(data.cells, data.options) + list(j.notes if j else ()),
        alarms,
        charts,
    )


def compare_section(runs: Sequence[RunData], baseline: str = "base") -> Section:
    """Several runs side by side: mean ok tok/s per cell group, and each run against the first."""
    rcs = [RunCells.of(r.cells, r.manifest.baseline or baseline) for r in runs]
    keys = sorted({k for rc in rcs for k in rc.groups}, key=lambda k: (k.workload, k.concurrency, k.config))
    rows = []
    for k in keys:
        groups = [rc.ok(k.config, k.workload, k.concurrency) for rc in rcs]
        row = [text_cell(k.workload), units.count(k.concurrency), text_cell(k.config)]
        for i, g in enumerate(groups):
            row.append(units.tok_s(group_mean(g, "output_tok_s")))
            if i:  # a ratio of means (stats.descriptive.mean_ratio), not a paired speedup: see the note
                row.append(units.speedup(mean_ratio(g, groups[0], "output_tok_s")))
        rows.append(row)
    cols = [Column("workload"), Column("N", "streams"), Column("config"), Column(runs[0].name, "tok/s")]
    for r in runs[1:]:
        cols += [Column(r.name, "tok/s"), Column(f"{r.name} vs {runs[0].name}", "x")]
    note = (
        f"vs {runs[0].name}: the ratio of the two runs' mean tok/s over ok rounds, not a paired speedup (runs are not "
        "paired in time: no interval, no verdict); each run's own speedup table has its paired speedups."
    )
    table = Table("compare", "Comparison of runs (mean output tok/s of ok rounds)", cols, rows, note)
    return Section("compare", "Comparison", [table])


def _judgement_data(j: Judgement | None) -> dict[str, Any]:
    """What ``report -f json`` carries of a run's judgement (docs/report-json.md): ``comparisons``, ``noise``,
    ``choices``, with their schema version and the minimum effect they used."""
    if j is None:
        return {
            "judgement_schema": None,
            "min_effect": None,
            "axis": None,
            "comparisons": [],
            "noise": None,
            "judged_alarms": [],
            "best_k": [],
            "crossovers": [],
            "choices": None,
        }
    d = j.to_dict()
    keys = (
        "judgement_schema",
        "min_effect",
        "confidence",
        "min_rounds",
        "axis",
        "comparisons",
        "noise",
        "judged_alarms",
        "best_k",
        "crossovers",
    )
    return {k: d[k] for k in keys} | {"choices": d["choices"]}


def build_document(
    runs: Sequence[RunData], baseline: str = "base", title: str | None = None, judging: Judging | None = None
) -> Document:
    """The document of ``runs`` (at least one): a comparison section when several, then one section per run.

    Raises:
        ValueError: ``runs`` is empty (a programming error; the CLI requires at least one RUN).
    """
    if not runs:
        raise ValueError("build_document needs at least one run")
    title = title or ("specscope report: " + ", ".join(r.name for r in runs))
    rcs = [run_cells_of(r, baseline, judging) for r in runs]
    sections = ([compare_section(runs, baseline)] if len(runs) > 1 else []) + [
        run_section(r, baseline, rc) for r, rc in zip(runs, rcs, strict=True)
    ]
    raw = [
        {
            "run": str(r.path or r.name),
            "manifest": r.manifest.to_json(),
            "server_facts": {c: dict(f.stored) for c, f in r.server_facts.items()},
            "cells": [c.to_dict() for c in r.cells],
            **_judgement_data(rc.judgement),
        }
        for r, rc in zip(runs, rcs, strict=True)
    ]
    lines = [
        line if len(runs) == 1 else f"{r.name}: {line}"
        for r, rc in zip(runs, rcs, strict=True)
        for line in headline(
            rc.judgement,
            unfinished(r.manifest, [c.status for c in r.cells], str(r.path or r.name)),
            no_comparison(rc.baseline, [c.config for c in r.cells]),
            nothing_measured([(c.status, c.reasons) for c in rc.cells]),
        )
    ]
    return Document(title, sections, raw[0] if len(raw) == 1 else {"runs": raw}, lines)


def load_document(paths: Sequence[Path | str], baseline: str = "base", judging: Judging | None = None) -> Document:
    """Open the run folders and build their document. Raises StoreError when a folder is not a run."""
    data = []
    for p in paths:
        run = open_run(p)
        try:
            data.append(run_data(run))
        finally:
            run.close()
    return build_document(data, baseline, judging=judging)


class RunReport:
    """One run's document with its tables in reading order (``tables[0]`` is the run table)."""

    def __init__(self, document: Document, path: Path):
        self.document = document
        self.path = path
        self.tables: list[Table] = document.tables

    def to_json(self) -> dict[str, Any]:
        return self.document.to_dict()


def load_run_report(path: Path | str) -> RunReport:
    """Open a run folder and build its report. Raises StoreError when the folder is not a run."""
    return RunReport(load_document([path]), Path(path))

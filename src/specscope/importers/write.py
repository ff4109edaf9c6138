"""Store imported records as cells of a run folder (``specscope import``), through the run store.

Cells: one per record, keyed (``--config``, workload, level, repeat). The workload is ``--workload``, else the
name the file gives (SGLang's ``dataset_name``), else ``imported``. The level of a closed loop is its N; an open
loop's is the position of its rate among the run's rates (1-based, in the order they were first imported), its
rate and arrivals kept in the cell's ``open_loop`` facts like a ``bench --request-rate`` cell. Several records of
one config, workload and level are repeats, numbered in import order (file order, then record order): they are
paired with the baseline's by that order (:mod:`specscope.stats.pairing`), and say so
(:mod:`specscope.stats.imported`).

k: a record's own (:attr:`~specscope.importers.record.Imported.k`, vLLM's per-position rates) is stored with the
config's server facts (``num_speculative_tokens``); without one the config name's ``-kK`` is read where k is
(:func:`specscope.stats.server_spec.spec_k`); a record whose k disagrees with the name's or another record's is refused.

The run folder: ``--out RUN`` is created when absent; when it holds a run the cells are added and the manifest's
``options`` (configs, workloads, levels, repeats) and ``imports`` (one entry per record: file, SHA-256, record,
shape, tool, cell, what the tool did not record) are brought up to date. A record already imported into the run
(same SHA-256 and record) is refused, as is a closed-loop record in a run of open-loop cells or the reverse, and an
open-loop record at a rate the run has with another arrival process (vLLM's ``burstiness``) or in-flight cap
(``max_concurrency``): another load, not a repeat. Every check runs before the first write: a refused import leaves
the run as it was, and a run it would have created is not made.

One file holding records of both loop kinds (GuideLLM's sweep: a synchronous and a throughput benchmark, then
request rates; vLLM's ``--append-result`` at several rates, ``inf`` among them) imports those of one kind: the
closed loops with ``closed_loop``, else the run's own kind, else the open loops; each other record is left out,
named in a warning and in the manifest's ``imports`` (its ``left_out``, no cell), never dropped silently. Records
of both kinds in separate files are refused (the user named each file): the refusal names a record of each kind and
its file, and the fix imports each kind's files into its own run (``--out RUN-closed``, ``--out RUN-rate``).
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from specscope.config import check_not_control
from specscope.errors import ConfigError, StoreError
from specscope.importers.record import Imported
from specscope.importers.shapes import read_records
from specscope.kaxis import split_k_name
from specscope.records import CellKey, CellResult, ClientFacts, ImportedFacts, OpenLoopFacts
from specscope.store import DB_NAME, MANIFEST_NAME, SCHEMA_VERSION, Run, create_run, open_run
from specscope.store.manifest import ManifestError, validate_manifest
from specscope.store.schema import cell_from_row, cell_row
from specscope.textsafe import shell_word
from specscope.values import check_name

__all__ = ["ImportedCell", "Imports", "LeftOut", "baseline_gaps", "import_files"]

DEFAULT_WORKLOAD = "imported"


@dataclass(frozen=True)
class ImportedCell:
    """One stored cell: its key, the file it came from and the load as the tool set it."""

    key: CellKey
    file: str
    tool: str
    load: str
    #: the record's warnings, each ``record N (SHAPE): what`` (fields not understood, left out)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class LeftOut:
    """A record of a file not stored as a cell, and why (:attr:`~specscope.importers.record.Imported.left_out`)."""

    file: str
    record: int
    shape: str
    load: str
    why: str

    def line(self) -> str:
        return f"{self.file} record {self.record} ({self.shape}, {self.load}) left out: {self.why}"


@dataclass(frozen=True)
class Imports:
    """What an import stored (``cells``) and the records it left out, each named (``left_out``)."""

    cells: list[ImportedCell]
    left_out: list[LeftOut]


def _load_label(rec: Imported) -> str:
    return rec.load.label() if rec.load.open_loop or rec.load.concurrency else "no level"


def _one_loop_kind(
    records: list[tuple[Path, Imported]], cells: list[CellResult], closed_loop: bool
) -> list[tuple[Path, Imported]]:
    """``records`` with those of a file holding both loop kinds that are not of the kind imported marked left out
    (module docstring): the closed loops with ``closed_loop``, else the kind of the run's ``cells``, else the open
    loops."""
    run_open = None if not cells else any(c.client.open_loop is not None for c in cells)
    want_open = False if closed_loop else (run_open if run_open is not None else True)
    kinds: dict[Path, set[bool]] = {}
    for path, rec in records:
        if rec.left_out is None:
            kinds.setdefault(path, set()).add(rec.load.open_loop)
    out = []
    for path, rec in records:
        if rec.left_out is None and len(kinds[path]) == 2 and rec.load.open_loop != want_open:
            if rec.load.open_loop:
                why = (
                    "an open loop in a file whose closed-loop records are imported: one run "
                    "holds one loop kind (import the file without --closed-loop into another --out run for these)"
                )
            else:
                why = (
                    "a closed loop in a file whose request-rate records are imported: one run "
                    "holds one loop kind (import the file with --closed-loop into another --out run for these)"
                )
            rec = replace(rec, left_out=why)
        out.append((path, rec))
    return out


def _rates(cells: list[CellResult]) -> dict[float, int]:
    """The run's open-loop rates (req/s) -> their level index."""
    out: dict[float, int] = {}
    for c in cells:
        ol = c.client.open_loop
        if ol is not None and ol.rate_per_s is not None:
            out.setdefault(ol.rate_per_s, c.key.concurrency)
    return out


def _level(rec: Imported, rates: dict[float, int], closed: bool | None, where: str) -> int:
    if closed is not None and closed == rec.load.open_loop:
        kinds = ("closed-loop (concurrency)", "open-loop (request rate)")
        article = ("a", "an")[int(rec.load.open_loop)]
        raise ConfigError(
            f"{where} cannot join this run",
            found=f"{article} {kinds[int(rec.load.open_loop)]} record ({rec.load.label()})",
            expected=f"{kinds[int(not rec.load.open_loop)]} records like the run's other cells",
            fix="import it into another --out run",
        )
    if rec.load.rate_per_s is None:
        return int(rec.load.concurrency or 1)
    rate = rec.load.rate_per_s
    if rate not in rates:
        rates[rate] = max(rates.values(), default=0) + 1
    return rates[rate]


def _same_load(level_load: tuple[str | None, int | None], rec: Imported, where: str) -> None:
    """Refuse an open-loop record at a rate the run (or this import) has, but with another arrival process or
    in-flight cap: it is another load, not a repeat of that level.

    Raises:
        ConfigError: naming the field that differs and both values.
    """
    arrival, cap = level_load
    rate = f"{rec.load.rate_per_s:g} req/s"
    if rec.load.concurrency != cap:
        found = f"in-flight cap (max_concurrency) {rec.load.concurrency or 'none'} against {cap or 'none'} at {rate}"
    elif rec.load.arrival != arrival:
        found = f"arrival {rec.load.arrival} against {arrival} at {rate}"
    else:
        return
    raise ConfigError(
        f"{where} is not a repeat of the run's {rate} level: its load differs",
        found=found,
        expected="repeats of one level measured at one load (the same rate, arrival process and in-flight cap)",
        fix="import records of another cap or burstiness into another --out run",
    )


def _new_manifest(baseline: str, command: list[str]) -> dict[str, Any]:
    """The manifest fields of a run this command creates."""
    return {
        "kind": "bench",
        "created": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "engine": "external",
        "baseline": baseline,
        "command": command,
        "acceptance_source": "the importing tool's file (the server's counters as the tool read them)",
        "token_source": "the importing tool's output-token totals",
    }


def _manifest_fields(
    manifest: dict[str, Any], keys: set[CellKey], imports: list[dict[str, Any]], baseline: str | None
) -> dict[str, Any]:
    """The manifest fields an import brings up to date, for the run's cells ``keys`` (those stored and those added)."""
    repeats: dict[tuple[str, str, int], int] = {}
    for k in keys:
        repeats[(k.config, k.workload, k.concurrency)] = repeats.get((k.config, k.workload, k.concurrency), 0) + 1
    opts = dict(manifest.get("options") or {})
    opts.update(
        configs=sorted({k.config for k in keys}),
        workloads=sorted({k.workload for k in keys}),
        levels=sorted({k.concurrency for k in keys}),
        repeats=max(repeats.values(), default=1),
    )
    fields: dict[str, Any] = {
        "options": opts,
        "imports": [*(manifest.get("imports") or []), *imports],
        "cells_done": len(keys),
        "cells_total": len(keys),
        "finished": True,
    }
    if baseline is not None:
        fields["baseline"] = baseline
    return fields


def _plan(
    cells: list[CellResult], records: list[tuple[Path, Imported]], config: str, workload: str | None, out: Path
) -> list[tuple[Path, Imported, CellKey, ClientFacts]]:
    """Each record's cell key and client facts, checked against the run's ``cells`` and each other (nothing is
    written).

    Raises:
        ConfigError: a record already in the run, or a load of the other loop kind than the run's cells.
    """
    seen = {(i.sha256, i.record) for i in (c.client.imported for c in cells) if i is not None}
    closed: bool | None = None if not cells else not any(c.client.open_loop is not None for c in cells)
    rates = _rates(cells)
    loads = {  # an open-loop level -> its arrival and in-flight cap (the rate is the level)
        c.key.concurrency: (c.client.open_loop.arrival, c.client.open_loop.max_concurrency)
        for c in cells
        if c.client.open_loop is not None
    }
    counts: dict[tuple[str, str, int], int] = {}
    for c in cells:
        counts[(c.key.config, c.key.workload, c.key.concurrency)] = (
            counts.get((c.key.config, c.key.workload, c.key.concurrency), 0) + 1
        )
    _check_k(records, config)
    _one_kind_across_files(records, out)
    out_plan = []
    for path, rec in records:
        where = f"{path} record {rec.facts['record']}"
        if (rec.facts["sha256"], rec.facts["record"]) in seen:
            raise ConfigError(
                f"{where} is already in {out}",
                found=f"a cell imported from a file of SHA-256 {rec.facts['sha256'][:12]}...",
                expected="each result record imported once",
                fix="leave the file out, or import it into another --out run",
            )
        seen.add((rec.facts["sha256"], rec.facts["record"]))
        level = _level(rec, rates, closed, where)
        closed = not rec.load.open_loop
        if rec.load.open_loop:
            _same_load(loads.setdefault(level, (rec.load.arrival, rec.load.concurrency)), rec, where)
        group = (config, workload or rec.workload or DEFAULT_WORKLOAD, level)
        key = CellKey(*group, counts.get(group, 0))
        counts[group] = key.repeat + 1
        load = rec.load
        open_loop = OpenLoopFacts(load.rate_per_s, load.arrival, max_concurrency=load.concurrency or None)
        client = ClientFacts(
            imported=ImportedFacts.from_dict(rec.facts), open_loop=open_loop if load.open_loop else None
        )
        out_plan.append((path, rec, key, client))
    return out_plan


def _one_kind_across_files(records: list[tuple[Path, Imported]], out: Path) -> None:
    """Refuse records of both loop kinds in separate files of one import, naming a record of each and the two
    commands that import them (module docstring): a run's level axis is concurrency or request rate, never both, so
    the two cannot be cells of one run.

    Raises:
        ConfigError: the first record of the other kind than the import's first record, and that first record.
    """
    if not records:
        return
    first_path, first = records[0]
    for path, rec in records[1:]:
        if rec.load.open_loop == first.load.open_loop:
            continue
        kinds = {True: ("an open loop", "rate"), False: ("a closed loop", "closed")}
        named: dict[bool, list[str]] = {False: [], True: []}
        for p, r in records:
            if str(p) not in named[r.load.open_loop]:
                named[r.load.open_loop].append(str(p))
        runs = ", ".join(
            f"{' '.join(shell_word(f) for f in named[kind])} with --out {shell_word(out)}-{kinds[kind][1]}"
            for kind in (first.load.open_loop, rec.load.open_loop)
        )
        raise ConfigError(
            f"{path} record {rec.facts['record']} ({kinds[rec.load.open_loop][0]}: {rec.load.label()}) and "
            f"{first_path} record {first.facts['record']} ({kinds[first.load.open_loop][0]}: {first.load.label()}) "
            "cannot be cells of one run",
            found="files of both loop kinds in one import: closed loops (concurrency N) and request rates",
            expected="one loop kind per run: its level axis is concurrency or request rate, never both",
            fix=f"import each loop kind into its own run: {runs}; nothing was written",
        )


def _check_k(records: list[tuple[Path, Imported]], config: str) -> None:
    """Refuse records whose own k (draft tokens per step) disagrees with the config name's ``-kK`` (the grammar
    ``bench --k`` names its configs with, :func:`specscope.kaxis.split_k_name`) or with another record's.

    Raises:
        ConfigError: naming the record, its k and where it is recorded, and the name to use.
    """
    base, named = split_k_name(config)  # mtp-k999...9 (a date or a timestamp after "k") names no k: None
    first: tuple[int, str] | None = None
    for path, rec in records:
        if rec.k is None:
            continue
        where = f"{path} record {rec.facts['record']}"
        if named is not None and rec.k != named:
            raise ConfigError(
                f"{where} records k {rec.k}, but --config {config} names k {named}",
                found=f"{rec.k_source} (k {rec.k}); the config name's -k{named} (k {named})",
                expected="one k per config: the file's own record and the config name agree",
                fix=f"name the config after the file: --config {base}-k{rec.k} (or import the file measured at k "
                f"{named}); nothing was written",
            )
        if first is not None and rec.k != first[0]:
            raise ConfigError(
                f"{where} records k {rec.k}, another file of --config {config} k {first[0]}",
                found=f"{rec.k_source} (k {rec.k}); {first[1]} (k {first[0]})",
                expected="the files of one config measured at one k",
                fix=f"import each k as its own config: --config {base}-k{rec.k} and --config {base}-k{first[0]}; "
                "nothing was written",
            )
        first = first or (rec.k, f"{where}: {rec.k_source}")


def _storable(result: CellResult, where: str) -> None:
    """Refuse a cell the run store would refuse to read back (the reader's own row check, run before any write).

    Raises:
        ConfigError: naming the record, the column and the value.
    """
    try:
        cell_from_row(cell_row(result), (), SCHEMA_VERSION)
    except StoreError as exc:
        raise ConfigError(
            f"{where} cannot be stored as a cell",
            found=f"{exc.message.split('(', 1)[-1].rstrip(')')}: {exc.found}",
            expected=exc.expected,
            fix="check the file's load and totals (or leave the file out); nothing was written",
        ) from None


def _cells(planned: list[tuple[Path, Imported, CellKey, ClientFacts]]) -> list[CellResult]:
    """The cells to store, each checked as the run store reads it back (nothing is written)."""
    out = []
    for path, rec, key, client in planned:
        duration_ns = int((rec.facts.get("duration_s") or 0.0) * 1e9)
        result = CellResult(key, (), 0, duration_ns, None, None, client)
        _storable(result, f"{path} record {rec.facts['record']}")
        out.append(result)
    return out


def _entry(path: Path, rec: Imported, key: CellKey | None) -> dict[str, Any]:
    """The record's entry in the manifest's ``imports`` (``key`` None: left out, no cell, its ``left_out`` why)."""
    entry: dict[str, Any] = {
        "file": str(path),
        "sha256": rec.facts["sha256"],
        "record": rec.facts["record"],
        "shape": rec.shape,
        "tool": rec.tool,
        "cell": None if key is None else key.label(),
        "load": _load_label(rec),
        "not_recorded": [] if rec.left_out is not None else list(rec.facts.get("not_recorded") or []),
    }
    if rec.left_out is not None:
        entry["left_out"] = rec.left_out
    return entry


def import_files(
    files: Sequence[Path],
    config: str,
    out: Path,
    *,
    workload: str | None,
    baseline: str | None,
    command: list[str],
    closed_loop: bool = False,
) -> Imports:
    """Read and check every file, each cell and the manifest the run will have, then store one cell per record in
    ``out``: a refused import writes nothing (a run it joins is left as it was; a run it would create is not made).

    Args:
        files: the result files, in repeat order.
        config: the config name the records were measured with.
        workload: the workload name (None: the file's own, else ``imported``).
        baseline: the run's baseline config (None: kept; a new run takes ``config``).
        command: the command line, for a new run's manifest.
        closed_loop: from a file holding both loop kinds, import the closed loops (module docstring).

    Raises:
        ConfigError: a blank name, a file of no known shape or of a value out of range, a record already in the
            run, a load of the other loop kind, or a run whose manifest would not be readable after the import
            (more repeats of one level than a run holds).
        StoreError: ``out`` exists and is not a run, or is locked by another writer.
    """
    for option, name in (("--config", config), ("--workload", workload), ("--baseline", baseline)):
        if name is not None:
            check_name(name, option)
    for option, name in (("--config", config), ("--baseline", baseline)):
        if name is not None:
            check_not_control(name, option)
    read = [(f, r) for f in files for r in read_records(f)]
    existing = out.is_dir() and (out / DB_NAME).exists()
    run = open_run(out, writable=True) if existing else None
    new = _new_manifest(baseline or config, command)
    try:
        cells = run.cells() if run is not None else []
        manifest = run.manifest if run is not None else {"schema_version": SCHEMA_VERSION, **new}
        if cells and not manifest.get("imports"):
            raise ConfigError(
                f"{out} holds cells bench measured: imported cells would be judged beside them as if measured in "
                "the same harness, interleaved",
                found=f"a run of {len(cells)} cells measured by specscope bench (engine {manifest.get('engine')})",
                expected="--out: a new folder, or a run made by specscope import",
                fix=f"import into a new run folder, e.g. --out {out.name}-imported",
            )
        read = _one_loop_kind(read, cells, closed_loop)
        records = [(path, rec) for path, rec in read if rec.left_out is None]
        left = [(path, rec) for path, rec in read if rec.left_out is not None]
        planned = _plan(cells, records, config, workload, out)  # every check before the first write
        results = _cells(planned)
        keys_in_order = iter(key for _, _, key, _ in planned)
        imports = [_entry(p, r, None if r.left_out is not None else next(keys_in_order)) for p, r in read]
        keys = {c.key for c in cells} | {r.key for r in results}
        _check_baseline(baseline, config, {k.config for k in keys}, out)
        fields = _manifest_fields(manifest, keys, imports, baseline)
        _check_manifest({**manifest, **fields}, out)
        if run is None:
            run = create_run(out, new)
            fresh = True
        else:
            fresh = False
        try:
            _write(run, planned, results, config, fields)
        except BaseException:
            if fresh:  # the folder this command made holds a part of the import: leave no half-made run behind
                run.close()
                shutil.rmtree(out, ignore_errors=True)
            raise
    finally:
        if run is not None:
            run.close()
    return Imports(
        [
            ImportedCell(
                key,
                str(path),
                rec.tool,
                rec.load.label(),
                tuple(f"record {rec.facts['record']} ({rec.shape}): {n}" for n in rec.notes),
            )
            for path, rec, key, _ in planned
        ],
        [LeftOut(str(p), r.facts["record"], r.shape, _load_label(r), str(r.left_out)) for p, r in left],
    )


def _check_manifest(manifest: dict[str, Any], out: Path) -> None:
    """Refuse an import after which the run's manifest would not be readable (101 records of one config and level:
    more repeats than a run holds), as the import's fault, not as a damaged manifest (nothing is written yet).

    Raises:
        ConfigError: what the manifest would hold that no run may (the reader's own check, :func:`validate_manifest`).
    """
    try:
        validate_manifest(manifest, out / MANIFEST_NAME)
    except ManifestError as exc:
        raise ConfigError(
            f"the import would leave {out} a run no reader accepts; nothing was written",
            found=exc.found,
            expected=exc.expected,
            fix="import at most as many records of one config, workload and level as a run holds (100 repeats), "
            "e.g. the rest under another --config or into another --out run",
        ) from None


def _check_baseline(baseline: str | None, config: str, configs: set[str], out: Path) -> None:
    """Refuse a ``--baseline`` that is neither the config imported nor a config already in the run: the report
    would have nothing to compare against and show no speedups.

    Raises:
        ConfigError: ``baseline`` names no config of the run after the import.
    """
    if baseline is None or baseline in configs:
        return
    others = sorted(configs - {config})
    raise ConfigError(
        f"--baseline {baseline} is not a config of the run",
        found=f"--baseline {baseline}; the run's configs after this import: {', '.join(sorted(configs))}",
        expected=f"--baseline {config} (the config imported)"
        + (f" or one of the run's configs: {', '.join(others)}" if others else ""),
        fix=f"import {baseline}'s files first (specscope import FILE... --config {baseline} --out {shell_word(out)}), "
        "or name one of the run's configs",
    )


def _write(
    run: Run,
    planned: list[tuple[Path, Imported, CellKey, ClientFacts]],
    results: list[CellResult],
    config: str,
    fields: dict[str, Any],
) -> None:
    """Store the checked cells, the config's server facts and the manifest's fields."""
    for (_, rec, _, _), result in zip(planned, results, strict=True):
        run.save_cell(result)
        facts: dict[str, Any] = {"imported_from": rec.tool}
        if rec.model:
            facts["model"] = rec.model
        if rec.k is not None:  # the file's own record of k (:func:`_check_k`), read by spec_k as a stated k
            facts["num_speculative_tokens"] = rec.k
        if rec.server_spec:  # the server's speculative config as the file records it, read by the vLLM adapter
            facts["speculative_config"] = dict(rec.server_spec)
        run.save_server_facts(config, {**run.server_facts.of(config).stored, **facts})
    run.update_manifest(**fields)


def baseline_gaps(out: Path) -> list[str]:
    """One line per (config, workload, level) of the run ``out`` with no cell of the run's baseline at the same
    workload and level: found (the baseline's own groups), expected, fix. The report pairs a config's cells only
    with the baseline's of the same workload and level, so such a group gets no speedup and no verdict."""
    run = open_run(out)
    try:
        baseline = run.manifest.get("baseline")
        groups = sorted({(c.key.config, c.key.workload, c.key.concurrency) for c in run.cells()})
    finally:
        run.close()
    if not isinstance(baseline, str):
        return []
    have = [(w, n) for c, w, n in groups if c == baseline]
    if not have:
        return []
    lines = []
    for config, workload, level in groups:
        if config == baseline or (workload, level) in have:
            continue
        workloads = sorted({w for w, _ in have})
        fix = (
            f"import both configs' files into a new --out with one --workload (e.g. --workload {workloads[0]} for both)"
            if workload not in workloads
            else f"import {baseline}'s files measured at this load (--config {baseline} --out {out})"
        )
        lines.append(
            f"{config}/{workload}/c{level} has no cell of the baseline {baseline} to be compared with: report will "
            f"judge no speedup for it; found: {', '.join(f'{baseline}/{w}/c{n}' for w, n in have)}; expected: "
            f"{baseline}/{workload}/c{level}; fix: {fix}"
        )
    return lines

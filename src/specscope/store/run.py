"""Run folder storage (see the package docstring for the layout).

SQLite through the standard library: one connection per process, WAL journal, each finished cell and its
streams inserted in one transaction, so a kill leaves either the whole cell or nothing. The store keeps facts
(:class:`~specscope.records.CellResult`) and never figures: summaries are derived when a run is read
(:func:`specscope.stats.cells.summarize_run`), so an improved statistic applies to runs already on disk.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from specscope import fsio
from specscope.errors import StoreError
from specscope.records import CellKey, CellResult, GaugeSample, SpecCounters, StreamRecord
from specscope.redact import redact
from specscope.store.manifest import SCHEMA_VERSION, validate_manifest
from specscope.store.schema import SCHEMA_SQL, cell_columns, cell_from_row, cell_row, counters_from_json, json_default
from specscope.store.schema import stream_from_json as _stream

__all__ = ["MANIFEST_NAME", "DB_NAME", "SCHEMA_VERSION", "Run", "create_run", "open_run", "write_json_atomic"]

MANIFEST_NAME = "manifest.json"
DB_NAME = "run.sqlite"
GATE_RESULT_NAME = "gate.json"  # what `specscope gate` writes instead of run.sqlite (specscope.gate.store)
_KEY_WHERE = "config=? AND workload=? AND concurrency=? AND repeat=?"
_ORDER = "ORDER BY config, workload, concurrency, repeat"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON to ``path`` atomically (:func:`specscope.fsio.write_json_atomic`), secrets
    masked (:func:`specscope.redact.redact`: URL credentials, ``*_TOKEN`` values, ``--api-key`` arguments)."""
    fsio.write_json_atomic(path, redact(data), indent=2, default=json_default)


class Run(AbstractContextManager["Run"]):
    """An open run folder.

    Attributes:
        path: the run folder.
        manifest: the validated ``manifest.json`` (:class:`~specscope.store.manifest.RunManifest` fields it sets,
            as a dict; keys ``schema_version``, ``kind``, ``options``, ``servers``...).
        schema_version: the layout of the folder (1: written before the facts-only store; read only).
    """

    def __init__(self, path: Path, manifest: dict[str, Any]):
        self.path = Path(path)
        self.manifest = manifest
        self.schema_version: int = manifest["schema_version"]
        self._db = sqlite3.connect(self.path / DB_NAME, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        if self.schema_version == SCHEMA_VERSION:
            self._db.executescript(SCHEMA_SQL)
            self._db.commit()

    # -- writing ---------------------------------------------------------------------------------
    def ensure_writable(self) -> None:
        """Refuse to write to a run of an older schema (it is read only).

        Raises:
            StoreError: the run's schema version is not the one this code writes.
        """
        if self.schema_version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} is a schema-{self.schema_version} run: it can be read but not resumed",
                found=f"schema_version {self.schema_version}",
                expected=f"schema_version {SCHEMA_VERSION}",
                fix="start a new run with `specscope bench`",
            )

    def update_manifest(self, **fields: Any) -> None:
        """Merge ``fields`` into the manifest, check it against the schema and rewrite it atomically.

        Raises:
            ManifestError: a field the manifest schema does not have.
        """
        self.ensure_writable()
        self.manifest = validate_manifest({**self.manifest, **fields}, self.path / MANIFEST_NAME)
        write_json_atomic(self.path / MANIFEST_NAME, self.manifest)

    def save_cell(self, result: CellResult) -> None:
        """Store one finished cell's facts and its streams in one transaction (replacing an earlier try of it)."""
        self.ensure_writable()
        k = result.key
        key = (k.config, k.workload, k.concurrency, k.repeat)
        with self._db:
            self._db.execute(f"DELETE FROM streams WHERE {_KEY_WHERE}", key)
            self._db.execute("INSERT OR REPLACE INTO cells VALUES (?,?,?,?,?,?,?,?,?,?,?)", cell_row(result))
            self._db.executemany(
                "INSERT INTO streams VALUES (?,?,?,?,?,?)",
                [(*key, i, json.dumps(s.to_dict())) for i, s in enumerate(result.streams)],
            )
            self._db.execute(f"DELETE FROM gauges WHERE {_KEY_WHERE}", key)
            if result.gauges:
                samples = json.dumps([g.to_list() for g in result.gauges])
                self._db.execute("INSERT INTO gauges VALUES (?,?,?,?,?)", (*key, samples))

    def save_server_facts(self, config: str, facts: dict[str, Any]) -> None:
        """Store what is known about the server that ran ``config`` (command line, log facts, draft info)."""
        self.ensure_writable()
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO server_facts VALUES (?,?)",
                (config, json.dumps(redact(facts), default=json_default)),
            )

    # -- reading ---------------------------------------------------------------------------------
    def done_keys(self) -> set[CellKey]:
        """Keys of every cell already stored (these are skipped on resume)."""
        rows = self._db.execute("SELECT config, workload, concurrency, repeat FROM cells").fetchall()
        return {CellKey(*r) for r in rows}

    def cells(self) -> list[CellResult]:
        """Every stored cell's facts, ordered by config, workload, concurrency, repeat (streams in send order).

        Raises:
            StoreError: a stored record does not have the fields of this schema version.
        """
        streams: dict[tuple[Any, ...], list[StreamRecord]] = {}
        for *key, text in self._db.execute(
            f"SELECT config, workload, concurrency, repeat, record_json FROM streams {_ORDER}, idx"
        ):
            streams.setdefault(tuple(key), []).append(_stream(text, self.schema_version))
        rows = self._db.execute(f"SELECT {cell_columns(self.schema_version)} FROM cells {_ORDER}").fetchall()
        cells = [cell_from_row(r, tuple(streams.get(tuple(r[:4]), ())), self.schema_version) for r in rows]
        gauges = self._gauges()
        return [dataclasses.replace(c, gauges=gauges[c.key]) if c.key in gauges else c for c in cells]

    def _gauges(self) -> dict[CellKey, tuple[GaugeSample, ...]]:
        """Each cell's gauge samples (none in a schema-1 run or one stored before they were sampled)."""
        if not self._db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='gauges'").fetchone():
            return {}
        rows = self._db.execute("SELECT config, workload, concurrency, repeat, samples_json FROM gauges").fetchall()
        return {CellKey(*r[:4]): tuple(GaugeSample.from_list(v) for v in json.loads(r[4])) for r in rows}

    def streams(self, key: CellKey) -> list[StreamRecord]:
        """The stream records of one cell, in send order."""
        rows = self._db.execute(
            f"SELECT record_json FROM streams WHERE {_KEY_WHERE} ORDER BY idx",
            (key.config, key.workload, key.concurrency, key.repeat),
        ).fetchall()
        return [_stream(r[0], self.schema_version) for r in rows]

    def counters(self, key: CellKey) -> tuple[SpecCounters | None, SpecCounters | None]:
        """The (before, after) /metrics snapshots of one cell."""
        row = self._db.execute(
            f"SELECT before_json, after_json FROM cells WHERE {_KEY_WHERE}",
            (key.config, key.workload, key.concurrency, key.repeat),
        ).fetchone()
        if row is None:
            return None, None
        return counters_from_json(row[0], self.schema_version), counters_from_json(row[1], self.schema_version)

    @property
    def server_facts(self) -> dict[str, dict[str, Any]]:
        """Per config: what the server said about itself (command line, log facts, draft info)."""
        rows = self._db.execute("SELECT config, facts_json FROM server_facts ORDER BY config").fetchall()
        return {c: json.loads(j) for c, j in rows}

    def close(self) -> None:
        self._db.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


def create_run(path: Path, manifest: dict[str, Any]) -> Run:
    """Create a new run folder with ``manifest`` (the fields of :class:`~specscope.store.manifest.RunManifest`).

    Raises:
        StoreError: ``path`` exists and is not empty, or cannot be created or written.
        ManifestError: ``manifest`` has a field the schema does not know, or lacks ``kind``.
    """
    path = Path(path)
    if path.exists() and any(path.iterdir()):
        raise StoreError(
            f"run folder {path} already exists and is not empty",
            found=sorted(p.name for p in path.iterdir())[:5],
            expected="a new or empty folder",
            fix=f"resume it with `specscope bench --resume {path}` or choose another --out",
        )
    manifest = validate_manifest({"schema_version": SCHEMA_VERSION, **manifest}, path / MANIFEST_NAME)
    try:
        (path / "logs").mkdir(parents=True, exist_ok=True)
        write_json_atomic(path / MANIFEST_NAME, manifest)
    except OSError as exc:  # --out under a file, in /proc, read-only, full: the user's path, not a bug
        raise StoreError(
            f"cannot create the run folder {path}",
            found=f"{type(exc).__name__}: {exc.strerror or exc}",
            expected="a folder that can be created and written",
            fix="pass --out a writable folder",
        ) from None
    return Run(path, manifest)


def open_run(path: Path | str) -> Run:
    """Open an existing run folder.

    Raises:
        StoreError: the folder does not exist, has no manifest / database, or the manifest is not JSON.
        ManifestError: the manifest has unknown or missing fields, or a schema version this code cannot read.
    """
    path = Path(path)
    if not path.is_dir():
        raise StoreError(
            f"{path} is not a run folder",
            found="no such folder" if not path.exists() else "a file",
            expected=f"a folder with {MANIFEST_NAME} and {DB_NAME}",
            fix="pass a folder that `specscope bench` created",
        )
    mpath = path / MANIFEST_NAME
    missing = [n for n in (MANIFEST_NAME, DB_NAME) if not (path / n).is_file()]
    if missing == [DB_NAME] and (path / GATE_RESULT_NAME).is_file():
        raise StoreError(
            f"{path} is a gate run, not a bench run",
            found=f"{GATE_RESULT_NAME} and no {DB_NAME}",
            expected=f"a bench run folder ({MANIFEST_NAME} and {DB_NAME})",
            fix=f"pass a folder from `specscope bench`; a gate run is read by `specscope report {path}`",
        )
    if missing:
        raise StoreError(
            f"{path} is not a run folder",
            found=f"missing {', '.join(missing)}",
            expected=f"{MANIFEST_NAME} and {DB_NAME}",
            fix="pass a folder that `specscope bench` created (runs live under the --out folder, default ./runs)",
        )
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StoreError(
            f"{mpath} cannot be read",
            found=str(exc),
            expected="a JSON manifest",
            fix="restore the file or start a new run",
        ) from None
    manifest = validate_manifest(manifest, mpath)
    if (path / DB_NAME).stat().st_size == 0:  # opening it would write a fresh schema into the user's folder
        raise StoreError(
            f"{path / DB_NAME} is empty",
            found="0 bytes",
            expected="an SQLite run database written by `specscope bench`",
            fix="restore the file from a copy, or start a new run",
        )
    try:
        return Run(path, manifest)
    except sqlite3.DatabaseError as exc:  # a truncated or overwritten run.sqlite
        raise StoreError(
            f"{path / DB_NAME} cannot be read",
            found=f"{type(exc).__name__}: {exc}",
            expected="an SQLite run database",
            fix="restore the file from a copy, or start a new run (the cells in it are lost)",
        ) from None

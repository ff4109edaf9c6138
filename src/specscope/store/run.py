"""Run folder storage (see the package docstring for the layout).

SQLite through the standard library: one connection per process, WAL journal, each finished cell and its
streams inserted in one transaction, so a kill leaves either the whole cell or nothing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from specscope.errors import StoreError
from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord
from specscope.stats.summary import CellSummary

__all__ = ["MANIFEST_NAME", "DB_NAME", "SCHEMA_VERSION", "Run", "create_run", "open_run", "write_json_atomic"]

MANIFEST_NAME = "manifest.json"
DB_NAME = "run.sqlite"
GATE_RESULT_NAME = "gate.json"  # what `specscope gate` writes instead of run.sqlite (specscope.gate.store)
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cells (
    config TEXT NOT NULL,
    workload TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    status TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    before_json TEXT,
    after_json TEXT,
    client_json TEXT NOT NULL,
    summary_json TEXT NOT NULL,
    PRIMARY KEY (config, workload, concurrency, repeat)
);
CREATE TABLE IF NOT EXISTS streams (
    config TEXT NOT NULL,
    workload TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    record_json TEXT NOT NULL,
    PRIMARY KEY (config, workload, concurrency, repeat, idx)
);
CREATE TABLE IF NOT EXISTS server_facts (
    config TEXT PRIMARY KEY,
    facts_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON to ``path`` via a temp file in the same folder and ``os.replace``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=False, default=_json_default)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; results are meant to be shared like any written file
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _json_default(o: Any) -> Any:
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


class Run:
    """An open run folder.

    Attributes:
        path: the run folder.
        manifest: the parsed ``manifest.json`` (a dict; keys ``kind``, ``options``, ``plan``, ``servers``...).
    """

    def __init__(self, path: Path, manifest: dict[str, Any]):
        self.path = Path(path)
        self.manifest = manifest
        self._db = sqlite3.connect(self.path / DB_NAME, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db.commit()

    # -- writing ---------------------------------------------------------------------------------
    def update_manifest(self, **fields: Any) -> None:
        """Merge ``fields`` into the manifest and rewrite it atomically."""
        self.manifest.update(fields)
        write_json_atomic(self.path / MANIFEST_NAME, self.manifest)

    def save_cell(self, result: CellResult, summary: CellSummary) -> None:
        """Store one finished cell and its streams in one transaction (replacing an earlier try of it)."""
        k = result.key
        key = (k.config, k.workload, k.concurrency, k.repeat)
        with self._db:
            self._db.execute("DELETE FROM streams WHERE config=? AND workload=? AND concurrency=? AND repeat=?", key)
            self._db.execute(
                "INSERT OR REPLACE INTO cells VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    *key,
                    summary.status,
                    result.start_ns,
                    result.end_ns,
                    None if result.before is None else json.dumps(result.before.to_dict()),
                    None if result.after is None else json.dumps(result.after.to_dict()),
                    json.dumps(result.client, default=_json_default),
                    json.dumps(summary.to_dict(), default=_json_default),
                ),
            )
            self._db.executemany(
                "INSERT INTO streams VALUES (?,?,?,?,?,?)",
                [(*key, i, json.dumps(s.to_dict())) for i, s in enumerate(result.streams)],
            )

    def save_server_facts(self, config: str, facts: dict[str, Any]) -> None:
        """Store what is known about the server that ran ``config`` (command line, log facts, draft info)."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO server_facts VALUES (?,?)", (config, json.dumps(facts, default=_json_default))
            )

    # -- reading ---------------------------------------------------------------------------------
    def done_keys(self) -> set[CellKey]:
        """Keys of every cell already stored (these are skipped on resume)."""
        rows = self._db.execute("SELECT config, workload, concurrency, repeat FROM cells").fetchall()
        return {CellKey(*r) for r in rows}

    def summaries(self) -> list[CellSummary]:
        """Every stored cell's summary, ordered by config, workload, concurrency, repeat."""
        rows = self._db.execute(
            "SELECT summary_json FROM cells ORDER BY config, workload, concurrency, repeat"
        ).fetchall()
        return [CellSummary.from_dict(json.loads(r[0])) for r in rows]

    def streams(self, key: CellKey) -> list[StreamRecord]:
        """The stream records of one cell, in send order."""
        rows = self._db.execute(
            "SELECT record_json FROM streams WHERE config=? AND workload=? AND concurrency=? AND repeat=? ORDER BY idx",
            (key.config, key.workload, key.concurrency, key.repeat),
        ).fetchall()
        return [StreamRecord.from_dict(json.loads(r[0])) for r in rows]

    def counters(self, key: CellKey) -> tuple[SpecCounters | None, SpecCounters | None]:
        """The (before, after) /metrics snapshots of one cell."""
        row = self._db.execute(
            "SELECT before_json, after_json FROM cells WHERE config=? AND workload=? AND concurrency=? AND repeat=?",
            (key.config, key.workload, key.concurrency, key.repeat),
        ).fetchone()
        if row is None:
            return None, None
        return tuple(None if j is None else SpecCounters.from_dict(json.loads(j)) for j in row)  # type: ignore[return-value]

    @property
    def server_facts(self) -> dict[str, dict[str, Any]]:
        """Per config: what the server said about itself (command line, log facts, draft info)."""
        rows = self._db.execute("SELECT config, facts_json FROM server_facts ORDER BY config").fetchall()
        return {c: json.loads(j) for c, j in rows}

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def create_run(path: Path, manifest: dict[str, Any]) -> Run:
    """Create a new run folder with ``manifest``.

    Raises:
        StoreError: ``path`` exists and is not empty.
    """
    path = Path(path)
    if path.exists() and any(path.iterdir()):
        raise StoreError(
            f"run folder {path} already exists and is not empty",
            found=sorted(p.name for p in path.iterdir())[:5],
            expected="a new or empty folder",
            fix=f"resume it with `specscope bench --resume {path}` or choose another --out",
        )
    (path / "logs").mkdir(parents=True, exist_ok=True)
    manifest = {"schema_version": SCHEMA_VERSION, **manifest}
    write_json_atomic(path / MANIFEST_NAME, manifest)
    return Run(path, manifest)


def open_run(path: Path | str) -> Run:
    """Open an existing run folder.

    Raises:
        StoreError: the folder does not exist, has no manifest / database, or the manifest is not JSON.
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
            fix="pass a folder from `specscope bench`; a gate run is read by `specscope report`",
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
    if not isinstance(manifest, dict) or manifest.get("schema_version") != SCHEMA_VERSION:
        raise StoreError(
            f"{mpath} is not a specscope run manifest of this version",
            found=(manifest.get("schema_version") if isinstance(manifest, dict) else type(manifest).__name__),
            expected=f"schema_version {SCHEMA_VERSION}",
            fix="re-run the benchmark with this version of specscope",
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


def iter_cells_json(run: Run) -> Iterable[dict[str, Any]]:
    """The ``cells`` items of the JSON report (one per stored cell)."""
    for s in run.summaries():
        yield s.to_dict()

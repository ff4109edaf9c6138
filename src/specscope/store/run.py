"""Run folder storage (see the package docstring for the layout).

SQLite through the standard library: one connection per process, WAL journal, each finished cell and its
streams inserted in one transaction, so a kill leaves either the whole cell or nothing. The store keeps facts
(:class:`~specscope.records.CellResult`) and never figures: summaries are derived when a run is read
(:func:`specscope.stats.cells.summarize_run`), so an improved statistic applies to runs already on disk.

Reading and writing (issue 29):

- :func:`open_run` opens a run **read-only** (``report``, ``advise``, ``predict``): SQLite ``mode=ro``, plus
  ``immutable=1`` when no ``-wal`` file says a writer is active or was killed, so reading creates no ``-wal`` /
  ``-shm`` file and never changes a byte (a ``-wal`` without ``-shm`` is read from a private copy:
  :mod:`specscope.store.readonly`); nothing is created or migrated. A missing table, column or a row of
  the wrong type is a :class:`~specscope.errors.StoreError` naming it (exit 2).
- ``open_run(path, writable=True)`` and :func:`create_run` take the folder's lock
  (:class:`~specscope.store.lock.RunLock`) for the life of the :class:`Run`: a second writer is refused naming
  the holder's pid. ``create_run(..., unique=True)`` makes the folder with ``mkdir`` (atomic), suffixing ``-1``,
  ``-2`` ... when the name is taken, so two runs started in one second never share a folder.
- Everything written is redacted (:func:`specscope.redact.redact`): manifest, stream records, reasons, client
  facts and server facts.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from specscope import fsio
from specscope.errors import StoreError
from specscope.facts import RunFacts
from specscope.records import CellKey, CellResult, GaugeSample, SpecCounters, StreamRecord
from specscope.redact import redact
from specscope.store.lock import RunLock
from specscope.store.manifest import SCHEMA_VERSION, read_manifest, refuse_unknown_fields, validate_manifest
from specscope.store.readonly import connect_read_only
from specscope.store.schema import (
    REQUIRED_TABLES,
    SCHEMA_SQL,
    cell_columns,
    cell_from_row,
    cell_row,
    counters_from_json,
    facts_from_json,
    gauges_from_json,
    json_default,
)
from specscope.store.schema import stream_from_json as _stream
from specscope.textsafe import shell_word

__all__ = [
    "MANIFEST_NAME",
    "DB_NAME",
    "SCHEMA_VERSION",
    "Run",
    "create_run",
    "open_run",
    "parent_of_runs_error",
    "refuse_non_folder",
    "runs_inside",
    "write_json_atomic",
]

MANIFEST_NAME = "manifest.json"
DB_NAME = "run.sqlite"
GATE_RESULT_NAME = "gate.json"  # what `specscope gate` writes instead of run.sqlite (specscope.gate.store)
_KEY_WHERE = "config=? AND workload=? AND concurrency=? AND repeat=?"
_ORDER = "ORDER BY config, workload, concurrency, repeat"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON to ``path`` atomically (:func:`specscope.fsio.write_json_atomic`), secrets
    masked (:func:`specscope.redact.redact`, the one redaction)."""
    fsio.write_json_atomic(path, redact(data), indent=2, default=json_default)


class Run(AbstractContextManager["Run"]):
    """An open run folder.

    Attributes:
        path: the run folder.
        manifest: the validated ``manifest.json`` (:class:`~specscope.store.manifest.RunManifest` fields it sets,
            as a dict; keys ``schema_version``, ``kind``, ``options``, ``servers``...).
        schema_version: the layout of the folder (1: written before the facts-only store; read only).
        writable: True when this process holds the folder's lock (``create_run``, ``open_run(writable=True)``);
            a run opened for reading refuses every write.
    """

    def __init__(self, path: Path, manifest: dict[str, Any], *, lock: RunLock | None = None):
        self.path = Path(path)
        self.manifest = manifest
        self.schema_version: int = manifest["schema_version"]
        self._lock = lock
        self._private: Path | None = None  # a private copy read instead of a -wal without -shm (store.readonly)
        self.writable = lock is not None
        if self.writable:
            self._db = sqlite3.connect(self.path / DB_NAME, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            if self.schema_version == SCHEMA_VERSION:
                self._db.executescript(SCHEMA_SQL)
                self._db.commit()
        else:
            self._db, self._private = _connect_read_only(self.path / DB_NAME)
        try:
            self._check_tables()
        except BaseException:
            self._db.close()
            if self._private is not None:
                shutil.rmtree(self._private, ignore_errors=True)
            raise

    def _check_tables(self) -> None:
        """Refuse a database without the tables of its schema version (a dropped table is never re-created).

        Raises:
            StoreError: a required table is missing.
        """
        have = {r[0] for r in self._query("SELECT name FROM sqlite_master WHERE type='table'", where="sqlite_master")}
        missing = [t for t in REQUIRED_TABLES[self.schema_version] if t not in have]
        if missing:
            raise StoreError(
                f"{self.path / DB_NAME} lacks the table {missing[0]}",
                found=f"tables: {', '.join(sorted(have)) or 'none'}",
                expected=f"the tables of run schema {self.schema_version}: "
                + ", ".join(REQUIRED_TABLES[self.schema_version]),
                fix="restore run.sqlite from a copy, or re-run the benchmark (specscope never re-creates a table in a "
                "run it reads)",
            )

    def _query(self, sql: str, args: tuple[Any, ...] = (), *, where: str) -> list[Any]:
        """All rows of ``sql``; an SQLite error (a dropped column, a damaged file) is a StoreError naming ``where``.

        Raises:
            StoreError: SQLite could not run the query.
        """
        try:
            return self._db.execute(sql, args).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise StoreError(
                f"{self.path / DB_NAME} cannot be read (table {where})",
                found=f"{type(exc).__name__}: {exc}",
                expected=f"the tables and columns of run schema {self.schema_version}",
                fix="restore run.sqlite from a copy, or re-run the benchmark",
            ) from None

    # -- writing ---------------------------------------------------------------------------------
    def ensure_writable(self) -> None:
        """Refuse to write to a run of an older schema (it is read only).

        Raises:
            StoreError: the run's schema version is not the one this code writes.
        """
        _check_writable_schema(self.path, self.schema_version)
        if not self.writable:
            raise StoreError(
                f"{self.path} was opened for reading",
                found="a write to a run opened by open_run(path)",
                expected="open_run(path, writable=True) (bench --resume), which locks the folder",
                fix="this is a bug in the caller: report it",
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
                [(*key, i, json.dumps(redact(s.to_dict()))) for i, s in enumerate(result.streams)],
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
        rows = self._query("SELECT config, workload, concurrency, repeat FROM cells", where="cells")
        return {CellKey(*r) for r in rows}

    def cells(self) -> list[CellResult]:
        """Every stored cell's facts, ordered by config, workload, concurrency, repeat (streams in send order).

        Raises:
            StoreError: a stored record does not have the fields of this schema version.
        """
        streams: dict[tuple[Any, ...], list[StreamRecord]] = {}
        sql = f"SELECT config, workload, concurrency, repeat, idx, record_json FROM streams {_ORDER}, idx"
        for *key, idx, text in self._query(sql, where="streams"):
            where = f"streams row {'/'.join(map(str, key))}/{idx}: record_json"
            streams.setdefault(tuple(key), []).append(_stream(text, self.schema_version, where))
        rows = self._query(f"SELECT {cell_columns(self.schema_version)} FROM cells {_ORDER}", where="cells")
        cells = [cell_from_row(r, tuple(streams.get(tuple(r[:4]), ())), self.schema_version) for r in rows]
        gauges = self._gauges()
        return [dataclasses.replace(c, gauges=gauges[c.key]) if c.key in gauges else c for c in cells]

    def _gauges(self) -> dict[CellKey, tuple[GaugeSample, ...]]:
        """Each cell's gauge samples (none in a schema-1 run or one stored before they were sampled)."""
        if not self._query("SELECT name FROM sqlite_master WHERE type='table' AND name='gauges'", where="gauges"):
            return {}
        rows = self._query("SELECT config, workload, concurrency, repeat, samples_json FROM gauges", where="gauges")
        return {
            CellKey(*r[:4]): gauges_from_json(
                r[4], self.schema_version, f"gauges row {'/'.join(map(str, r[:4]))}: samples_json"
            )
            for r in rows
        }

    def streams(self, key: CellKey) -> list[StreamRecord]:
        """The stream records of one cell, in send order."""
        rows = self._query(
            f"SELECT record_json FROM streams WHERE {_KEY_WHERE} ORDER BY idx",
            (key.config, key.workload, key.concurrency, key.repeat),
            where="streams",
        )
        return [_stream(r[0], self.schema_version, f"streams row {key.label()}: record_json") for r in rows]

    def counters(self, key: CellKey) -> tuple[SpecCounters | None, SpecCounters | None]:
        """The (before, after) /metrics snapshots of one cell."""
        rows = self._query(
            f"SELECT before_json, after_json FROM cells WHERE {_KEY_WHERE}",
            (key.config, key.workload, key.concurrency, key.repeat),
            where="cells",
        )
        if not rows:
            return None, None
        where = f"cells row {key.label()}"
        before = counters_from_json(rows[0][0], self.schema_version, f"{where}: before_json")
        return before, counters_from_json(rows[0][1], self.schema_version, f"{where}: after_json")

    @property
    def server_facts(self) -> RunFacts:
        """Per config: what the server said about itself (command line, log facts, draft info), each validated into
        a :class:`~specscope.facts.ServerFacts` (the stored object is its ``stored``)."""
        rows = self._query("SELECT config, facts_json FROM server_facts ORDER BY config", where="server_facts")
        version = self.schema_version
        return RunFacts({str(c): facts_from_json(j, version, f"server_facts row {c}: facts_json") for c, j in rows})

    def log_path(self, name: str) -> Path:
        """A fresh path in the run's ``logs/`` for a server log named ``name`` (``CONFIG.log``): when that name is
        taken, ``CONFIG.YYYYmmdd-HHMMSS.log`` beside it. The folder must be the run's own: a symbolic link or
        anything but a real folder in its place is refused (a link would send the server's log, secrets and all,
        outside the run folder; issue 37), and a name held by a link is never reused.

        Raises:
            StoreError: ``logs`` is not a real folder of this run.
        """
        logs = self.path / "logs"
        try:
            if not logs.is_symlink() and not logs.exists():
                logs.mkdir()
            mode = os.lstat(logs).st_mode
        except OSError as exc:
            mode, err = 0, exc.strerror or str(exc)
        else:
            err = "a symbolic link" if stat.S_ISLNK(mode) else "not a folder"
        if not stat.S_ISDIR(mode):
            raise StoreError(
                f"the run folder's logs/ cannot hold server logs: {logs}",
                found=err,
                expected="a real folder inside the run folder",
                fix=f"remove {logs} (specscope makes it again), then run the command again",
            )
        path = logs / name
        if os.path.lexists(path):
            path = logs / f"{Path(name).stem}.{time.strftime('%Y%m%d-%H%M%S')}{Path(name).suffix}"
        return path

    def close(self) -> None:
        self._db.close()
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_writable_schema(path: Path, version: int) -> None:
    """Refuse to write a run of an older schema (it is read only).

    Raises:
        StoreError: ``version`` is not the one this code writes.
    """
    if version != SCHEMA_VERSION:
        raise StoreError(
            f"{path} is a schema-{version} run: it can be read but not resumed",
            found=f"schema_version {version}",
            expected=f"schema_version {SCHEMA_VERSION}",
            fix="start a new run with `specscope bench`",
        )


def _connect_read_only(db: Path) -> tuple[sqlite3.Connection, Path | None]:
    """A read-only connection to ``db`` writing nothing beside it (:func:`specscope.store.readonly.connect_read_only`).

    Raises:
        StoreError: a ``-wal`` without ``-shm`` could not be copied to be read.
    """
    try:
        return connect_read_only(db)
    except OSError as exc:
        raise StoreError(
            f"{db} cannot be read without writing into the run",
            found=f"a -wal file without -shm, and copying them failed: {exc.strerror or exc}",
            expected="room in the temporary folder for a copy of run.sqlite and its -wal",
            fix="free space under TMPDIR (or point TMPDIR elsewhere), then run the command again",
        ) from None


def _make_folder(path: Path, unique: bool) -> Path:
    """Make the run folder: ``path`` itself (it may exist empty), or with ``unique`` the first free one of ``path``,
    ``path-1``, ``path-2``, ... made with one ``mkdir`` (atomic: two processes never get the same folder).

    Raises:
        OSError: the folder (or its parents) cannot be made.
    """
    if not unique:
        path.mkdir(parents=True, exist_ok=True)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    for i in range(10_000):
        candidate = path if i == 0 else path.with_name(f"{path.name}-{i}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"{path}: 10,000 run folders of this name")


def refuse_non_folder(path: Path) -> None:
    """Refuse a run folder (or the ``--out`` folder that holds run folders) that exists and is not a folder.

    Raises:
        StoreError: ``path`` is a file, a FIFO, a device or a socket, or it (or a folder above it) is a symbolic
            link that leads nowhere or into a loop.
    """
    _refuse_broken_link(path)
    if path.exists() and not path.is_dir():
        raise StoreError(
            f"cannot create the run folder {path}",
            found="a file" if path.is_file() else "not a folder (a FIFO, a device or a socket)",
            expected="a new or empty folder",
            fix="pass --out a folder (a path that does not exist yet is made)",
        )


def _refuse_broken_link(path: Path) -> None:
    """Refuse ``path`` when it, or a folder above it, is a symbolic link to nothing (``mkdir`` then says "File
    exists") or a link loop: the link is named, with where it points.

    Raises:
        StoreError: a dangling link or a link loop on the way to ``path``.
    """
    for link in [path, *path.parents]:
        if not link.is_symlink() or link.exists():
            continue
        try:
            os.stat(link)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StoreError(
                    f"cannot create the run folder {path}",
                    found=f"{link} is a symbolic link loop (it leads back to itself)",
                    expected="a new or empty folder, or a link to one",
                    fix=f"remove the link (rm {shell_word(link)}) or pass --out another folder",
                ) from None
        target = Path(os.readlink(link))
        shown = target if target.is_absolute() else link.parent / target
        raise StoreError(
            f"cannot create the run folder {path}",
            found=f"{link} is a symbolic link to {shown}, which does not exist",
            expected="a new or empty folder, or a link to one",
            fix=f"make the folder it points to (mkdir -p {shell_word(shown)}), remove the link "
            f"(rm {shell_word(link)}), or pass --out another folder",
        )


def refuse_inside_a_run(path: Path) -> None:
    """Refuse a run folder to be made inside another run folder (a folder holding manifest.json and run.sqlite):
    ``import F --out RUN/logs`` made a second run inside RUN (attack50). A run is read-only once written.

    Raises:
        StoreError: a folder above ``path`` is a run folder.
    """
    for above in Path(os.path.abspath(path)).parents:
        if (above / MANIFEST_NAME).is_file() and (above / DB_NAME).is_file():
            raise StoreError(
                f"cannot create the run folder {path}",
                found=f"inside the run folder {above}",
                expected="a folder outside every run folder (a run is never written once it is done)",
                fix=f"pass --out a folder beside it, e.g. --out {above.parent / (above.name + '-more')}",
            )


def create_run(path: Path, manifest: dict[str, Any], *, unique: bool = False) -> Run:
    """Create a new run folder with ``manifest`` (the fields of :class:`~specscope.store.manifest.RunManifest`) and
    lock it for writing (released by :meth:`Run.close`).

    Args:
        path: the run folder; with ``unique`` a name to start from (``path-1``... when taken).
        unique: make a folder no other run has, even one started in the same second.

    Raises:
        StoreError: ``path`` exists and is not empty (or another process holds it), or cannot be created.
        ManifestError: ``manifest`` has a field the schema does not know, or lacks ``kind``.
    """
    path = Path(path)
    refuse_non_folder(path)
    refuse_inside_a_run(path)
    if not unique and path.exists() and any(path.iterdir()):
        raise _not_empty(path)
    manifest = validate_manifest({"schema_version": SCHEMA_VERSION, **manifest}, path / MANIFEST_NAME)
    try:
        path = _make_folder(path, unique)
        lock = RunLock(path)
    except OSError as exc:  # --out under a file, in /proc, read-only, full: the user's path, not a bug
        raise StoreError(
            f"cannot create the run folder {path}",
            found=f"{type(exc).__name__}: {exc.strerror or exc}",
            expected="a folder that can be created and written",
            fix="pass --out a writable folder",
        ) from None
    try:
        if any(p.name != lock.path.name for p in path.iterdir()):  # another writer got here first
            raise _not_empty(path)
        (path / "logs").mkdir(exist_ok=True)
        write_json_atomic(path / MANIFEST_NAME, manifest)
        return Run(path, manifest, lock=lock)
    except OSError as exc:
        lock.release()
        raise StoreError(
            f"cannot write the run folder {path}",
            found=f"{type(exc).__name__}: {exc.strerror or exc}",
            expected="a folder that can be written",
            fix="pass --out a writable folder",
        ) from None
    except BaseException:
        lock.release()
        raise


def _not_empty(path: Path) -> StoreError:
    """The refusal of a folder that holds files; resuming is the fix only for a run (a folder of other files, or
    /proc/self, was told `bench --resume`, which refuses a folder with no manifest: attack53)."""
    if (path / MANIFEST_NAME).exists():
        fix = f"resume it with `specscope bench --resume {shell_word(path)}` or choose another --out"
    else:
        fix = "choose another --out: a new or empty folder (this one holds files that are not a run; none is changed)"
    return StoreError(
        f"run folder {path} already exists and is not empty",
        found=sorted(p.name for p in path.iterdir())[:5],
        expected="a new or empty folder",
        fix=fix,
    )


def is_run_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding a run's manifest and database (bench's or import's), by name."""
    return all((path / n).is_file() for n in (MANIFEST_NAME, DB_NAME))


def runs_inside(path: Path) -> list[Path]:
    """The run folders directly inside ``path``, by name: its sub-folders that hold a ``manifest.json`` (bench makes
    each run, ``run-YYYYmmdd-HHMMSS``, inside its ``--out`` folder); none where ``path`` cannot be listed."""
    try:
        subs = [p for p in path.iterdir() if p.is_dir() and (p / MANIFEST_NAME).is_file()]
    except OSError:
        return []
    return sorted(subs, key=lambda p: p.name)


def parent_of_runs_error(path: Path, command: Callable[[Path], str] | None = None) -> StoreError | None:
    """The refusal of ``path`` when it is no run but holds runs (bench's ``--out`` folder, given for the run made
    inside it): found (no manifest, the run folders inside), expected (a run folder), fix (``command(run)``, the
    command line again on each of them, its path quoted as a shell word; without ``command``, the folders to pass).
    None when ``path`` has a manifest or holds no run folder."""
    if (path / MANIFEST_NAME).exists():
        return None
    inside = runs_inside(path)
    if not inside:
        return None
    shown = [shell_word(p) for p in inside[:5]] + ([f"and {len(inside) - 5} more"] if len(inside) > 5 else [])
    if command is None:
        fix = f"pass the run folder itself: {', '.join(shown)}"
    else:
        fix = " or ".join(f"`{command(p)}`" for p in inside[:5])
        fix = f"name the run folder: {fix}" + (f" ({shown[-1]})" if len(inside) > 5 else "")
    return StoreError(
        f"{path} is not a run folder: it holds {len(inside)} run folder(s)",
        found=f"no {MANIFEST_NAME} in {path}; the run folder(s) inside: {', '.join(p.name for p in inside[:5])}"
        + (f" and {len(inside) - 5} more" if len(inside) > 5 else ""),
        expected=f"a run folder ({MANIFEST_NAME} and {DB_NAME}), as bench makes inside its --out folder",
        fix=fix,
    )


#: the files sqlite keeps beside the database (write-ahead log, its index, the rollback journal).
_SIDE_FILES = tuple(f"{DB_NAME}{suffix}" for suffix in ("-wal", "-shm", "-journal"))


def open_run(path: Path | str, *, writable: bool = False) -> Run:
    """Open an existing run folder: read-only (nothing in it is created or changed), or with ``writable`` locked
    for this process (``bench --resume``; the schema's tables are created when missing).

    Raises:
        StoreError: the folder does not exist, has no manifest / database, the manifest is not JSON, a required
            table is missing, or (``writable``) another process holds the folder's lock.
        ManifestError: the manifest has unknown or missing fields, or a schema version this code cannot read.
    """
    path = Path(path)
    if not path.is_dir():
        raise StoreError(
            f"{path} is not a run folder",
            found="no such folder" if not path.exists() else "a file",
            expected=f"a folder with {MANIFEST_NAME} and {DB_NAME}",
            fix="pass a folder that `specscope bench` or `specscope import` created",
        )
    missing = [n for n in (MANIFEST_NAME, DB_NAME) if not (path / n).is_file()]
    if missing == [DB_NAME] and (path / GATE_RESULT_NAME).is_file():
        raise StoreError(
            f"{path} is a gate run, not a bench run",
            found=f"{GATE_RESULT_NAME} and no {DB_NAME}",
            expected=f"a bench run folder ({MANIFEST_NAME} and {DB_NAME})",
            fix=f"pass a folder from `specscope bench`; a gate run is read by `specscope report {shell_word(path)}`",
        )
    if missing and (parent := parent_of_runs_error(path)) is not None:
        raise parent
    if missing:
        from specscope.checkpoint.kind import checkpoint_marks  # only on a refusal: a run's readers never load it

        if (marks := checkpoint_marks(path)) is not None:
            raise StoreError(
                f"{path} is a model checkpoint, not a run folder",
                found=marks,
                expected=f"a run folder ({MANIFEST_NAME} and {DB_NAME}) from `specscope bench` or `specscope import`",
                fix=f"audit the checkpoint with `specscope audit {shell_word(path)}`; pass a run folder here",
            )
        odd = [n for n in missing if os.path.lexists(path / n)]  # a FIFO, device, socket, folder or dangling link
        raise StoreError(
            f"{path} is not a run folder",
            found=f"{odd[0]} is not a regular file" if odd else f"missing {', '.join(missing)}",
            expected=f"{MANIFEST_NAME} and {DB_NAME}",
            fix="pass a folder that `specscope bench` or `specscope import` created (bench makes its runs inside its "
            "--out folder, default ./runs; import writes the --out folder itself)",
        )
    # a writer's sqlite would open a FIFO or a folder as its log and fail at the first write ("disk I/O error"); a
    # reader opens none of them in the run (store.readonly)
    odd_side = [n for n in _SIDE_FILES if os.path.lexists(path / n) and not (path / n).is_file()]
    if writable and odd_side:
        raise StoreError(
            f"{path} is not a run folder specscope can open",
            found=f"{odd_side[0]} is not a regular file",
            expected=f"beside {DB_NAME} only the regular files sqlite writes ({', '.join(_SIDE_FILES)})",
            fix=f"remove {path / odd_side[0]} (sqlite makes it again when it needs it)",
        )
    linked = [n for n in (DB_NAME, *_SIDE_FILES) if (path / n).is_symlink()]
    if writable and linked:  # sqlite writes through a link: into a file outside the run folder
        raise StoreError(
            f"{path} is not a run folder specscope can write to",
            found=f"{linked[0]} is a symbolic link (to {os.readlink(path / linked[0])})",
            expected=f"{DB_NAME} and the files sqlite writes beside it as regular files in the run folder",
            fix=f"replace the link with a copy of its file (cp --remove-destination "
            f'"$(readlink -f {path / linked[0]})" {path / linked[0]}), or write to a new run folder',
        )
    manifest = read_manifest(path / MANIFEST_NAME)
    if (path / DB_NAME).stat().st_size == 0:  # opening it would write a fresh schema into the user's folder
        raise StoreError(
            f"{path / DB_NAME} is empty",
            found="0 bytes",
            expected="an SQLite run database written by `specscope bench`",
            fix="restore the file from a copy, or start a new run",
        )
    if writable:
        _check_writable_schema(path, manifest["schema_version"])
        refuse_unknown_fields(manifest, path / MANIFEST_NAME)
    lock = RunLock(path) if writable else None
    try:
        return Run(path, manifest, lock=lock)
    except sqlite3.DatabaseError as exc:  # a truncated or overwritten run.sqlite
        if lock is not None:
            lock.release()
        raise StoreError(
            f"{path / DB_NAME} cannot be read",
            found=f"{type(exc).__name__}: {exc}",
            expected="an SQLite run database",
            fix="restore the file from a copy, or start a new run (the cells in it are lost)",
        ) from None
    except BaseException:
        if lock is not None:
            lock.release()
        raise

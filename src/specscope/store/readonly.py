"""Opening ``run.sqlite`` for reading without writing one byte into the run folder (issues 29 and 37).

SQLite's rules (sqlite.org, "Write-Ahead Logging" and "URI filenames"): ``mode=ro`` never writes the database
itself, but a reader of a WAL database uses the ``-shm`` wal-index beside it and creates that file when it is
missing; ``immutable=1`` reads with no locks and no side files but ignores the ``-wal`` file.

- no ``-wal`` file (no writer is active and none was killed): ``mode=ro&immutable=1`` on the file itself;
- a ``-wal`` with its ``-shm`` (a writer is running, e.g. ``report`` of a run in progress): ``mode=ro`` on the
  file itself, reading through the writer's wal-index;
- a ``-wal`` without ``-shm`` (a folder copied, or a writer killed, mid-run): the database and its ``-wal`` are
  copied into a private temporary folder and read there, so the committed transactions in the ``-wal`` are
  read and no ``-shm`` appears in the run.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

__all__ = ["connect_read_only"]


def connect_read_only(db: Path) -> tuple[sqlite3.Connection, Path | None]:
    """A connection that reads ``db`` (and its committed ``-wal``) and writes nothing beside it.

    Returns:
        ``(connection, private)``: ``private`` is the temporary folder holding a copy (remove it after closing the
        connection), None when ``db`` is read in place.

    Raises:
        OSError: the copy could not be made.
    """
    wal = db.with_name(db.name + "-wal")
    shm = db.with_name(db.name + "-shm")
    if not wal.exists():
        return sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True, timeout=30.0), None
    if shm.exists():
        return sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0), None
    private = Path(tempfile.mkdtemp(prefix="specscope-read-"))
    try:
        shutil.copyfile(db, private / db.name)
        shutil.copyfile(wal, private / wal.name)
        return sqlite3.connect(private / db.name, timeout=30.0), private
    except BaseException:
        shutil.rmtree(private, ignore_errors=True)
        raise

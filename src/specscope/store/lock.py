"""One writer per run folder: an OS file lock held for the life of a writing :class:`~specscope.store.run.Run`.

The lock is ``flock(LOCK_EX | LOCK_NB)`` (POSIX advisory, released by the kernel when the holder's descriptor is
closed, so a killed run never leaves a stale lock) on ``RUN/.specscope.lock``; the holder writes its pid and
command line there, so a second writer is refused with the holder named (exit 2). Readers (``report``,
``advise``, ``predict``) take no lock: SQLite's WAL lets them read while a run is written.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import sys
from pathlib import Path

from specscope.errors import StoreError

__all__ = ["LOCK_NAME", "RunLock"]

LOCK_NAME = ".specscope.lock"


def _holder_text(fd: int) -> str:
    """What the holder wrote into the lock file (``pid N: command``), or ``""``."""
    try:
        return os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _open_lock_file(path: Path, run_dir: Path) -> int:
    """A read-write descriptor of the lock file at ``path``, created when missing; never through a symbolic link
    (``O_NOFOLLOW``: a link would make the lock write its holder line into the link's target) and only a regular
    file (a FIFO or device in its place is refused, issue 37).

    Raises:
        StoreError: the lock cannot be made, or something other than a regular file stands in its place.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        what = "a symbolic link" if path.is_symlink() else None
        raise StoreError(
            f"cannot lock the run folder {run_dir}",
            found=f"{path}: {what or exc.strerror or exc}",
            expected="a run folder this user can write, its lock a regular file",
            fix=f"remove {path} if it is a link, then run the command again"
            if what
            else "check the folder's permissions",
        ) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise StoreError(
            f"cannot lock the run folder {run_dir}",
            found=f"{path} is not a regular file",
            expected="the run's lock file (a regular file specscope writes)",
            fix=f"remove {path}, then run the command again",
        )
    os.set_blocking(fd, True)
    return fd


class RunLock:
    """The exclusive lock of one run folder, taken at construction and held until :meth:`release`.

    Raises:
        StoreError: another process holds it (its pid and command named), or the lock file cannot be made.
    """

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir) / LOCK_NAME
        self._fd: int | None = _open_lock_file(self.path, Path(run_dir))
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_text(self._fd) or "another process"
            os.close(self._fd)
            self._fd = None
            raise StoreError(
                f"run folder {run_dir} is being written by another specscope",
                found=f"locked by {holder}",
                expected="one writer per run folder",
                # the same for bench --resume, import and a surgery of a run: the refused command, run again
                fix="wait for that process to end (or stop it), then run this command again",
            ) from None
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv[:3]))
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"pid {os.getpid()}: {command}\n".encode(), 0)

    def release(self) -> None:
        """Unlock (the file stays: removing it would let two writers lock two different files)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

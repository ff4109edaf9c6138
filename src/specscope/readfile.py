"""Reading a file a user names (a scrape, a prompt file, a results CSV, a manifest) without hanging or eating memory.

- Only regular files are read: the path is opened ``O_RDONLY | O_NONBLOCK`` and checked with ``fstat`` before any
  read, so a FIFO never blocks and a device (``/dev/zero``, ``/dev/urandom``) is never read to an end it does not
  have (:class:`NotRegularFile`).
- A byte limit is checked against the size before the read, and the read stops one byte past it, so a file that
  grows meanwhile is still refused (:class:`FileTooLarge`).
- :func:`split_lines` splits text into the records of a line-based format (JSON Lines, Prometheus text,
  CSV): at ``\\n`` only, a trailing ``\\r`` removed (JSON Lines' own rule; ``str.splitlines`` would also split at
  U+2028, U+2029, U+0085, form feed and the other separators Unicode names, which JSON strings may hold raw).

This module imports nothing of specscope (a bottom layer beside :mod:`specscope.fsio`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = [
    "NotRegularFile",
    "FileTooLarge",
    "open_regular_fd",
    "read_error_text",
    "read_limited",
    "read_text_limited",
    "split_lines",
]


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder; ``kind`` says which."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path}: {kind}, not a regular file")
        self.path = path
        self.kind = kind
        self.strerror = f"{kind}, not a regular file"


class FileTooLarge(ValueError):
    """The file holds more than the caller's limit (``size_bytes`` > ``limit_bytes``)."""

    def __init__(self, path: Path, size_bytes: int, limit_bytes: int) -> None:
        super().__init__(f"{path}: {size_bytes:,} bytes, more than the limit of {limit_bytes:,} bytes")
        self.path = path
        self.size_bytes = size_bytes
        self.limit_bytes = limit_bytes


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def open_regular_fd(path: str | os.PathLike[str]) -> int:
    """An ``O_RDONLY | O_NONBLOCK`` descriptor of ``path``, checked with ``fstat`` to be a regular file (the caller
    closes it); a FIFO never blocks the open.

    Raises:
        NotRegularFile: a FIFO, device, socket or folder.
        OSError: missing or unreadable (``FileNotFoundError``, ``PermissionError``, ``IsADirectoryError``).
    """
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegularFile(p, _kind(mode))
    return fd


def read_limited(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them.

    Raises:
        NotRegularFile: a FIFO, device, socket or folder.
        FileTooLarge: more than ``max_bytes`` bytes.
        OSError: missing, unreadable, or a read error.
    """
    p = Path(path)
    fd = open_regular_fd(p)
    try:
        st = os.fstat(fd)
        if st.st_size > max_bytes:
            raise FileTooLarge(p, st.st_size, max_bytes)
        chunks: list[bytes] = []
        got = 0
        while got <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > max_bytes:
            raise FileTooLarge(p, got, max_bytes)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_limited(path: str | os.PathLike[str], max_bytes: int) -> str:
    """:func:`read_limited` decoded as UTF-8; a leading byte-order mark (U+FEFF) is dropped.

    Raises:
        NotRegularFile / FileTooLarge / OSError: see :func:`read_limited`.
        UnicodeDecodeError: not UTF-8.
    """
    return read_limited(path, max_bytes).decode("utf-8-sig")


def read_error_text(exc: OSError | UnicodeDecodeError) -> str:
    """What went wrong reading a file, for the ``found`` of an error a user reads.

    ``a FIFO, not a regular file`` (:class:`NotRegularFile`), ``not UTF-8 text (byte 17)``, or the system's words
    (``No such file or directory``, ``Permission denied``, ``Is a directory``). :class:`FileTooLarge` is not an
    ``OSError``: callers name their own limit and its option.
    """
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return exc.strerror or str(exc)


def split_lines(text: str) -> list[str]:
    """``text`` split at ``\\n`` (a trailing ``\\r`` of each line removed; no empty last line for a final newline)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]

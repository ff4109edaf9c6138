"""Atomic file writing: the one way specscope replaces a file (manifests, reports, configs, drafts).

A new file is written under a hidden temporary name in the *same folder* as the target (so the rename never
crosses a file system), flushed and ``fsync``-ed, then moved into place with :func:`os.replace`, which is atomic
on POSIX and Windows. A reader sees either the old content or the new content, never a partial file. On any
failure (an exception while writing, a full disk, an object ``json`` cannot serialise, a rename refused) the
temporary file is removed and the old file, if any, is left untouched.

A ``path`` that is a symbolic link is replaced by the new file (the link goes, whatever it led to is untouched): a
run folder's own files are never written through a link planted in it (issue 37: files written outside the run
folder). A path the user names to write (``-o FILE``) is written through its links instead, as editors save a linked
file: :func:`link_target` gives the file to replace (issue 37: ``-o FILE`` with FILE a link to ``docs/report.md``
left a regular file where the link was, and the shared file old).

New files get permission bits ``0o644`` (``tempfile.mkstemp`` creates ``0o600``; results are meant to be shared
like any other written file).

This module sits at the bottom of the import layers (next to :mod:`specscope.errors`) and imports nothing of
specscope.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = [
    "FILE_MODE",
    "AtomicFile",
    "open_atomic",
    "write_bytes_atomic",
    "write_text_atomic",
    "write_json_atomic",
    "copy_file_atomic",
    "commit_path",
    "link_target",
    "NotRegularFile",
    "file_kind",
    "special_kind",
]

FILE_MODE = 0o644
"""Permission bits of a file written here."""


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder; ``kind`` says which."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path}: {kind}, not a regular file")
        self.path = path
        self.kind = kind
        self.strerror = f"{kind}, not a regular file"


def file_kind(mode: int) -> str:
    """What a file of ``mode`` (``st_mode``) is, in words: ``a FIFO``, ``a device``, ``a folder``, ``a socket``."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What stands at ``path`` (symlinks followed) when it is neither a regular file nor a folder: ``a FIFO``, ``a
    device``, ``a socket``; None when it is one of those or nothing is there."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else file_kind(mode)


def link_target(path: Path) -> Path:
    """``path``, or the path its symbolic links lead to when it is one (followed to the end, relative links read
    from the link's own folder); a link that leads nowhere gives the path it names. For a path the user names to
    write (``-o FILE``: the file it links to is replaced, the link kept); never for a run folder's own files.

    Raises:
        OSError: ``ELOOP``, the links form a loop.
    """
    if not path.is_symlink():
        return path
    resolved = Path(os.path.realpath(path))
    if resolved.is_symlink():  # realpath stops inside a loop, on a link
        raise OSError(errno.ELOOP, "a symlink loop", str(path))
    return resolved


class AtomicFile:
    """A temporary file beside ``path``, open for binary writing, that :meth:`commit` moves into place.

    The temporary file is named ``.<name>.<random>.tmp`` in ``path``'s folder. :meth:`discard` (or a failing
    :meth:`commit`) deletes it and leaves ``path`` as it was. For writers that stream over several calls
    (surgery's shard writer); a single write uses :func:`open_atomic` or the ``write_*_atomic`` functions.

    Args:
        path: the file to create or replace.
        parents: create missing parent folders first.
        suffix: the temporary name's ending (e.g. ``.gguf.tmp`` for a tool that reads the extension).
    """

    def __init__(self, path: str | os.PathLike[str], *, parents: bool = False, suffix: str = ".tmp") -> None:
        self.path = Path(path)
        kind = special_kind(self.path)
        if kind is not None:  # the rename would put a file where a FIFO, device or socket was (/dev/full, attack48)
            raise NotRegularFile(self.path, kind)
        if parents:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=suffix, dir=self.path.parent)
        self.tmp_path = Path(tmp)
        try:
            self.fh: IO[bytes] = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            self.tmp_path.unlink(missing_ok=True)
            raise

    def commit(self) -> None:
        """Flush, ``fsync``, close and rename over ``path``; on failure the temporary file is removed."""
        try:
            self.fh.flush()
            os.fsync(self.fh.fileno())
            self.fh.close()
            os.chmod(self.tmp_path, FILE_MODE)
            os.replace(self.tmp_path, self.path)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Close and delete the temporary file; ``path`` keeps its old content (safe to call twice)."""
        if not self.fh.closed:
            self.fh.close()
        self.tmp_path.unlink(missing_ok=True)


@contextmanager
def open_atomic(path: str | os.PathLike[str], *, parents: bool = False) -> Iterator[IO[bytes]]:
    """Open a temporary file beside ``path`` for binary writing; on a clean exit it replaces ``path``.

    If the ``with`` body raises (or the flush, ``fsync`` or rename fails) the temporary file is deleted and
    ``path`` keeps its old content (see :class:`AtomicFile`).

    Args:
        path: the file to create or replace.
        parents: create missing parent folders first.
    """
    f = AtomicFile(path, parents=parents)
    try:
        yield f.fh
    except BaseException:
        f.discard()
        raise
    f.commit()


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, parents: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically (see :func:`open_atomic`)."""
    with open_atomic(path, parents=parents) as fh:
        fh.write(data)


def write_text_atomic(path: str | os.PathLike[str], text: str, *, parents: bool = False) -> None:
    """Replace ``path`` with ``text`` encoded as UTF-8, atomically (see :func:`open_atomic`). A lone UTF-16 surrogate
    (a JSON ``"\\ud800"`` read from a file decodes to one) is written as its escape, ``\\ud800``: UTF-8 has no
    bytes for it."""
    data = text.encode("utf-8", "backslashreplace")
    with open_atomic(path, parents=parents) as fh:
        fh.write(data)


def write_json_atomic(
    path: str | os.PathLike[str],
    data: Any,
    *,
    indent: int | None = 2,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    default: Callable[[Any], Any] | None = None,
    parents: bool = False,
) -> None:
    """Replace ``path`` with ``data`` as JSON (``json.dumps`` with these keywords, then a newline), atomically.

    ``data`` is serialised before any file is created, so an object ``json`` cannot encode raises ``TypeError``
    (or ``ValueError``) with nothing written and ``path`` unchanged.
    """
    text = json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii, default=default)
    write_text_atomic(path, text + "\n", parents=parents)


def commit_path(tmp_path: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """Move a finished temporary file written by an outside tool (e.g. ``llama-quantize`` writing to
    :attr:`AtomicFile.tmp_path`) over ``path``: ``fsync``, permission bits :data:`FILE_MODE`, :func:`os.replace`."""
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp_path, FILE_MODE)
    os.replace(tmp_path, path)


def copy_file_atomic(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """Copy the bytes of ``src`` to ``dst`` atomically (``src`` is only read; see :func:`open_atomic`)."""
    with open(src, "rb") as fin, open_atomic(dst) as fout:
        shutil.copyfileobj(fin, fout, length=1 << 20)

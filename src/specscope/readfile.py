"""Reading a file a user names (a scrape, a prompt file, a results CSV, a manifest) without hanging or eating memory.

- Only regular files are read: the path is opened ``O_RDONLY | O_NONBLOCK`` and checked with ``fstat`` before any
  read, so a FIFO never blocks and a device (``/dev/zero``, ``/dev/urandom``) is never read to an end it does not
  have (:class:`NotRegularFile`).
- A byte limit is checked against the size before the read, and the read stops one byte past it, so a file that
  grows meanwhile is still refused (:class:`FileTooLarge`).
- :func:`read_text_maybe_gzip` reads a file that may be gzip-compressed (a trace, a ``--workload`` file), the same
  byte limit on the file and on its decompressed text (:class:`DamagedGzip` when it does not decompress).
- :func:`split_lines` splits text into the records of a line-based format (JSON Lines, Prometheus text,
  CSV): at ``\\n`` only, a trailing ``\\r`` removed (JSON Lines' own rule; ``str.splitlines`` would also split at
  U+2028, U+2029, U+0085, form feed and the other separators Unicode names, which JSON strings may hold raw).
- :func:`toml_loads` is ``tomllib.loads`` for a settings file a user names (a run file, a gate profile, recipes):
  nesting deeper than Python recurses and an integer longer than Python converts (4,300 digits) are a
  ``tomllib.TOMLDecodeError`` like any other malformed TOML, never ``RecursionError`` / ``ValueError`` (exit 3).

- :func:`read_user_file` is the one place a failed read of a file a user names becomes a
  :class:`~specscope.errors.ConfigError` (exit 2): found (the path and what went wrong), expected and fix, each in
  the words of the file's :class:`FileKind`.

This module imports only :mod:`specscope.errors` (the layer just above it).
"""

from __future__ import annotations

import gzip
import io
import os
import shlex
import stat
import tomllib
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

from specscope.errors import ConfigError
from specscope.fsio import NotRegularFile, file_kind, special_kind

__all__ = [
    "NotRegularFile",
    "DamagedGzip",
    "FileKind",
    "FileTooLarge",
    "MAX_LINES",
    "TooManyLines",
    "open_regular_fd",
    "special_kind",
    "read_error_text",
    "not_utf8_text",
    "utf8_conversion",
    "read_limited",
    "settings_or_refuse",
    "read_user_bytes_and_text",
    "read_user_file",
    "gunzip_limited",
    "GZIP_MAGIC",
    "read_text_limited",
    "read_text_maybe_gzip",
    "split_lines",
    "toml_loads",
    "SETTINGS_FILE_MAX_BYTES",
    "SCRAPE_MAX_BYTES",
]

#: the largest settings file read (a run file, a gate profile, a truth-server script): bytes; real ones are a few KiB
SETTINGS_FILE_MAX_BYTES = 4 * 2**20
#: the most bytes one ``/metrics`` scrape may hold, live (``specscope.client.metrics.scrape``) or saved (``counters``
#: files): a vLLM scrape is tens to hundreds of KiB.
SCRAPE_MAX_BYTES = 8 * 2**20


class FileTooLarge(ValueError):
    """The file holds more than the caller's limit (``size_bytes`` > ``limit_bytes``); ``decompressed``: the limit
    was passed by the gunzipped text (decompression stopped there, so ``size_bytes`` is only a lower bound)."""

    def __init__(self, path: Path, size_bytes: int, limit_bytes: int, *, decompressed: bool = False) -> None:
        self.path = path
        self.size_bytes = size_bytes
        self.limit_bytes = limit_bytes
        self.decompressed = decompressed
        super().__init__(f"{path}: {self.found_text}, more than the limit of {limit_bytes:,} bytes")

    @property
    def found_text(self) -> str:
        """``1,234 bytes``, or ``more than 1,000 bytes once decompressed``: the ``found`` of a caller's error."""
        if self.decompressed:
            return f"more than {self.limit_bytes:,} bytes once decompressed"
        return f"{self.size_bytes:,} bytes"


class DamagedGzip(OSError):
    """A file that starts with gzip's magic bytes but does not decompress; ``strerror`` says why."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"{path}: a damaged gzip file ({detail})")
        self.path = path
        self.detail = detail
        self.strerror = f"a damaged gzip file ({detail})"


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
        raise NotRegularFile(p, file_kind(mode))
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


def read_text_maybe_gzip(path: str | os.PathLike[str], max_bytes: int) -> str:
    """The file's text: gunzipped when it starts with gzip's magic bytes (``1f 8b``, RFC 1952; whatever its name),
    decoded as UTF-8, a leading byte-order mark dropped. ``max_bytes`` bounds the file and, separately, its
    decompressed text: decompression stops one byte past it, so a gzip bomb costs at most ``max_bytes + 1`` bytes.

    Raises:
        NotRegularFile / OSError: see :func:`read_limited`. DamagedGzip: a truncated or corrupt gzip stream.
        FileTooLarge: the file, or its decompressed text (``decompressed=True``), holds more than ``max_bytes``.
        UnicodeDecodeError: not UTF-8.
    """
    p = Path(path)
    return gunzip_limited(read_limited(p, max_bytes), p, max_bytes).decode("utf-8-sig")


#: the first two bytes of every gzip stream (RFC 1952)
GZIP_MAGIC = b"\x1f\x8b"


def gunzip_limited(data: bytes, path: Path, max_bytes: int) -> bytes:
    """``data`` (the bytes of ``path``) gunzipped when it starts with gzip's magic bytes (``1f 8b``, RFC 1952), else
    as it is; decompression stops one byte past ``max_bytes`` (a gzip bomb costs at most ``max_bytes + 1`` bytes).

    Raises:
        DamagedGzip: a truncated or corrupt gzip stream. FileTooLarge: more than ``max_bytes`` decompressed.
    """
    if data[:2] != GZIP_MAGIC:
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            data = gz.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise DamagedGzip(path, str(exc)[:120] or type(exc).__name__) from None
    if len(data) > max_bytes:
        raise FileTooLarge(path, len(data), max_bytes, decompressed=True)
    return data


#: the byte-order marks of UTF-16 text (little- and big-endian)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def read_error_text(exc: OSError | UnicodeDecodeError) -> str:
    """What went wrong reading a file, for the ``found`` of an error a user reads.

    ``a FIFO, not a regular file`` (:class:`NotRegularFile`), ``not UTF-8 text (byte 17)`` (UTF-16 named by its
    byte-order mark, with the conversion: it was "byte 0" alone), or the system's words
    (``No such file or directory``, ``Permission denied``, ``Is a directory``). :class:`FileTooLarge` is not an
    ``OSError``: callers name their own limit and its option.
    """
    if isinstance(exc, UnicodeDecodeError):
        return not_utf8_text(exc)
    return exc.strerror or str(exc)


def _legacy_encoding(exc: UnicodeDecodeError) -> str | None:
    """``UTF-16`` (by a byte-order mark), ``cp1252`` (every byte defined in Windows-1252, which Excel's "CSV" and
    Windows tools write), else ``latin1`` (ISO-8859-1 decodes any bytes); None for a decode error of another codec."""
    if not exc.encoding.lower().replace("_", "-").startswith("utf-8"):
        return None
    data = bytes(exc.object)
    if exc.start < 2 and data[:2] in _UTF16_BOMS:  # Windows PowerShell's `>` and Excel's "Unicode text" write these
        return "UTF-16"
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return "latin1"
    return "cp1252"


def _gzipped(exc: UnicodeDecodeError) -> bool:
    """Whether the undecodable text is a gzip stream (its magic bytes ``1f 8b``, RFC 1952, at its start), which a
    reader that takes no gzip was given: it read as Latin-1 text, and the fix said iconv (attack53)."""
    return exc.start < 2 and bytes(exc.object[:2]) == GZIP_MAGIC


#: a ZIP archive's first bytes (a local file header, PKWARE APPNOTE 4.3.7): an Excel .xlsx workbook is one
_ZIP_MAGIC = b"PK\x03\x04"


def _zipped(exc: UnicodeDecodeError) -> bool:
    """Whether the undecodable text is a ZIP archive (an .xlsx workbook, a .zip): it read as CP1252 text, and the fix
    said iconv (imp60)."""
    return bytes(exc.object[:4]) == _ZIP_MAGIC


def not_utf8_text(exc: UnicodeDecodeError) -> str:
    """The words of text that is not UTF-8, by byte offset, with its likely encoding and the conversion:
    ``not UTF-8 text (byte 30: 0xE9, 'é' in CP1252 / Latin-1, as Excel saves a CSV) (iconv -f cp1252 -t utf-8)``;
    UTF-16 by its byte-order mark (both were "not UTF-8 text (byte N)" alone)."""
    where = f"byte {exc.start}"
    if _gzipped(exc):
        return f"not UTF-8 text ({where}): gzip-compressed, by its magic bytes 1F 8B (gunzip it)"
    if _zipped(exc):
        return f"not UTF-8 text ({where}): a ZIP archive, by its magic bytes 50 4B 03 04 (an .xlsx workbook is one)"
    encoding = _legacy_encoding(exc)
    if encoding is None:
        return f"not UTF-8 text ({where})"
    if encoding == "UTF-16":
        mark = bytes(exc.object[:2]).hex(" ").upper()
        return f"not UTF-8 text ({where}): UTF-16, by its byte-order mark {mark} (iconv -f UTF-16 -t UTF-8)"
    byte = bytes(exc.object[exc.start : exc.start + 1])
    char = byte.decode(encoding)
    name = "CP1252 / Latin-1" if encoding == "cp1252" else "Latin-1"
    return (
        f"not UTF-8 text ({where}: 0x{byte.hex().upper()}, {char!r} in {name}, as Excel and other Windows tools "
        f"save text) (iconv -f {encoding} -t utf-8)"
    )


def utf8_conversion(exc: UnicodeDecodeError, path: Path) -> str | None:
    """The command that writes ``path`` as UTF-8 beside it (``iconv -f cp1252 -t utf-8 F.csv > F.utf8.csv``; a
    ``.gz`` file through ``gunzip -c``), for the fix of a file that is not UTF-8; None when no encoding is named."""
    if _gzipped(exc):
        plain = path.with_name(path.name.removesuffix(".gz")) if path.name.endswith(".gz") else path
        out = plain if plain != path else path.with_name(f"{path.stem}.unzipped{path.suffix}")
        return f"decompress it and pass the new file: gunzip -c {shlex.quote(str(path))} > {shlex.quote(str(out))}"
    if _zipped(exc):
        return (
            "pass the tool's own text file, not an archive or workbook (a spreadsheet of its figures is not its file)"
        )
    encoding = _legacy_encoding(exc)
    if encoding is None:
        return None
    plain = path.with_name(path.name.removesuffix(".gz")) if path.name.endswith(".gz") else path
    out = plain.with_name(f"{plain.stem}.utf8{plain.suffix}")
    iconv = f"iconv -f {encoding} -t utf-8"
    if plain is path:
        cmd = f"{iconv} {shlex.quote(str(path))} > {shlex.quote(str(out))}"
    else:
        cmd = f"gunzip -c {shlex.quote(str(path))} | {iconv} > {shlex.quote(str(out))}"
    return f"convert it to UTF-8 and pass the new file: {cmd}"


@dataclass(frozen=True)
class FileKind:
    """The words of a user error about one kind of file (:func:`read_user_file`).

    ``name``: ``the server log`` (``cannot read the server log``, ``the server log is larger than the limit``);
    ``expected`` / ``fix``: of a file that cannot be read; ``limit`` / ``limit_fix``: the ``expected`` / ``fix`` of a
    file above the byte limit (``limit`` unset: ``at most N bytes``); ``too_large``: the words after ``name`` then;
    ``missing``: the message for a file that does not exist (unset: ``cannot read ...`` with the system's words);
    ``folder_fix``: the fix for a folder given for the file (the folder's path in, e.g. the file inside it to pass).
    """

    name: str
    expected: str
    fix: str
    limit_fix: str
    limit: str | None = None
    too_large: str = "is larger than the limit"
    missing: str | None = None
    folder_fix: Callable[[Path], str] | None = None


@overload
def read_user_file(
    path: str | os.PathLike[str], kind: FileKind, max_bytes: int, *, text: Literal[False] = ..., gzip: bool = ...
) -> bytes: ...
@overload
def read_user_file(
    path: str | os.PathLike[str], kind: FileKind, max_bytes: int, *, text: Literal[True], gzip: bool = ...
) -> str: ...
def read_user_file(
    path: str | os.PathLike[str], kind: FileKind, max_bytes: int, *, text: bool = False, gzip: bool = False
) -> bytes | str:
    """The bytes of the regular file a user named (:func:`read_limited`; gunzipped when ``gzip`` and it is gzip,
    :func:`gunzip_limited`), or with ``text`` its UTF-8 text (a byte-order mark dropped); at most ``max_bytes``
    bytes, as a file and once decompressed.

    Raises:
        ConfigError: missing, a folder, a FIFO or device, unreadable, a damaged gzip, not UTF-8 (with ``text``), or
            above ``max_bytes``: each said in ``kind``'s words, ``found`` naming the path and what went wrong.
    """
    data, decoded = _read_user(Path(path), kind, max_bytes, gzip=gzip, decode=text)
    return decoded if decoded is not None else data


def read_user_bytes_and_text(path: str | os.PathLike[str], kind: FileKind, max_bytes: int) -> tuple[bytes, str]:
    """The bytes of the regular file a user named and their UTF-8 text (a byte-order mark dropped), for a caller
    that keeps a digest of the bytes it read; refusals as :func:`read_user_file`'s.

    Raises:
        ConfigError: see :func:`read_user_file`.
    """
    data, text = _read_user(Path(path), kind, max_bytes, gzip=False, decode=True)
    assert text is not None  # decode=True
    return data, text


def _read_user(p: Path, kind: FileKind, max_bytes: int, *, gzip: bool, decode: bool) -> tuple[bytes, str | None]:
    """The one try/except behind :func:`read_user_file`: the bytes, and with ``decode`` their text."""
    try:
        data = read_limited(p, max_bytes)
        if gzip:
            data = gunzip_limited(data, p, max_bytes)
        return data, data.decode("utf-8-sig") if decode else None
    except FileTooLarge as exc:
        raise ConfigError(
            f"{kind.name} {kind.too_large}",
            found=f"{p}: {exc.found_text}",
            expected=kind.limit or f"at most {max_bytes:,} bytes",
            fix=kind.limit_fix,
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        if isinstance(exc, FileNotFoundError) and kind.missing is not None:
            raise ConfigError(kind.missing, found=str(p), expected=kind.expected, fix=kind.fix) from None
        folder = isinstance(exc, NotRegularFile) and exc.kind == "a folder"
        convert = utf8_conversion(exc, p) if isinstance(exc, UnicodeDecodeError) else None
        raise _unreadable(p, kind, read_error_text(exc), folder=folder, fix=convert) from None


def _unreadable(p: Path, kind: FileKind, why: str, *, folder: bool = False, fix: str | None = None) -> ConfigError:
    """The refusal of a file that cannot be read; ``fix``: one for this failure (a file's conversion to UTF-8) in
    place of ``kind``'s own (``check the --workload path`` said nothing of an encoding)."""
    if folder and kind.folder_fix is not None:
        message, fix = f"cannot read {kind.name}: it is a folder", kind.folder_fix(p)
    else:
        message, fix = f"cannot read {kind.name}", fix or kind.fix
    return ConfigError(message, found=f"{p}: {why}", expected=kind.expected, fix=fix)


#: the most lines a line-oriented file is split into: a list of pointers per line costs 8 bytes each and a string per
#: line tens more, so 300 MB of bare newlines (a 300 KB gzip) took minutes and 5.4 GB; counted first, in C
MAX_LINES = 5_000_000


class TooManyLines(ValueError):
    """A text of more than :data:`MAX_LINES` lines (``lines`` counted by newlines)."""

    def __init__(self, lines: int) -> None:
        self.lines = lines
        super().__init__(f"{lines:,} lines, more than the limit of {MAX_LINES:,}")


def split_lines(text: str) -> list[str]:
    """``text`` split at ``\\n`` (a trailing ``\\r`` of each line removed; no empty last line for a final newline).

    Raises:
        TooManyLines: more than :data:`MAX_LINES` newlines (counted before any list is built).
    """
    if (n := text.count("\n")) > MAX_LINES:
        raise TooManyLines(n)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def settings_or_refuse(doc: dict[str, Any], path: str | os.PathLike[str], what: str, fix: str) -> dict[str, Any]:
    """``doc``, a settings file's parsed TOML, when it sets at least one key.

    A file that sets nothing (zero bytes, or comments only: a failed copy, ``/dev/null`` given by mistake) is an
    input nothing in which is recognised, never "the defaults" (issue 37: ``gate --run-file EMPTY`` ran the whole
    default suite).

    Raises:
        ConfigError: ``doc`` is empty; ``what`` names the file's kind (``the run file``), ``fix`` what to do.
    """
    if not doc:
        raise ConfigError(
            f"{what} {os.fspath(path)} sets nothing",
            found="no key (an empty file, or comments only)",
            expected=f"{what} with at least one key",
            fix=fix,
        )
    return doc


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``; nesting too deep or an integer of too many digits is a ``tomllib.TOMLDecodeError``
    (module docstring)."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deep") from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as exc:  # int() of more digits than sys.get_int_max_str_digits()
        raise tomllib.TOMLDecodeError(f"a number that cannot be read ({str(exc)[:80]})") from None

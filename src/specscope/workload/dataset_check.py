"""What a local JSON dataset file must be before the ``datasets`` library is given it (issue 37, D1-D5).

The library's JSON builder hands the file to pyarrow, which crashes the process on some inputs (a ``null`` line: a
segmentation fault), decompresses a gzip bomb whole (a 3 MB ``.jsonl.gz`` holding 1 GiB: 2.6 GB of memory and 1 GB
into its cache), and raises ``UnicodeDecodeError`` from deep inside on a Latin-1 byte. So each ``.json`` /
``.jsonl`` file (gzip-compressed or not, told by its magic bytes) is first read here, streaming, once:

- a regular file only (a FIFO or a device is refused before any read: :func:`specscope.readfile.open_regular_fd`);
- at most :data:`DATASET_MAX_BYTES` of text, decompressed (a larger file, or a bomb, is refused by size);
- a whole gzip stream (a truncated or corrupt one is refused, never read as "interrupted");
- UTF-8 (a leading byte-order mark allowed), each JSON Lines line a JSON object (``.json``: one array of objects),
  nested at most as deep as Python's parser allows (deeper is refused by line, never a crash).

Parquet files are not read here (the library reads their footer first and refuses what is not parquet).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from specscope.errors import ConfigError
from specscope.readfile import GZIP_MAGIC, NotRegularFile, not_utf8_text, open_regular_fd

__all__ = ["DATASET_MAX_BYTES", "LINE_MAX_BYTES", "check_json_file", "check_regular"]

#: the most text (bytes, after decompression) a local JSON / JSON Lines dataset file may hold; the published files
#: specscope reads are a few MiB (Spec-Bench's question.jsonl 0.5 MiB, MT-Bench's 0.1 MiB).
DATASET_MAX_BYTES = 256 * 2**20
#: the longest line of a JSON Lines dataset file: bytes; a row holding a 32k-token prompt is ~150 KiB.
LINE_MAX_BYTES = 16 * 2**20


def _lines(fh: IO[bytes] | gzip.GzipFile, path: Path, label: str, line_max: int) -> Iterator[bytes]:
    """The lines of ``fh`` (decompressed), refusing the file past :data:`DATASET_MAX_BYTES` and a line past
    ``line_max`` bytes."""
    total = 0
    n = 0
    while True:
        line = fh.readline(min(DATASET_MAX_BYTES + 1 - total, line_max + 1))
        if not line:
            return
        n += 1
        total += len(line)
        if len(line) > line_max and not line.endswith(b"\n"):
            raise _refuse(label, path, f"line {n} is longer than {line_max:,} bytes", "rows of at most 16 MiB each")
        if total > DATASET_MAX_BYTES:
            raise ConfigError(
                f"{label}: the dataset file is too large",
                found=f"{path}: more than {DATASET_MAX_BYTES:,} bytes of text (decompressed)",
                expected=f"a dataset file of at most {DATASET_MAX_BYTES // 2**20} MiB of text",
                fix="pass a file holding only the rows to send",
            )
        yield line


def _refuse(label: str, path: Path, found: str, expected: str) -> ConfigError:
    return ConfigError(
        f"{label}: the dataset file cannot be read",
        found=f"{path}: {found}",
        expected=expected,
        fix="fix the line named, or download the file again as published",
    )


def _value(raw: bytes, where: str, label: str, path: Path) -> object:
    """One JSON text decoded and parsed; refused by ``where`` (``line 3``) when it is not UTF-8 JSON."""
    try:
        text = raw.decode("utf-8-sig" if where in ("line 1", "the file") else "utf-8")
    except UnicodeDecodeError as exc:
        raise _refuse(label, path, f"{where} is {not_utf8_text(exc)}", "UTF-8 JSON") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise _refuse(label, path, f"{where} is nested too deep", "rows of a few levels of JSON") from None
    except ValueError as exc:
        raise _refuse(label, path, f"{where} is not JSON ({str(exc)[:120]})", "one JSON object per line") from None


def _check_stream(fh: IO[bytes] | gzip.GzipFile, path: Path, label: str) -> None:
    if path.name.endswith((".json", ".json.gz")):
        data = b"".join(_lines(fh, path, label, DATASET_MAX_BYTES))
        value = _value(data, "the file", label, path)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise _refuse(label, path, f"a JSON {type(value).__name__}", "a JSON array of objects (one per row)")
        return
    for n, raw in enumerate(_lines(fh, path, label, LINE_MAX_BYTES), start=1):
        if not raw.strip():
            continue
        value = _value(raw, f"line {n}", label, path)
        if not isinstance(value, dict):
            shown = "null" if value is None else f"a JSON {type(value).__name__}"
            raise _refuse(label, path, f"line {n} is {shown}", "one JSON object per line (a row)")


def check_regular(path: Path, label: str) -> None:
    """Refuse ``path`` when it exists and is neither a regular file nor a folder (a FIFO, a device, a socket): the
    library would block on it or read it forever.

    Raises:
        ConfigError: naming what the path is.
    """
    try:
        os.close(open_regular_fd(path))
    except NotRegularFile as exc:
        if exc.kind != "a folder":
            raise _refuse(label, path, exc.kind, "a regular file") from None
    except OSError:
        return  # missing or unreadable: the caller's own error names it


def check_json_file(path: Path, label: str) -> None:
    """Read ``path`` (a ``.json``/``.jsonl`` dataset file, gzip-compressed or not) once and refuse what the
    ``datasets`` library must never be given; ``label`` names the dataset in the error (``spec-bench``).

    Raises:
        ConfigError: not a regular file, unreadable, a damaged gzip stream, too large, not UTF-8, a line that is not
            a JSON object (``null``, an array, nested too deep) -- each naming the file and the line.
    """
    try:
        fd = open_regular_fd(path)
    except NotRegularFile as exc:
        raise _refuse(label, path, exc.kind, "a regular file") from None
    except OSError as exc:
        raise _refuse(label, path, exc.strerror or str(exc), "a readable file") from None
    with os.fdopen(fd, "rb") as raw:
        gzipped = raw.peek(2)[:2] == GZIP_MAGIC
        try:
            if gzipped:
                with gzip.GzipFile(fileobj=raw) as gz:
                    _check_stream(gz, path, label)
            else:
                _check_stream(raw, path, label)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            detail = str(exc)[:120] or type(exc).__name__
            raise _refuse(label, path, f"a damaged gzip file ({detail})", "a whole .gz file") from None
        except OSError as exc:
            raise _refuse(label, path, exc.strerror or str(exc), "a readable file") from None

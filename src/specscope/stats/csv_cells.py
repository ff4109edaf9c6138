"""Cells measured elsewhere, from a CSV (``advise --from-csv FILE``), e.g. a table posted in an engine's PR.

Columns (header row, any order; RFC 4180 CSV read with the standard ``csv`` module):

- ``config``, ``workload``: names; ``concurrency`` (streams in flight, integer >= 1), ``repeat`` (integer >= 0;
  without the column every row is repeat 0, as a published table with one measurement per cell);
- ``output_tok_s``: the cell's aggregate output rate (tokens/s, > 0);
- optional ``acceptance`` (accepted / draft tokens, 0..1) and ``stream_tok_s`` (per-stream rates in tokens/s,
  separated by ``;`` or spaces).

Column names are read without case or surrounding spaces (``Config`` is ``config``). Each row becomes an ``ok``
:class:`~specscope.stats.summary.CellSummary`; figures the CSV does not carry are ``None`` / empty, never invented. Two
rows of one config x workload x concurrency x repeat are refused, both lines named (one would silently replace the
other).

Bounds (issue 29): the file is a regular UTF-8 file (a BOM is dropped) of at most :data:`MAX_CSV_BYTES`, each
field at most :data:`MAX_FIELD_CHARS` characters (``csv``'s own limit, 131,072, which it raises as ``_csv.Error``),
every number finite (``nan`` / ``inf`` parse as floats but are no measurement) and within its range; anything else is a
:class:`~specscope.errors.ConfigError` naming the file, line and column.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from specscope.errors import ConfigError
from specscope.readfile import FileTooLarge, read_error_text, read_text_limited
from specscope.stats.summary import CellSummary

__all__ = ["read_cells_csv", "REQUIRED_COLUMNS", "MAX_CSV_BYTES", "MAX_FIELD_CHARS"]

REQUIRED_COLUMNS = ("config", "workload", "concurrency", "repeat", "output_tok_s")
#: the largest results CSV read (bytes): a table of cells is kilobytes.
MAX_CSV_BYTES = 64 * 2**20
#: the longest field (characters): the csv module's own limit (a field of per-stream rates for 1,024 streams is
#: ~10,000 characters).
MAX_FIELD_CHARS = csv.field_size_limit()


def _bad(path: Path, line: int, column: str, value: str, expected: str) -> ConfigError:
    return ConfigError(
        f"bad {column} in the CSV",
        found=f"{path}:{line}: {column}={value!r}",
        expected=expected,
        fix="correct that cell of the CSV",
    )


def _row(path: Path, line: int, row: dict[str, str]) -> CellSummary:
    def num(col: str, kind: type, lo: float, expected: str) -> float:
        raw = (row.get(col) or "").strip()
        try:
            v: float = kind(raw)
        except ValueError:
            raise _bad(path, line, col, raw, expected) from None
        if not math.isfinite(v) or v < lo or v > 1e15:
            raise _bad(path, line, col, raw, expected + " (finite)")
        return v

    rate = num("output_tok_s", float, 1e-12, "tokens/s > 0")
    acc_raw = (row.get("acceptance") or "").strip()
    acc = num("acceptance", float, 0.0, "a rate in 0..1") if acc_raw else None
    if acc is not None and acc > 1:
        raise _bad(path, line, "acceptance", acc_raw, "a rate in 0..1")
    streams_raw = (row.get("stream_tok_s") or "").replace(";", " ").split()
    try:
        streams = tuple(sorted(float(x) for x in streams_raw))
    except ValueError:
        raise _bad(path, line, "stream_tok_s", row.get("stream_tok_s") or "", "tokens/s separated by ;") from None
    if not all(math.isfinite(x) and x > 0 for x in streams):
        raise _bad(path, line, "stream_tok_s", row.get("stream_tok_s") or "", "finite tokens/s > 0 separated by ;")
    return CellSummary(
        config=(row.get("config") or "").strip(),
        workload=(row.get("workload") or "").strip(),
        concurrency=int(num("concurrency", int, 1, "an integer >= 1")),
        repeat=int(num("repeat", int, 0, "an integer >= 0")),
        status="ok",
        reasons=(),
        streams=len(streams),
        streams_ok=len(streams),
        output_tokens=0,
        token_source="missing",
        duration_s=0.0,
        output_tok_s=rate,
        stream_tok_s=streams,
        ttft_p50_s=None,
        ttft_p95_s=None,
        tpot_p50_s=None,
        achieved_concurrency=None,
        acceptance_rate=acc,
        acceptance_length=None,
        acceptance_per_position=(),
        acceptance_source=None if acc is None else "csv",
        counters=None,
        server_generation_tokens=None,
    )


def _read(path: Path) -> str:
    """The CSV's text (see the module doc's bounds).

    Raises:
        ConfigError: not a readable regular file, too large, or not UTF-8.
    """
    try:
        return read_text_limited(path, MAX_CSV_BYTES)
    except FileTooLarge as exc:
        raise ConfigError(
            "the CSV is larger than the limit",
            found=f"{path}: {exc.size_bytes:,} bytes",
            expected=f"at most {MAX_CSV_BYTES:,} bytes",
            fix="pass a CSV of cells (one row per cell)",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "cannot read the CSV", found=f"{path}: {read_error_text(exc)}", expected="a readable UTF-8 CSV file"
        ) from None


def _duplicate(path: Path, first: int, again: int, key: tuple[str, str, int, int]) -> ConfigError:
    config, workload, concurrency, repeat = key
    return ConfigError(
        "two rows measure the same cell",
        found=f"{path}:{first} and {path}:{again}: config={config}, workload={workload}, concurrency={concurrency}, "
        f"repeat={repeat}",
        expected="one row per config x workload x concurrency x repeat",
        fix="number repeated measurements in the repeat column (0, 1, ...), or remove the duplicate row",
    )


def read_cells_csv(path: Path) -> list[CellSummary]:
    """The cells of a results CSV (columns in the module doc).

    Raises:
        ConfigError: unreadable file, a missing column, a bad value (named with its line), or no rows.
    """
    text = _read(path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:  # the csv module's errors: a field past its limit, a NUL byte
        reader.fieldnames = [f.strip().lower() for f in reader.fieldnames or ()]
        missing = [c for c in REQUIRED_COLUMNS if c not in reader.fieldnames and c != "repeat"]
        if missing:
            raise ConfigError(
                "the CSV lacks a required column",
                found=f"{path}: columns {', '.join(reader.fieldnames or ()) or '(none)'}",
                expected=", ".join(REQUIRED_COLUMNS) + " (repeat may be left out; optional: acceptance, stream_tok_s)",
                fix=f"add the column {missing[0]!r} to the header row",
            )
        cells: list[CellSummary] = []
        first_line: dict[tuple[str, str, int, int], int] = {}
        for row in reader:
            row.setdefault("repeat", "0")
            cell = _row(path, reader.line_num, row)
            key = (cell.config, cell.workload, cell.concurrency, cell.repeat)
            if key in first_line:
                raise _duplicate(path, first_line[key], reader.line_num, key)
            first_line[key] = reader.line_num
            cells.append(cell)
    except csv.Error as exc:
        raise ConfigError(
            "the CSV cannot be parsed",
            found=f"{path}:{reader.line_num + 1}: {exc}",  # the line being parsed is not counted yet
            expected=f"RFC 4180 CSV, each field at most {MAX_FIELD_CHARS:,} characters",
            fix="correct that line of the CSV",
        ) from None
    if not cells:
        raise ConfigError("the CSV has no rows", found=str(path), expected="one row per cell under the header")
    return cells

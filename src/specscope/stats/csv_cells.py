"""Cells measured elsewhere, from a CSV (``advise --from-csv FILE``), e.g. a table posted in an engine's PR.

Columns (header row, any order; RFC 4180 CSV read with the standard ``csv`` module):

- ``config``: a name; ``concurrency`` (streams in flight, integer >= 1);
- ``workload``: a name; without the column every row is workload :data:`ONE_WORKLOAD` (a table of one traffic);
- ``repeat`` (integer >= 0): without the column every row is repeat 0, as a published table with one measurement
  per cell;
- ``output_tok_s``: the cell's aggregate output rate (tokens/s, > 0);
- optional ``acceptance`` (accepted / draft tokens, 0..1), ``acceptance_length`` (tokens per verify step, bonus
  token included, >= 1) and ``stream_tok_s`` (per-stream rates in tokens/s, separated by ``;`` or spaces).

Column names are read without case, surrounding spaces, or the difference between spaces, ``-`` and ``_``
(``Output tok/s`` is ``output_tok/s``). The names published tables use are read as their column
(:data:`SYNONYMS`: ``method`` as ``config``, ``batch_size`` as ``concurrency``, ``output_throughput`` and ``tok/s``
as ``output_tok_s``, ``acceptance_rate`` as ``acceptance``...; ``throughput`` only with a token-rate unit,
:data:`BY_UNIT`), each said in a note; a ``model`` column (:data:`MODEL_COLUMNS`) of several targets makes each
target's rows workloads of their own (``MODEL/WORKLOAD``); a column read as none of them is
named in a note too (``COLUMN_NOT_READ``), never silently dropped. Each row becomes an ``ok``
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
import re
from pathlib import Path

from specscope.errors import ConfigError
from specscope.readfile import FileKind, read_user_file
from specscope.records import finite_float
from specscope.stats.summary import CellSummary

__all__ = [
    "read_cells_csv",
    "read_cells_csv_noted",
    "REQUIRED_COLUMNS",
    "OPTIONAL_COLUMNS",
    "SYNONYMS",
    "ONE_WORKLOAD",
    "MAX_CSV_BYTES",
    "MAX_FIELD_CHARS",
]

REQUIRED_COLUMNS = ("config", "workload", "concurrency", "repeat", "output_tok_s")
OPTIONAL_COLUMNS = ("acceptance", "acceptance_length", "stream_tok_s")
#: the workload of every row of a CSV without a ``workload`` column.
ONE_WORKLOAD = "all"
#: a published table's column name (normalised: lower case, spaces and ``-`` as ``_``) -> the column it is read as.
#: Only names with one meaning: ``throughput`` alone (requests or tokens?) and ``acceptance`` figures of unknown
#: kind are not guessed.
SYNONYMS: dict[str, str] = {
    "method": "config",
    "max_concurrency": "concurrency",
    "batch_size": "concurrency",
    "bs": "concurrency",
    "streams": "concurrency",
    "scenario": "workload",
    "dataset": "workload",
    "output_throughput": "output_tok_s",
    "output_tokens_per_s": "output_tok_s",
    "output_tok/s": "output_tok_s",
    "tok/s": "output_tok_s",
    "tokens/s": "output_tok_s",
    "acceptance_rate": "acceptance",
    "accept_rate": "acceptance",
    "draft_acceptance_rate": "acceptance",
    "mean_acceptance_length": "acceptance_length",
    "accept_length": "acceptance_length",
    "accept_len": "acceptance_length",
    # the labels `vllm bench serve` and SGLang's bench_serving print ("Output token throughput (tok/s):",
    # "Maximum request concurrency:", "Accept length:"), a unit in brackets read by :data:`UNITS`
    "output_token_throughput": "output_tok_s",
    "maximum_request_concurrency": "concurrency",
    "max_request_concurrency": "concurrency",
    "request_concurrency": "concurrency",
}
#: the units a column may name in brackets at the end of its header (``Output token throughput (tok/s)``,
#: ``Acceptance rate [%]``) -> the factor to the column's own unit. A unit not listed (``tok/s/user``, ``ms``) leaves
#: the column not read, named as such: it is not the figure the column holds.
UNITS: dict[str, dict[str, float]] = {
    "output_tok_s": {"tok/s": 1.0, "tokens/s": 1.0, "token/s": 1.0, "tok/sec": 1.0, "tokens/sec": 1.0},
    "stream_tok_s": {"tok/s": 1.0, "tokens/s": 1.0, "token/s": 1.0, "tok/sec": 1.0, "tokens/sec": 1.0},
    "acceptance": {"%": 0.01, "0..1": 1.0},
    "acceptance_length": {"tokens": 1.0, "tok": 1.0, "tokens/step": 1.0},
}
#: names too vague alone (requests or tokens per second?) that a token-rate unit in brackets makes one figure:
#: ``Throughput (tokens/s)`` is read as output_tok_s, ``Throughput (req/s)`` is not read. A table whose rate counts
#: prompt tokens too says so in its name (``Total token throughput``), which is not read.
BY_UNIT: dict[str, str] = {"throughput": "output_tok_s", "token_throughput": "output_tok_s", "speed": "output_tok_s"}
#: the column naming the target model of a row. A table of several targets (one baseline per target, as a paper's
#: table of model x method) is read as one workload per target and workload, ``MODEL/WORKLOAD``, so no comparison
#: crosses two targets; a single target is named in a note.
MODEL_COLUMNS = ("model", "target", "target_model", "base_model", "model_name")
_UNIT = re.compile(r"^(.*?)\s*[(\[]\s*([^()\[\]]+?)\s*[)\]]$")
#: the largest results CSV read (bytes): a table of cells is kilobytes.
MAX_CSV_BYTES = 64 * 2**20
#: the longest field (characters): the csv module's own limit (a field of per-stream rates for 1,024 streams is
#: ~10,000 characters).
MAX_FIELD_CHARS = csv.field_size_limit()
#: the unread columns a COLUMN_NOT_READ note names; past them it gives their count (a header of 100,000 made a note
#: of 100,000 names).
MAX_UNREAD_LISTED = 20


def _bad(path: Path, line: int, column: str, value: str, expected: str) -> ConfigError:
    return ConfigError(
        f"bad {column} in the CSV",
        found=f"{path}:{line}: {column}={value!r}",
        expected=expected,
        fix="correct that cell of the CSV",
    )


def _row(path: Path, line: int, row: dict[str, str | None], scales: dict[str, float]) -> CellSummary:
    def num(col: str, kind: type, lo: float, expected: str) -> float:
        raw = (row.get(col) or "").strip()
        try:
            v = finite_float(kind(raw))  # None: NaN, an infinity, or an integer past a float (400 digits)
        except ValueError:
            raise _bad(path, line, col, raw, expected) from None
        if v is None or v < lo or v > 1e15:
            raise _bad(path, line, col, raw, expected + " (finite)")
        return v

    rate = num("output_tok_s", float, 1e-12, "tokens/s > 0") * scales.get("output_tok_s", 1.0)
    acc_raw = (row.get("acceptance") or "").strip()
    per_cent = scales.get("acceptance", 1.0) != 1.0
    in_range = "a rate in 0..100 (the column is in %)" if per_cent else "a rate in 0..1"
    acc = num("acceptance", float, 0.0, in_range) * scales.get("acceptance", 1.0) if acc_raw else None
    if acc is not None and acc > 1:
        raise _bad(path, line, "acceptance", acc_raw, in_range)
    length_raw = (row.get("acceptance_length") or "").strip()
    length = num("acceptance_length", float, 1.0, "tokens per verify step >= 1") if length_raw else None
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
        acceptance_length=length,
        acceptance_per_position=(),
        acceptance_source=None if acc is None and length is None else "csv",
        counters=None,
        server_generation_tokens=None,
    )


#: a results CSV's words in a user error (:func:`specscope.readfile.read_user_file`)
_CSV_FILE = FileKind(
    "the CSV",
    expected="a readable UTF-8 CSV file",
    fix="pass a readable UTF-8 CSV file of cells (one row per cell), e.g. --from-csv results.csv",
    limit_fix="pass a CSV of cells (one row per cell)",
    folder_fix=lambda folder: f"pass the CSV file inside it, e.g. --from-csv {folder / 'results.csv'}",
)


def _duplicate(path: Path, first: int, again: int, key: tuple[str, str, int, int]) -> ConfigError:
    config, workload, concurrency, repeat = key
    return ConfigError(
        "two rows measure the same cell",
        found=f"{path}:{first} and {path}:{again}: config={config}, workload={workload}, concurrency={concurrency}, "
        f"repeat={repeat}",
        expected="one row per config x workload x concurrency x repeat",
        fix="number repeated measurements in the repeat column (0, 1, ...), or remove the duplicate row",
    )


def _columns(path: Path, header: list[str]) -> tuple[list[str], list[str], dict[str, float]]:
    """The header's names as read (normalised, synonyms resolved, a bracketed unit read by :data:`UNITS`), the notes
    saying what was renamed or not read, and each column's factor to its own unit (``{"acceptance": 0.01}``).

    Raises:
        ConfigError: a required column missing, or two columns read as the same one.
    """
    known = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
    names: list[str] = []
    first_raw: dict[str, str] = {}  # name -> the header that gave it first (a set look-up: a list was O(columns^2))
    notes: list[str] = []
    unread: list[str] = []
    scales: dict[str, float] = {}
    for raw in header:
        norm, unit = _name_and_unit(raw)
        name = SYNONYMS.get(norm, norm)
        if norm in BY_UNIT and unit.lower() in UNITS[BY_UNIT[norm]]:
            name = BY_UNIT[norm]
        if norm in MODEL_COLUMNS:
            name = "model"
        factor = UNITS.get(name, {}).get(unit.lower()) if unit else 1.0
        if factor is None:  # a unit that is not the column's: another figure, not read
            name, norm, unit = raw.strip(), raw.strip(), ""
        if factor is not None and factor != 1.0:
            scales[name] = factor
            notes.append(f"{path.name}: column {raw.strip()!r} read as {name} (x {factor:g})")
        elif name != norm or unit:
            notes.append(f"{path.name}: column {raw.strip()!r} read as {name}")
        elif name not in known and name != "model":
            unread.append(raw.strip())
        if name in first_raw:
            first = first_raw[name]
            raise ConfigError(
                "two columns of the CSV mean the same figure",
                found=f"{path}: {first!r} and {raw.strip()!r}, both read as {name}",
                expected="one column per figure",
                fix=f"remove or rename one of them (the columns read: {', '.join(known)})",
            )
        names.append(name)
        first_raw[name] = raw.strip()
    if unread:
        listed = ", ".join(repr(u) for u in unread[:MAX_UNREAD_LISTED])
        if len(unread) > MAX_UNREAD_LISTED:
            listed += f" and {len(unread) - MAX_UNREAD_LISTED:,} more"
        notes.append(f"COLUMN_NOT_READ({path.name}: {listed}; read: {', '.join(known)})")
    missing = [c for c in REQUIRED_COLUMNS if c not in names and c not in ("repeat", "workload")]
    if missing:
        raise ConfigError(
            "the CSV lacks a required column",
            found=f"{path}: columns {', '.join(h.strip() for h in header) or '(none)'}",
            expected=", ".join(REQUIRED_COLUMNS)
            + " (workload and repeat may be left out; optional: "
            + ", ".join(OPTIONAL_COLUMNS)
            + ")",
            fix=f"add the column {missing[0]!r} to the header row",
        )
    if "workload" not in names:
        notes.append(f"{path.name}: no workload column: every row is workload {ONE_WORKLOAD!r}")
    return names, notes, scales


def _name_and_unit(raw: str) -> tuple[str, str]:
    """A header's name, normalised (lower case, spaces, ``-`` and ``_`` as one ``_``), and the unit it names in
    brackets at its end (``""`` when none): ``"Output token throughput (tok/s)"`` -> ``("output_token_throughput",
    "tok/s")``. A bracketed name with nothing before it is kept whole."""
    m = _UNIT.match(raw.strip())
    name, unit = (m.group(1), m.group(2)) if m and m.group(1).strip() else (raw, "")
    return "_".join(name.strip().lower().replace("-", " ").replace("_", " ").split()), unit.strip()


def _wide_columns(header: list[str]) -> dict[int, str]:
    """The columns of a table with one config per column (``Concurrency, Baseline (tok/s), EAGLE3 (tok/s)``), by
    index -> the config each names; empty for a table of one row per cell. Wide means: no column is read as
    ``config``, and at least two are ``NAME (token rate)`` whose NAME is no column of their own."""
    if any(SYNONYMS.get(n, n) == "config" for n, _ in map(_name_and_unit, header)):
        return {}
    known = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
    wide = {}
    for i, raw in enumerate(header):
        norm, unit = _name_and_unit(raw)
        if unit.lower() in UNITS["output_tok_s"] and SYNONYMS.get(norm, norm) not in known and norm not in BY_UNIT:
            wide[i] = _UNIT.match(raw.strip()).group(1).strip()  # type: ignore[union-attr]  # a unit was matched
    return wide if len(wide) >= 2 else {}


def read_cells_csv(path: Path) -> list[CellSummary]:
    """The cells of a results CSV (columns in the module doc); :func:`read_cells_csv_noted` gives the notes too."""
    return read_cells_csv_noted(path)[0]


def read_cells_csv_noted(path: Path) -> tuple[list[CellSummary], list[str]]:
    """The cells of a results CSV (columns in the module doc) and the notes on how its header was read.

    Raises:
        ConfigError: unreadable file, a missing column, a bad value (named with its line), or no rows.
    """
    text = read_user_file(path, _CSV_FILE, MAX_CSV_BYTES, text=True)  # the module doc's bounds
    reader = csv.reader(io.StringIO(text, newline=""))
    notes: list[str] = []
    try:  # the csv module's errors: a field past its limit, a NUL byte
        header = next(reader, [])
        wide = _wide_columns(header)
        kept = [h for i, h in enumerate(header) if i not in wide]
        names, notes, scales = _columns(path, kept + (["config", "output_tok_s"] if wide else []))
        if wide:
            notes.insert(
                0,
                f"{path.name}: one config per column: "
                + ", ".join(f"{header[i].strip()!r} read as {cfg}'s output_tok_s" for i, cfg in wide.items()),
            )
        rows: list[tuple[dict[str, str | None], int]] = []  # each row with its line (a quoted field may span lines)
        for fields in reader:
            if not fields:
                continue  # a blank line, as csv.DictReader skips it
            padded = [*fields, *[None] * (len(header) - len(fields))]
            row = dict(zip(names, [f for i, f in enumerate(padded) if i not in wide], strict=False))
            if not wide:
                rows.append((row, reader.line_num))
            for i, cfg in wide.items():
                rows.append(({**row, "config": cfg, "output_tok_s": padded[i]}, reader.line_num))
        models = sorted({(r.get("model") or "").strip() for r, _ in rows}) if "model" in names else []
        if len(models) > 1:
            notes.append(
                f"{path.name}: {len(models)} target models ({', '.join(models)}): each target's rows are workloads "
                "of their own, MODEL/WORKLOAD, so no comparison crosses two targets"
            )
        elif models:
            notes.append(f"{path.name}: one target model, {models[0]!r}")
        cells: list[CellSummary] = []
        first_line: dict[tuple[str, str, int, int], int] = {}
        for row, line in rows:
            row.setdefault("repeat", "0")
            row.setdefault("workload", ONE_WORKLOAD)
            if len(models) > 1:
                row["workload"] = f"{(row.get('model') or '').strip()}/{(row.get('workload') or '').strip()}"
            cell = _row(path, line, row, scales)
            key = (cell.config, cell.workload, cell.concurrency, cell.repeat)
            if key in first_line:
                raise _duplicate(path, first_line[key], line, key)
            first_line[key] = line
            cells.append(cell)
    except csv.Error as exc:
        raise ConfigError(
            "the CSV cannot be parsed",
            found=f"{path}:{reader.line_num}: {exc}",  # csv.reader counts a line before it parses it
            expected=f"RFC 4180 CSV, each field at most {MAX_FIELD_CHARS:,} characters",
            fix="correct that line of the CSV",
        ) from None
    if not cells:
        raise ConfigError("the CSV has no rows", found=str(path), expected="one row per cell under the header")
    return cells, notes

"""Timed request traces (``--trace FILE``): arrival offsets, input lengths (or text) and output lengths, replayed
open loop on the trace's own clock (:mod:`specscope.bench.trace_cell`).

Formats, told apart by their columns (the first record's keys, or a CSV header):

* ``specscope`` (JSONL): ``arrival_s`` (s from the trace's start, float), ``input_tokens`` (int) or ``text``
  (str, sent as the user message), ``output_tokens`` (int >= 1);
* ``mooncake`` (JSONL; kvcache-ai/Mooncake ``FAST25-release/traces/*.jsonl`` @9fbd6222, as AIPerf's
  ``MooncakeTrace`` reads it): ``timestamp`` (ms, int), ``input_length`` (tokens) or ``text_input`` (str),
  ``output_length`` (tokens), ``hash_ids`` (one id per 512-token block of the prompt, equal ids = a shared prefix;
  optional);
* ``azure`` (CSV; Azure/AzurePublicDataset ``AzureLLMInferenceTrace_{conv,code}.csv`` (2023) and the 2024
  ``_1week`` files): ``TIMESTAMP`` (``YYYY-MM-DD HH:MM:SS[.f...]`` with up to 9 fraction digits or none, and an
  optional UTC offset ``+00:00`` as the 2024 files write it; read exactly to the ns, an offset applied),
  ``ContextTokens``, ``GeneratedTokens``;
* ``burstgpt`` (CSV; HPMLL/BurstGPT ``BurstGPT_*.csv``, README @e92f533): ``Timestamp`` (s from the first day's
  0:00, float), ``Request tokens``, ``Response tokens``; ``Model``, ``Total tokens``, ``Log Type`` and the later
  releases' ``Session ID``, ``Elapsed time`` are ignored (every model's arrivals are the load).

Files may be gzip-compressed (read by their magic bytes, any name) and may start with a UTF-8 byte-order mark; CSV
rows may end in CRLF. A row that generated nothing (output 0: BurstGPT's failed requests, and such rows of the
Azure traces) is not a request to replay: it is refused by line (kind ``zero_output``), kept in
:attr:`Trace.refused` and the run's manifest, never silently dropped; so is a row with input 0 (``zero_input``).

Offsets are taken from the earliest arrival; rows are replayed in arrival order (a file out of order is sorted,
stably, and the trace says so). A malformed row is an error naming ``FILE:LINE``; so is an arrival that is not a
finite number >= 0 or lies beyond :data:`MAX_ARRIVAL_NS` (2**63 - 1 ns, about 292 years: every instant is an
int64 of ns, and an epoch-second or epoch-millisecond stamp fits). How long a replay may span is the bench's bound
(:data:`MAX_REPLAY_SPAN_S`).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope import strictjson
from specscope.errors import ConfigError
from specscope.readfile import FileKind, read_user_file
from specscope.workload.census import BAILIAN_FIELDS, BAILIAN_REFUSAL
from specscope.workload.prompt import file_lines, is_int_in

__all__ = [
    "TraceRequest",
    "Trace",
    "TRACE_FORMATS",
    "TraceLayout",
    "TRACE_LAYOUTS",
    "MAX_ARRIVAL_NS",
    "MAX_REPLAY_SPAN_S",
    "MOONCAKE_BLOCK_TOKENS",
    "load_trace",
]

TRACE_FORMATS = ("specscope", "mooncake", "azure", "burstgpt")
#: Tokens per ``hash_ids`` block of a Mooncake trace (its release's block size; AIPerf's default too).
MOONCAKE_BLOCK_TOKENS = 512


@dataclass(frozen=True)
class TraceLayout:
    """One trace layout as docs/workloads.md's Traces table shows it (generated from :data:`TRACE_LAYOUTS`).

    Attributes:
        format: the format name (one of :data:`TRACE_FORMATS`) and its file form.
        source: where the layout was read, with its revision.
        columns: the columns read, with their units.
        test: the node id of a test replaying a file of this layout through ``bench --trace``.
    """

    format: str
    source: str
    columns: str
    test: str


_REPLAY = "tests/integration/test_trace_replay.py::"
#: The layouts ``--trace`` reads, in the order :func:`_format_of` is documented.
TRACE_LAYOUTS: tuple[TraceLayout, ...] = (
    TraceLayout("specscope (JSONL)", "this project", "`arrival_s` (s), `input_tokens` or `text`, `output_tokens`",
                _REPLAY + "test_each_trace_layout_of_the_table_is_replayed[specscope]"),
    TraceLayout(
        "mooncake (JSONL)",
        "kvcache-ai/Mooncake `FAST25-release/traces/*.jsonl` @9fbd6222, as AIPerf's `MooncakeTrace` reads it",
        f"`timestamp` (ms), `input_length` or `text_input`, `output_length`, `hash_ids` (one per "
        f"{MOONCAKE_BLOCK_TOKENS}-token block; equal leading ids = shared prefix)",
        _REPLAY + "test_trace_is_replayed_on_its_own_clock_with_its_lengths",
    ),
    TraceLayout(
        "azure (CSV)",
        "Azure/AzurePublicDataset `AzureLLMInferenceTrace_{conv,code}.csv` (2023) and `_1week` (2024)",
        "`TIMESTAMP` (`2023-11-16 18:15:46.6805900`; the 2024 files: `2024-05-10 00:00:00.009930+00:00`, no fraction "
        "on a whole second; read exactly to the ns, a UTC offset applied), `ContextTokens`, `GeneratedTokens`",
        _REPLAY + "test_each_trace_layout_of_the_table_is_replayed[azure-2024]",
    ),
    TraceLayout(
        "burstgpt (CSV)",
        "HPMLL/BurstGPT `BurstGPT_*.csv` (README @e92f533; 6 columns, or 8 with `Session ID`, `Elapsed time`)",
        "`Timestamp` (s from the first day's 0:00), `Request tokens`, `Response tokens` (0 = a failed request); "
        "`Model`, `Total tokens`, `Log Type` ignored (every model's arrivals are the load)",
        _REPLAY + "test_burstgpt_csv_replays_its_good_rows_and_reports_the_failed_one",
    ),
)  # fmt: skip
_MAX_BYTES = 2 << 30
#: a trace file's words in a user error (:func:`specscope.readfile.read_user_file`)
_TRACE_FILE = FileKind(
    "the trace file",
    expected="a UTF-8 trace file (JSONL or CSV), gzip-compressed or not",
    fix="pass the trace file itself",
    limit_fix="cut the trace to the rows to replay (head -n N)",
    missing="trace file not found",
)
#: the latest arrival a row may give (ns from the trace's clock origin): the int64 range.
MAX_ARRIVAL_NS = 2**63 - 1
#: the longest replay (s, after --trace-scale and --trace-rows): 8 days, above the longest public trace (Azure's
#: 2024 week-long LLM inference trace spans under 7 days).
MAX_REPLAY_SPAN_S = 8 * 86400.0


@dataclass(frozen=True)
class TraceRequest:
    """One request of a trace.

    Attributes:
        line: 1-based line of the file (CSV: counting the header).
        offset_ns: arrival after the trace's earliest request (ns, before any time scale).
        input_tokens: the prompt's length in tokens (None when the row gives ``text``).
        text: the prompt itself (None when the row gives a length).
        output_tokens: tokens to generate (``max_tokens``, sent with ``ignore_eos``).
        hash_ids: Mooncake prefix blocks (empty: none).
    """

    line: int
    offset_ns: int
    input_tokens: int | None
    text: str | None
    output_tokens: int
    hash_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Trace:
    """A loaded trace: its file, format, SHA-256, the requests in arrival order, whether the file was sorted, and
    the rows refused (``{"row": "line N", "kind": "zero_output"|"zero_input", "reason"}``, file order)."""

    path: str
    format: str
    sha256: str
    requests: tuple[TraceRequest, ...]
    rows_total: int
    reordered: bool
    refused: tuple[dict[str, str], ...] = ()

    def span_s(self) -> float:
        """Last arrival offset, s (before any time scale)."""
        return self.requests[-1].offset_ns / 1e9 if self.requests else 0.0

    def provenance(self, scale: float, rows: int | None) -> dict[str, Any]:
        """What the run manifest records of the replay."""
        return {
            "path": self.path,
            "format": self.format,
            "sha256": self.sha256,
            "rows_total": self.rows_total,
            "rows_used": len(self.requests) if rows is None else min(rows, len(self.requests)),
            "time_scale": scale,
            "reordered": self.reordered,
            "span_s": self.span_s(),
            "rows_refused": [dict(r) for r in self.refused],
        }


def _bad(path: Path, line: int, found: object, expected: str) -> ConfigError:
    return ConfigError(
        f"{path}:{line}: not a trace row", found=found, expected=expected, fix="fix that line of the trace"
    )


def _count(path: Path, line: int, rec: dict[str, Any], key: str, low: int) -> int:
    v = rec.get(key)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not is_int_in(v, low):
        raise _bad(path, line, f"{key}={v!r}", f"{key} an integer >= {low}")
    assert isinstance(v, int)
    return v


#: format -> (arrival column, input-length column, output-length column) as each source names them.
_COLUMNS = {
    "specscope": ("arrival_s", "input_tokens", "output_tokens"),
    "mooncake": ("timestamp", "input_length", "output_length"),
    "azure": ("TIMESTAMP", "ContextTokens", "GeneratedTokens"),
    "burstgpt": ("Timestamp", "Request tokens", "Response tokens"),
}
_EXPECTED = (
    "specscope (arrival_s, input_tokens|text, output_tokens), mooncake (timestamp, input_length|text_input, "
    "output_length[, hash_ids]), azure CSV (TIMESTAMP, ContextTokens, GeneratedTokens) or BurstGPT CSV (Timestamp, "
    "Request tokens, Response tokens)"
)
#: the columns a JSON Lines trace row's arrival is read from (specscope, mooncake)
_ARRIVAL_KEYS = ("timestamp", "arrival_s")
#: One refused row: ``{"row": "line N", "kind", "reason"}``.
Refused = dict[str, str]


def _format_of(path: Path, first: dict[str, Any] | list[str]) -> str:
    keys = set(first)
    if {"TIMESTAMP", "ContextTokens", "GeneratedTokens"} <= keys:
        return "azure"
    if {"Timestamp", "Request tokens", "Response tokens"} <= keys:
        return "burstgpt"
    if keys.issuperset(BAILIAN_FIELDS):  # Mooncake's columns, but seconds: never replayed 1000 times too fast
        raise ConfigError(f"{path} is {BAILIAN_REFUSAL[0]}", found=f"columns {', '.join(sorted(keys))}",
                          expected=_EXPECTED, fix=BAILIAN_REFUSAL[1])  # fmt: skip
    if "timestamp" in keys and "output_length" in keys and keys & {"input_length", "text_input"}:
        return "mooncake"
    if "arrival_s" in keys and "output_tokens" in keys and keys & {"input_tokens", "text"}:
        return "specscope"
    found = f"columns {', '.join(sorted(keys)) or '(none)'}"
    if keys & {"input_length", "input_tokens"} and not keys & {"text_input", "text", "prompt", *_ARRIVAL_KEYS}:
        # token counts alone: --workload refuses them (no text) and sends them here, so never send the user back there
        delay = " (a session's `delay`, ms after the previous turn in AIPerf's MooncakeTrace, is not an arrival)"
        raise ConfigError(
            f"{path} has no arrival time: its rows are token counts, replayed only on a trace's clock",
            found=found,
            expected=f"an arrival column, as in {_EXPECTED}",
            fix="add timestamp (ms from the trace's start) to each row" + (delay if "delay" in keys else ""),
        )
    if keys & {"text_input", "input_length", "text", "input_tokens", "prompt"} and not keys & {
        "timestamp",
        "arrival_s",
    }:
        raise ConfigError(
            f"{path} has no arrival time: it is a list of prompts, not a trace to replay on a clock",
            found=found,
            expected=f"an arrival column, as in {_EXPECTED}",
            fix=f"add timestamp (ms) to each row, or send the prompts as a workload: --workload NAME={path}",
        )
    raise ConfigError(
        f"{path} is not a trace format specscope reads",
        found=found,
        expected=_EXPECTED,
        fix="convert the trace to one of these layouts",
    )


def _arrival_ns(path: Path, line: int, key: str, t: object, unit: str, ns_per_unit: int) -> int:
    """An arrival ``t`` in ``unit`` (``ns_per_unit`` ns each) as int ns: a finite number >= 0 whose ns fit
    :data:`MAX_ARRIVAL_NS` (ints are converted exactly, floats rounded to the ns).

    Raises:
        ConfigError: anything else, naming ``FILE:LINE``.
    """
    at_ns: int | None = None
    if isinstance(t, int) and not isinstance(t, bool):
        at_ns = t * ns_per_unit
    elif isinstance(t, float) and math.isfinite(t) and t * ns_per_unit <= MAX_ARRIVAL_NS:
        at_ns = round(t * ns_per_unit)
    if at_ns is None or not 0 <= at_ns <= MAX_ARRIVAL_NS:
        most = MAX_ARRIVAL_NS / ns_per_unit
        raise _bad(path, line, f"{key}={t!r}", f"{key} in {unit}, a finite number from 0 to {most:.4g}")
    return at_ns


def _lengths(path: Path, line: int, rec: dict[str, Any], fmt: str, has_text: bool) -> tuple[int | None, int] | Refused:
    """``(input tokens or None for a text row, output tokens)``, or the refusal of a row whose input or output
    is 0 (nothing to replay)."""
    _, in_key, out_key = _COLUMNS[fmt]
    n_in = None if has_text else _count(path, line, rec, in_key, 0)
    n_out = _count(path, line, rec, out_key, 0)
    if n_out == 0:
        return {"row": f"line {line}", "kind": "zero_output", "reason": f"{out_key} is 0"}
    if n_in == 0:
        return {"row": f"line {line}", "kind": "zero_input", "reason": f"{in_key} is 0"}
    return n_in, n_out


def _jsonl_row(path: Path, line: int, rec: dict[str, Any], fmt: str) -> tuple[int, TraceRequest] | Refused:
    """``(arrival in ns from the file's origin, request)`` of one JSONL record, or its refusal."""
    if fmt == "mooncake":
        text_key = "text_input"
        at_ns = _arrival_ns(path, line, "timestamp", rec.get("timestamp"), "ms", 1_000_000)
    else:
        text_key = "text"
        at_ns = _arrival_ns(path, line, "arrival_s", rec.get("arrival_s"), "s", 1_000_000_000)
    text = rec.get(text_key)
    if text is not None and (not isinstance(text, str) or not text.strip()):
        raise _bad(path, line, f"{text_key}={text!r}", f"{text_key} a non-empty string")
    ids = rec.get("hash_ids") or []
    if not isinstance(ids, list) or not all(is_int_in(i, 0) for i in ids):
        raise _bad(path, line, f"hash_ids={ids!r}", "hash_ids a list of integers >= 0")
    got = _lengths(path, line, rec, fmt, text is not None)
    if isinstance(got, dict):
        return got
    return at_ns, TraceRequest(line, 0, got[0], text, got[1], tuple(ids))


def _azure_ns(path: Path, line: int, stamp: str | None) -> int:
    """``"2023-11-16 18:15:46.6805900"`` (2023) or ``"2024-05-10 00:00:00.009930+00:00"`` (2024, the fraction
    absent on a whole second) -> ns since the Unix epoch, exactly (no float); no offset means UTC."""
    text = (stamp or "").strip()
    head, offset = text[:19], text[19:]
    frac = ""
    if offset.startswith("."):
        digits = len(offset) - len(offset[1:].lstrip("0123456789"))
        frac, offset = offset[1:digits], offset[digits:]
    want = "TIMESTAMP like 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00"
    try:
        when = dt.datetime.strptime(head, "%Y-%m-%d %H:%M:%S")
        zone = dt.UTC if offset in ("", "Z") else dt.datetime.strptime(offset, "%z").tzinfo
    except ValueError:
        raise _bad(path, line, f"TIMESTAMP={stamp!r}", want) from None
    if len(frac) > 9:
        raise _bad(path, line, f"TIMESTAMP={stamp!r}", "at most 9 fraction digits")
    seconds = int(when.replace(tzinfo=zone).timestamp())
    at_ns = seconds * 1_000_000_000 + (int(frac.ljust(9, "0")) if frac else 0)
    if not 0 <= at_ns <= MAX_ARRIVAL_NS:
        raise _bad(path, line, f"TIMESTAMP={stamp!r}", "a TIMESTAMP from 1970-01-01 to 2262-04-11 (int64 ns)")
    return at_ns


def _number_text(v: str | None) -> object:
    """A CSV cell as the int or float it spells (``"472"`` -> 472, ``"118.5"`` -> 118.5), else as it is."""
    if v is None:
        return None
    text = v.strip()
    try:  # int() refuses a superscript digit (isdigit() is True) and 5,000 digits: then float, else as it is
        return int(text) if text.isascii() and text.isdigit() else float(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return v


def _csv_rows(path: Path, lines: list[str]) -> tuple[str, list[tuple[int, TraceRequest] | Refused]]:
    reader = csv.DictReader(lines)
    fmt = _format_of(path, [str(k).strip() for k in reader.fieldnames or []])
    arrival_key, in_key, out_key = _COLUMNS[fmt]
    rows: list[tuple[int, TraceRequest] | Refused] = []
    for line, raw in enumerate(reader, 2):
        rec = {str(k).strip(): v for k, v in raw.items() if k is not None}
        if fmt == "azure":
            at = _azure_ns(path, line, rec.get(arrival_key))
        else:  # BurstGPT: seconds from the first day's 0:00
            at = _arrival_ns(path, line, arrival_key, _number_text(rec.get(arrival_key)), "s", 1_000_000_000)
        nums = {k: _number_text(rec.get(k)) for k in (in_key, out_key)}
        got = _lengths(path, line, nums, fmt, False)
        rows.append(got if isinstance(got, dict) else (at, TraceRequest(line, 0, got[0], None, got[1])))
    return fmt, rows


def _read(path: Path) -> tuple[str, list[tuple[int, TraceRequest] | Refused]]:
    text = read_user_file(path, _TRACE_FILE, _MAX_BYTES, text=True, gzip=True)
    lines = file_lines("trace", path, text, _TRACE_FILE.limit_fix)
    first = next((x for x in lines if x.strip()), "")
    if not first.lstrip().startswith("{"):  # a CSV header (Azure, BurstGPT), whatever the file's name
        return _csv_rows(path, lines)
    rows: list[tuple[int, TraceRequest] | Refused] = []
    fmt = ""
    for line, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:  # nested too deep or an integer of 5,000 digits: a JSONDecodeError too (strictjson.loads)
            rec = strictjson.loads(raw)
        except json.JSONDecodeError as exc:
            what = "JSON nested too deep" if exc.msg == "nested too deep" else f"invalid JSON ({exc.msg})"
            raise _bad(path, line, what, "one JSON object per line") from None
        if not isinstance(rec, dict):
            raise _bad(path, line, type(rec).__name__, "a JSON object")
        fmt = fmt or _format_of(path, rec)
        rows.append(_jsonl_row(path, line, rec, fmt))
    return fmt, rows


def load_trace(path: str | Path) -> Trace:
    """Read a trace file (format detected from its columns) into requests in arrival order.

    Raises:
        ConfigError: a missing or unreadable file, an unknown layout (naming the columns found), a malformed row
            (naming ``FILE:LINE``), or no rows.
    """
    p = Path(path).expanduser()
    fmt, got = _read(p)
    rows = [r for r in got if not isinstance(r, dict)]
    refused = tuple(r for r in got if isinstance(r, dict))
    if not rows:
        what = f"{len(refused)} rows refused ({refused[0]['reason']}, ...)" if refused else "0 rows"
        raise ConfigError(f"{p} holds no trace rows to replay", found=what, expected="at least one row", fix="check it")
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    origin = rows[order[0]][0]
    requests = tuple(
        TraceRequest(r.line, rows[i][0] - origin, r.input_tokens, r.text, r.output_tokens, r.hash_ids)
        for i in order
        for r in (rows[i][1],)
    )
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    reordered = order != list(range(len(rows)))
    return Trace(str(p.resolve()), fmt, digest, requests, len(got), reordered, refused)

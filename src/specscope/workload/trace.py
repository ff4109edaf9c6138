"""Timed request traces (``--trace FILE``): arrival offsets, input lengths (or text) and output lengths, replayed
open loop on the trace's own clock (:mod:`specscope.bench.trace_cell`).

Formats, told apart by their columns (the first record's keys, or a CSV header):

* ``specscope`` (JSONL): ``arrival_s`` (s from the trace's start, float), ``input_tokens`` (int) or ``text``
  (str, sent as the user message), ``output_tokens`` (int >= 1);
* ``mooncake`` (JSONL; kvcache-ai/Mooncake ``FAST25-release/traces/*.jsonl`` @9fbd6222, as AIPerf's
  ``MooncakeTrace`` reads it): ``timestamp`` (ms, int), ``input_length`` (tokens) or ``text_input`` (str),
  ``output_length`` (tokens), ``hash_ids`` (one id per 512-token block of the prompt, equal ids = a shared prefix;
  optional);
* ``azure`` (CSV; Azure/AzurePublicDataset ``AzureLLMInferenceTrace_{conv,code}.csv`` and the 2024 ``_1week``
  files): ``TIMESTAMP`` (``YYYY-MM-DD HH:MM:SS.fffffff``, up to 9 fraction digits, read exactly to the ns),
  ``ContextTokens``, ``GeneratedTokens``.

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

from specscope.errors import ConfigError
from specscope.workload.prompt import is_int_in

__all__ = [
    "TraceRequest",
    "Trace",
    "TRACE_FORMATS",
    "MAX_ARRIVAL_NS",
    "MAX_REPLAY_SPAN_S",
    "MOONCAKE_BLOCK_TOKENS",
    "load_trace",
]

TRACE_FORMATS = ("specscope", "mooncake", "azure")
#: Tokens per ``hash_ids`` block of a Mooncake trace (its release's block size; AIPerf's default too).
MOONCAKE_BLOCK_TOKENS = 512
_MAX_BYTES = 2 << 30
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
    """A loaded trace: its file, format, SHA-256, the requests in arrival order and whether the file was sorted."""

    path: str
    format: str
    sha256: str
    requests: tuple[TraceRequest, ...]
    rows_total: int
    reordered: bool

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


def _format_of(path: Path, first: dict[str, Any] | list[str]) -> str:
    keys = set(first)
    if {"TIMESTAMP", "ContextTokens", "GeneratedTokens"} <= keys:
        return "azure"
    if "timestamp" in keys and "output_length" in keys and keys & {"input_length", "text_input"}:
        return "mooncake"
    if "arrival_s" in keys and "output_tokens" in keys and keys & {"input_tokens", "text"}:
        return "specscope"
    raise ConfigError(
        f"{path} is not a trace format specscope reads",
        found=f"columns {', '.join(sorted(keys)) or '(none)'}",
        expected="specscope (arrival_s, input_tokens|text, output_tokens), mooncake (timestamp, input_length|"
        "text_input, output_length[, hash_ids]) or azure CSV (TIMESTAMP, ContextTokens, GeneratedTokens)",
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


def _jsonl_row(path: Path, line: int, rec: dict[str, Any], fmt: str) -> tuple[int, TraceRequest]:
    """``(arrival in ns from the file's origin, request)`` of one JSONL record."""
    if fmt == "mooncake":
        text_key, in_key, out_key = "text_input", "input_length", "output_length"
        at_ns = _arrival_ns(path, line, "timestamp", rec.get("timestamp"), "ms", 1_000_000)
    else:
        text_key, in_key, out_key = "text", "input_tokens", "output_tokens"
        at_ns = _arrival_ns(path, line, "arrival_s", rec.get("arrival_s"), "s", 1_000_000_000)
    text = rec.get(text_key)
    if text is not None and (not isinstance(text, str) or not text.strip()):
        raise _bad(path, line, f"{text_key}={text!r}", f"{text_key} a non-empty string")
    n_in = None if text is not None else _count(path, line, rec, in_key, 1)
    ids = rec.get("hash_ids") or []
    if not isinstance(ids, list) or not all(is_int_in(i, 0) for i in ids):
        raise _bad(path, line, f"hash_ids={ids!r}", "hash_ids a list of integers >= 0")
    return at_ns, TraceRequest(line, 0, n_in, text, _count(path, line, rec, out_key, 1), tuple(ids))


def _azure_ns(path: Path, line: int, stamp: str | None) -> int:
    """``"2023-11-16 18:15:46.6805900"`` -> ns since the Unix epoch (UTC assumed), exactly (no float)."""
    head, _, frac = (stamp or "").strip().partition(".")
    try:
        seconds = dt.datetime.strptime(head, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        raise _bad(path, line, f"TIMESTAMP={stamp!r}", "TIMESTAMP like 2023-11-16 18:15:46.6805900") from None
    if frac and (not frac.isdigit() or len(frac) > 9):
        raise _bad(path, line, f"TIMESTAMP={stamp!r}", "at most 9 fraction digits")
    at_ns = int(seconds) * 1_000_000_000 + (int(frac.ljust(9, "0")) if frac else 0)
    if not 0 <= at_ns <= MAX_ARRIVAL_NS:
        raise _bad(path, line, f"TIMESTAMP={stamp!r}", "a TIMESTAMP from 1970-01-01 to 2262-04-11 (int64 ns)")
    return at_ns


def _read(path: Path) -> tuple[str, list[tuple[int, TraceRequest]]]:
    text = path.read_text("utf-8")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        fmt = _format_of(path, list(reader.fieldnames or []))
        rows = []
        for line, rec in enumerate(reader, 2):
            at = _azure_ns(path, line, rec.get("TIMESTAMP"))
            n_in = _count(path, line, {"n": _int_text(rec.get("ContextTokens"))}, "n", 1)
            n_out = _count(path, line, {"n": _int_text(rec.get("GeneratedTokens"))}, "n", 1)
            rows.append((at, TraceRequest(line, 0, n_in, None, n_out)))
        return fmt, rows
    rows, fmt = [], ""
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _bad(path, line, f"invalid JSON ({exc.msg})", "one JSON object per line") from None
        if not isinstance(rec, dict):
            raise _bad(path, line, type(rec).__name__, "a JSON object")
        fmt = fmt or _format_of(path, rec)
        rows.append(_jsonl_row(path, line, rec, fmt))
    return fmt, rows


def _int_text(v: str | None) -> object:
    return int(v) if v is not None and v.strip().isdigit() else v


def load_trace(path: str | Path) -> Trace:
    """Read a trace file (format detected from its columns) into requests in arrival order.

    Raises:
        ConfigError: a missing or unreadable file, an unknown layout (naming the columns found), a malformed row
            (naming ``FILE:LINE``), or no rows.
    """
    p = Path(path).expanduser()
    if not p.is_file() or p.stat().st_size > _MAX_BYTES:
        raise ConfigError(
            f"trace file not found: {path}", found=str(path), expected="a trace file (JSONL or CSV)", fix="check it"
        )
    try:
        fmt, rows = _read(p)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p} is not UTF-8 text", found=str(exc)[:80], expected="UTF-8", fix="check it") from None
    if not rows:
        raise ConfigError(f"{p} holds no trace rows", found=0, expected="at least one row", fix="check the file")
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    origin = rows[order[0]][0]
    requests = tuple(
        TraceRequest(r.line, rows[i][0] - origin, r.input_tokens, r.text, r.output_tokens, r.hash_ids)
        for i in order
        for r in (rows[i][1],)
    )
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    return Trace(str(p.resolve()), fmt, digest, requests, len(rows), order != list(range(len(rows))))

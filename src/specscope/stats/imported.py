"""The summary of a cell measured by another tool and imported (``specscope import``; :mod:`specscope.importers`).

An imported cell stores no stream records: its facts are what the tool wrote, kept as written under the cell's
client facts (``CellResult.client["imported"]``, shape :data:`IMPORTED_KEY` below). This module derives the
:class:`~specscope.stats.summary.CellSummary` from them with the same definitions as a measured cell
(:mod:`specscope.stats.cells`), so ``report`` and ``advise`` judge it like any other.

Facts (``client["imported"]``; every key optional unless said; absent = the tool did not record it):

- ``tool`` (required), ``shape``, ``file``, ``sha256``, ``record`` (1-based record in the file);
- ``duration_s`` (required: the tool's benchmark duration, first send to last response), ``output_tokens``
  (required: the tool's total output tokens), ``completed`` / ``failed`` (requests);
- per request, in the tool's order: ``ttfts_s``, ``latencies_s``, ``output_lens_tokens``, ``input_lens_tokens``
  (a failed request's entries are those the tool wrote for it and are left out by ``errors``, non-empty = failed);
- the tool's own aggregates where it wrote no per-request arrays: ``ttft_p50_s``, ``ttft_p95_s``, ``tpot_p50_s``,
  ``tpot_p95_s``;
- the server's speculative figures as the tool read them: ``acceptance_rate`` (0..1), ``acceptance_length``,
  ``acceptance_per_position`` (marginal: accepted at i / drafts), ``draft_tokens``, ``accepted_tokens``, ``drafts``
  (with all three counts the summary's ``counters`` holds them as a counter delta, so the report pools them like a
  measured cell's);
- ``not_recorded``: names of the figures the tool's file does not hold (shown in the reasons, never filled).

A stored fact that is not what its key says (a hand-edited run: NaN or an infinity where a figure belongs, a negative
or fractional count, a number where a list of names belongs) is absent, named in the reason
``UNUSABLE_FACT(key: value, ...)``: one bad value never makes the run unreadable (issue 37).

Per-request definitions (vLLM ``vllm/benchmarks/serve.py`` ``calculate_metrics``, the same as
:mod:`specscope.records`): TPOT = (latency - TTFT) / (output tokens - 1) for requests of more than one output token;
a stream's rate = output tokens / latency; throughput = output tokens / duration.

Reasons: ``STREAM_DEGRADED(failed:N)`` when the tool counted failed requests (status ``degraded``), and, after the
status is decided (a statement about the design, like ``CAPACITY_LIMITED``), ``IMPORTED(TOOL: rounds paired by
order, not interleaved)`` and ``NOT_RECORDED(...)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from specscope.records import CellResult
from specscope.stats.summary import CellStatus, CellSummary, output_rate
from specscope.stats.timeline import percentile

__all__ = ["IMPORTED_KEY", "is_imported", "summarize_imported"]

#: the key of a cell's client facts that holds an imported cell's facts.
IMPORTED_KEY = "imported"


def is_imported(result: CellResult) -> bool:
    """True when the cell was imported from another tool's result file (it has no stream records)."""
    return isinstance(result.client.get(IMPORTED_KEY), Mapping)


def _number(v: Any) -> float | None:
    """``v`` as a finite float, or None (not a number, a bool, NaN, an infinity, an integer past a float)."""
    if not isinstance(v, int | float) or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _floats(facts: Mapping[str, Any], key: str) -> list[float | None] | None:
    raw = facts.get(key)
    if not isinstance(raw, list):
        return None
    return [_number(v) for v in raw]


def _rate(facts: Mapping[str, Any], key: str) -> float | None:
    """The fact ``key`` as a rate in 0..1, or None (absent, not a number, or outside 0..1)."""
    v = _opt(facts, key)
    return v if v is not None and 0.0 <= v <= 1.0 else None


def _rates(facts: Mapping[str, Any], key: str) -> tuple[float, ...] | None:
    """The fact ``key`` as a list of rates in 0..1, or None when it is absent or any entry is not one (never
    compacted: the positions after a gap would shift). A stored rate of 1e308 made ``round(rate x drafts)`` raise
    OverflowError, and report, advise and export refused the run (probe of 2026-12-06)."""
    raw = facts.get(key)
    if not isinstance(raw, list):
        return None
    rates = [_number(v) for v in raw]
    return None if any(r is None or not 0.0 <= r <= 1.0 for r in rates) else tuple(r for r in rates if r is not None)


def _unusable_facts(facts: Mapping[str, Any]) -> list[str]:
    """``key: value`` of each stored fact that is present but not what its key says (module docstring)."""
    bad = []
    for key in _FIGURES:
        v = facts.get(key)
        if v is None:
            continue
        if _number(v) is None or (key in _COUNTS and (float(v) < 0 or float(v) != int(v))):
            bad.append(f"{key}: {v!r:.40}")
        elif key in _RATES and _rate(facts, key) is None:
            bad.append(f"{key}: {v!r:.40} (not a rate in 0..1)")
    per_pos = facts.get("acceptance_per_position")
    if per_pos is not None and _rates(facts, "acceptance_per_position") is None:
        bad.append(f"acceptance_per_position: {per_pos!r:.40} (not a list of rates in 0..1)")
    missing = facts.get("not_recorded")
    if missing is not None and (not isinstance(missing, list) or not all(isinstance(m, str) for m in missing)):
        bad.append(f"not_recorded: {missing!r:.40}")
    return bad


def _ok_mask(facts: Mapping[str, Any], n: int) -> list[bool]:
    errors = facts.get("errors")
    if isinstance(errors, list) and len(errors) == n:
        return [not e for e in errors]
    return [True] * n


def _per_request(facts: Mapping[str, Any]) -> dict[str, list[float]]:
    """Per successful request: ``ttft_s``, ``tpot_s``, ``stream_tok_s``, ``decode_tok_s`` (empty when not recorded)."""
    ttfts, lats, outs = _floats(facts, "ttfts_s"), _floats(facts, "latencies_s"), _floats(facts, "output_lens_tokens")
    out: dict[str, list[float]] = {"ttft_s": [], "tpot_s": [], "stream_tok_s": [], "decode_tok_s": []}
    n = max(len(x) for x in (ttfts or [], lats or [], outs or []))
    mask = _ok_mask(facts, n)
    for i in range(n):
        if not mask[i]:
            continue
        ttft = ttfts[i] if ttfts is not None and i < len(ttfts) else None
        lat = lats[i] if lats is not None and i < len(lats) else None
        tokens = outs[i] if outs is not None and i < len(outs) else None
        if ttft is not None and ttft > 0:
            out["ttft_s"].append(ttft)
        if lat is not None and lat > 0 and tokens:
            out["stream_tok_s"].append(tokens / lat)
        if lat is not None and ttft is not None and tokens is not None and tokens > 1 and lat > ttft:
            tpot = (lat - ttft) / (tokens - 1)
            out["tpot_s"].append(tpot)
            out["decode_tok_s"].append(1.0 / tpot)
    return out


#: the single figures of the facts (module docstring); those in ``_COUNTS`` are whole, non-negative counts.
_COUNTS = ("completed", "failed", "output_tokens", "drafts", "draft_tokens", "accepted_tokens")
#: those that are rates in 0..1.
_RATES = ("acceptance_rate",)
_FIGURES = (
    *_COUNTS,
    "duration_s",
    "ttft_p50_s",
    "ttft_p95_s",
    "tpot_p50_s",
    "tpot_p95_s",
    "acceptance_rate",
    "acceptance_length",
)


def _opt(facts: Mapping[str, Any], key: str) -> float | None:
    return _number(facts.get(key))


def _int(facts: Mapping[str, Any], key: str) -> int | None:
    v = _opt(facts, key)
    return None if v is None or v < 0 or v != int(v) else int(v)


def _acceptance(facts: Mapping[str, Any]) -> tuple[float | None, float | None, tuple[float, ...], str | None]:
    rate, length = _rate(facts, "acceptance_rate"), _opt(facts, "acceptance_length")
    per_pos = _rates(facts, "acceptance_per_position") or ()
    if rate is None and length is None and not per_pos:
        return None, None, (), None
    return rate, length, per_pos, f"imported:{facts.get('tool')}"


def _counters(facts: Mapping[str, Any]) -> dict[str, Any] | None:
    """The server's spec-decode counter deltas as the tool read them around its run (vLLM's ``spec_decode_*``):
    drafts, drafted and accepted tokens, and accepted per position (the tool's per-position rate x drafts, each an
    integer count), or None when the tool recorded no drafts."""
    drafts, drafted, accepted = _int(facts, "drafts"), _int(facts, "draft_tokens"), _int(facts, "accepted_tokens")
    if drafts is None or drafted is None or accepted is None:
        return None
    per = _rates(facts, "acceptance_per_position") or ()
    present = ["spec", "per_pos"] if per else ["spec"]
    return {
        "drafts": float(drafts),
        "draft_tokens": float(drafted),
        "accepted_tokens": float(accepted),
        "accepted_per_position": [float(round(r * drafts)) for r in per],
        "present": present,
    }


def summarize_imported(result: CellResult) -> CellSummary:
    """The summary of an imported cell (module docstring: facts, definitions and reasons).

    Raises:
        KeyError: the cell has no imported facts (call :func:`is_imported` first).
    """
    facts: Mapping[str, Any] = result.client[IMPORTED_KEY]
    completed, failed = _int(facts, "completed"), _int(facts, "failed")
    output_tokens = _int(facts, "output_tokens") or 0
    duration_s = _opt(facts, "duration_s") or 0.0
    per = _per_request(facts)
    reasons: list[str] = []
    if failed:
        reasons.append(f"STREAM_DEGRADED(failed:{failed})")
    status: CellStatus = "failed" if not completed or not output_tokens else ("degraded" if reasons else "ok")
    rate_s, no_rate = output_rate(output_tokens, duration_s, "the tool's recorded duration")
    if no_rate is not None and _opt(facts, "duration_s") is not None:
        # a recorded duration with no positive rate (a hand-edited or damaged file): never a measured speed; an
        # unrecorded one is named by NOT_RECORDED below
        status = "failed"
        reasons.append(no_rate)
    reasons.append(f"IMPORTED({facts.get('tool')}: rounds paired by order, not interleaved)")
    missing = facts.get("not_recorded")
    if isinstance(missing, list) and missing and all(isinstance(m, str) for m in missing):
        reasons.append("NOT_RECORDED(" + ", ".join(missing) + ")")
    unusable = _unusable_facts(facts)
    if unusable:
        reasons.append("UNUSABLE_FACT(" + ", ".join(unusable) + ")")
    rate, length, per_pos, source = _acceptance(facts)
    k = result.key
    ttft_p50 = percentile(per["ttft_s"], 50) if per["ttft_s"] else _opt(facts, "ttft_p50_s")
    return CellSummary(
        config=k.config,
        workload=k.workload,
        concurrency=k.concurrency,
        repeat=k.repeat,
        status=status,
        reasons=tuple(reasons),
        streams=(completed or 0) + (failed or 0),
        streams_ok=completed or 0,
        output_tokens=output_tokens,
        token_source="imported",
        duration_s=duration_s,
        output_tok_s=rate_s,
        stream_tok_s=tuple(sorted(per["stream_tok_s"])),
        ttft_p50_s=ttft_p50,
        ttft_p95_s=percentile(per["ttft_s"], 95) if per["ttft_s"] else _opt(facts, "ttft_p95_s"),
        tpot_p50_s=percentile(per["tpot_s"], 50) if per["tpot_s"] else _opt(facts, "tpot_p50_s"),
        tpot_p95_s=percentile(per["tpot_s"], 95) if per["tpot_s"] else _opt(facts, "tpot_p95_s"),
        achieved_concurrency=None,
        acceptance_rate=rate,
        acceptance_length=length,
        acceptance_per_position=per_pos,
        acceptance_source=source,
        counters=_counters(facts),
        server_generation_tokens=None,
        client=dict(result.client),
        prompt_tokens_mean=_mean([v for v in (_floats(facts, "input_lens_tokens") or []) if v is not None]),
        decode_tok_s=tuple(sorted(per["decode_tok_s"])),
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None

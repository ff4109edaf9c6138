"""The summary of a cell measured by another tool and imported (``specscope import``; :mod:`specscope.importers`).

An imported cell stores no stream records: its facts are what the tool wrote, kept as written under the cell's
client facts (``CellResult.client.imported``, an :class:`~specscope.records.ImportedFacts` read from the stored
``imported`` object of the shape below). This module derives the
:class:`~specscope.stats.summary.CellSummary` from them with the same definitions as a measured cell
(:mod:`specscope.stats.cells`), so ``report`` and ``advise`` judge it like any other.

Facts (the stored ``imported`` object; every key optional unless said; absent = the tool did not record it):

- ``tool`` (required), ``shape``, ``file``, ``sha256``, ``record`` (1-based record in the file);
- ``duration_s`` (required: the tool's benchmark duration, first send to last response), ``output_tokens``
  (required: the tool's total output tokens), ``completed`` / ``failed`` (requests);
- per request, in the tool's order: ``ttfts_s``, ``latencies_s``, ``output_lens_tokens``, ``input_lens_tokens``,
  ``start_times_s`` (the instant each was sent, on the tool's clock: with the latencies, the achieved concurrency)
  (a failed request's entries are those the tool wrote for it and are left out by ``errors``, non-empty = failed);
- the tool's own aggregates where it wrote no per-request arrays: ``ttft_p50_s``, ``ttft_p95_s``, ``tpot_p50_s``,
  ``tpot_p95_s``;
- the server's speculative figures as the tool read them: ``acceptance_rate`` (0..1), ``acceptance_length``,
  ``acceptance_per_position`` (marginal: accepted at i / drafts), ``draft_tokens``, ``accepted_tokens``, ``drafts``
  (with all three counts the summary's ``counters`` holds them as a counter delta, so the report pools them like a
  measured cell's);
- ``tool_concurrency`` (requests) and ``tool_concurrency_source`` (its field and the tool's definition): the mean
  number of requests in flight as the tool wrote it, shown where no start instants let it be derived here;
- ``not_recorded``: names of the figures the tool's file does not hold (shown in the reasons, never filled).

A stored fact that is not what its key says (a hand-edited run: NaN or an infinity where a figure belongs, a negative
or fractional count, a number where a list of names belongs) is absent, named in the reason
``UNUSABLE_FACT(key: value, ...)``: one bad value never makes the run unreadable (issue 37). The facts are read once,
where they enter (:meth:`~specscope.records.ImportedFacts.from_dict`); this module reads the record's attributes.

Per-request definitions (vLLM ``vllm/benchmarks/serve.py`` ``calculate_metrics``, the same as
:mod:`specscope.records`): TPOT = (latency - TTFT) / (output tokens - 1) for requests of more than one output token;
a stream's rate = output tokens / latency; throughput = output tokens / duration.

Reasons: ``STREAM_DEGRADED(failed:N)`` when the tool counted failed requests (status ``degraded``), and, after the
status is decided (a statement about the design, like ``CAPACITY_LIMITED``), ``IMPORTED(TOOL: rounds paired by
order, not interleaved)``, ``NOT_RECORDED(...)`` (first in it, where the file holds no ``completed`` count,
:data:`COMPLETED_NOT_RECORDED`: the summary's ``streams`` and ``streams_ok`` are then None and the cell is judged on
its other figures, never failed for it) and, where the achieved concurrency was derived from the tool's per-request
start instants, ``CONCURRENCY_FROM(...)`` naming them; else, where the tool wrote its own mean in flight
(``tool_concurrency``: SGLang's ``concurrency``, AIPerf's
``effective_concurrency``), that figure as written, ``CONCURRENCY_FROM(the tool's own figure, as
written, not recomputed: ...)`` naming its field and definition (absent without either, never 0).
"""

from __future__ import annotations

from specscope.records import CellResult, ImportedFacts, SpecCounters
from specscope.stats.concurrency import in_flight
from specscope.stats.summary import CellStatus, CellSummary, output_rate
from specscope.stats.timeline import percentile

__all__ = ["IMPORTED_KEY", "is_imported", "summarize_imported"]

#: the key of a cell's client facts that holds an imported cell's facts.
IMPORTED_KEY = "imported"


def is_imported(result: CellResult) -> bool:
    """True when the cell was imported from another tool's result file (it has no stream records)."""
    return result.client.imported is not None


def _ok_mask(facts: ImportedFacts, n: int) -> list[bool]:
    errors = facts.errors
    if errors is not None and len(errors) == n:
        return [not e for e in errors]
    return [True] * n


def _per_request(facts: ImportedFacts) -> dict[str, list[float]]:
    """Per successful request: ``ttft_s``, ``tpot_s``, ``stream_tok_s``, ``decode_tok_s`` (empty when not recorded)."""
    ttfts, lats, outs = facts.ttfts_s, facts.latencies_s, facts.output_lens_tokens
    out: dict[str, list[float]] = {"ttft_s": [], "tpot_s": [], "stream_tok_s": [], "decode_tok_s": []}
    n = max(len(ttfts or ()), len(lats or ()), len(outs or ()))
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


#: the name, in ``NOT_RECORDED(...)``, of a completed-request count the tool's file does not hold (the cell's
#: ``streams`` / ``streams_ok`` are then None, never 0)
COMPLETED_NOT_RECORDED = "how many requests completed (the tool's file holds no completed count)"

#: the reason that labels an imported cell's achieved concurrency with its source
CONCURRENCY_FROM = (
    "CONCURRENCY_FROM(the tool's per-request start_times and latencies: sum of latencies / (last end - first start))"
)


def tool_concurrency_from(source: str) -> str:
    """The reason that labels an achieved concurrency the tool wrote itself (``source``: its field and definition)."""
    return f"CONCURRENCY_FROM(the tool's own figure, as written, not recomputed: {source})"


def _achieved(facts: ImportedFacts) -> float | None:
    """The time-weighted number of requests in flight (:func:`specscope.stats.concurrency.in_flight`, the definition
    of a measured cell's) over the successful requests, from the tool's per-request start instants and latencies;
    None when the file holds no start instants, or any successful request lacks its start or a positive latency (a
    partial set of intervals would understate it)."""
    starts, lats = facts.start_times_s, facts.latencies_s
    if starts is None or lats is None or len(starts) != len(lats):
        return None
    intervals: list[tuple[float, float]] = []
    for ok, start, lat in zip(_ok_mask(facts, len(starts)), starts, lats, strict=True):
        if not ok:
            continue
        if start is None or lat is None or lat <= 0:
            return None
        intervals.append((start, start + lat))
    return in_flight(intervals) if intervals else None


def _acceptance(facts: ImportedFacts) -> tuple[float | None, float | None, tuple[float, ...], str | None]:
    rate, length = facts.acceptance_rate, facts.acceptance_length
    per_pos = facts.acceptance_per_position or ()
    if rate is None and length is None and not per_pos:
        return None, None, (), None
    return rate, length, per_pos, f"imported:{facts.tool}"


def _counters(facts: ImportedFacts) -> SpecCounters | None:
    """The server's spec-decode counter deltas as the tool read them around its run (vLLM's ``spec_decode_*``):
    drafts, drafted and accepted tokens, and accepted per position (the tool's per-position rate x drafts, each an
    integer count), or None when the tool recorded no drafts."""
    drafts, drafted, accepted = facts.drafts, facts.draft_tokens, facts.accepted_tokens
    if drafts is None or drafted is None or accepted is None:
        return None
    per = facts.acceptance_per_position or ()
    return SpecCounters(
        drafts=float(drafts),
        draft_tokens=float(drafted),
        accepted_tokens=float(accepted),
        accepted_per_position=tuple(float(round(r * drafts)) for r in per),
        present=frozenset({"spec", "per_pos"} if per else {"spec"}),
    )


def summarize_imported(result: CellResult) -> CellSummary:
    """The summary of an imported cell (module docstring: facts, definitions and reasons).

    Raises:
        KeyError: the cell has no imported facts (call :func:`is_imported` first).
    """
    facts = result.client.imported
    if facts is None:
        raise KeyError("imported")
    completed, failed = facts.completed, facts.failed
    output_tokens = facts.output_tokens or 0
    duration_s = facts.duration_s or 0.0
    per = _per_request(facts)
    reasons: list[str] = []
    if failed:
        reasons.append(f"STREAM_DEGRADED(failed:{failed})")
    # judged on the figures it has: a count the file did not record is no evidence of failure (imp58)
    status: CellStatus = "failed" if completed == 0 or not output_tokens else ("degraded" if reasons else "ok")
    rate_s, no_rate = output_rate(output_tokens, duration_s, "the tool's recorded duration")
    if no_rate is not None and facts.duration_s is not None:
        # a recorded duration with no positive rate (a hand-edited or damaged file): never a measured speed; an
        # unrecorded one is named by NOT_RECORDED below
        status = "failed"
        reasons.append(no_rate)
    reasons.append(f"IMPORTED({facts.tool}: rounds paired by order, not interleaved)")
    not_recorded = list(facts.not_recorded or ())
    if completed is None and COMPLETED_NOT_RECORDED not in not_recorded:  # a run imported before imp58
        not_recorded.insert(0, COMPLETED_NOT_RECORDED)
    if not_recorded:
        reasons.append("NOT_RECORDED(" + ", ".join(not_recorded) + ")")
    if facts.unusable:
        reasons.append("UNUSABLE_FACT(" + ", ".join(facts.unusable) + ")")
    achieved = _achieved(facts)
    if achieved is not None:
        reasons.append(CONCURRENCY_FROM)
    elif facts.tool_concurrency is not None and facts.tool_concurrency > 0:
        achieved = facts.tool_concurrency
        reasons.append(tool_concurrency_from(facts.tool_concurrency_source or "its concurrency field"))
    rate, length, per_pos, source = _acceptance(facts)
    k = result.key
    ttft_p50 = percentile(per["ttft_s"], 50) if per["ttft_s"] else facts.ttft_p50_s
    return CellSummary(
        config=k.config,
        workload=k.workload,
        concurrency=k.concurrency,
        repeat=k.repeat,
        status=status,
        reasons=tuple(reasons),
        streams=None if completed is None else completed + (failed or 0),
        streams_ok=completed,
        output_tokens=output_tokens,
        token_source="imported",
        duration_s=duration_s,
        output_tok_s=rate_s,
        stream_tok_s=tuple(sorted(per["stream_tok_s"])),
        ttft_p50_s=ttft_p50,
        ttft_p95_s=percentile(per["ttft_s"], 95) if per["ttft_s"] else facts.ttft_p95_s,
        tpot_p50_s=percentile(per["tpot_s"], 50) if per["tpot_s"] else facts.tpot_p50_s,
        tpot_p95_s=percentile(per["tpot_s"], 95) if per["tpot_s"] else facts.tpot_p95_s,
        achieved_concurrency=achieved,
        acceptance_rate=rate,
        acceptance_length=length,
        acceptance_per_position=per_pos,
        acceptance_source=source,
        counters=_counters(facts),
        server_generation_tokens=None,
        client=result.client,
        prompt_tokens_mean=_mean([v for v in facts.input_lens_tokens or () if v is not None]),
        decode_tok_s=tuple(sorted(per["decode_tok_s"])),
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None

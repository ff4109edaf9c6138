"""Turn one cell's raw measurements (streams + two /metrics snapshots) into a :class:`CellSummary`.

Figures and their sources:
- output tokens: sum of ``usage.completion_tokens`` (``token_source="usage"``), never SSE chunk counts; a
  stream that finished without usage may take its tokens from the counter delta (``stats/tokens.py``);
- acceptance: the delta of the server's spec-decode counters around the cell (``"counter_delta"``), or,
  when the server has no such counters, the sum of the server's per-response fields (llama.cpp
  ``timings.draft_n``/``draft_n_accepted``: ``"per_request"``);
- acceptance rate = accepted / draft tokens; acceptance length = 1 + accepted / drafts; per position =
  accepted at i / drafts (vLLM ``vllm/v1/spec_decode/metrics.py`` definitions);
- throughput: output tokens / (last stream end - first send).

:func:`summarize_run` derives every cell of a stored run when it is read; the store keeps only the facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from specscope.records import CellResult, ClockFacts, SpecCounters, StreamRecord
from specscope.stats.acceptance import acceptance_length, acceptance_rate, per_position_rates, request_steps
from specscope.stats.capacity import capacity_fields, client_limited_reason, limited_reasons
from specscope.stats.concurrency import achieved_concurrency
from specscope.stats.counters import counter_checks, counters_delta, series_reasons, spec_window, window_counts
from specscope.stats.imported import is_imported, summarize_imported
from specscope.stats.phases import phase_acceptance, phase_counts
from specscope.stats.spec_pool import drafting_as_run, pool_requests, window_doc
from specscope.stats.summary import CellStatus, CellSummary, output_rate
from specscope.stats.timeline import percentile
from specscope.stats.tokens import cell_tokens

__all__ = ["summarize_cell", "summarize_cells", "summarize_run", "CellFacts"]


class CellFacts(Protocol):
    """What :func:`summarize_run` reads: an open run (``specscope.store.Run``) or anything with its ``cells()``."""

    def cells(self) -> Iterable[CellResult]: ...


def summarize_run(run: CellFacts) -> list[CellSummary]:
    """Every stored cell's summary, derived now from its facts, ordered by config, workload, concurrency, repeat."""
    return summarize_cells(run.cells())


def summarize_cells(results: Iterable[CellResult]) -> list[CellSummary]:
    """:func:`summarize_cell` of each of ``results`` (a run's cells read once, for a reader that needs them too)."""
    return [summarize_cell(r) for r in results]


def _sum_opt(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def summarize_cell(result: CellResult) -> CellSummary:
    """Summarize one cell.

    Args:
        result: streams and the two snapshots of the cell; its ``reasons`` (observed while measuring:
            ``CLIENT_LIMITED``, ``SERVER_CRASH``) lead the reasons, and ``crashed`` makes the status ``server_crash``.

    Status rules: ``failed`` when every stream failed (issue 35: a stream cut mid-stream after running usage is
    failed, its usage no answer) or no stream is ok or degraded with tokens; ``degraded`` when any stream
    is not ok, a counter went down between the scrapes (``COUNTER_RESET``), requests were running at a
    scrape (``BUSY_AT_SCRAPE``), the client's token total differs from the server's generated-token
    delta (``TOKENS_MISMATCH``), the per-response speculative fields do not add up to the counter delta
    (``PER_REQUEST_MISMATCH``), one data-parallel engine restarted (``ENGINE_RESET(e)``: the figures sum the
    others) or vanished from the after scrape (``ENGINE_VANISHED(e)``, likewise) or appeared with an unknown start
    (``ENGINE_UNKNOWN_START(e)``, likewise), a stream's tokens are unknown
    (``TOKENS_UNKNOWN``), the counters are inconsistent (``PER_POSITION_SUM``, ``DRAFT_TOKENS_OVER_K``,
    ``DRAFT_TOKENS_WITHOUT_DRAFTS``), or the measurement observed reasons (``result.reasons``);
    else ``ok``; then ``failed`` with ``NO_RATE(output_tokens=T, duration_s=D)`` when there is no positive output
    rate (:func:`specscope.stats.summary.output_rate`). ``CAPACITY_LIMITED(ceiling=C, requested=N)``
    (:mod:`specscope.stats.capacity`) is added to the reasons after the status is decided: a correct measurement of a
    limited server, it leaves the status as it is.
    """
    if is_imported(result):  # measured by another tool (`specscope import`): its own facts, no streams
        return summarize_imported(result)
    streams: tuple[StreamRecord, ...] = result.streams
    reasons: list[str] = list(result.reasons)
    ok = [s for s in streams if s.status == "ok"]
    if len(ok) < len(streams):
        bad = sorted({f"{s.status}:{s.reason}" for s in streams if s.status != "ok"})
        reasons.append("STREAM_DEGRADED(" + ", ".join(bad) + ")")
    delta: SpecCounters | None = None
    if result.before is not None and result.after is not None:
        delta = window_counts(counters_delta(result.before, result.after))  # a reset's counts: absent, never 0
    # some window not counted: an engine restarted or vanished
    partial = delta is not None and (
        delta.reset or bool(delta.reset_engines or delta.vanished_engines or delta.unknown_start_engines)
    )
    limit = result.client.max_tokens  # the requests' max_tokens, stored since issue 14
    tokens = cell_tokens(streams, None if delta is None else delta.generation_tokens, partial, limit)
    output_tokens, token_source = tokens.output_tokens, tokens.source
    reasons.extend(tokens.reasons)
    if delta is not None and result.before is not None and result.after is not None:
        reasons.extend(series_reasons(delta))  # the figures sum the series sets that did not restart or vanish
        busy = [(n, v) for n, v in (("before", result.before.running), ("after", result.after.running)) if v]
        if busy:
            reasons.append("BUSY_AT_SCRAPE(" + ", ".join(f"{n}={v:g}" for n, v in busy) + ")")
        if (
            delta.generation_tokens is not None
            and not partial
            and token_source == "usage"
            and abs(delta.generation_tokens - output_tokens) > 0
        ):
            reasons.append(f"TOKENS_MISMATCH(client={output_tokens}, server={delta.generation_tokens:g})")

    per_req_draft, per_req_acc = _per_request_check(streams, delta, partial, reasons)
    if delta is not None and "spec" in delta.present and not partial:
        reasons.extend(counter_checks(delta).reasons)  # per-position sum, draft tokens within k per draft
    pooled = pool_requests([s.spec for s in streams if s.spec is not None])
    rate, length, per_pos, source = _acceptance(delta, per_req_draft, per_req_acc, pooled)

    timed = [s for s in streams if s.status != "failed"]
    if timed:
        t0 = min(s.send_ns for s in timed)
        t1 = max(s.end_ns for s in timed)
        duration_s = (t1 - t0) / 1e9
    else:
        duration_s = (result.end_ns - result.start_ns) / 1e9
    ttfts = [s.ttft_ns / 1e9 for s in timed if s.ttft_ns is not None]
    tpots = [s.tpot_ns / 1e9 for s in timed if s.tpot_ns is not None]
    rates = sorted(r for r in (s.stream_tok_s for s in timed) if r is not None)

    capacity = capacity_fields(result)
    level = None if result.client.open_loop is not None else result.key.concurrency
    reasons = [client_limited_reason(r, capacity, level) for r in reasons]  # what the server did meanwhile
    if result.crashed:
        status: CellStatus = "server_crash"
    elif all(s.status == "failed" for s in streams) or (not ok and not any(s.output_tokens for s in streams)):
        status = "failed"  # every stream failed (a cut stream's running usage is no answer), or none made a token
    elif reasons:
        status = "degraded"
    else:
        status = "ok"
    # the rate is the answered requests' tokens over their span: a failed stream's usage (an aborted one's, or a
    # cut one's running usage) stays in the token total, which the server's counter also holds, but not in the rate
    failed_usage = sum(s.output_tokens or 0 for s in streams if s.status == "failed")
    status, rate_s = _rated(status, reasons, output_tokens - failed_usage, duration_s)
    reasons.extend(limited_reasons(capacity))  # a finding about the server, after the status: it stays what it was
    window = None
    if result.before is not None and result.after is not None:
        window = spec_window(result.before, result.after)
    spec_warnings = _spec_warnings(window, pooled)
    reasons.extend(spec_warnings)  # named warnings (issue 26): after the status, like CAPACITY_LIMITED

    k = result.key
    clock = result.client.clock or ClockFacts()
    return CellSummary(
        config=k.config,
        workload=k.workload,
        concurrency=k.concurrency,
        repeat=k.repeat,
        status=status,
        reasons=tuple(reasons),
        streams=len(streams),
        streams_ok=len(ok),
        output_tokens=output_tokens,
        failed_output_tokens=failed_usage,
        token_source=token_source,
        duration_s=duration_s,
        output_tok_s=rate_s,
        stream_tok_s=tuple(rates),
        ttft_p50_s=percentile(ttfts, 50),
        ttft_p95_s=percentile(ttfts, 95),
        tpot_p50_s=percentile(tpots, 50),
        tpot_p95_s=percentile(tpots, 95),
        achieved_concurrency=achieved_concurrency(timed) if timed else None,
        acceptance_rate=rate,
        acceptance_length=length,
        acceptance_per_position=tuple(per_pos),
        acceptance_source=source,
        counters=delta,
        server_generation_tokens=None if delta is None else delta.generation_tokens,
        per_request_draft_tokens=per_req_draft,
        per_request_accepted_tokens=per_req_acc,
        client=result.client,
        prompt_tokens_mean=_prompt_tokens_mean(streams),
        reasoning_chunks=sum(s.reasoning_chunks for s in streams),
        phase_counts=phase_counts(ok),
        phase_acceptance=phase_acceptance(ok),
        **capacity,
        stream_acceptance=tuple(
            sorted(
                r
                for s in streams
                if s.server_accepted_tokens is not None
                and (r := acceptance_rate(s.server_accepted_tokens, s.server_draft_tokens)) is not None
            )
        ),
        spec_requests=pooled,
        spec_window=None if window is None else window_doc(window),
        drafting=drafting_as_run(_engine_k(pooled), pooled=pooled, counters=delta),
        started_at_s=clock.started_at_s,
        ended_at_s=clock.ended_at_s,
        load_avg_1m=clock.load_avg_1m,
        engine_cpu_s=clock.engine_cpu_s,
    )


def _rated(
    status: CellStatus, reasons: list[str], output_tokens: int, duration_s: float
) -> tuple[CellStatus, float | None]:
    """The status and output rate: an ok or degraded cell without a positive rate is ``failed``, its
    ``NO_RATE(...)`` appended to ``reasons`` (no measured speed, said by name)."""
    rate_s, no_rate = output_rate(output_tokens, duration_s)
    if no_rate is not None and status in ("ok", "degraded"):
        reasons.append(no_rate)
        return "failed", rate_s
    return status, rate_s


def _per_request_check(
    streams: Sequence[StreamRecord], delta: SpecCounters | None, partial: bool, reasons: list[str]
) -> tuple[int | None, int | None]:
    """The per-response draft and accepted token sums (None when no response carried them); appends
    ``PER_REQUEST_MISMATCH`` to ``reasons`` when they differ from the counter delta over the cell."""
    per_req_draft = _sum_opt([s.server_draft_tokens for s in streams])
    per_req_acc = _sum_opt([s.server_accepted_tokens for s in streams])
    if (
        delta is not None
        and delta.draft_tokens is not None
        and delta.accepted_tokens is not None
        and not partial
        and per_req_draft is not None
        and (per_req_draft != delta.draft_tokens or (per_req_acc or 0) != delta.accepted_tokens)
    ):
        # the server's per-response fields (llama.cpp timings, vLLM per-request spec metrics) must add up to
        # its counters over the cell; a difference means one of them is not what it claims
        reasons.append(
            f"PER_REQUEST_MISMATCH(draft {per_req_draft}/{delta.draft_tokens:g}, "
            f"accepted {per_req_acc}/{delta.accepted_tokens:g} responses/counters)"
        )
    specs = [s.spec for s in streams if s.spec is not None]
    steps = _sum_opt([s.verify_steps for s in specs])
    if (
        delta is not None
        and delta.drafts is not None
        and not partial
        and steps is not None
        and all(s.verify_steps is not None for s in specs)
        and steps != delta.drafts
    ):  # each response's verify steps must add up to the server's drafts (verify-step) counter
        reasons.append(f"PER_REQUEST_MISMATCH(verify steps {steps}/{delta.drafts:g} responses/counters)")
    return per_req_draft, per_req_acc


def _acceptance(
    delta: SpecCounters | None, per_req_draft: int | None, per_req_acc: int | None, pooled: dict[str, Any] | None
) -> tuple[float | None, float | None, tuple[float, ...], str | None]:
    """(rate, length, per position, source): the counter delta's when it has drafted, accepted and drafts counters
    (``counter_delta``), else the responses' own fields (``per_request``; length and unconditional per-position
    rates only when the same responses reported their verify steps and accepted-count histograms,
    :func:`specscope.stats.acceptance.request_steps`), else the counters' rate alone; else nothing: a gauge or a
    missing counter gives no figure (issue 26)."""
    rate = None if delta is None else acceptance_rate(delta.accepted_tokens, delta.draft_tokens)
    steps, positions = request_steps(pooled)  # the responses' own verify steps and histogram (issue 35)
    if delta is not None and rate is not None and not delta.reset:
        if delta.drafts:
            length = acceptance_length(delta.accepted_tokens, delta.drafts)
            return rate, length, per_position_rates(delta.accepted_per_position, delta.drafts), "counter_delta"
        if not per_req_draft:  # no drafts counter and no per-response records: a rate alone
            return rate, None, (), "counter_delta"
    if not per_req_draft or per_req_acc is None:
        return None, None, (), None
    length = acceptance_length(per_req_acc, steps)
    return acceptance_rate(per_req_acc, per_req_draft), length, per_position_rates(positions, steps), "per_request"


def _engine_k(pooled: dict[str, Any] | None) -> int | None:
    """The k the engine itself states per response (vLLM / TRT-LLM ``num_spec_tokens``), when it states one."""
    ks = (pooled or {}).get("configured_k") or []
    return ks[0] if len(ks) == 1 else None


def _spec_warnings(window: Any, pooled: dict[str, Any] | None) -> list[str]:
    """The cell's named speculative warnings: the window's (``GAUGE_NOT_WINDOW``, ``UNREAD_SPEC_FIELD``,
    ``SERIES_VANISHED``, ``ACCEPTING_NOTHING`` ...; checks already among the reasons are not repeated) and the
    responses' (``UNREAD_SPEC_FIELD``, ``WRONG_TYPE``, ``SPEC_IDENTITY`` ...), each once."""
    names = (
        "GAUGE_NOT_WINDOW",
        "UNREAD_SPEC_FIELD",
        "SERIES_VANISHED",
        "ACCEPTING_NOTHING",
        "V0_ACCEPTED_ANY_POSITION",
    )
    out = [w for w in (window.warnings if window is not None else ()) if w.startswith(names)]
    out += [f"REQUEST_{w}" if not w.startswith("UNREAD") else w for w in (pooled or {}).get("warnings", [])]
    return list(dict.fromkeys(out))


def _prompt_tokens_mean(streams: Sequence[StreamRecord]) -> float | None:
    """Mean ``usage.prompt_tokens`` over the streams that report it (tokens); None when none does."""
    counts = [s.prompt_tokens for s in streams if s.prompt_tokens is not None]
    return sum(counts) / len(counts) if counts else None

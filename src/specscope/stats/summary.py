"""Per-cell summary: the numbers one matrix cell contributes to every report, advice and prediction.

A :class:`CellSummary` is computed from a cell's stream records and counter deltas
(:func:`specscope.stats.cells.summarize_cell`; a whole run: :func:`specscope.stats.cells.summarize_run`)
whenever a run is read (the store keeps facts only, never summaries) and is the unit that ``report``, ``advise`` and
``predict`` consume. Its ``to_dict`` is exactly one item of the ``cells`` list of
``specscope report RUN --format json``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from specscope.records import ClientFacts, SpecCounters, known_fields

__all__ = ["CellSummary", "CellStatus", "MEASURED", "output_rate"]

# ok: every stream ok and counters consistent. degraded: numbers exist but are not trustworthy
# (a stream degraded, counter reset, requests running at a scrape, client limited...). failed: no numbers.
# server_crash: the server died during the cell (the sweep of that config stops).
CellStatus = Literal["ok", "degraded", "failed", "server_crash"]
#: a cell with one of these statuses is a result: a resumed bench never redoes it, a report counts it measured
MEASURED: frozenset[str] = frozenset({"ok", "degraded"})


def output_rate(
    output_tokens: float, duration_s: float, duration_from: str = "the last stream end (end_ns) minus the first send"
) -> tuple[float | None, str | None]:
    """A cell's output rate (tokens / duration, tokens/s) and, where there is none, the reason that names why.

    A positive token count over a positive duration is a rate; anything else (no tokens, a duration of zero or less:
    streams that end before they start, a hand-edited or damaged run) is no rate, ``NO_RATE(output_tokens=T,
    duration_s=D)``: the cell is then ``failed`` (left out of every figure by name, never shown as a measured speed)."""
    if output_tokens > 0 and duration_s > 0:
        return output_tokens / duration_s, None
    why = f": {duration_from} is not positive" if duration_s <= 0 else ""
    return None, f"NO_RATE(output_tokens={output_tokens:g}, duration_s={duration_s:.3g}{why})"


# fields stored as JSON lists and held as tuples
_TUPLE_FIELDS = (
    "reasons",
    "stream_tok_s",
    "acceptance_per_position",
    "decode_tok_s",
    "stream_acceptance",
    "load_avg_1m",
)


@dataclass(frozen=True)
class CellSummary:
    """One cell's figures. Units are in the names; ``*_source`` fields say where a figure came from.

    Attributes:
        config, workload, concurrency, repeat: the cell key (concurrency is the *requested* N).
        status: see ``CellStatus``; ``reasons`` lists why a cell is not ok (codes such as
            ``STREAM_DEGRADED``, ``COUNTER_RESET``, ``BUSY_AT_SCRAPE``, ``TOKENS_MISMATCH``,
            ``CLIENT_LIMITED``, ``SERVER_CRASH``, ``NO_RATE``: no positive rate) and the findings that leave it ok
            (``CAPACITY_LIMITED(ceiling=C, requested=N)``: the server ran fewer than requested while others waited).
        streams: number of measured streams; ``streams_ok`` of them ok; both None for an imported cell whose
            tool's file did not record how many requests completed (absent, never 0).
        output_tokens: sum of ``usage.completion_tokens`` over all the cell's streams, failed ones included (tokens):
            what the server generated, the figure its generated-token counter holds (``TOKENS_MISMATCH``).
        failed_output_tokens: the part of ``output_tokens`` that failed streams carried (an aborted one's usage, a
            cut one's running usage; tokens), left out of ``output_tok_s``; ``None`` where not known (a CSV or
            imported cell, a report written before it was recorded). :attr:`rated_output_tokens` is the rest.
        token_source: ``"usage"`` (never chunk counts); ``"missing"`` if any stream lacked usage; ``"imported"``: the
            total another tool wrote (:mod:`specscope.stats.imported`).
        duration_s: wall time from the first send to the last stream end of the streams that did not fail (s).
        output_tok_s: the cell's aggregate throughput (tokens/s): output_tokens less the usage of failed streams
            (an aborted one's, a cut one's running usage), over duration_s, so both count the same requests.
        stream_tok_s: each stream's output_tokens / its own latency (tokens/s), sorted ascending.
        ttft_p50_s / ttft_p95_s: TTFT percentiles over streams (s); TTFT ends at the first content
            or reasoning token.
        tpot_p50_s / tpot_p95_s: median and 95th percentile over streams of each stream's time per output token
            after the first (s).
        achieved_concurrency: time-weighted mean number of streams in flight between the first send
            and the last end (from the wire instants), beside the requested ``concurrency``.
        acceptance_rate: accepted / draft tokens from the counter delta (excludes the bonus token).
        acceptance_length: 1 + accepted / drafts (includes the bonus token).
        acceptance_per_position: accepted at position i / drafts (unconditional, vLLM's form).
        acceptance_source: ``"counter_delta"``, ``"per_request"`` (server's per-response fields)
            or ``None`` when no drafting happened / no counters.
        counters: the counter delta (a :class:`~specscope.records.SpecCounters`; its ``to_dict()`` in the JSON
            report), or None without /metrics.
        server_generation_tokens: the server's generated-token counter delta (tokens) or None.
        per_request_draft_tokens / per_request_accepted_tokens: sums of the server's per-response
            speculative fields (llama.cpp ``timings.draft_n`` / ``draft_n_accepted``), None if absent.
        client: what the client recorded beside the streams (:class:`~specscope.records.ClientFacts`; its
            ``to_dict()`` in the JSON report: the stored object).
        prompt_tokens_mean: mean ``usage.prompt_tokens`` over the streams that report it (tokens), or None.
        reasoning_chunks: SSE events with a reasoning delta, summed over streams (0: no reasoning phase seen).
        phase_counts: draft / accepted tokens of the reasoning and answer phases from per-request per-step
            data (:func:`specscope.stats.phases.phase_counts`), None when the server gave none.
        phase_acceptance: per phase verify steps, counts, rate, length and per-position acceptance, with the
            token-boundary rule and whether the split is exact (:func:`specscope.stats.phases.phase_acceptance`).
        decode_tok_s: each stream's own decode rate, (tokens - 1) / (last token - first token) (tokens/s), sorted
            ascending, beside ``stream_tok_s`` (send to end, queueing and prefill included).
        ttfo_p50_s: median time to first output, send to the first content token after any reasoning (s).
        running_concurrency / waiting_mean: time-weighted means of the server's running / waiting gauges while the
            requested load was offered (requests; ``specscope.stats.capacity``), None without gauges;
            ``achieved_concurrency`` stays the client's view.
        running_max / waiting_max: the most requests running / waiting in any gauge sample (requests).
        gauge_samples: gauge readings the means rest on; ``gauge_window`` ``offered`` or ``cell``.
        capacity_limited: ``CAPACITY_LIMITED(ceiling=C, requested=N)`` when the server ran fewer requests than
            requested while others waited (a finding about the server: the cell's status is not changed), else None.
        queue_mean_s: mean time a request waited to be scheduled, from vLLM's ``request_queue_time_seconds``
            histogram delta over the cell (s); None where the server does not report it (llama.cpp).
        queue_p50_s: median over the cell's streams of the queue wait each response reported
            (``StreamRecord.queue_s``: vLLM ``metrics.queue_time_ms``) (s); None when no response reported one.
        spec_requests: the cell's per-request speculative records pooled
            (:func:`specscope.stats.spec_pool.pool_requests`: accepted / drafted / verify steps with the responses
            each rests on, the accepted-count histogram, draft lengths, the engines' own k, their warnings); None
            when no response carried speculative fields.
        spec_window: the ``/metrics`` window reading (:func:`specscope.stats.spec_pool.window_doc`: engine kind,
            state of speculation, statement, alarm, warnings); None without two scrapes.
        drafting: the drafting the server really did (:func:`specscope.stats.spec_pool.drafting_as_run`).
        stream_acceptance: per-stream acceptance (accepted / drafted tokens of each response that carried
            per-response speculative fields), ascending; ``()`` when the server sends none.
        started_at_s / ended_at_s: wall-clock instants (s since the epoch) around the measured streams, None for
            runs stored before they were recorded; ``load_avg_1m``: the machine's 1-min load average at the
            start and the end; ``engine_cpu_s``: the local engine process's CPU time over the cell (s), None for
            a remote server (source: :mod:`specscope.bench.clock`).
    """

    config: str
    workload: str
    concurrency: int
    repeat: int
    status: CellStatus
    reasons: tuple[str, ...]
    streams: int | None
    streams_ok: int | None
    output_tokens: int
    token_source: Literal["usage", "missing", "counter_delta", "imported"]
    duration_s: float
    output_tok_s: float | None
    stream_tok_s: tuple[float, ...]
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    tpot_p50_s: float | None
    achieved_concurrency: float | None
    acceptance_rate: float | None
    acceptance_length: float | None
    acceptance_per_position: tuple[float, ...]
    acceptance_source: str | None
    counters: SpecCounters | None
    server_generation_tokens: float | None
    per_request_draft_tokens: int | None = None
    per_request_accepted_tokens: int | None = None
    client: ClientFacts = field(default_factory=ClientFacts)
    prompt_tokens_mean: float | None = None
    reasoning_chunks: int = 0
    phase_counts: dict[str, int] | None = None
    phase_acceptance: dict[str, Any] | None = None
    decode_tok_s: tuple[float, ...] = ()
    ttfo_p50_s: float | None = None
    tpot_p95_s: float | None = None
    running_concurrency: float | None = None
    waiting_mean: float | None = None
    running_max: float | None = None
    waiting_max: float | None = None
    gauge_samples: int = 0
    gauge_window: str | None = None
    capacity_limited: str | None = None
    queue_mean_s: float | None = None
    queue_p50_s: float | None = None
    stream_acceptance: tuple[float, ...] = ()
    spec_requests: dict[str, Any] | None = None
    spec_window: dict[str, Any] | None = None
    drafting: dict[str, Any] | None = None
    started_at_s: float | None = None
    ended_at_s: float | None = None
    load_avg_1m: tuple[float | None, ...] = ()
    engine_cpu_s: float | None = None
    failed_output_tokens: int | None = None

    @property
    def rated_output_tokens(self) -> int:
        """The tokens ``output_tok_s`` counts: ``output_tokens`` less the failed streams' (tokens); all of
        ``output_tokens`` where ``failed_output_tokens`` is not known."""
        return self.output_tokens - (self.failed_output_tokens or 0)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(dataclasses.replace(self, counters=None, client=ClientFacts()))
        d["counters"] = None if self.counters is None else self.counters.to_dict()
        d["client"] = self.client.to_dict()
        for k in _TUPLE_FIELDS:
            d[k] = list(d[k])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CellSummary:
        """The inverse of :meth:`to_dict` (one item of the JSON report's ``cells``).

        Raises:
            ValueError: ``d`` has a key that is not a field, or lacks a field without a default, or its ``counters`` /
                ``client`` is not the object its record reads.
        """
        d = dict(known_fields(cls, d))
        for k in _TUPLE_FIELDS:
            d[k] = tuple(d.get(k) or ())
        try:
            d["counters"] = None if d["counters"] is None else SpecCounters.from_dict(d["counters"])
            d["client"] = ClientFacts.from_dict(d.get("client") or {})
        except (TypeError, AttributeError) as exc:
            raise ValueError(f"CellSummary: {exc}") from None
        return cls(**d)

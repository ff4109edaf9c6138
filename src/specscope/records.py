"""Measurement records shared by the client, the store, the statistics and the report.

Frozen dataclasses (hot path, no validation cost); the store turns them into SQLite rows and back.
All instants are ``time.perf_counter_ns()`` readings of the process that measured them (nanoseconds,
arbitrary origin); all intervals are differences of two such readings. Token counts come from the
server's ``usage`` block (``token_source == "usage"``) and never from counting SSE chunks.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "INT_BOUND",
    "CRASH_REASON",
    "known_fields",
    "StreamStatus",
    "SpecRequest",
    "StreamRecord",
    "SpecCounters",
    "SpecWindow",
    "CellKey",
    "CellResult",
    "GaugeSample",
    "turn_prompt_id",
    "split_turn",
    "series_selector",
    "series_labels",
]

#: every integer a record stores lies in -INT_BOUND..INT_BOUND (SQLite's and JSON readers' 64-bit range): a server's
#: count past it (``usage.prompt_tokens`` 1e20) is a bad value at the edge, never a stored record the run cannot read
INT_BOUND = 2**63

StreamStatus = Literal["ok", "degraded", "failed"]

# the reason code of a cell during which the server died (``CellResult.crashed``)
CRASH_REASON = "SERVER_CRASH"

_TURN = "/t"  # a conversation turn's stream: "<prompt id>/t<turn, from 1>"


def turn_prompt_id(prompt_id: str, turn: int) -> str:
    """The ``prompt_id`` a stream of a conversation records: ``"spec-bench.mt_bench-0003/t2"`` is turn 2 (1-based)."""
    return f"{prompt_id}{_TURN}{turn}"


def split_turn(prompt_id: str) -> tuple[str, int | None]:
    """``"x/t2"`` -> ``("x", 2)``; a stream outside a conversation -> ``(prompt_id, None)``."""
    head, sep, tail = prompt_id.rpartition(_TURN)
    return (head, int(tail)) if sep and tail.isdigit() and head else (prompt_id, None)


_ESCAPE = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n"}
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def series_selector(labels: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> str:
    """The name of a ``/metrics`` series set by its labels: the Prometheus selector ``{k="v",...}`` in the given
    order, values escaped as the text format escapes them (backslash, double quote, newline)."""
    return "{" + ",".join(f'{k}="{v.translate(_ESCAPE)}"' for k, v in labels) + "}"


def series_labels(name: str) -> dict[str, str] | None:
    """The labels of a :func:`series_selector` name; None for a name that is not one (an engine index)."""
    if not (name.startswith("{") and name.endswith("}")):
        return None
    body = name[1:-1]
    pairs = list(_LABEL.finditer(body))
    if ",".join(m.group(0) for m in pairs) != body:
        return None
    unescape = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
    return {m.group(1): re.sub(r"\\.", lambda e: unescape.get(e.group(0), e.group(0)), m.group(2)) for m in pairs}


@dataclass(frozen=True, slots=True)
class SpecRequest:
    """One response's speculative decoding as its server reported it, in engine-neutral terms (issue 26).

    Filled by the engine adapters (``specscope.adapters.<engine>.per_response``: vLLM, SGLang, llama.cpp,
    TensorRT-LLM), dispatched by :mod:`specscope.client.spec_fields` (the field-by-field sources are in
    docs/engines.md). A count the engine did not report is ``None``, never 0: 0 means the server said 0.

    Attributes:
        engine: ``vllm``, ``sglang``, ``llamacpp``, ``trtllm``, or ``unknown`` (only unread spec fields were seen).
        shape: where the fields were read, e.g. ``vllm.metrics.speculative_decoding``,
            ``vllm.choices.speculative_decoding_stats``, ``sglang.meta_info``, ``sglang.sglext.spec_tokens_details``,
            ``llamacpp.timings``, ``trtllm.choices.speculative_decoding``.
        accepted_tokens: accepted draft tokens (the bonus tokens excluded).
        draft_tokens: drafted tokens counted toward acceptance.
        verify_steps: verify steps that carried a draft.
        histogram: ``((j, steps), ...)``: verify steps that accepted exactly j drafts, ascending j, zero buckets left
            out; no fixed k (variable-length and tree drafting fit). Empty when the engine sent none.
        draft_per_step / accepted_per_step: ordered per verify step (vLLM ``detailed``); empty when not sent.
        configured_k: the per-step draft bound the engine states (vLLM / TRT-LLM ``num_spec_tokens``), else None.
        reasoning_tokens: ``usage.completion_tokens_details.reasoning_tokens`` of the same response (the phase
            boundary, :mod:`specscope.stats.phases`), None when absent.
        engine_version: the generation of field names seen (e.g. ``sglang names of 0.5.9``), when it tells one.
        source_fields: the JSON paths that were read.
        warnings: named reasons, ``CODE(detail)``: ``UNREAD_SPEC_FIELD``, ``WRONG_TYPE``, ``SPEC_IDENTITY``,
            ``SPEC_FIELDS_DISAGREE``, ``SGLANG_FILLED_ZERO``, ``SPEC_SHAPES_MIXED``.
    """

    engine: str
    shape: str
    accepted_tokens: int | None = None
    draft_tokens: int | None = None
    verify_steps: int | None = None
    histogram: tuple[tuple[int, int], ...] = ()
    draft_per_step: tuple[int, ...] = ()
    accepted_per_step: tuple[int, ...] = ()
    configured_k: int | None = None
    reasoning_tokens: int | None = None
    engine_version: str | None = None
    source_fields: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["histogram"] = [list(p) for p in self.histogram]
        for k in ("draft_per_step", "accepted_per_step", "source_fields", "warnings"):
            d[k] = list(d[k])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SpecRequest:
        """The inverse of :meth:`to_dict`.

        Raises:
            ValueError: an unknown or missing field.
        """
        f = dict(known_fields(cls, d))
        f["histogram"] = tuple((int(j), int(n)) for j, n in f.get("histogram") or ())
        for k in ("draft_per_step", "accepted_per_step", "source_fields", "warnings"):
            f[k] = tuple(f.get(k) or ())
        return cls(**f)


@dataclass(frozen=True, slots=True)
class StreamRecord:
    """One streamed chat completion, as the client saw it on the wire.

    Instants are ``perf_counter_ns`` readings (ns); ``None`` when the event never happened.

    Attributes:
        prompt_id: the workload prompt's stable id (e.g. ``"prose-017"``).
        intended_ns: when the schedule wanted the request sent (open loop); equals ``send_ns`` in
            closed loop. Latency measured from here has no coordinated omission.
        send_ns: just before the request bytes were written.
        first_token_ns: first chunk carrying a non-empty ``content`` or ``reasoning``/``reasoning_content``
            delta (a role-only chunk does not count). This is TTFT's end point.
        first_content_ns: first chunk with a non-empty ``content`` delta.
        last_token_ns: last chunk carrying any non-empty token delta.
        end_ns: when the stream ended (``[DONE]``, close or error).
        content_chunks: SSE events carrying a non-empty content delta (NOT a token count).
        reasoning_chunks: SSE events carrying a non-empty reasoning delta.
        output_tokens: ``usage.completion_tokens``; ``None`` when the server sent no usage.
        prompt_tokens: ``usage.prompt_tokens``; ``None`` when absent.
        token_source: ``"usage"`` when ``output_tokens`` came from the usage block, else ``"missing"``.
        finish_reason: the last non-null ``finish_reason`` seen, or ``None``.
        status: ``ok``, ``degraded`` (answer arrived but something is off) or ``failed`` (no answer).
        reason: why the stream is degraded / failed (``http 503``, ``timeout``, ``no usage``,
            ``no [DONE]``, ``short without stop``...), ``None`` when ok.
        http_status: the HTTP status code, ``None`` if no response arrived.
        text: concatenated content deltas; ``None`` when the client did not keep text (the default:
            ``ClientSettings.keep_text``).
        reasoning_text: concatenated reasoning deltas; ``None`` when not kept.
        server_draft_tokens: per-request drafted tokens reported by the server in the response
            (llama.cpp ``timings.draft_n``; vLLM per-request spec-decode metrics), ``None`` if absent.
        server_accepted_tokens: per-request accepted draft tokens (``timings.draft_n_accepted``).
        bytes_received: body bytes read from the socket.
        draft_per_step / accepted_per_step: the server's per-request per-step draft and accepted tokens, in
            step order (vLLM ``--per-request-spec-decode-metrics detailed``); empty when not served.
        reasoning_tokens: ``usage.completion_tokens_details.reasoning_tokens``; ``None`` when absent.
        queue_s: how long the server says the request waited to be scheduled (s): vLLM's ``metrics.queue_time_ms``
            / 1000 (``--enable-per-request-metrics``; ``specscope.adapters.vllm.per_response``); ``None`` when the
            server reports none (llama.cpp's ``timings`` have no queue field, and nothing is derived in its place).
        spec: the response's speculative decoding in engine-neutral terms (:class:`SpecRequest`), None when the
            server sent no speculative fields; ``server_*_tokens`` and the per-step arrays above are filled from it.
    """

    prompt_id: str
    intended_ns: int
    send_ns: int
    first_token_ns: int | None
    first_content_ns: int | None
    last_token_ns: int | None
    end_ns: int
    content_chunks: int
    reasoning_chunks: int
    output_tokens: int | None
    prompt_tokens: int | None
    token_source: Literal["usage", "missing"]
    finish_reason: str | None
    status: StreamStatus
    reason: str | None
    http_status: int | None
    text: str | None = None
    reasoning_text: str | None = None
    server_draft_tokens: int | None = None
    server_accepted_tokens: int | None = None
    bytes_received: int = 0
    draft_per_step: tuple[int, ...] = ()
    accepted_per_step: tuple[int, ...] = ()
    reasoning_tokens: int | None = None
    queue_s: float | None = None
    spec: SpecRequest | None = None

    @property
    def ttft_ns(self) -> int | None:
        """Time to first token (content or reasoning), from ``send_ns``; ns."""
        return None if self.first_token_ns is None else self.first_token_ns - self.send_ns

    @property
    def e2e_ns(self) -> int:
        """Request latency from send to end of stream; ns."""
        return self.end_ns - self.send_ns

    @property
    def tpot_ns(self) -> float | None:
        """Time per output token after the first: (last - first token) / (output_tokens - 1); ns.

        Uses the usage token count, so multi-token chunks under speculation are handled right.
        ``None`` with fewer than two tokens or no usage.
        """
        if (
            self.output_tokens is None
            or self.output_tokens < 2
            or self.first_token_ns is None
            or self.last_token_ns is None
        ):
            return None
        return (self.last_token_ns - self.first_token_ns) / (self.output_tokens - 1)

    @property
    def stream_tok_s(self) -> float | None:
        """This stream's decode rate: output tokens / (end - send) in tokens per second."""
        if self.output_tokens is None or self.e2e_ns <= 0:
            return None
        return self.output_tokens / (self.e2e_ns / 1e9)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["spec"] = None if self.spec is None else self.spec.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StreamRecord:
        """The inverse of :meth:`to_dict`.

        Raises:
            ValueError: ``d`` has a key that is not a field, or lacks a field without a default.
        """
        fields = dict(known_fields(cls, d))
        for k in ("draft_per_step", "accepted_per_step"):
            fields[k] = tuple(fields.get(k) or ())
        if isinstance(fields.get("spec"), dict):
            fields["spec"] = SpecRequest.from_dict(fields["spec"])
        return cls(**fields)


@dataclass(frozen=True, slots=True)
class SpecCounters:
    """Speculative-decoding and generation counters (a snapshot, or the delta of two snapshots).

    Values are summed over ``engine`` (and any other non-position) labels; ``engines`` keeps each engine's own.
    Counts are tokens except ``drafts`` (number of draft proposals, i.e. verify steps that carried a draft). A count
    is ``None`` when the server has no counter for it (silence is never 0); 0 means a counter said 0.

    Which engine counter fills which field is each engine adapter's declaration (``specscope.adapters.<engine>
    .metrics``; the generated table in docs/engines.md).

    Attributes:
        drafts: the verify steps that carried a draft; None without a counter for them.
        draft_tokens: drafted tokens; None without it.
        accepted_tokens: accepted draft tokens; None without it.
        accepted_per_position: accepted tokens at draft position i (the per-position counter), index i.
        generation_tokens: generated tokens.
        prompt_tokens: prompt tokens.
        running: requests running at the scrape (gauge; meaningful on snapshots only).
        waiting: requests waiting at the scrape (gauge; snapshots only).
        present: which counter families the server exposes (``"spec"``, ``"per_pos"``, ``"generation"``).
        reset: on a delta, True when a counter went down between the scrapes (server restart) and no engine's
            window is left to count (with per-engine series: every engine restarted).
        engines: per ``engine`` label (vLLM data parallel), that engine's snapshot or delta (empty when the
            server has no ``engine`` label); on a delta each carries its own ``reset`` and the fields above are
            the sum over the engines that did not restart.
        created: the engine's counter creation time (the largest ``*_created`` sample, Unix s), ``None`` if absent.
        reset_engines: on a delta, the engines that restarted between the scrapes (left out of the sums).
        vanished_engines: on a delta, the engines whose series were all present before and gone after (left out of the
            sums; not a restart: nothing says they restarted).
        unknown_start_engines: on a delta, the series sets absent before and present after whose ``*_created`` does
            not show them created after the before scrape (left out of the sums: their count may predate the window).
        engine_kind: whose names the exposition used: ``vllm``, ``llamacpp``, ``sglang``, ``trtllm`` (None: none).
        rejected_tokens: rejected draft tokens, a cross-check of drafted - accepted; None without it.
        spec_gauges: speculative gauges seen (name -> value on a snapshot): a gauge holds a current mean and cannot
            be differenced over a window (``GAUGE_NOT_WINDOW``); kept to say so, never read as a window figure.
        unread: speculative-looking sample names this reader does not know (``UNREAD_SPEC_FIELD``).
        caveats: named reasons the adapter gives for a series whose presence says what the counts mean (e.g. V0's
            accepted counter: ``V0_ACCEPTED_ANY_POSITION``), said by the window reading.
    """

    drafts: float | None = None
    draft_tokens: float | None = None
    accepted_tokens: float | None = None
    accepted_per_position: tuple[float, ...] = ()
    generation_tokens: float | None = None
    prompt_tokens: float | None = None
    running: float | None = None
    waiting: float | None = None
    present: frozenset[str] = field(default_factory=frozenset)
    reset: bool = False
    engines: dict[str, SpecCounters] = field(default_factory=dict)
    created: float | None = None
    reset_engines: tuple[str, ...] = ()
    engine_kind: str | None = None
    rejected_tokens: float | None = None
    spec_gauges: dict[str, float] = field(default_factory=dict)
    unread: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()
    vanished_engines: tuple[str, ...] = ()
    unknown_start_engines: tuple[str, ...] = ()

    @property
    def acceptance_rate(self) -> float | None:
        """accepted / draft tokens (excludes the bonus token); None with no drafted tokens or no counter."""
        if self.accepted_tokens is None or not self.draft_tokens:
            return None
        return self.accepted_tokens / self.draft_tokens

    @property
    def acceptance_length(self) -> float | None:
        """1 + accepted / drafts: tokens emitted per verify step that carried a draft (includes the bonus token)."""
        if self.accepted_tokens is None or not self.drafts:
            return None
        return 1.0 + self.accepted_tokens / self.drafts

    @property
    def acceptance_per_position(self) -> tuple[float, ...]:
        """Unconditional per-position rate: accepted at position i / drafts (vLLM's form)."""
        if not self.drafts:
            return ()
        drafts = self.drafts
        return tuple(a / drafts for a in self.accepted_per_position)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["accepted_per_position"] = list(self.accepted_per_position)
        d["present"] = sorted(self.present)
        d["engines"] = {e: c.to_dict() for e, c in self.engines.items()}
        d["reset_engines"] = list(self.reset_engines)
        d["vanished_engines"] = list(self.vanished_engines)
        d["unknown_start_engines"] = list(self.unknown_start_engines)
        d["unread"] = list(self.unread)
        d["caveats"] = list(self.caveats)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SpecCounters:
        """The inverse of :meth:`to_dict`. Stored before issue 26, a snapshot wrote 0 for counters it did not see;
        ``present`` says which families were there, so those zeros read back as None."""
        d = dict(d)
        d["accepted_per_position"] = tuple(d.get("accepted_per_position") or ())
        d["present"] = frozenset(d.get("present") or ())
        d["engines"] = {e: cls.from_dict(c) for e, c in (d.get("engines") or {}).items()}
        d["reset_engines"] = tuple(d.get("reset_engines") or ())
        d["vanished_engines"] = tuple(d.get("vanished_engines") or ())
        d["unknown_start_engines"] = tuple(d.get("unknown_start_engines") or ())
        d["unread"] = tuple(d.get("unread") or ())
        d["caveats"] = tuple(d.get("caveats") or ())
        d["spec_gauges"] = dict(d.get("spec_gauges") or {})
        if "engine_kind" not in d and "spec" not in d["present"]:  # a pre-issue-26 record: 0 meant "not seen"
            for k in ("drafts", "draft_tokens", "accepted_tokens"):
                if d.get(k) == 0:
                    d[k] = None
        return cls(**known_fields(cls, d))


@dataclass(frozen=True, slots=True)
class SpecWindow:
    """What one window (two scrapes of one server) says about speculation, engine-neutral (issue 26).

    Attributes:
        engine_kind: whose names the scrapes used (``vllm``, ``llamacpp``, ``sglang``, ``trtllm``) or None.
        delta: the counter deltas (:func:`specscope.stats.counters.counters_delta`), per engine label inside.
        state: ``not_configured`` (no speculative series in either scrape), ``idle`` (counters there, 0 drafts and
            0 drafted tokens), ``vanished`` (series present before, gone after), ``accepting_nothing`` (drafts > 0, 0
            accepted: an alarm), ``gauge_only`` (only speculative gauges: nothing to difference), ``unread``
            (speculative series present under names specscope does not read), ``drafting``, ``reset`` (every engine
            left restarted between the scrapes), or ``no_window`` (no series set spans both scrapes: each vanished or
            started at an unknown point).
        statement: the state as one sentence with its numbers.
        alarm: the alarm code when the window is an alarm (``ACCEPTING_NOTHING``), else None.
        warnings: named reasons: ``GAUGE_NOT_WINDOW``, ``UNREAD_SPEC_FIELD``, ``SERIES_VANISHED``,
            ``ACCEPTING_NOTHING``, ``ENGINE_RESET``, ``ENGINE_VANISHED``, ``ENGINE_UNKNOWN_START``, ``SPEC_IDENTITY``,
            ``DRAFT_TOKENS_WITHOUT_DRAFTS``.
    """

    engine_kind: str | None
    delta: SpecCounters
    state: str
    statement: str
    alarm: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def withheld(self) -> bool:
        """The window's acceptance is no measurement: the series vanished, every engine restarted, the names are
        unread, or more tokens were accepted than drafted (``ACCEPTED_OVER_DRAFTED``: a rate above 1)."""
        over = any(w.startswith("ACCEPTED_OVER_DRAFTED") for w in self.warnings)
        return over or self.state in ("vanished", "reset", "unread", "no_window")

    @property
    def acceptance_rate(self) -> float | None:
        """accepted / drafted over the window; None unless both counters exist, something was drafted and the
        window is not :attr:`withheld`."""
        return None if self.withheld else self.delta.acceptance_rate

    @property
    def acceptance_length(self) -> float | None:
        """1 + accepted / drafts over the window; None unless both counters exist, drafts > 0 and the window is not
        :attr:`withheld`."""
        return None if self.withheld else self.delta.acceptance_length


def known_fields(cls: Any, d: dict[str, Any]) -> dict[str, Any]:
    """``d`` checked against the fields of the dataclass ``cls``: no unknown key, no missing required field.

    Raises:
        ValueError: naming the unknown or missing fields.
    """
    fields = dataclasses.fields(cls)
    names = {f.name for f in fields}
    unknown = sorted(set(d) - names)
    required = {f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    missing = sorted(required - set(d))
    if unknown or missing:
        raise ValueError(f"{cls.__name__}: unknown fields {unknown}, missing fields {missing}")
    return d


@dataclass(frozen=True, slots=True)
class GaugeSample:
    """One reading of the server's request gauges during a cell (``specscope.client.gauges``).

    Attributes:
        t_ns: ``perf_counter_ns`` just before the ``/metrics`` request was sent (the server read its gauges later).
        running: requests generating, summed over engines (the running gauge its adapter declares).
        waiting: requests queued inside the server, summed over engines (the waiting gauge its adapter declares).
        queue_sum_s / queue_count: the queue-time histogram's sum (s) and count (finished requests), summed over
            engines; None when the server has no such histogram.
    """

    t_ns: int
    running: float
    waiting: float
    queue_sum_s: float | None = None
    queue_count: float | None = None

    def to_list(self) -> list[float]:
        """``[t_ns, running, waiting]`` (``+ [queue_sum_s, queue_count]`` when known), the stored form."""
        head = [self.t_ns, self.running, self.waiting]
        return (
            head
            if self.queue_sum_s is None or self.queue_count is None
            else head
            + [
                self.queue_sum_s,
                self.queue_count,
            ]
        )

    @classmethod
    def from_list(cls, v: list[float]) -> GaugeSample:
        """The inverse of :meth:`to_list`."""
        if len(v) == 5:
            return cls(int(v[0]), float(v[1]), float(v[2]), float(v[3]), float(v[4]))
        t_ns, running, waiting = v
        return cls(int(t_ns), float(running), float(waiting))


@dataclass(frozen=True, slots=True, order=True)
class CellKey:
    """One cell of the matrix: server config x workload x requested concurrency x repeat index."""

    config: str
    workload: str
    concurrency: int
    repeat: int

    def label(self) -> str:
        return f"{self.config}/{self.workload}/c{self.concurrency}/r{self.repeat}"


@dataclass(frozen=True, slots=True)
class CellResult:
    """What the client measured for one cell, before it goes to the store.

    Attributes:
        key: the cell.
        streams: one record per stream (warm-up excluded).
        start_ns / end_ns: perf_counter_ns around the measured streams (after the first scrape and
            before the last).
        before / after: the two /metrics snapshots; ``None`` when the server has no metrics.
        client: client self-check numbers (send lag, loop lag, limits in force), units in the keys.
        crashed: the server died during the cell (observed by the bench runner).
        reasons: reason codes observed while measuring, not derivable from the records above
            (``CLIENT_LIMITED(...)`` from the client self-check, ``SERVER_CRASH``); they lead the cell's reasons.
        gauges: the server's running / waiting gauges sampled a few times a second while the streams ran
            (empty when the server has no such gauges, or for runs stored before they were sampled).
    """

    key: CellKey
    streams: tuple[StreamRecord, ...]
    start_ns: int
    end_ns: int
    before: SpecCounters | None
    after: SpecCounters | None
    client: dict[str, Any] = field(default_factory=dict)
    crashed: bool = False
    reasons: tuple[str, ...] = ()
    gauges: tuple[GaugeSample, ...] = ()

"""Measurement records shared by the client, the store, the statistics and the report.

Frozen dataclasses (hot path, no validation cost); the store turns them into SQLite rows and back.
All instants are ``time.perf_counter_ns()`` readings of the process that measured them (nanoseconds,
arbitrary origin); all intervals are differences of two such readings. Token counts come from the
server's ``usage`` block (``token_source == "usage"``) and never from counting SSE chunks.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

__all__ = [
    "INT_BOUND",
    "finite_float",
    "CRASH_REASON",
    "known_fields",
    "StreamStatus",
    "SpecRequest",
    "StreamRecord",
    "SpecCounters",
    "SpecWindow",
    "CellKey",
    "CellResult",
    "ClientFacts",
    "ClockFacts",
    "ConversationFacts",
    "ImportedFacts",
    "OpenLoopFacts",
    "TraceFacts",
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


def _absent_none(obj: Any, always: tuple[str, ...] = ()) -> dict[str, Any]:
    """``obj``'s fields as stored: read back, the stored keys in their stored order (``obj.keys``); built here, the
    fields in field order less those that are None (absent) unless named in ``always``."""
    names = obj.keys or tuple(f.name for f in dataclasses.fields(obj) if f.name != "keys")
    out: dict[str, Any] = {}
    for name in names:
        v = getattr(obj, name)
        if v is not None or name in always or obj.keys:
            out[name] = list(v) if isinstance(v, tuple) else v
    return out


#: the ``keys`` field of a facts record: the keys it was read from, in their order (empty when built by the bench),
#: so that a stored object is written back and reported as it was stored; not part of equality
def _keys() -> Any:
    return field(default=(), compare=False, repr=False)


_Part = TypeVar("_Part")


def _stored(cls: type[_Part], d: Mapping[str, Any]) -> _Part:
    """A typed part of the client facts from its stored object ``d``: every key a field (``known_fields``), the
    stored keys and their order remembered in ``keys`` (so ``to_dict`` writes the same shape back)."""
    return cls(**known_fields(cls, dict(d)), keys=tuple(d))  # type: ignore[call-arg]


@dataclass(frozen=True, slots=True)
class ClockFacts:
    """When a cell ran and how loaded the machine was (:mod:`specscope.bench.clock`; stored as ``clock``).

    Attributes:
        started_at_s / ended_at_s: wall-clock instants (s since the epoch) around the measured streams.
        load_avg_1m: the machine's 1-minute load average at the start and the end (each None where unknown).
        engine_cpu_s: the local engine process's CPU seconds over the cell; None for a remote server.
    """

    started_at_s: float | None = None
    ended_at_s: float | None = None
    load_avg_1m: tuple[float | None, ...] = ()
    engine_cpu_s: float | None = None
    keys: tuple[str, ...] = _keys()

    def to_dict(self) -> dict[str, Any]:
        return _absent_none(self, _CLOCK_KEYS)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClockFacts:
        """The inverse of :meth:`to_dict` (a key absent is None; a key that is no field is not kept)."""
        return cls(
            finite_float(d.get("started_at_s")),
            finite_float(d.get("ended_at_s")),
            tuple(finite_float(v) for v in d.get("load_avg_1m") or ()),
            finite_float(d.get("engine_cpu_s")),
            keys=tuple(k for k in d if k in _CLOCK_KEYS),
        )


_CLOCK_KEYS = ("started_at_s", "ended_at_s", "load_avg_1m", "engine_cpu_s")


@dataclass(frozen=True, slots=True)
class OpenLoopFacts:
    """An open-loop cell's load (:mod:`specscope.bench.openloop_cell`, ``trace_cell``, an imported open-loop record;
    stored as ``open_loop``).

    Attributes:
        rate_per_s: the scheduled rate (requests/s; a trace replay's mean rate); None where not recorded.
        arrival: ``poisson``, ``constant``, ``trace`` or an imported tool's own word.
        schedule_seed: the seed of the arrival schedule (a rate cell).
        requests: requests sent. client_processes: the client's processes.
        client_decision: the client's own words on its process count.
        max_concurrency: an imported record's cap on requests in flight.
    """

    rate_per_s: float | None = None
    arrival: str | None = None
    schedule_seed: int | None = None
    requests: int | None = None
    client_processes: int | None = None
    client_decision: str | None = None
    max_concurrency: int | None = None
    keys: tuple[str, ...] = _keys()

    def to_dict(self) -> dict[str, Any]:
        return _absent_none(self, ("rate_per_s", "arrival"))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OpenLoopFacts:
        """The inverse of :meth:`to_dict`.

        Raises:
            ValueError: a key that is no field.
        """
        return _stored(cls, d)


@dataclass(frozen=True, slots=True)
class TraceFacts:
    """A trace replay's schedule (:mod:`specscope.bench.trace_cell`; stored as ``trace``).

    Attributes:
        time_scale: the factor on the trace's own clock. requests: requests replayed.
        scheduled_span_s: first to last scheduled send, s. input_tokens_mean: the trace's mean input length
            (tokens), None where the trace gives none.
    """

    time_scale: float = 1.0
    requests: int | None = None
    scheduled_span_s: float = 0.0
    input_tokens_mean: float | None = None
    keys: tuple[str, ...] = _keys()

    def to_dict(self) -> dict[str, Any]:
        return _absent_none(self, ("input_tokens_mean",))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TraceFacts:
        """The inverse of :meth:`to_dict`.

        Raises:
            ValueError: a key that is no field.
        """
        return _stored(cls, d)


@dataclass(frozen=True, slots=True)
class ConversationFacts:
    """One conversation of a cell (``specscope.client.conversation``; stored in ``conversations``): its ``id``, the
    turns planned and those sent (a failed turn ends it)."""

    id: str
    turns_planned: int
    turns_sent: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "turns_planned": self.turns_planned, "turns_sent": self.turns_sent}


#: the single figures of imported facts (:class:`ImportedFacts`); those in ``_COUNTS`` are whole counts >= 0
_COUNTS = ("completed", "failed", "output_tokens", "drafts", "draft_tokens", "accepted_tokens")
_FIGURES = (
    *_COUNTS,
    "duration_s",
    "ttft_p50_s",
    "ttft_p95_s",
    "tpot_p50_s",
    "tpot_p95_s",
    "acceptance_rate",
    "acceptance_length",
    "tool_concurrency",
)
_PER_REQUEST = ("ttfts_s", "latencies_s", "output_lens_tokens", "input_lens_tokens", "start_times_s")


def finite_float(v: Any) -> float | None:
    """``v`` as a finite float, or None (not a number, a bool, NaN, an infinity, an integer past a float: JSON
    allows any number of digits, and ``math.isfinite(10**400)`` raises OverflowError)."""
    if not isinstance(v, int | float) or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _count(v: Any) -> int | None:
    f = finite_float(v)
    return None if f is None or f < 0 or f != int(f) else int(f)


def _rate01(v: Any) -> float | None:
    f = finite_float(v)
    return f if f is not None and 0.0 <= f <= 1.0 else None


def _rates01(raw: Any) -> tuple[float, ...] | None:
    """A list of rates in 0..1, or None when it is not a list or any entry is not one (never compacted: the positions
    after a gap would shift). A stored rate of 1e308 made ``round(rate x drafts)`` raise OverflowError, and report,
    advise and export refused the run (probe of 2026-12-06)."""
    if not isinstance(raw, list):
        return None
    rates = [_rate01(v) for v in raw]
    return None if any(r is None for r in rates) else tuple(r for r in rates if r is not None)


@dataclass(frozen=True, slots=True)
class ImportedFacts:
    """The facts of a cell measured by another tool (``specscope import``; stored as ``imported``, the shape that
    :mod:`specscope.stats.imported` documents), read once where they enter: each figure as what its key says, or None
    with the stored value named in :attr:`unusable` (a hand-edited run: NaN, a negative or fractional count, a rate
    past 1); one bad value never makes the run unreadable (issue 37).

    Attributes:
        raw: the facts as the tool's file gave them (the stored and reported form; never read for a figure).
        tool / sha256 / record: who wrote the file (``str`` of the stored value), its SHA-256, the 1-based record.
        completed / failed / output_tokens / drafts / draft_tokens / accepted_tokens: whole counts >= 0.
        duration_s / ttft_p50_s / ttft_p95_s / tpot_p50_s / tpot_p95_s / acceptance_length: finite numbers.
        acceptance_rate: in 0..1. acceptance_per_position: rates in 0..1 (None when any is not one).
        ttfts_s / latencies_s / output_lens_tokens / input_lens_tokens / start_times_s: per request, a non-number as
            None (``start_times_s``: the instant each request was sent, on the tool's own clock, s).
        errors: per request, True where it failed (None when not recorded).
        not_recorded: the figures the file does not hold (None when absent or not a list of names).
        tool_concurrency: the mean number of requests in flight as the tool itself wrote it (requests; read where
            the file holds no per-request start instants to derive it from), ``tool_concurrency_source`` naming the
            field and the tool's definition.
        unusable: ``key: value`` of each fact present but not what its key says.
    """

    raw: Mapping[str, Any]
    tool: str = "None"
    sha256: str | None = None
    record: int | None = None
    completed: int | None = None
    failed: int | None = None
    output_tokens: int | None = None
    drafts: int | None = None
    draft_tokens: int | None = None
    accepted_tokens: int | None = None
    duration_s: float | None = None
    ttft_p50_s: float | None = None
    ttft_p95_s: float | None = None
    tpot_p50_s: float | None = None
    tpot_p95_s: float | None = None
    acceptance_rate: float | None = None
    acceptance_length: float | None = None
    acceptance_per_position: tuple[float, ...] | None = None
    ttfts_s: tuple[float | None, ...] | None = None
    latencies_s: tuple[float | None, ...] | None = None
    output_lens_tokens: tuple[float | None, ...] | None = None
    input_lens_tokens: tuple[float | None, ...] | None = None
    start_times_s: tuple[float | None, ...] | None = None
    errors: tuple[bool, ...] | None = None
    not_recorded: tuple[str, ...] | None = None
    tool_concurrency: float | None = None
    tool_concurrency_source: str | None = None
    unusable: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ImportedFacts:
        """The facts of ``d`` (module docstring of :mod:`specscope.stats.imported`), each read as its key says."""
        values: dict[str, Any] = {k: _count(d.get(k)) for k in _COUNTS}
        values |= {k: finite_float(d.get(k)) for k in _FIGURES if k not in _COUNTS}
        values["acceptance_rate"] = _rate01(d.get("acceptance_rate"))
        values["acceptance_per_position"] = _rates01(d.get("acceptance_per_position"))
        for k in _PER_REQUEST:
            raw = d.get(k)
            values[k] = tuple(finite_float(v) for v in raw) if isinstance(raw, list) else None
        errors, missing = d.get("errors"), d.get("not_recorded")
        values["errors"] = tuple(bool(e) for e in errors) if isinstance(errors, list) else None
        names = isinstance(missing, list) and all(isinstance(m, str) for m in missing)
        values["not_recorded"] = tuple(missing) if names and isinstance(missing, list) else None
        sha, rec = d.get("sha256"), d.get("record")
        source = d.get("tool_concurrency_source")
        values["tool_concurrency_source"] = source if isinstance(source, str) else None
        return cls(
            raw=dict(d),
            tool=f"{d.get('tool')}",
            sha256=sha if isinstance(sha, str) else None,
            record=rec if isinstance(rec, int) and not isinstance(rec, bool) else None,
            unusable=_unusable(d, values),
            **values,
        )


def _unusable(d: Mapping[str, Any], values: Mapping[str, Any]) -> tuple[str, ...]:
    """``key: value`` of each stored imported fact that is present but not what its key says."""
    bad = []
    for key in _FIGURES:
        v = d.get(key)
        if v is None:
            continue
        if finite_float(v) is None or (key in _COUNTS and values[key] is None):
            bad.append(f"{key}: {v!r:.40}")
        elif key == "acceptance_rate" and values[key] is None:
            bad.append(f"{key}: {v!r:.40} (not a rate in 0..1)")
    per_pos = d.get("acceptance_per_position")
    if per_pos is not None and values["acceptance_per_position"] is None:
        bad.append(f"acceptance_per_position: {per_pos!r:.40} (not a list of rates in 0..1)")
    missing = d.get("not_recorded")
    if missing is not None and values["not_recorded"] is None:
        bad.append(f"not_recorded: {missing!r:.40}")
    return tuple(bad)


@dataclass(frozen=True, slots=True)
class ClientFacts:
    """What the client recorded about one cell beside its streams (``CellResult.client``; stored as the row's
    ``client_json``, one JSON object whose keys are these fields, a field that is None left out). Validated where it
    enters: the bench builds it, the store checks the stored object (:mod:`specscope.store.schema`) and
    :meth:`from_dict` turns it into these records; the statistics and the report read attributes, never keys.

    Attributes:
        client_settings: the client's settings (:meth:`ClientSettings.describe`); recorded, read by no figure.
        warmup_prompt_id: the warm-up the cell got (a workload's full-shape one or the short one).
        clock: when the cell ran and how loaded the machine was.
        max_tokens: the requests' ``max_tokens`` (since issue 14), the limit a stream's length is judged against.
        self_check: the client's self-check (``ClientCheck.to_dict``, lags in ns); recorded, read at the store edge
            only (a schema-1 row's ``client_limited``).
        rows_sent: a file's or dataset's row ids in send order.
        counter_source: where the counters came from (``kind``, ``urls``, ``drained``); recorded.
        imported: an imported cell's facts (then the cell has no streams).
        open_loop: an open-loop cell's load (rate, trace or imported open loop); None for a closed loop.
        trace: a trace replay's schedule.
        conversations: a multi-turn cell's conversations.
        client_decision: a fixed-concurrency cell's client-process decision (``specscope.bench.client_choice``).
        metrics_unreadable: ``before`` / ``after`` -> what a scrape found that was not metrics text.
        extra: stored keys this reader does not know (a newer or hand-edited run): kept as stored, so the JSON
            report and a rewrite hold them, and never read for a figure.
    """

    client_settings: Mapping[str, Any] | None = None
    warmup_prompt_id: str | None = None
    clock: ClockFacts | None = None
    max_tokens: int | None = None
    self_check: Mapping[str, Any] | None = None
    rows_sent: tuple[str, ...] | None = None
    counter_source: Mapping[str, Any] | None = None
    imported: ImportedFacts | None = None
    open_loop: OpenLoopFacts | None = None
    trace: TraceFacts | None = None
    conversations: tuple[ConversationFacts, ...] | None = None
    client_decision: str | None = None
    metrics_unreadable: Mapping[str, str] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    keys: tuple[str, ...] = _keys()

    def to_dict(self) -> dict[str, Any]:
        """The stored (and reported) object: the fields that are not None and :attr:`extra`'s keys, in the order they
        were read (:attr:`keys`), else in field order with :attr:`extra` last."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is None or f.name in ("extra", "keys"):
                continue
            if isinstance(v, ClockFacts | OpenLoopFacts | TraceFacts | ImportedFacts):
                v = v.to_dict()
            elif f.name == "conversations":
                v = [c.to_dict() for c in self.conversations or ()]
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, Mapping):
                v = dict(v)
            out[f.name] = v
        out |= self.extra
        first = [k for k in self.keys if k in out]
        return {k: out[k] for k in [*first, *(k for k in out if k not in first)]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClientFacts:
        """The inverse of :meth:`to_dict`: a key that is no field goes to :attr:`extra`.

        Raises:
            ValueError / TypeError: a part that is not the object its record needs.
        """
        names = {f.name for f in dataclasses.fields(cls)} - {"extra", "keys"}
        v: dict[str, Any] = {k: d[k] for k in names if d.get(k) is not None}
        for name in ("open_loop", "trace"):  # an empty object says no load of its kind (as the readers always took it)
            if name in v and not v[name]:
                del v[name]
        for name, part in (("clock", ClockFacts), ("open_loop", OpenLoopFacts), ("trace", TraceFacts)):
            if name in v:
                v[name] = part.from_dict(v[name])
        if "imported" in v:
            v["imported"] = ImportedFacts.from_dict(v["imported"])
        if "conversations" in v:
            v["conversations"] = tuple(ConversationFacts(**c) for c in v["conversations"])
        if "rows_sent" in v:
            v["rows_sent"] = tuple(v["rows_sent"])
        return cls(**v, extra={k: x for k, x in d.items() if k not in names}, keys=tuple(d))


@dataclass(frozen=True, slots=True)
class CellResult:
    """What the client measured for one cell, before it goes to the store.

    Attributes:
        key: the cell.
        streams: one record per stream (warm-up excluded).
        start_ns / end_ns: perf_counter_ns around the measured streams (after the first scrape and
            before the last).
        before / after: the two /metrics snapshots; ``None`` when the server has no metrics.
        client: what the client recorded beside the streams (:class:`ClientFacts`).
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
    client: ClientFacts = field(default_factory=ClientFacts)
    crashed: bool = False
    reasons: tuple[str, ...] = ()
    gauges: tuple[GaugeSample, ...] = ()

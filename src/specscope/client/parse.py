"""Parse one stream as it is captured: SSE events, tokens and instants, budgets, status and reasons.

The capture (:class:`RawCapture`) is filled on the hot path by :func:`specscope.client.stream.capture_stream`
(aiohttp) or :mod:`specscope.client.wire` (raw asyncio), which append ``(perf_counter_ns, bytes)`` per socket read
and call :meth:`RawCapture.fold` whenever :data:`FOLD_BYTES` are held (and once when the stream ends): the held reads
go through :class:`~specscope.client.sse.SSEFramer` and each event's data through the typed event boundary
(:func:`~specscope.client.events.decode_chunk`) into a :class:`StreamParser`, then are dropped. So a stream holds at
most :data:`FOLD_BYTES` of raw bytes plus one unfinished event, whatever its length; its text is kept only with
``keep_text`` (a conversation or a report that shows answers asks for it). :func:`parse_capture` turns the folded
capture into a :class:`~specscope.records.StreamRecord` (its status and reason: :mod:`specscope.client.status`).

Budgets (``RUNAWAY``, issue 29): a stream is cut and failed ``RUNAWAY(...)`` when it sends more token events, or
reports more ``usage.completion_tokens``, than :func:`runaway_token_limit` of its ``max_tokens``; when its body passes
``max_stream_bytes``; or when one unfinished event holds more than ``max_event_bytes``
(:class:`~specscope.client.settings.ClientSettings`). The token budget is checked at each token event and each
usage, so the record of a runaway holds exactly the events up to the one that passed it; the hot path cuts the
stream at the fold that finds it, within :data:`FOLD_BYTES` of raw bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec
from httpx_sse._decoders import SSEDecoder, SSELineDecoder
from httpx_sse._models import ServerSentEvent

from specscope.adapters.openai.endpoints import CHAT, RESPONSES, refusal_note
from specscope.client.events import (
    DECODE_ERRORS,
    BadEvent,
    Chunk,
    carries_tool_call,
    decode_chunk,
    decode_event,
    merged_tool_calls,
    unstreamed_object,
)
from specscope.client.responses import Runaway, read_responses_events, read_whole_response
from specscope.client.spec_fields import merge_spec, per_response_queue_s, read_spec
from specscope.client.sse import SSEFramer, error_field_as_data
from specscope.client.status import stream_status
from specscope.records import INT_BOUND, SpecRequest, StreamRecord

__all__ = [
    "FOLD_BYTES",
    "ParseOptions",
    "RawCapture",
    "StreamParser",
    "parse_capture",
    "parse_sse_capture",
    "runaway_token_limit",
    "tool_calls_of",
]

#: raw bytes a stream holds before they are parsed and dropped (a fold parses ~90 one-token events, ~0.1 ms)
FOLD_BYTES = 16 * 1024
MIB = 1024 * 1024
#: bytes of a non-200 body kept, to read the server's own message from (``endpoints.server_message``)
ERROR_BODY_BYTES = 4096


def runaway_token_limit(max_tokens: int | None) -> int | None:
    """Token events (or reported completion tokens) past which a stream is ``RUNAWAY``: ``max_tokens`` plus a
    margin of ``max(64, max_tokens // 4)`` (a reasoning parser may split one token over two events; no correct
    server sends 25 % more events than tokens); ``None`` without ``max_tokens`` (then only the byte budgets apply)."""
    return None if max_tokens is None else max_tokens + max(64, max_tokens // 4)


@dataclass(frozen=True, slots=True)
class ParseOptions:
    """What a stream's parse keeps and the byte budgets (from :class:`~specscope.client.settings.ClientSettings`).

    Attributes:
        keep_text: keep the content and reasoning text (memory grows with the answer); else only counts.
        max_stream_bytes: body bytes past which the stream is ``RUNAWAY``.
        max_event_bytes: bytes one unfinished SSE event may hold before the stream is ``RUNAWAY``.
        endpoint: the API the request went to (:data:`specscope.adapters.openai.endpoints.ENDPOINTS`): which
            stream is read (chat and completions chunks, or Responses events) and what a refusal's reason says.
    """

    keep_text: bool = False
    max_stream_bytes: int = 256 * MIB
    max_event_bytes: int = 4 * MIB
    endpoint: str = CHAT


_ENDED = SSEFramer(0)  # the framer of every ended stream: holds nothing
_decode_any = msgspec.json.Decoder().decode  # plain objects, for the engine adapters of spec_fields


_Runaway = Runaway  # a budget was passed: raised inside the event loop (specscope.client.responses)


class StreamParser:
    """What the SSE events of one stream said, gathered event by event as they are folded in (instants in ns).

    Args:
        max_tokens: the request's token limit (for the runaway budget).
        options: :class:`ParseOptions`.
    """

    __slots__ = (
        "first_token",
        "first_content",
        "last_token",
        "content_chunks",
        "reasoning_chunks",
        "token_events",
        "texts",
        "rtexts",
        "tool_fragments",
        "output_tokens",
        "prompt_tokens",
        "reasoning_tokens",
        "finish",
        "done",
        "server_error",
        "bad_events",
        "first_bad",
        "usage_contradiction",
        "spec",
        "queue_s",
        "body_bytes",
        "last_read_ns",
        "runaway",
        "error_body",
        "framed",
        "unstreamed",
        "_unframed",
        "_unframed_bytes",
        "_responses",
        "_final_usage",
        "_framer",
        "_max_tokens",
        "_token_limit",
        "_options",
    )

    def __init__(self, max_tokens: int | None = None, options: ParseOptions | None = None) -> None:
        self._options = options = options or ParseOptions()
        self._framer = SSEFramer(options.max_event_bytes)
        self._max_tokens = max_tokens
        limit = runaway_token_limit(max_tokens)
        self._token_limit = sys.maxsize if limit is None else limit
        self.first_token: int | None = None
        self.first_content: int | None = None
        self.last_token: int | None = None
        self.content_chunks = 0
        self.reasoning_chunks = 0
        self.token_events = 0
        self.texts: list[str] | None = [] if options.keep_text else None
        self.rtexts: list[str] | None = [] if options.keep_text else None
        #: the raw ``delta.tool_calls`` arrays of a kept answer (:func:`tool_calls_of`)
        self.tool_fragments: list[bytes] | None = [] if options.keep_text else None
        self.output_tokens: int | None = None
        self.prompt_tokens: int | None = None
        self.reasoning_tokens: int | None = None
        self.finish: str | None = None
        self.done = False
        self.server_error: str | None = None
        self.bad_events = 0
        self.first_bad: str | None = None
        #: ``USAGE_CONTRADICTED(...)`` once a usage report contradicts the stream (:func:`_check_usage`), else None
        self.usage_contradiction: str | None = None
        self.spec: SpecRequest | None = None
        self.queue_s: float | None = None
        self.body_bytes = 0
        self.last_read_ns: int | None = None  # arrival of the last body read fed to the SSE framing
        #: the ``RUNAWAY(...)`` reason once a budget is passed, else None
        self.runaway: str | None = None
        #: the first :data:`ERROR_BODY_BYTES` of a non-200 body (the server's own message is read from it)
        self.error_body = b""
        #: the reads of a 200 body before its first SSE event, up to ``max_event_bytes`` (the bound past which the
        #: framing calls the body a runaway anyway): one whole JSON answer is read from them (:meth:`unframed_body`)
        self._unframed: list[bytes] = []
        self._unframed_bytes = 0
        #: True once the SSE framing dispatched an event of this body
        self.framed = False
        #: the ``object`` of a 200 body that was one whole JSON answer, not a stream (:meth:`unframed_body`)
        self.unstreamed: str | None = None
        self._responses = options.endpoint == RESPONSES
        #: the highest usage.completion_tokens reported once the stream finished (a later lower one contradicts it;
        #: running usage before the finish is not compared: vLLM's continuous usage once counted each chunk alone)
        self._final_usage: int | None = None

    def feed(self, reads: list[tuple[int, bytes]], sse: bool = True) -> str | None:
        """Take body reads ``(arrival_ns, bytes)`` in order (``sse=False``: count the bytes only, for a non-200
        body); return :attr:`runaway` (``None`` while every budget holds). Once a budget is passed, nothing more
        is read: the record holds the stream up to the event or read that passed it."""
        if self.runaway is not None or self._framer is _ENDED:
            return self.runaway
        framer, opts = self._framer, self._options
        try:
            for t, data in reads:
                self.body_bytes += len(data)
                if self.body_bytes > opts.max_stream_bytes:
                    raise _Runaway(f"RUNAWAY(more than max_stream_bytes {opts.max_stream_bytes} bytes)")
                if sse:
                    self.last_read_ns = t
                    datas = framer.feed(data)
                    if datas:
                        self.framed = True
                        self.events(t, datas)
                    elif not self.framed and self._unframed_bytes < opts.max_event_bytes:  # a body with no event yet
                        self._unframed.append(data)
                        self._unframed_bytes += len(data)
                    if framer.overflow:
                        raise _Runaway(f"RUNAWAY(an unfinished SSE event over max_event_bytes {opts.max_event_bytes})")
                elif len(self.error_body) < ERROR_BODY_BYTES:
                    self.error_body = (self.error_body + data)[:ERROR_BODY_BYTES]
        except _Runaway as cut:
            self.runaway = str(cut)
        return self.runaway

    @property
    def token_limit(self) -> int:
        """Token events (or reported tokens) past which the stream is ``RUNAWAY`` (:func:`runaway_token_limit`)."""
        return self._token_limit

    @property
    def end_event(self) -> str:
        """The event that ends this stream, as a reason names its absence: ``[DONE]``, or a Responses stream's
        terminal event."""
        return "terminal response event" if self._responses else "[DONE]"

    def release(self, t: int | None = None) -> None:
        """Drop the SSE framing state (the stream has ended; nothing more will be fed); with ``t`` (the body's last
        arrival, ns) the event that its last byte completed is taken first (:meth:`SSEFramer.end`: a CR-only
        stream's final ``[DONE]``)."""
        if t is not None and self.runaway is None and self._framer is not _ENDED:
            last = self._framer.end()
            self.framed = self.framed or bool(last)
            self.events(t, last)
        self._framer = _ENDED

    def unframed_body(self) -> None:
        """A 200 body in which no SSE event was dispatched. One JSON error object with no framing (a proxy that
        forwarded its backend's error body into the event stream, lemonade-sdk/lemonade issue #2826): its ``error``
        is the server's error (:meth:`_extras`). One whole answer (a server that ignored ``stream: true``):
        :attr:`unstreamed` names its ``object``, its usage and finish reason are kept (a Responses ``response``:
        its ``usage.input_tokens`` / ``output_tokens`` / ``output_tokens_details.reasoning_tokens`` and its status,
        :func:`~specscope.client.responses.read_whole_response`), and no token is timed (the answer came whole: no
        first token). The whole body is read, whatever its size: one that passed ``max_event_bytes`` before any
        event was already cut ``RUNAWAY``. Anything else stays an empty stream."""
        if self.framed or not self._unframed or self.server_error is not None or self.runaway is not None:
            return
        body = b"".join(self._unframed).strip()
        self._unframed = []
        ev = decode_event(body)
        if isinstance(ev, Chunk) and ev.error is not None:
            self._extras(ev)
            return
        self.unstreamed = unstreamed_object(body)
        if self.unstreamed is None:
            return
        try:
            if self._responses:
                read_whole_response(self, body)
            elif isinstance(ev, Chunk):
                self.finish = ev.choices[0].finish_reason if ev.choices else None
                self._extras(ev)
        except _Runaway as cut:
            self.runaway = str(cut)

    def tokens_reason(self) -> str:
        """The ``RUNAWAY(...)`` reason of a stream past its token budget."""
        return f"RUNAWAY(more than {self._token_limit} tokens for max_tokens {self._max_tokens})"

    def events(self, t: int, datas: Sequence[bytes]) -> None:
        """Take the data of SSE events that completed at ``t``.

        The hot loop (profiled: benchmarks/client_overhead.py): one typed decode per event, the counters in locals
        (written back at the end, also when a budget is passed), no call per token event; the rare fields are read
        only when present: usage and error by :meth:`_extras`, the engines' fields by :meth:`_engine_fields`. A
        Responses stream's events go to :meth:`_responses_events`."""
        if self._responses:
            self._responses_events(t, datas)
            return
        tokens, content, reasoning = self.token_events, self.content_chunks, self.reasoning_chunks
        limit, texts, rtexts = self._token_limit, self.texts, self.rtexts
        decode = decode_chunk
        try:
            for d in datas:
                try:
                    chunk = decode(d)
                except DECODE_ERRORS:
                    odd = self._odd(d)
                    if odd is None:
                        continue
                    chunk = odd
                last = False  # a final or non-token event (finish, usage, error, no choice): engine fields ride it
                for ch in chunk.choices or ():
                    delta = ch.delta
                    tool = False
                    if delta is not None:
                        c = delta.content
                        r = delta.reasoning_content or delta.reasoning
                        if c is None:
                            c = ch.text
                        if delta.tool_calls:  # empty when absent: one check per event in the common case
                            tool = carries_tool_call(delta.tool_calls)
                            if tool and self.tool_fragments is not None:
                                self.tool_fragments.append(bytes(delta.tool_calls))
                    else:
                        c, r = ch.text, None
                    if c or r or tool:
                        tokens += 1
                        if tokens > limit:
                            raise _Runaway(self.tokens_reason())
                        if c:
                            content += 1
                            if texts is not None:
                                texts.append(c)
                        if r:
                            reasoning += 1
                            if rtexts is not None:
                                rtexts.append(r)
                    if ch.finish_reason:
                        self.finish = ch.finish_reason
                        last = True
                if chunk.usage is not None or chunk.error is not None:
                    self._extras(chunk)
                    last = True
                if (last or not chunk.choices or chunk.metrics) and (
                    chunk.metrics or b"spec" in d or b"draft" in d  # an engine's per-response fields, or a mention
                ):
                    self._engine_fields(d)
        finally:
            if tokens > self.token_events:
                if self.first_token is None:
                    self.first_token = t
                self.last_token = t
            if content > self.content_chunks and self.first_content is None:
                self.first_content = t
            self.token_events, self.content_chunks, self.reasoning_chunks = tokens, content, reasoning

    def _responses_events(self, t: int, datas: Sequence[bytes]) -> None:
        """A Responses stream's events (:func:`specscope.client.responses.read_responses_events`)."""
        read_responses_events(self, t, datas)

    def _odd(self, d: bytes) -> Chunk | None:
        """An event the fast decode refused: ``[DONE]``, an empty keep-alive, a ``BAD_EVENT`` (counted; None), or
        a chunk whose bytes were not valid UTF-8 (decoded again with U+FFFD in their place)."""
        if d == b"[DONE]":
            self.done = True
            return None
        if not d:  # an event with empty data carries nothing (a keep-alive)
            return None
        ev = decode_event(d)
        if isinstance(ev, BadEvent):
            self.bad_events += 1
            self.first_bad = self.first_bad or ev.what
            return None
        return ev

    def _extras(self, chunk: Chunk) -> None:
        """Error and usage of one chunk."""
        err = chunk.error
        if err is not None:
            msg = err if isinstance(err, str) else err.message
            self.server_error = (msg if msg is not None else "(no message)")[:200]
        usage = chunk.usage
        if usage is not None and usage.completion_tokens is not None:
            if _in_range(usage.completion_tokens) and usage.completion_tokens > self._token_limit:
                raise _Runaway(self.tokens_reason())  # past the records' bound it is no count: _drop_out_of_range
            if self.finish is not None:  # a usage sent once the stream finished: each is the whole count
                before = self._final_usage
                if before is not None and usage.completion_tokens < before and self.usage_contradiction is None:
                    self.usage_contradiction = (
                        f"USAGE_CONTRADICTED(usage.completion_tokens fell from {before} to {usage.completion_tokens})"
                    )
                self._final_usage = usage.completion_tokens if before is None else max(before, usage.completion_tokens)
            self.output_tokens = usage.completion_tokens
            self.prompt_tokens = usage.prompt_tokens
            details = usage.completion_tokens_details
            if details is not None:
                self.reasoning_tokens = details.reasoning_tokens

    def _engine_fields(self, d: bytes) -> None:
        """The engines' per-response speculation and queue fields of one event (vLLM ``metrics``, SGLang
        ``meta_info`` / ``sglext``, llama.cpp ``timings``, TensorRT-LLM and vLLM per-choice stats, spec-named fields
        nobody knows), read by :mod:`specscope.client.spec_fields` (through the engine adapters, which check every field
        they read and name what does not fit: ``WRONG_TYPE``, ``UNREAD_SPEC_FIELD``). Events come here decoded a second
        time into plain objects when they carry ``metrics``, or when they are final or non-token events (a finish
        reason, usage, an error, no choice) whose bytes name ``spec`` or ``draft``: every engine known sends its
        per-response fields on such a chunk (docs/engines.md), and a byte search on every token event cost ~0.4 us
        (measured: half the parse)."""
        try:
            obj = _decode_any(d)
        except DECODE_ERRORS:  # the typed decode took it: only bad UTF-8 (replaced, as there) can fail here
            try:
                obj = _decode_any(d.decode("utf-8", "replace"))
            except DECODE_ERRORS:
                return
        if not isinstance(obj, dict):
            return
        self.spec = merge_spec(self.spec, read_spec(obj))
        if self.queue_s is None:
            self.queue_s = per_response_queue_s(obj)


@dataclass(slots=True)
class RawCapture:
    """What the hot path saw of one request, and its parse so far.

    Attributes:
        prompt_id: the workload prompt's id.
        intended_ns: the schedule's send instant (closed loop: when the request was handed to the client).
        send_ns: just before the request bytes were written (aiohttp ``on_request_headers_sent`` trace);
            stays at the hand-over instant if the request never got a connection.
        end_ns: when the body ended or the transport failed.
        http_status: response status, ``None`` if no response arrived.
        chunks: ``(arrival_ns, bytes)`` per socket read not yet folded, in order (body bytes; with ``unframe`` set,
            raw HTTP reads).
        error: transport problem (``timeout``, ``connection dropped``, ``connect failed: ...``, ``STALLED``,
            ``RUNAWAY(...)``) or ``None``.
        max_tokens: the request's ``max_completion_tokens`` / ``max_tokens`` (None if unset).
        options: what the parse keeps and its byte budgets.
        unframe: turns held raw reads into body reads (the wire path's HTTP framing; sets ``http_status``), or None
            when ``chunks`` hold body bytes.
        pending_bytes: bytes appended since the last fold (the hot path's fold trigger).
    """

    prompt_id: str
    intended_ns: int
    send_ns: int
    http_status: int | None = None
    chunks: list[tuple[int, bytes]] = field(default_factory=list)
    end_ns: int = 0
    error: str | None = None
    max_tokens: int | None = None
    options: ParseOptions = field(default_factory=ParseOptions)
    unframe: Callable[[RawCapture, list[tuple[int, bytes]]], list[tuple[int, bytes]]] | None = None
    pending_bytes: int = 0
    _parser: StreamParser | None = None

    @property
    def parser(self) -> StreamParser:
        """This stream's :class:`StreamParser` (made on first use)."""
        if self._parser is None:
            self._parser = StreamParser(self.max_tokens, self.options)
        return self._parser

    def fold(self) -> str | None:
        """Parse the held reads into :attr:`parser` and drop them; return the ``RUNAWAY(...)`` reason once a budget
        is passed (the caller cuts the stream), else None. A non-200 body is counted, not parsed."""
        parser = self.parser
        reads = self.chunks
        if not reads:
            return parser.runaway
        batch = list(reads)
        reads.clear()  # in place: the hot path holds this list's append
        self.pending_bytes = 0
        if self.unframe is not None:
            batch = self.unframe(self, batch)  # sets http_status once the head is in
        return parser.feed(batch, sse=self.http_status is None or self.http_status == 200)

    def finish(self) -> str | None:
        """The last fold, when the response has ended: parse what is held, then drop the framing state (the HTTP
        and SSE parsers), so a finished stream keeps only its counts; returns the ``RUNAWAY(...)`` reason or None."""
        runaway = self.fold()
        self.unframe = None
        sse = self.http_status is None or self.http_status == 200
        self.parser.release(self.parser.last_read_ns if sse else None)
        return runaway


def parse_sse_capture(chunks: list[tuple[int, bytes]]) -> list[tuple[int, ServerSentEvent]]:
    """Reference decoding of captured body reads into SSE events with httpx-sse's decoders (the WHATWG rules),
    each with the arrival time of the read that completed it; the tests check :class:`~specscope.client.sse.SSEFramer`
    against it. A final event without its terminating blank line is dropped (an incomplete event is discarded).
    llama.cpp's ``error:`` field is read as data (:func:`~specscope.client.sse.error_field_as_data`), as the framer
    reads it."""
    import codecs

    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = SSELineDecoder()
    sse = SSEDecoder()
    out: list[tuple[int, ServerSentEvent]] = []
    for t, data in chunks:
        text = utf8.decode(data)
        if not text:
            continue
        for line in lines.decode(text):
            ev = sse.decode(error_field_as_data(line))
            if ev is not None:
                out.append((t, ev))
    return out


def _in_range(n: int | None) -> bool:
    return n is None or 0 <= n < INT_BOUND


#: the parser's counts -> the usage field the server sent them in (Chat / Completions, and the Responses API's)
_CHAT_USAGE = {
    "output_tokens": "completion_tokens",
    "prompt_tokens": "prompt_tokens",
    "reasoning_tokens": "completion_tokens_details.reasoning_tokens",
}
_RESPONSES_USAGE = {
    "output_tokens": "output_tokens",
    "prompt_tokens": "input_tokens",
    "reasoning_tokens": "output_tokens_details.reasoning_tokens",
}


def _drop_out_of_range(seen: StreamParser) -> None:
    """A count the server reported past :data:`~specscope.records.INT_BOUND` (``usage.prompt_tokens`` 1e20, a
    per-request speculative field, llama.cpp's ``timings.draft_n``) is no count: it becomes absent, named as a bad
    event (usage) or the speculative record's warning ``VALUE_OUT_OF_RANGE(field)``, so the stored run stays
    readable (issue 37, W1)."""
    fields = _RESPONSES_USAGE if seen._responses else _CHAT_USAGE
    for name, sent_as in fields.items():
        value = getattr(seen, name)
        if not _in_range(value):
            setattr(seen, name, None)
            seen.bad_events += 1
            seen.first_bad = seen.first_bad or f"usage.{sent_as} {str(value)[:40]} is no count (0 to below 2**63)"
    spec = seen.spec
    if spec is None:
        return
    counts = ("accepted_tokens", "draft_tokens", "verify_steps", "configured_k", "reasoning_tokens")
    bad = [f for f in counts if not _in_range(getattr(spec, f))]
    fixes: dict[str, Any] = dict.fromkeys(bad)
    for name in ("draft_per_step", "accepted_per_step"):
        if not all(_in_range(n) for n in getattr(spec, name)):
            bad.append(name)
            fixes[name] = ()
    if not all(_in_range(j) and _in_range(n) for j, n in spec.histogram):
        bad.append("histogram")
        fixes["histogram"] = ()
    if bad:
        warnings = spec.warnings + tuple(f"VALUE_OUT_OF_RANGE({f})" for f in bad)
        seen.spec = replace(spec, **fixes, warnings=warnings)


def _check_usage(seen: StreamParser) -> None:
    """A usage report that contradicts its stream is no count: ``usage.completion_tokens`` of 0 after token events
    (sgl-project/sglang issue #3743: the finish chunk's usage said 0 prompt and 0 completion tokens after the
    answer), or a report after the finish below an earlier one (the whole count cannot fall;
    OpenSecretCloud/opensecret PR #59: a proxy's later usage carried prompt tokens only; noted as it is read,
    :meth:`StreamParser._extras`), or ``completion_tokens_details.reasoning_tokens`` above ``completion_tokens``
    (reasoning tokens are part of the completion tokens; BerriAI/litellm issue #24526: 79 reasoning of 64 completion
    tokens streamed by a Qwen3.5 server). The output tokens (and the reasoning tokens) become absent (the cell may
    take the server's counters) and the stream names why, ``USAGE_CONTRADICTED(...)``
    (:func:`~specscope.client.status.stream_status`).
    """
    out, reasoning = seen.output_tokens, seen.reasoning_tokens
    if seen.usage_contradiction is None and out == 0 and seen.token_events > 0:
        n = seen.token_events
        seen.usage_contradiction = f"USAGE_CONTRADICTED(usage.completion_tokens 0 after {n} token events)"
    if seen.usage_contradiction is None and out is not None and reasoning is not None and reasoning > out:
        detail = f"completion_tokens_details.reasoning_tokens {reasoning} > usage.completion_tokens {out}"
        seen.usage_contradiction = f"USAGE_CONTRADICTED({detail})"
    if seen.usage_contradiction is not None:
        seen.output_tokens = seen.reasoning_tokens = None


def tool_calls_of(raw: RawCapture) -> list[dict[str, Any]]:
    """The whole tool calls the answer streamed (:func:`~specscope.client.events.merged_tool_calls`), empty when it
    had none or its text was not kept (``keep_text``). Read after :func:`parse_capture`."""
    fragments = raw.parser.tool_fragments
    return merged_tool_calls(fragments) if fragments else []


def parse_capture(raw: RawCapture) -> StreamRecord:
    """Fold what is left of a :class:`RawCapture` and turn it into a :class:`~specscope.records.StreamRecord`
    (status rules: :mod:`specscope.client.status`)."""
    raw.fold()
    seen = raw.parser
    if raw.http_status == 200:
        seen.unframed_body()
    _drop_out_of_range(seen)
    _check_usage(seen)
    note = None
    if raw.http_status is not None and raw.http_status != 200:  # the endpoint, the server's message, what to try
        note = refusal_note(raw.options.endpoint, raw.http_status, seen.error_body)
    status, reason = stream_status(raw.http_status, raw.error, raw.max_tokens, seen, http_note=note)
    spec = seen.spec
    if spec is not None and seen.reasoning_tokens is not None:
        spec = replace(spec, reasoning_tokens=seen.reasoning_tokens)
    return StreamRecord(
        prompt_id=raw.prompt_id,
        intended_ns=raw.intended_ns,
        send_ns=raw.send_ns,
        first_token_ns=seen.first_token,
        first_content_ns=seen.first_content,
        last_token_ns=seen.last_token,
        end_ns=raw.end_ns,
        content_chunks=seen.content_chunks,
        reasoning_chunks=seen.reasoning_chunks,
        output_tokens=seen.output_tokens,
        prompt_tokens=seen.prompt_tokens,
        token_source="usage" if seen.output_tokens is not None else "missing",
        finish_reason=seen.finish,
        status=status,
        reason=reason,
        http_status=raw.http_status,
        text=None if seen.texts is None else "".join(seen.texts),
        reasoning_text=None if seen.rtexts is None else "".join(seen.rtexts),
        server_draft_tokens=None if spec is None else spec.draft_tokens,
        server_accepted_tokens=None if spec is None else spec.accepted_tokens,
        bytes_received=seen.body_bytes,
        draft_per_step=() if spec is None else spec.draft_per_step,
        accepted_per_step=() if spec is None else spec.accepted_per_step,
        reasoning_tokens=seen.reasoning_tokens,
        queue_s=seen.queue_s,
        spec=spec,
    )

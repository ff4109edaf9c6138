"""Parse one captured stream after the fact: SSE events, tokens and instants, status and reasons.

The capture (:class:`RawCapture`) is filled on the hot path by :func:`specscope.client.stream.capture_stream`
(aiohttp) or :mod:`specscope.client.wire` (raw asyncio); :func:`parse_capture` turns it into a
:class:`~specscope.records.StreamRecord`. The bytes go through httpx-sse's line and event decoders
(``httpx_sse._decoders.SSELineDecoder`` / ``SSEDecoder``, the WHATWG event-stream rules) and ``orjson.loads`` when
orjson is installed (else ``json.loads``). The status rules are in :mod:`specscope.client.stream`'s docstring.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field, replace
from typing import Any

try:  # optional fast path: orjson (C/Rust), ~4x faster than json.loads on chunk-sized objects, same results
    from orjson import loads as _json_loads
except ImportError:  # pragma: no cover - depends on the environment
    from json import loads as _json_loads  # type: ignore[assignment]
from httpx_sse._decoders import SSEDecoder, SSELineDecoder
from httpx_sse._models import ServerSentEvent

from specscope.client.spec_fields import int_or_none as _int
from specscope.client.spec_fields import merge_spec, per_response_queue_s, read_spec
from specscope.records import SpecRequest, StreamRecord, StreamStatus

__all__ = ["STOP_REASONS", "RawCapture", "parse_sse_capture", "parse_capture"]

STOP_REASONS = frozenset({"stop", "tool_calls", "function_call", "eos"})


@dataclass(slots=True)
class RawCapture:
    """What the hot path saw of one request (no parsing done yet).

    Attributes:
        prompt_id: the workload prompt's id.
        intended_ns: the schedule's send instant (closed loop: when the request was handed to the client).
        send_ns: just before the request bytes were written (aiohttp ``on_request_headers_sent`` trace);
            stays at the hand-over instant if the request never got a connection.
        end_ns: when the body ended or the transport failed.
        http_status: response status, ``None`` if no response arrived.
        chunks: ``(arrival_ns, bytes)`` per socket read of the body, in order.
        error: transport problem (``timeout``, ``connection dropped``, ``connect failed: ...``) or ``None``.
        max_tokens: the request's ``max_completion_tokens`` / ``max_tokens`` (None if unset).
    """

    prompt_id: str
    intended_ns: int
    send_ns: int
    http_status: int | None = None
    chunks: list[tuple[int, bytes]] = field(default_factory=list)
    end_ns: int = 0
    error: str | None = None
    max_tokens: int | None = None


def parse_sse_capture(chunks: list[tuple[int, bytes]]) -> list[tuple[int, ServerSentEvent]]:
    """Decode captured body reads into SSE events, each with the arrival time of the read that completed it.

    Args:
        chunks: ``(arrival_ns, bytes)`` in arrival order (UTF-8 may be split across reads).

    Returns:
        ``(arrival_ns, event)`` per event; a final event without its terminating blank line is dropped
        (the WHATWG rule: an incomplete event is discarded at end of stream).
    """
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = SSELineDecoder()
    sse = SSEDecoder()
    out: list[tuple[int, ServerSentEvent]] = []
    for t, data in chunks:
        text = utf8.decode(data)
        if not text:
            continue
        for line in lines.decode(text):
            ev = sse.decode(line)
            if ev is not None:
                out.append((t, ev))
    return out


@dataclass(slots=True)
class _Seen:
    """What the SSE events of one stream said, gathered event by event (instants in ns)."""

    first_token: int | None = None
    first_content: int | None = None
    last_token: int | None = None
    content_chunks: int = 0
    reasoning_chunks: int = 0
    texts: list[str] = field(default_factory=list)
    rtexts: list[str] = field(default_factory=list)
    output_tokens: int | None = None
    prompt_tokens: int | None = None
    finish: str | None = None
    done: bool = False
    server_error: str | None = None
    bad_json: int = 0
    spec: SpecRequest | None = None
    reasoning_tokens: int | None = None
    queue_s: float | None = None

    def event(self, t: int, data: str) -> None:
        """Take one SSE event's data (``[DONE]`` or a JSON chunk) that arrived at ``t``."""
        if data == "[DONE]":
            self.done = True
            return
        try:
            obj = _json_loads(data)
        except ValueError:  # json.JSONDecodeError and orjson.JSONDecodeError are both ValueErrors
            self.bad_json += 1
            return
        if not isinstance(obj, dict):
            self.bad_json += 1
            return
        self.fields(obj)
        for ch in obj.get("choices") or ():
            self.choice(t, ch)

    def fields(self, obj: dict[str, Any]) -> None:
        """Error, usage and the server's per-request speculation fields of one chunk."""
        if obj.get("error"):
            err = obj["error"]
            self.server_error = str(err.get("message", err) if isinstance(err, dict) else err)[:200]
        usage = obj.get("usage")
        if isinstance(usage, dict) and _int(usage.get("completion_tokens")) is not None:
            self.output_tokens = _int(usage.get("completion_tokens"))
            self.prompt_tokens = _int(usage.get("prompt_tokens"))
            details = usage.get("completion_tokens_details")
            if isinstance(details, dict):
                self.reasoning_tokens = _int(details.get("reasoning_tokens"))
        self.spec = merge_spec(self.spec, read_spec(obj))  # every engine's per-response spec fields (spec_fields.py)
        self.queue_s = per_response_queue_s(obj) if self.queue_s is None else self.queue_s  # vLLM metrics

    def choice(self, t: int, ch: dict[str, Any]) -> None:
        """One ``choices[i]`` item: its content / reasoning delta and finish reason."""
        delta = ch.get("delta") or {}
        c = delta.get("content")
        r = delta.get("reasoning_content") or delta.get("reasoning")
        if c or r:
            if self.first_token is None:
                self.first_token = t
            self.last_token = t
        if c:
            self.content_chunks += 1
            self.texts.append(c)
            if self.first_content is None:
                self.first_content = t
        if r:
            self.reasoning_chunks += 1
            self.rtexts.append(r)
        if ch.get("finish_reason"):
            self.finish = ch["finish_reason"]


def _reasons_200(raw: RawCapture, seen: _Seen) -> list[str]:
    """Reasons of an HTTP 200 stream; ``EMPTY_STREAM`` / ``STOPPED_EARLY`` alone when the stream ended cleanly
    with no answer / with no terminal event (no finish reason, no ``[DONE]``): both are failed requests. Usage is not
    a terminal event: vLLM with ``--enable-force-include-usage`` and ``continuous_usage_stats`` sends cumulative usage
    on every chunk, so a stream cut mid-way has usage and is still failed (issue 26)."""
    terminal = seen.finish is not None or seen.done
    if not raw.error and not seen.server_error:
        if seen.first_token is None and seen.finish is None and seen.output_tokens is None:
            return ["EMPTY_STREAM"]  # nothing, or a [DONE] alone
        if not terminal:
            return ["STOPPED_EARLY"]
    reasons = []
    if not seen.done:
        reasons.append("no [DONE]")
    finished = seen.finish in STOP_REASONS or (raw.max_tokens is None and seen.finish == "length")
    if seen.output_tokens is None and not (finished and seen.done):  # finished without usage: ok, tokens unknown
        reasons.append("no usage")
    reached = raw.max_tokens is not None and seen.output_tokens is not None and seen.output_tokens >= raw.max_tokens
    if not finished and not reached:
        reasons.append("short without stop")
    return reasons


def _status(raw: RawCapture, seen: _Seen) -> tuple[StreamStatus, str | None]:
    """The stream's status and reason (rules in the module doc)."""
    reasons: list[str] = []
    if raw.http_status is not None and raw.http_status != 200:
        reasons.append(f"http {raw.http_status}")
    if raw.error == "STALLED":  # no byte for stall_timeout_s mid-stream: a failed request whatever came before
        return "failed", "STALLED"
    if raw.error:
        reasons.append(raw.error)
    if seen.server_error:
        reasons.append(f"server error: {seen.server_error}")
    if seen.bad_json:
        reasons.append(f"{seen.bad_json} bad json events")
    if raw.http_status == 200:
        tail = _reasons_200(raw, seen)
        if tail and tail[0] in ("EMPTY_STREAM", "STOPPED_EARLY") and not reasons:
            return "failed", tail[0]
        reasons += tail
    elif raw.http_status is None and not raw.error:
        reasons.append("no response")
    if not reasons:
        return "ok", None
    failed = seen.first_token is None and (raw.http_status != 200 or raw.error)
    return ("failed" if failed else "degraded"), "; ".join(reasons)


def parse_capture(raw: RawCapture) -> StreamRecord:
    """Turn a :class:`RawCapture` into a :class:`~specscope.records.StreamRecord` (status rules in the module doc)."""
    seen = _Seen()
    if raw.http_status is None or raw.http_status == 200:
        for t, ev in parse_sse_capture(raw.chunks):
            seen.event(t, ev.data)
    status, reason = _status(raw, seen)
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
        text="".join(seen.texts),
        reasoning_text="".join(seen.rtexts),
        server_draft_tokens=None if spec is None else spec.draft_tokens,
        server_accepted_tokens=None if spec is None else spec.accepted_tokens,
        bytes_received=sum(len(b) for _, b in raw.chunks),
        draft_per_step=() if spec is None else spec.draft_per_step,
        accepted_per_step=() if spec is None else spec.accepted_per_step,
        reasoning_tokens=seen.reasoning_tokens,
        queue_s=seen.queue_s,
        spec=spec,
    )

"""One streaming chat completion: capture on the hot path, parse afterwards.

Hot path (:func:`capture_stream`): write the request, then for every read from the socket append
``(perf_counter_ns(), bytes)``; nothing else. Afterwards (:func:`parse_capture`) the bytes go through
httpx-sse's line and event decoders (``httpx_sse._decoders.SSELineDecoder`` / ``SSEDecoder``, the WHATWG
event-stream rules) and ``orjson.loads`` when orjson is installed (else ``json.loads``; measured here:
JSON was ~50% of the parse time with ``json``); each event is timed by the read that completed it.

HTTP library: aiohttp here (open loop, :func:`stream_chat`), chosen by measurement over httpx: against the
firehose truth server at concurrency 64 it used 9.9 s of client CPU per 1M tokens vs 49.9 s for httpx
(1 token/chunk), 4.8 s vs 33.5 s (4 tokens/chunk). The fixed-concurrency runner goes further by default with
:mod:`specscope.client.wire` (raw asyncio + httptools, ~4x aiohttp's rate there; see that module and
benchmarks/client_overhead.py); both fill the same :class:`RawCapture` and share :func:`parse_capture`.

Status rules (issue 2, "Client"): ``failed`` when no token arrived and something went wrong (HTTP error,
connect failure, timeout, drop); ``degraded`` when tokens arrived but: the transport failed (``timeout``,
``connection dropped``), the server sent an error event, no ``[DONE]``, no ``usage``
(``no usage``), or the stream stopped short of ``max_tokens`` without a ``stop`` finish
(``short without stop``). Reasons are joined with ``"; "``. First token = first non-empty ``content`` or
``reasoning`` / ``reasoning_content`` delta; a role-only chunk does not count (cases C13, C14).
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any

import aiohttp

try:  # optional fast path: orjson (C/Rust), ~4x faster than json.loads on chunk-sized objects, same results
    from orjson import loads as _json_loads
except ImportError:  # pragma: no cover - depends on the environment
    from json import loads as _json_loads
from httpx_sse._decoders import SSEDecoder, SSELineDecoder
from httpx_sse._models import ServerSentEvent

from specscope.client.settings import ClientSettings
from specscope.records import StreamRecord

__all__ = [
    "RawCapture",
    "prepare_body",
    "chat_url",
    "make_session",
    "capture_stream",
    "parse_sse_capture",
    "parse_capture",
    "stream_chat",
]

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


def prepare_body(body: dict[str, Any]) -> bytes:
    """The request body as bytes, with ``stream: true`` and ``stream_options.include_usage: true`` forced."""
    b = dict(body)
    b["stream"] = True
    so = dict(b.get("stream_options") or {})
    so["include_usage"] = True
    b["stream_options"] = so
    return json.dumps(b, separators=(",", ":")).encode()


def chat_url(base_url: str) -> str:
    """``.../v1/chat/completions`` for a server root or an OpenAI base URL ending in ``/v1``."""
    root = base_url.rstrip("/")
    if not root.endswith("/v1"):
        root += "/v1"
    return root + "/chat/completions"


def make_session(settings: ClientSettings) -> aiohttp.ClientSession:
    """An aiohttp session with the settings' connection limit, timeouts and read buffer (call inside a loop)."""
    connector = aiohttp.TCPConnector(
        limit=settings.connection_limit,
        limit_per_host=0,
        force_close=False,
        enable_cleanup_closed=False,
        ttl_dns_cache=None,
    )
    timeout = aiohttp.ClientTimeout(
        total=settings.total_timeout_s, connect=settings.connect_timeout_s, sock_read=settings.read_timeout_s
    )
    trace = aiohttp.TraceConfig()
    trace.on_request_headers_sent.append(_on_headers_sent)
    return aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        read_bufsize=settings.read_buffer_bytes,
        auto_decompress=False,
        skip_auto_headers=("User-Agent",),
        trace_configs=[trace],
    )


async def _on_headers_sent(session, ctx, params) -> None:
    """aiohttp trace hook, called right before the request's bytes go to the socket: that is ``send_ns``
    (connection-pool waits and request building stay out of TTFT and in the send lag)."""
    raw = ctx.trace_request_ctx
    if raw is not None:
        raw.send_ns = perf_counter_ns()


_HEADERS = {"Content-Type": "application/json", "Accept": "text/event-stream"}


async def capture_stream(
    session: aiohttp.ClientSession,
    url: str,
    prompt_id: str,
    body: bytes,
    *,
    max_tokens: int | None = None,
    intended_ns: int | None = None,
) -> RawCapture:
    """Send one request and record every body read with its arrival time (the hot path; no parsing).

    Args:
        session: from :func:`make_session`.
        url: the chat-completions URL (:func:`chat_url`).
        prompt_id: recorded as is.
        body: from :func:`prepare_body`.
        max_tokens: the request's token limit, for the ``short without stop`` rule.
        intended_ns: the schedule's send instant (open loop); defaults to the actual send instant.

    Returns:
        A :class:`RawCapture`; transport errors are recorded in it, never raised.
    """
    start_ns = perf_counter_ns()
    raw = RawCapture(prompt_id, intended_ns if intended_ns is not None else start_ns, start_ns, max_tokens=max_tokens)
    chunks = raw.chunks
    append = chunks.append
    try:
        async with session.post(url, data=body, headers=_HEADERS, trace_request_ctx=raw) as resp:
            raw.http_status = resp.status
            read = resp.content.readany
            while True:
                data = await read()
                if not data:
                    break
                append((perf_counter_ns(), data))
    except TimeoutError:
        raw.error = "timeout"
    except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as exc:
        raw.error = "connection dropped"
        del exc
    except aiohttp.ClientConnectorError as exc:
        raw.error = f"connect failed: {exc.os_error}"[:200]
    except aiohttp.ClientError as exc:
        raw.error = f"{type(exc).__name__}: {exc}"[:200]
    raw.end_ns = perf_counter_ns()
    return raw


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


def _int(x: Any) -> int | None:
    return int(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def parse_capture(raw: RawCapture) -> StreamRecord:
    """Turn a :class:`RawCapture` into a :class:`~specscope.records.StreamRecord` (status rules in the module doc)."""
    first_token = first_content = last_token = None
    content_chunks = reasoning_chunks = 0
    texts: list[str] = []
    rtexts: list[str] = []
    output_tokens = prompt_tokens = None
    finish = None
    done = False
    server_error = None
    bad_json = 0
    draft_n = accepted_n = None
    nbytes = sum(len(b) for _, b in raw.chunks)
    reasons: list[str] = []
    if raw.http_status is not None and raw.http_status != 200:
        reasons.append(f"http {raw.http_status}")
        events: list[tuple[int, ServerSentEvent]] = []
    else:
        events = parse_sse_capture(raw.chunks)
    for t, ev in events:
        data = ev.data
        if data == "[DONE]":
            done = True
            continue
        try:
            obj = _json_loads(data)
        except ValueError:  # json.JSONDecodeError and orjson.JSONDecodeError are both ValueErrors
            bad_json += 1
            continue
        if not isinstance(obj, dict):
            bad_json += 1
            continue
        if obj.get("error"):
            err = obj["error"]
            server_error = str(err.get("message", err) if isinstance(err, dict) else err)[:200]
        usage = obj.get("usage")
        if isinstance(usage, dict) and _int(usage.get("completion_tokens")) is not None:
            output_tokens = _int(usage.get("completion_tokens"))
            prompt_tokens = _int(usage.get("prompt_tokens"))
        timings = obj.get("timings")
        if isinstance(timings, dict) and "draft_n" in timings:  # llama.cpp per-request speculation
            draft_n = _int(timings.get("draft_n"))
            accepted_n = _int(timings.get("draft_n_accepted"))
        spec = (obj.get("metrics") or {}).get("speculative_decoding") if isinstance(obj.get("metrics"), dict) else None
        if isinstance(spec, dict):  # vLLM --per-request-spec-decode-metrics
            draft_n = _int(spec.get("num_draft_tokens"))
            accepted_n = _int(spec.get("num_accepted_draft_tokens"))
        for ch in obj.get("choices") or ():
            delta = ch.get("delta") or {}
            c = delta.get("content")
            r = delta.get("reasoning_content") or delta.get("reasoning")
            if c or r:
                if first_token is None:
                    first_token = t
                last_token = t
            if c:
                content_chunks += 1
                texts.append(c)
                if first_content is None:
                    first_content = t
            if r:
                reasoning_chunks += 1
                rtexts.append(r)
            if ch.get("finish_reason"):
                finish = ch["finish_reason"]
    if raw.error:
        reasons.append(raw.error)
    if server_error:
        reasons.append(f"server error: {server_error}")
    if bad_json:
        reasons.append(f"{bad_json} bad json events")
    if raw.http_status == 200:
        if not done:
            reasons.append("no [DONE]")
        if output_tokens is None:
            reasons.append("no usage")
        reached = raw.max_tokens is not None and output_tokens is not None and output_tokens >= raw.max_tokens
        if finish not in STOP_REASONS and not reached and not (raw.max_tokens is None and finish == "length"):
            reasons.append("short without stop")
    elif raw.http_status is None and not raw.error:
        reasons.append("no response")
    if not reasons:
        status, reason = "ok", None
    else:
        status = "failed" if first_token is None and (raw.http_status != 200 or raw.error) else "degraded"
        reason = "; ".join(reasons)
    return StreamRecord(
        prompt_id=raw.prompt_id,
        intended_ns=raw.intended_ns,
        send_ns=raw.send_ns,
        first_token_ns=first_token,
        first_content_ns=first_content,
        last_token_ns=last_token,
        end_ns=raw.end_ns,
        content_chunks=content_chunks,
        reasoning_chunks=reasoning_chunks,
        output_tokens=output_tokens,
        prompt_tokens=prompt_tokens,
        token_source="usage" if output_tokens is not None else "missing",
        finish_reason=finish,
        status=status,
        reason=reason,
        http_status=raw.http_status,
        text="".join(texts),
        reasoning_text="".join(rtexts),
        server_draft_tokens=draft_n,
        server_accepted_tokens=accepted_n,
        bytes_received=nbytes,
    )


def max_tokens_of(body: dict[str, Any]) -> int | None:
    """The request's output limit: ``max_completion_tokens`` or ``max_tokens`` (None if unset)."""
    v = body.get("max_completion_tokens", body.get("max_tokens"))
    return int(v) if isinstance(v, int) else None


async def stream_chat(
    session: aiohttp.ClientSession,
    base_url: str,
    prompt_id: str,
    body: dict[str, Any],
    *,
    intended_ns: int | None = None,
) -> StreamRecord:
    """One streaming chat completion, captured then parsed. See :func:`capture_stream` / :func:`parse_capture`."""
    raw = await capture_stream(
        session,
        chat_url(base_url),
        prompt_id,
        prepare_body(body),
        max_tokens=max_tokens_of(body),
        intended_ns=intended_ns,
    )
    return parse_capture(raw)

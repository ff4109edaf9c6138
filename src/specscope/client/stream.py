"""One streaming chat completion: capture on the hot path, parsed in folds as it grows.

Hot path (:func:`capture_stream`): write the request, then for every read from the socket append
``(perf_counter_ns(), bytes)``; every :data:`~specscope.client.parse.FOLD_BYTES` of held reads, and once when the
response ends, :meth:`~specscope.client.parse.RawCapture.fold` parses them and drops them: SSE framing
(:class:`~specscope.client.sse.SSEFramer`: a C-level fast path for ``data: <json>\n\n`` streams, httpx-sse's WHATWG
decoders for anything else), then one typed msgspec decode per event (:mod:`specscope.client.events`, the event
boundary). Each event is timed by the read that completed it. A stream past its token or byte budget is cut
``RUNAWAY`` (:mod:`specscope.client.parse`).

HTTP library: aiohttp here (open loop, :func:`stream_chat`), chosen by measurement over httpx: against the
firehose truth server at concurrency 64 it used 9.9 s of client CPU per 1M tokens vs 49.9 s for httpx
(1 token/chunk), 4.8 s vs 33.5 s (4 tokens/chunk). The fixed-concurrency runner goes further by default with
:mod:`specscope.client.wire` (raw asyncio + httptools, ~4x aiohttp's rate there; see that module and
benchmarks/client_overhead.py); both fill the same :class:`RawCapture` and share :func:`parse_capture`.

A stream's status and reason: :mod:`specscope.client.status` (``ok`` / ``degraded`` / ``failed``, with
``STALLED``, ``RUNAWAY(...)``, ``BAD_EVENT(...)``, ``EMPTY_STREAM``, ``STOPPED_EARLY``, ...).
"""

from __future__ import annotations

import json
from time import perf_counter_ns
from typing import Any

import aiohttp

from specscope.adapters.openai.endpoints import CHAT, RESPONSES, endpoint_url, request_body
from specscope.client.parse import FOLD_BYTES, RawCapture, parse_capture
from specscope.client.settings import ClientSettings
from specscope.records import StreamRecord

__all__ = [
    "prepare_body",
    "chat_url",
    "api_url",
    "make_session",
    "capture_stream",
    "request_headers",
    "max_tokens_of",
    "stream_chat",
]


def prepare_body(body: dict[str, Any], endpoint: str = CHAT) -> bytes:
    """A chat-completions body in ``endpoint``'s dialect (:func:`specscope.adapters.openai.endpoints.request_body`),
    as bytes, with ``stream: true`` forced, and ``stream_options.include_usage: true`` on the chat and completions
    APIs (a Responses stream's usage rides its terminal event)."""
    b = request_body(endpoint, body)
    b["stream"] = True
    if endpoint != RESPONSES:
        so = dict(b.get("stream_options") or {})
        so["include_usage"] = True
        b["stream_options"] = so
    return json.dumps(b, separators=(",", ":")).encode()


def api_url(base_url: str, endpoint: str = CHAT) -> str:
    """``ROOT`` + ``endpoint`` for a server root or an OpenAI base URL ending in ``/v1``."""
    return endpoint_url(base_url, endpoint)


def chat_url(base_url: str) -> str:
    """``.../v1/chat/completions`` for a server root or an OpenAI base URL ending in ``/v1``."""
    return endpoint_url(base_url, CHAT)


def make_session(settings: ClientSettings, *, force_close: bool = False) -> aiohttp.ClientSession:
    """An aiohttp session with the settings' connection limit, timeouts and read buffer (call inside a loop).

    ``force_close``: a fresh connection per request (no keep-alive reuse). Conversations need it: llama.cpp's server
    closes a connection after a streamed answer, and the next turn written on it failed ``Can not write request
    body`` (measured with xllamacpp 2026.10); the connect happens before ``send_ns``, so it is not in any TTFT."""
    connector = aiohttp.TCPConnector(
        limit=settings.connection_limit,
        limit_per_host=0,
        force_close=force_close,
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


def request_headers(settings: ClientSettings) -> dict[str, str]:
    """The chat request's headers: JSON in, event stream out, and ``Authorization`` when an API key is set."""
    return {**_HEADERS, **settings.auth_headers()}


async def _on_headers_sent(
    session: aiohttp.ClientSession, ctx: Any, params: aiohttp.TraceRequestHeadersSentParams
) -> None:
    """aiohttp trace hook, called right before the request's bytes go to the socket: that is ``send_ns``
    (connection-pool waits and request building stay out of TTFT and in the send lag)."""
    raw = ctx.trace_request_ctx
    if raw is not None:
        raw.send_ns = perf_counter_ns()


#: ``Accept-Encoding: identity``, as the raw wire path sends: the stream is parsed as it arrives and never decompressed
#: (``auto_decompress=False``), so a server or proxy that gzips for aiohttp's default ``gzip, deflate`` sent bytes
#: no event could be read from (an EMPTY_STREAM on the aiohttp path only)
_HEADERS = {"Content-Type": "application/json", "Accept": "text/event-stream", "Accept-Encoding": "identity"}
_DEFAULT_SETTINGS = ClientSettings()


async def capture_stream(
    session: aiohttp.ClientSession,
    url: str,
    prompt_id: str,
    body: bytes,
    *,
    max_tokens: int | None = None,
    intended_ns: int | None = None,
    headers: dict[str, str] | None = None,
    settings: ClientSettings | None = None,
) -> RawCapture:
    """Send one request and record every body read with its arrival time, folded into the stream's parse every
    :data:`~specscope.client.parse.FOLD_BYTES` and at the end (so a long stream holds little).

    Args:
        session: from :func:`make_session`.
        url: the API's URL (:func:`api_url`).
        prompt_id: recorded as is.
        body: from :func:`prepare_body`.
        max_tokens: the request's token limit, for the ``short without stop`` rule.
        intended_ns: the schedule's send instant (open loop); defaults to the actual send instant.
        headers: the request headers (default: JSON in, event stream out; :func:`request_headers` adds the key).
        settings: its ``stall_timeout_s`` (silence after the response head that fails the stream ``STALLED``;
            replaces the read timeout on this response's connection, aiohttp's own per-read timer; None:
            ``timeout``) and its parse options (text kept or not, budgets); ``None``: the defaults.

    Returns:
        A :class:`RawCapture`, folded; transport errors and ``RUNAWAY(...)`` are recorded in it, never raised.
    """
    start_ns = perf_counter_ns()
    settings = settings or _DEFAULT_SETTINGS
    stall_timeout_s = settings.stall_timeout_s
    raw = RawCapture(
        prompt_id,
        intended_ns if intended_ns is not None else start_ns,
        start_ns,
        max_tokens=max_tokens,
        options=settings.parse_options(),
    )
    append = raw.chunks.append
    try:
        async with session.post(url, data=body, headers=headers or _HEADERS, trace_request_ctx=raw) as resp:
            raw.http_status = resp.status
            proto = resp.connection.protocol if stall_timeout_s is not None and resp.connection is not None else None
            if proto is not None:  # from the head on, silence is a stall; aiohttp resets it for the next request
                proto.read_timeout = stall_timeout_s
                proto.start_timeout()
            read = resp.content.readany
            while True:
                data = await read()
                if not data:
                    break
                append((perf_counter_ns(), data))
                raw.pending_bytes += len(data)
                if raw.pending_bytes >= FOLD_BYTES:  # bound what a long response holds
                    raw.error = raw.fold()
                    if raw.error is not None:  # past a budget (RUNAWAY): cut it, connection and all
                        resp.close()
                        break
    except TimeoutError as exc:  # a read timeout after the head with a stall timeout set is a stall
        stalled = stall_timeout_s is not None and raw.http_status is not None
        raw.error = "STALLED" if stalled and isinstance(exc, aiohttp.ServerTimeoutError) else "timeout"
    except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError) as exc:
        raw.error = "connection dropped"
        del exc
    except aiohttp.ClientConnectorError as exc:
        raw.error = f"connect failed: {exc.os_error}"[:200]
    except aiohttp.ClientError as exc:
        raw.error = f"{type(exc).__name__}: {exc}"[:200]
    raw.end_ns = perf_counter_ns()
    runaway = raw.finish()  # the rest of the response, parsed now: a finished stream holds no raw bytes
    raw.error = raw.error or runaway
    return raw


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
    settings: ClientSettings | None = None,
) -> StreamRecord:
    """One streaming request of a chat-completions ``body``, sent to ``settings.endpoint`` in its dialect, captured
    then parsed (``settings``: stall timeout, text kept or not, budgets, endpoint; ``None``: the defaults). See
    :func:`capture_stream` / :func:`parse_capture`."""
    endpoint = (settings or _DEFAULT_SETTINGS).endpoint
    raw = await capture_stream(
        session,
        api_url(base_url, endpoint),
        prompt_id,
        prepare_body(body, endpoint),
        max_tokens=max_tokens_of(body),
        intended_ns=intended_ns,
        settings=settings,
    )
    return parse_capture(raw)

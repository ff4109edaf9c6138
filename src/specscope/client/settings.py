"""Client settings for load: connection limit, timeouts and read buffer, all explicit and recorded.

Defaults are sized for a benchmark, not for a web client: aiohttp's defaults (100 connections per session,
a 64 KiB read buffer, a 5-minute total timeout) and httpx's (100 connections, 5 s timeouts) silently cap
concurrency (case C16, guidellm issue #487) or cut long generations.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from specscope.adapters.openai.endpoints import CHAT, EndpointPath
from specscope.client.parse import ParseOptions
from specscope.redact import remember_secret
from specscope.values import check_api_key

__all__ = ["ClientSettings"]


class ClientSettings(BaseModel):
    """How specscope's HTTP client talks to a server (recorded in every run manifest).

    Attributes:
        connection_limit: most open connections at once; must be >= the concurrency asked for.
        connect_timeout_s: limit on opening one TCP connection; s.
        read_timeout_s: longest wait for the first byte of a response (prefill included); s. Silence past it
            fails the stream with ``timeout``.
        stall_timeout_s: longest silence between two reads once the response has started (no byte for this
            long: the stream fails ``STALLED`` and the cell goes on; both hot paths); s. None: ``read_timeout_s``
            applies to every silence and a silent stream fails with ``timeout`` as before.
        total_timeout_s: limit on one whole request, send to end of stream; s.
        read_buffer_bytes: the HTTP client's read buffer per connection (aiohttp ``read_bufsize``).
        hot_path: the fixed-concurrency runner's HTTP path: ``"wire"`` (raw asyncio connection per stream
            slot + httptools, :mod:`specscope.client.wire`; plain ``http://`` only, else aiohttp is used)
            or ``"aiohttp"``. Open-loop runs and :func:`~specscope.client.stream.stream_chat` use aiohttp.
        workers: client processes for a fixed-concurrency run: an int >= 1, or ``"auto"`` (the default) to
            choose from the load with :func:`specscope.client.workers.auto_workers` (1 unless the concurrency
            asks for more event throughput than one process handles). With W > 1 the N stream slots and the
            requests are split across W spawned processes (:mod:`specscope.client.workers`). Open-loop runs
            use one process.
        busy_poll: keep the client's event loop polling (never idle) while streams are in flight
            (:mod:`specscope.client.polling`). On a virtual machine a sleeping client's vCPU can wake milliseconds
            after bytes arrive, which lands in TTFT and ITL; busy polling removes that at the cost of one core per
            client process. Off by default (it would take a core from a local engine); ``--busy-poll``.
        api_key: sent as ``Authorization: Bearer <key>`` (``--api-key`` / ``OPENAI_API_KEY``); never stored:
            excluded from :meth:`describe` and from ``model_dump``.
        keep_text: keep each stream's answer and reasoning text in its record (a conversation's next turn, a report
            that shows answers); off by default, so a stream's memory does not grow with its answer (the counts,
            instants and usage are always kept).
        max_stream_bytes: body bytes one stream may send before it is cut and failed ``RUNAWAY`` (a server that
            streams forever; ``--stall-timeout`` cannot see it, bytes keep coming). Also cut ``RUNAWAY``: a stream
            past ``max_tokens`` + ``max(64, max_tokens // 4)`` token events or reported tokens
            (:func:`specscope.client.parse.runaway_token_limit`).
        max_event_bytes: bytes one unfinished SSE event may hold before the stream is cut ``RUNAWAY``.
        endpoint: the API every request goes to (``--endpoint``): ``/v1/chat/completions`` (default),
            ``/v1/completions`` or ``/v1/responses``; its request dialect and stream are
            :mod:`specscope.adapters.openai.endpoints`'. Recorded in the manifest; a resumed run keeps its own.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    connection_limit: int = Field(default=4096, ge=1)
    connect_timeout_s: float = Field(default=30.0, gt=0)
    read_timeout_s: float = Field(default=600.0, gt=0)
    stall_timeout_s: float | None = Field(default=None, gt=0)
    total_timeout_s: float = Field(default=3600.0, gt=0)
    read_buffer_bytes: int = Field(default=4 * 1024 * 1024, ge=4096)
    hot_path: Literal["wire", "aiohttp"] = "wire"
    workers: int | Literal["auto"] = "auto"
    busy_poll: bool = False
    api_key: str | None = Field(default=None, exclude=True, repr=False)
    keep_text: bool = False
    max_stream_bytes: int = Field(default=256 * 1024 * 1024, ge=4096)
    max_event_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    endpoint: EndpointPath = CHAT

    @field_validator("workers")
    @classmethod
    def _workers_positive(cls, v: int | str) -> int | str:
        if isinstance(v, int) and v < 1:
            raise ValueError("workers must be >= 1 or 'auto'")
        return v

    @field_validator("api_key")
    @classmethod
    def _remember_key(cls, v: str | None) -> str | None:
        if v:
            check_api_key(v)  # ConfigError (not a pydantic error): it never shows the key
            remember_secret(v)  # a server that echoes the key (an error event, its log) never gets it written
        return v

    def parse_options(self) -> ParseOptions:
        """What each stream's parse keeps and its byte budgets (:class:`~specscope.client.parse.ParseOptions`)."""
        return ParseOptions(self.keep_text, self.max_stream_bytes, self.max_event_bytes, self.endpoint)

    def auth_headers(self) -> dict[str, str]:
        """``{"Authorization": "Bearer <api_key>"}`` when a key is set, else ``{}``."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def describe(self) -> dict[str, Any]:
        """All settings plus the HTTP libraries and versions, for the run manifest: ``http_library`` is the
        fixed-concurrency hot path's (``asyncio+httptools`` or ``aiohttp``); ``aiohttp_version`` is always
        given (open-loop runs use aiohttp)."""
        import aiohttp

        d = {**self.model_dump(), "aiohttp_version": aiohttp.__version__}
        if self.hot_path == "wire":
            try:
                import httptools
            except ImportError:  # pragma: no cover - the runner falls back to aiohttp then
                pass
            else:
                return {**d, "http_library": "asyncio+httptools", "http_library_version": httptools.__version__}
        return {**d, "http_library": "aiohttp", "http_library_version": aiohttp.__version__}

"""Client settings for load: connection limit, timeouts and read buffer, all explicit and recorded.

Defaults are sized for a benchmark, not for a web client: aiohttp's defaults (100 connections per session,
a 64 KiB read buffer, a 5-minute total timeout) and httpx's (100 connections, 5 s timeouts) silently cap
concurrency (case C16, guidellm issue #487) or cut long generations.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ClientSettings"]


class ClientSettings(BaseModel):
    """How specscope's HTTP client talks to a server (recorded in every run manifest).

    Attributes:
        connection_limit: most open connections at once; must be >= the concurrency asked for.
        connect_timeout_s: limit on opening one TCP connection; s.
        read_timeout_s: longest silence between two reads of one stream (a stalled server); s.
        total_timeout_s: limit on one whole request, send to end of stream; s.
        read_buffer_bytes: the HTTP client's read buffer per connection (aiohttp ``read_bufsize``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    connection_limit: int = Field(default=4096, ge=1)
    connect_timeout_s: float = Field(default=30.0, gt=0)
    read_timeout_s: float = Field(default=600.0, gt=0)
    total_timeout_s: float = Field(default=3600.0, gt=0)
    read_buffer_bytes: int = Field(default=4 * 1024 * 1024, ge=4096)

    def describe(self) -> dict[str, Any]:
        """All settings plus the HTTP library and its version, for the run manifest."""
        import aiohttp

        return {**self.model_dump(), "http_library": "aiohttp", "http_library_version": aiohttp.__version__}

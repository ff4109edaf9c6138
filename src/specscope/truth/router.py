"""A small round-robin router in front of several OpenAI-compatible replicas, for tests and local trials.

It stands in for a production router (vLLM's production stack, llm-d, KServe...): requests to
``POST /v1/chat/completions`` go to the replicas in turn and the response (SSE streams included) is
passed through chunk by chunk; ``GET /v1/models`` and ``GET /health`` are answered by the first replica.
Its own ``GET /metrics`` has only router counters (``specscope_router_requests_total{backend}``), no engine
counters, as a real router's has: the replicas' counters must be named with ``bench --metrics``.

Usage::

    with Router(["http://127.0.0.1:8001", "http://127.0.0.1:8002"]) as r:
        ... bench --server base=r.base_url --metrics base=http://127.0.0.1:8001 --metrics base=...

``python -m specscope.truth.router --backend URL --backend URL [--port P]`` prints ``LISTENING <url>``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import aiohttp
from aiohttp import web

from specscope.seam import ManagedProcess, start_announced, stop_and_clean

__all__ = ["Router", "make_router_app"]

_ANNOUNCE = "LISTENING "
_HOP = {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}


def make_router_app(backends: Sequence[str]) -> web.Application:
    """The aiohttp application that spreads chat requests over ``backends`` in turn (round robin)."""
    app = web.Application()
    turn = itertools.cycle(range(len(backends)))
    counts = [0] * len(backends)
    session: dict[str, aiohttp.ClientSession] = {}

    async def _start(_app: web.Application) -> None:
        session["s"] = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_connect=10))

    async def _stop(_app: web.Application) -> None:
        await session["s"].close()

    async def _forward(request: web.Request, backend: str) -> web.StreamResponse:
        body = await request.read()
        headers = {"Content-Type": request.headers.get("Content-Type", "application/json")}
        url = backend + request.rel_url.path_qs
        async with session["s"].request(request.method, url, data=body, headers=headers) as up:
            resp = web.StreamResponse(status=up.status)
            resp.headers.update({k: v for k, v in up.headers.items() if k.lower() not in _HOP})
            await resp.prepare(request)
            async for chunk in up.content.iter_any():
                await resp.write(chunk)
            await resp.write_eof()
            return resp

    async def _chat(request: web.Request) -> web.StreamResponse:
        i = next(turn)
        counts[i] += 1
        return await _forward(request, backends[i])

    async def _first(request: web.Request) -> web.StreamResponse:
        return await _forward(request, backends[0])

    async def _metrics(_request: web.Request) -> web.Response:
        lines = ["# HELP specscope_router_requests_total chat requests sent to each backend"]
        lines.append("# TYPE specscope_router_requests_total counter")
        lines += [
            f'specscope_router_requests_total{{backend="{b}"}} {n}' for b, n in zip(backends, counts, strict=True)
        ]
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")

    app.on_startup.append(_start)
    app.on_cleanup.append(_stop)
    app.router.add_post("/v1/chat/completions", _chat)
    app.router.add_get("/v1/models", _first)
    app.router.add_get("/health", _first)
    app.router.add_get("/metrics", _metrics)
    return app


async def _serve(backends: Sequence[str], host: str, port: int, announce: Callable[[str], None]) -> None:
    runner = web.AppRunner(make_router_app(backends), access_log=None, handle_signals=True)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    announce(f"http://{host}:{runner.addresses[0][1]}")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


class Router:
    """The router in a child process (:class:`specscope.seam.ManagedProcess`), as a context manager.

    Args:
        backends: the replicas' base URLs (``http://host:port``).
        start_timeout_s: seconds to wait for its ``LISTENING`` line.

    Attributes:
        base_url: ``http://127.0.0.1:<port>`` once started.

    Raises:
        ServerStartError: the child exited or did not announce itself in time.
    """

    def __init__(self, backends: Sequence[str], *, start_timeout_s: float = 30.0):
        self.backends = [b.rstrip("/") for b in backends]
        self.start_timeout_s = start_timeout_s
        self.base_url = ""
        self._proc: ManagedProcess | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Router:
        self._dir = tempfile.TemporaryDirectory(prefix="specscope-router-")
        log_path = Path(self._dir.name) / "router.log"
        argv = [sys.executable, "-m", "specscope.truth.router", *(x for b in self.backends for x in ("--backend", b))]
        self._proc = ManagedProcess(argv, log_path, name="the round-robin router")

        try:
            self.base_url = start_announced(self._proc, log_path, self.start_timeout_s, _ANNOUNCE)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._proc, self._dir = stop_and_clean(self._proc, self._dir)


def main(argv: list[str] | None = None) -> None:
    """``python -m specscope.truth.router --backend URL [--backend URL ...] [--host H] [--port P]``."""
    ap = argparse.ArgumentParser(prog="specscope.truth.router")
    ap.add_argument("--backend", action="append", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args(argv)

    def announce(url: str) -> None:
        sys.stdout.write(f"{_ANNOUNCE}{url}\n")
        sys.stdout.flush()

    try:
        asyncio.run(_serve([b.rstrip("/") for b in a.backend], a.host, a.port, announce))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

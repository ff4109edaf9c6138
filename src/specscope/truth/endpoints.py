"""The truth server's engine endpoints beside chat and ``/metrics``: TensorRT-LLM's ``GET /perf_metrics`` (drained on
read, :mod:`specscope.truth.drained`) and llama-server's ``GET /slots``; each answers 404 unless the script asks for
it, as a server without the endpoint does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from specscope.truth.state import TruthState

__all__ = ["add_engine_routes"]


async def _perf_metrics(request: web.Request) -> web.Response:
    """trtllm-serve's ``/perf_metrics`` (style ``trtllm_json``): the requests finished since the last GET, drained."""
    state: TruthState = request.app["state"]
    if state.script.metrics.style != "trtllm_json":
        raise web.HTTPNotFound(text="no /perf_metrics\n")
    return web.json_response(state.drained.drain_perf())


async def _slots(request: web.Request) -> web.Response:
    """llama-server's ``GET /slots`` (tools/server/server.cpp, b9251) when the script sets ``slots_n_max``: one slot
    per ``max_running``, each drafting with that ``speculative.n_max``."""
    state: TruthState = request.app["state"]
    n_max = state.script.metrics.slots_n_max
    if n_max is None:
        raise web.HTTPNotFound(text="no /slots\n")
    params = {"speculative.n_max": n_max, "speculative.n_min": 0, "speculative.p_min": 0.75}
    slots = [{"id": i, "speculative": True, "params": params} for i in range(state.script.max_running or 1)]
    return web.json_response(slots)


def add_engine_routes(app: web.Application) -> None:
    """Route ``/perf_metrics`` and ``/slots`` of ``app`` (its state in ``app["state"]``)."""
    app.router.add_get("/perf_metrics", _perf_metrics)
    app.router.add_get("/slots", _slots)

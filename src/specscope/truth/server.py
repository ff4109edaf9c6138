"""The ground-truth server: an OpenAI-compatible streaming chat server whose every behaviour is scripted.

Built on ``aiohttp.web``. Endpoints:

- ``POST /v1/chat/completions``: streams the response planned by the :class:`~specscope.truth.script.TruthScript`
  (see :class:`~specscope.truth.script.ResponsePlan` for what can be programmed).
- ``GET /metrics``: Prometheus text with exact speculative-decoding counters per ``engine`` label, generated
  with ``prometheus_client`` custom metric families (vLLM names, or llama.cpp names without labels).
- ``GET /health``: 200.
- ``GET /truth/log``: JSON list of what was served, one item per request: ``arrival_ns`` (perf_counter_ns
  when the handler started), ``writes`` = ``[[t_ns, kind, tokens, bytes], ...]`` (t_ns read just before each
  write; kind ``role`` / ``content`` / ``reasoning`` / ``finish`` / ``usage`` / ``done``), ``end_ns``,
  ``output_tokens``, ``status``, ``dropped``. ``perf_counter_ns`` is CLOCK_MONOTONIC on Linux, so these
  instants compare directly with a client's readings in another process of the same machine.
- ``POST /truth/script`` (JSON TruthScript): replace the programme; ``POST /truth/reset``: all counters to 0
  (a server restart as seen from /metrics); ``POST /truth/clear``: empty the log.

Timing: each write is scheduled at an absolute deadline from the request's arrival (no drift). The loop
sleeps until 1.5 ms before the deadline, then yields with ``sleep(0)`` until it passes (``precise=True``),
because epoll's millisecond timeout would otherwise make sleeps up to 1 ms late.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from specscope.truth.script import ResponsePlan, TruthScript

__all__ = ["TruthState", "make_app", "serve_forever", "main"]

_SPIN_NS = 1_500_000  # ms-resolution epoll: yield-spin the last 1.5 ms before a deadline


class TruthState:
    """Counters, the script and the served-truth log of one server process."""

    def __init__(self, script: TruthScript):
        self.script = script
        self.log: list[dict[str, Any]] = []
        self.n_requests = 0
        self.reset_counters()

    def reset_counters(self) -> None:
        self.counters: dict[str, dict[str, Any]] = {
            e: {"drafts": 0, "draft_tokens": 0, "accepted": 0, "per_pos": [], "generation": 0, "prompt": 0}
            for e in self.script.metrics.engines
        }
        self.running: dict[str, int] = {e: 0 for e in self.script.metrics.engines}

    def engine(self, name: str) -> dict[str, Any]:
        if name not in self.counters:
            self.counters[name] = {
                "drafts": 0,
                "draft_tokens": 0,
                "accepted": 0,
                "per_pos": [],
                "generation": 0,
                "prompt": 0,
            }
            self.running[name] = 0
        return self.counters[name]

    def add(self, plan: ResponsePlan, output_tokens: int) -> None:
        c = self.engine(plan.engine)
        c["drafts"] += plan.drafts
        c["draft_tokens"] += plan.draft_tokens
        c["accepted"] += sum(plan.accepted_per_position)
        pp = c["per_pos"]
        pp.extend([0] * (len(plan.accepted_per_position) - len(pp)))
        for i, a in enumerate(plan.accepted_per_position):
            pp[i] += a
        c["generation"] += output_tokens
        c["prompt"] += plan.prompt_tokens

    # -- prometheus_client collector protocol
    def collect(self):
        m = self.script.metrics
        if m.style == "vllm":
            p, lab = "vllm:", ["engine", "model_name"]
            names = {
                "drafts": "spec_decode_num_drafts",
                "draft_tokens": "spec_decode_num_draft_tokens",
                "accepted": "spec_decode_num_accepted_tokens",
                "generation": "generation_tokens",
                "prompt": "prompt_tokens",
            }
            gauges = {"running": "num_requests_running", "waiting": "num_requests_waiting"}
        else:
            p, lab = "llamacpp:", []
            names = {
                "drafts": "spec_decode_num_drafts",
                "draft_tokens": "spec_decode_num_draft_tokens",
                "accepted": "spec_decode_num_accepted_tokens",
                "generation": "tokens_predicted",
                "prompt": "prompt_tokens",
            }
            gauges = {"running": "requests_processing", "waiting": "requests_deferred"}
        engines = sorted(self.counters)
        for key, name in names.items():
            fam = CounterMetricFamily(p + name, f"truth: {key}", labels=lab)
            if lab:
                for e in engines:
                    fam.add_metric([e, m.model_name], self.counters[e][key])
            else:
                fam.add_metric([], sum(self.counters[e][key] for e in engines))
            yield fam
        if m.per_position:
            fam = CounterMetricFamily(
                p + "spec_decode_num_accepted_tokens_per_pos", "truth: per position", labels=lab + ["position"]
            )
            for e in engines:
                for i, v in enumerate(self.counters[e]["per_pos"]):
                    fam.add_metric(([e, m.model_name] if lab else []) + [str(i)], v)
            yield fam
        for key, name in gauges.items():
            fam = GaugeMetricFamily(p + name, f"truth: {key}", labels=lab)
            vals = {e: (self.running[e] if key == "running" else 0) for e in engines}
            if lab:
                for e in engines:
                    fam.add_metric([e, m.model_name], vals[e])
            else:
                fam.add_metric([], sum(vals.values()))
            yield fam


async def _sleep_until(target_ns: int, precise: bool) -> None:
    while True:
        rem = target_ns - perf_counter_ns()
        if rem <= 0:
            return
        if rem > _SPIN_NS or not precise:
            await asyncio.sleep((rem - (_SPIN_NS if precise else 0)) / 1e9)
        else:
            await asyncio.sleep(0)


def _event(obj: dict) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


async def _chat(request: web.Request) -> web.StreamResponse:
    state: TruthState = request.app["state"]
    arrival_ns = perf_counter_ns()
    body = json.loads(await request.read())
    plan = state.script.plan_for(body)
    state.n_requests += 1
    rid = f"chatcmpl-truth-{state.n_requests}"
    rec: dict[str, Any] = {
        "id": rid,
        "arrival_ns": arrival_ns,
        "writes": [],
        "status": plan.status,
        "output_tokens": 0,
        "dropped": False,
        "end_ns": None,
        "prompt": (body.get("messages") or [{}])[-1].get("content"),
    }
    if state.script.record:
        state.log.append(rec)
    if plan.status != 200:
        rec["end_ns"] = perf_counter_ns()
        return web.json_response({"error": {"message": "scripted failure", "code": plan.status}}, status=plan.status)

    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or 16
    total = plan.output_tokens if plan.output_tokens is not None else int(max_tokens)
    sizes = plan.chunk_sizes(total)  # (n_chunks,) tokens per chunk
    created = 1767225600
    model = body.get("model") or "truth"
    head = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model}
    precise = True

    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await resp.prepare(request)
    writes = rec["writes"]
    state.engine(plan.engine)
    state.running[plan.engine] += 1
    cache: dict[tuple[str, int], bytes] = {}

    async def write(kind: str, tokens: int, data: bytes) -> None:
        t = perf_counter_ns()
        await resp.write(data)
        writes.append([t, kind, tokens, len(data)])

    try:
        if plan.role_ms is not None:
            await _sleep_until(arrival_ns + int(plan.role_ms * 1e6), precise)
            await write(
                "role",
                0,
                _event(
                    {
                        **head,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {"role": "assistant", "content": ""},
                                "logprobs": None,
                                "finish_reason": None,
                            }
                        ],
                    }
                ),
            )
        target = arrival_ns + int(plan.ttft_ms * 1e6)
        sent_tokens = 0
        for i, k in enumerate(sizes):
            if i > 0:
                target += int(plan.gap_ms(i) * 1e6)
            if plan.stall_after_chunks is not None and i == plan.stall_after_chunks:
                target += int(plan.stall_ms * 1e6)
            if plan.drop_after_chunks is not None and i == plan.drop_after_chunks:
                rec["dropped"] = True
                if request.transport is not None:
                    request.transport.abort()
                return resp
            kind = "reasoning" if sent_tokens + k <= plan.reasoning_tokens else "content"
            data = cache.get((kind, k))
            if data is None:  # built before the deadline, so the write goes out on time
                field = plan.reasoning_field if kind == "reasoning" else "content"
                data = cache[(kind, k)] = _event(
                    {
                        **head,
                        "choices": [{"index": 0, "delta": {field: " x" * k}, "logprobs": None, "finish_reason": None}],
                    }
                )
            await _sleep_until(target, precise)
            await write(kind, k, data)
            sent_tokens += k
        rec["output_tokens"] = sent_tokens
        reported = plan.usage_completion_tokens if plan.usage_completion_tokens is not None else sent_tokens
        usage = {
            "prompt_tokens": plan.prompt_tokens,
            "total_tokens": plan.prompt_tokens + reported,
            "completion_tokens": reported,
        }
        timings = (
            {
                "timings": {
                    "predicted_n": sent_tokens,
                    "draft_n": plan.draft_tokens,
                    "draft_n_accepted": sum(plan.accepted_per_position),
                }
            }
            if plan.llamacpp_timings
            else {}
        )
        if plan.finish_reason is not None or plan.usage == "last_choice_chunk":
            fin = {
                **head,
                "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": plan.finish_reason}],
            }
            if plan.usage == "last_choice_chunk":
                fin.update({"usage": usage, **timings})
            await write("finish", 0, _event(fin))
        if plan.usage == "final_chunk":
            await write("usage", 0, _event({**head, "choices": [], "usage": usage, **timings}))
        if plan.send_done:
            await write("done", 0, b"data: [DONE]\n\n")
        state.add(plan, sent_tokens)
        await resp.write_eof()
        return resp
    except (ConnectionResetError, asyncio.CancelledError):
        rec["dropped"] = True
        raise
    finally:
        rec["end_ns"] = perf_counter_ns()
        state.running[plan.engine] -= 1


async def _metrics(request: web.Request) -> web.Response:
    state: TruthState = request.app["state"]
    if not state.script.metrics.enabled:
        raise web.HTTPNotFound(text="metrics disabled\n")
    reg = CollectorRegistry(auto_describe=False)
    reg.register(state)
    return web.Response(body=generate_latest(reg), content_type="text/plain", charset="utf-8")


async def _health(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def _log(request: web.Request) -> web.Response:
    return web.json_response(request.app["state"].log)


async def _set_script(request: web.Request) -> web.Response:
    state: TruthState = request.app["state"]
    state.script = TruthScript.model_validate_json(await request.read())
    state.reset_counters()
    return web.json_response({"ok": True})


async def _reset(request: web.Request) -> web.Response:
    request.app["state"].reset_counters()
    return web.json_response({"ok": True})


async def _clear(request: web.Request) -> web.Response:
    request.app["state"].log.clear()
    return web.json_response({"ok": True})


def make_app(script: TruthScript) -> web.Application:
    """The aiohttp application serving ``script`` (state in ``app["state"]``, a :class:`TruthState`)."""
    app = web.Application()
    app["state"] = TruthState(script)
    app.router.add_post("/v1/chat/completions", _chat)
    app.router.add_get("/metrics", _metrics)
    app.router.add_get("/health", _health)
    app.router.add_get("/truth/log", _log)
    app.router.add_post("/truth/script", _set_script)
    app.router.add_post("/truth/reset", _reset)
    app.router.add_post("/truth/clear", _clear)
    return app


async def _serve(script: TruthScript, host: str, port: int, announce) -> None:
    if script.firehose:
        from specscope.truth.firehose import serve_firehose

        return await serve_firehose(script, host, port, announce)
    runner = web.AppRunner(make_app(script), access_log=None, handle_signals=True)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    bound = runner.addresses[0][1]
    announce(f"http://{host}:{bound}")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def _loop_factory():
    """uvloop's loop when installed (lower wake-up latency), else asyncio's default."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def serve_forever(script: TruthScript, host: str = "127.0.0.1", port: int = 0, announce=print) -> None:
    """Run the server in this process until interrupted; ``announce(base_url)`` is called once listening."""
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as r:
            r.run(_serve(script, host, port, announce))
    except KeyboardInterrupt:
        pass


def main(argv: list[str] | None = None) -> None:
    """``python -m specscope.truth.server --port P [--script FILE]``: prints ``LISTENING <base_url>`` once."""
    ap = argparse.ArgumentParser(prog="specscope.truth.server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", type=Path, default=None)
    a = ap.parse_args(argv)
    script = TruthScript.model_validate_json(a.script.read_text()) if a.script else TruthScript()

    def announce(url: str) -> None:
        sys.stdout.write(f"LISTENING {url}\n")
        sys.stdout.flush()

    serve_forever(script, a.host, a.port, announce)


if __name__ == "__main__":
    main()

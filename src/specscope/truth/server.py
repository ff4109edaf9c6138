"""The ground-truth server: an OpenAI-compatible streaming chat server whose every behaviour is scripted.

Built on ``aiohttp.web``. Endpoints:

- ``POST /v1/chat/completions``: streams the response planned by the :class:`~specscope.truth.script.TruthScript`
  (see :class:`~specscope.truth.script.ResponsePlan` for what can be programmed); a request with
  no ``"stream": true`` (false or absent: the API's default) gets the same tokens as one JSON ``chat.completion``.
- ``POST /v1/completions`` and ``POST /v1/responses``: the same plan in those APIs' streams
  (:mod:`specscope.truth.dialects`); the script's ``apis`` serves only some of the three, the others are refused
  (404 or 400 with a JSON body like vLLM's).
- ``GET /metrics``: Prometheus text with exact speculative-decoding counters per ``engine`` label, generated
  with ``prometheus_client`` custom metric families (vLLM names, or llama.cpp names without labels).
- ``GET /metrics`` with the style ``trtllm_json`` and ``GET /perf_metrics``: TensorRT-LLM's JSON bodies, drained on
  read (:mod:`specscope.truth.drained`).
- ``GET /slots``: llama-server's slots with the script's ``slots_n_max`` (404 without it).
- ``GET /health``: 200.
- ``GET /truth/log``: JSON list of what was served, one item per request: ``arrival_ns`` (perf_counter_ns
  when the handler started), ``slot_ns`` (when the response got a generation slot: ``arrival_ns`` unless the
  script's ``max_running`` made it wait), ``writes`` = ``[[t_ns, kind, tokens, bytes], ...]`` (t_ns read just
  before each write; kind ``role`` / ``content`` / ``reasoning`` / ``finish`` / ``usage`` / ``done`` / ``raw``, a
  scripted ``inject_events`` text), ``end_ns``, ``output_tokens``, ``status``, ``dropped``, ``prompt`` (the last
  message's content), ``messages`` (the request's messages as received) and ``max_tokens`` (the request's
  ``max_completion_tokens``, else ``max_tokens``; None when it sent neither). ``perf_counter_ns`` is CLOCK_MONOTONIC
  on Linux, so these instants compare directly with a client's readings in another process of the same machine.
- ``POST /truth/script`` (JSON TruthScript): replace the programme; ``POST /truth/reset``: all counters to 0
  (a server restart as seen from /metrics; ``?engine=E``: only engine E's, a data-parallel engine restart,
  which also moves its ``*_created`` time); ``POST /truth/clear``: empty the log.
- ``exit_after_chunks`` in the script: the process exits (code 3, no goodbye) right after writing that many
  token chunks in total, so a test can crash a server at an exact point of a run.

Timing: each write is scheduled at an absolute deadline from the request's arrival (no drift). The loop
sleeps until 1.5 ms before the deadline, then yields with ``sleep(0)`` until it passes (``precise=True``),
because epoll's millisecond timeout would otherwise make sleeps up to 1 ms late.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest

from specscope.seam.target import GAUGE_USER_AGENT
from specscope.strictjson import loads as strict_loads
from specscope.truth import dialects
from specscope.truth.dialects import CHAT, COMPLETIONS, RESPONSES
from specscope.truth.endpoints import add_engine_routes
from specscope.truth.script import ResponsePlan, TruthScript
from specscope.truth.spec_shapes import per_request_fields, vllm_timing_metrics
from specscope.truth.state import TruthState

__all__ = ["TruthState", "make_app", "serve_forever", "main"]

_SPIN_NS = 1_500_000  # ms-resolution epoll: yield-spin the last 1.5 ms before a deadline


async def _sleep_until(target_ns: int, precise: bool) -> None:
    while True:
        rem = target_ns - perf_counter_ns()
        if rem <= 0:
            return
        if rem > _SPIN_NS or not precise:
            await asyncio.sleep((rem - (_SPIN_NS if precise else 0)) / 1e9)
        else:
            await asyncio.sleep(0)


def _start_record(state: TruthState, body: dict[str, Any], plan: ResponsePlan, arrival_ns: int) -> dict[str, Any]:
    """The truth-log entry of one request (appended to the log when the script records)."""
    state.n_requests += 1
    rec: dict[str, Any] = {
        "id": f"chatcmpl-truth-{state.n_requests}",
        "arrival_ns": arrival_ns,
        "writes": [],
        "status": plan.status,
        "output_tokens": 0,
        "dropped": False,
        "end_ns": None,
        "prompt": dialects.prompt_text(body, user=False),
        "messages": body.get("messages"),
        "model": body.get("model"),
        "body": body,
        "max_tokens": body.get("max_completion_tokens", body.get("max_tokens")),
    }
    if state.script.record:
        state.log.append(rec)
    return rec


class _Writer:
    """Writes one response's SSE events, logs each write (``[t_ns, kind, tokens, bytes]``) and counts token
    chunks for the script's ``exit_after_chunks`` (the process exits right after that many, like a crash)."""

    def __init__(self, state: TruthState, resp: web.StreamResponse, rec: dict[str, Any]):
        self.state, self.resp, self.writes = state, resp, rec["writes"]

    async def __call__(self, kind: str, tokens: int, data: bytes) -> None:
        t = perf_counter_ns()
        await self.resp.write(data)
        self.writes.append([t, kind, tokens, len(data)])
        if kind in ("content", "reasoning"):
            self.state.chunks_sent += 1
            limit = self.state.script.exit_after_chunks
            if limit is not None and self.state.chunks_sent >= limit:
                os._exit(3)  # a crash: no goodbye, sockets closed by the kernel


async def _token_chunks(
    request: web.Request, plan: ResponsePlan, head: dict[str, Any], write: _Writer, start_ns: int
) -> int | None:
    """Send the token chunks on their deadlines from ``start_ns`` (the slot's start); the tokens sent, or ``None``
    when the plan drops the connection."""
    target = start_ns + int(plan.ttft_ms * 1e6)
    sent_tokens = 0
    cache: dict[tuple[str, int, bool], bytes] = {}
    sizes = plan.chunk_sizes(_total_tokens(plan, head["max_tokens"]))
    for i, k in enumerate(sizes):
        for text in (t for at, t in plan.inject_events if at == i):  # scripted events of any shape
            await write("raw", 0, text.encode())
        if i > 0:
            target += int(plan.gap_ms(i) * 1e6)
        if plan.stall_after_chunks is not None and i == plan.stall_after_chunks:
            target += int(plan.stall_ms * 1e6)
        if plan.drop_after_chunks is not None and i == plan.drop_after_chunks:
            if request.transport is not None:
                request.transport.abort()
            return None
        kind = "reasoning" if sent_tokens + k <= plan.reasoning_tokens else "content"
        first = kind == "content" and sent_tokens <= plan.reasoning_tokens  # the answer's first chunk
        data = cache.get((kind, k, first))
        if data is None:  # built before the deadline, so the write goes out on time
            data = cache[(kind, k, first)] = head["token"]("first" if first else kind, " x" * k)
        await _sleep_until(target, True)
        await write(kind, k, data)
        sent_tokens += k
    for text in (t for at, t in plan.inject_events if at >= len(sizes)):
        await write("raw", 0, text.encode())
    return sent_tokens


def _total_tokens(plan: ResponsePlan, max_tokens: int) -> int:
    return plan.output_tokens if plan.output_tokens is not None else max_tokens


def _timing_metrics(rec: dict[str, Any], sent_tokens: int) -> dict[str, float]:
    """vLLM's per-request timing fields of the response logged in ``rec`` (:func:`vllm_timing_metrics`)."""
    tokens = [t for t, kind, *_ in rec["writes"] if kind in ("content", "reasoning")]
    first, last = (tokens[0], tokens[-1]) if tokens else (None, None)
    return vllm_timing_metrics(rec["arrival_ns"], rec["slot_ns"], first, last, sent_tokens)


async def _finish(
    plan: ResponsePlan, head: dict[str, Any], write: _Writer, sent_tokens: int, rec: dict[str, Any]
) -> None:
    """The finish chunk, the usage chunk and ``[DONE]``, each as the plan says (a Responses stream: its terminal
    event, :func:`specscope.truth.dialects.responses_end`)."""
    reported = plan.usage_completion_tokens if plan.usage_completion_tokens is not None else sent_tokens
    usage = {
        "prompt_tokens": plan.prompt_tokens,
        "total_tokens": plan.prompt_tokens + reported,
        "completion_tokens": reported,
    }
    if head.get("object") == "response":  # its terminal event (none without a finish reason), never [DONE]
        if plan.finish_reason is not None:
            shown = None if plan.usage == "absent" else usage
            reasoning = min(plan.reasoning_tokens, usage["completion_tokens"])
            await write("finish", 0, dialects.responses_end(head, plan.finish_reason, shown, reasoning))
        return
    timings, choice_fields = per_request_fields(plan, sent_tokens)  # every engine's per-response spec fields
    if plan.spec_steps_accepted is not None:
        from specscope.truth.spec_steps import spec_step_fields

        k = plan.draft_tokens // max(plan.drafts, 1)
        timings.update(spec_step_fields(plan.spec_steps_accepted, k, plan.reasoning_tokens, usage))
    if plan.per_request_metrics:  # vLLM --enable-per-request-metrics: the timing fields, then speculative_decoding
        timings["metrics"] = {**_timing_metrics(rec, sent_tokens), **timings.get("metrics", {})}
    if plan.finish_reason is not None or plan.usage == "last_choice_chunk":
        fin = {**head, "choices": [{**dialects.finish_choice(head, plan.finish_reason), **choice_fields}]}
        if plan.usage == "last_choice_chunk":
            fin.update({"usage": usage, **timings})
        await write("finish", 0, dialects.event(fin))
    if plan.usage == "final_chunk":
        await write("usage", 0, dialects.event({**head, "choices": [], "usage": usage, **timings}))
    if plan.send_done:
        await write("done", 0, b"data: [DONE]\n\n")


def _api(path: str) -> Callable[[web.Request], Any]:
    """The handler of one API: refused when the script's ``apis`` leaves it out, else streamed in its dialect."""

    async def handler(request: web.Request) -> web.StreamResponse:
        state: TruthState = request.app["state"]
        apis = state.script.apis
        if apis is not None and path not in apis:
            status = state.script.refuse_status
            return web.json_response(dialects.refusal(status), status=status)
        return await _chat(request, path)

    return handler


async def _chat(request: web.Request, path: str = CHAT) -> web.StreamResponse:
    """One request, counted in flight; past the script's ``crash_above_running`` the process exits."""
    state: TruthState = request.app["state"]
    limit = state.script.crash_above_running
    if limit is not None and state.in_flight >= limit:
        os._exit(3)  # a crash under load: no goodbye, every open stream closed by the kernel
    state.in_flight += 1
    kv = state.script.log_stats_kv_percent
    if kv is not None:  # vLLM's stats line (vllm/v1/metrics/loggers.py), for a stand-in's log
        print(
            "INFO [loggers.py:127] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 "
            f"tokens/s, Running: {state.in_flight} reqs, Waiting: 0 reqs, GPU KV cache usage: {kv:.1f}%, "
            "Prefix cache hit rate: 0.0%",
            flush=True,
        )
    try:
        return await _serve_chat(request, state, path)
    finally:
        state.in_flight -= 1


def _read_request(raw: bytes, script: TruthScript) -> tuple[dict[str, Any], ResponsePlan, int] | str:
    """``(body, plan, max_tokens)`` of a generation request, or the reason it cannot be served: a body that is not a
    JSON object, a ``max_tokens`` (``max_completion_tokens``, ``max_output_tokens``) that is not a whole number
    1..MAX_OUTPUT_TOKENS, or a ``specscope_truth`` plan the script's model refuses. Each was a 500 with a traceback
    in the server's log, and a max_tokens of 10**15 a hang (probe of 2026-12-06)."""
    from pydantic import ValidationError

    from specscope.truth.script import MAX_OUTPUT_TOKENS

    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return f"the request body is not a JSON object ({type(exc).__name__})"
    if not isinstance(body, dict):
        return f"the request body is not a JSON object (a {type(body).__name__})"
    asked = body.get("max_completion_tokens") or body.get("max_tokens") or body.get("max_output_tokens") or 16
    if not isinstance(asked, int) or isinstance(asked, bool) or not 1 <= asked <= MAX_OUTPUT_TOKENS:
        return f"max_tokens must be a whole number 1..{MAX_OUTPUT_TOKENS}, not {str(asked)[:40]}"
    try:
        plan = script.plan_for(body)
    except ValidationError as exc:
        return f"specscope_truth is not a ResponsePlan: {str(exc).splitlines()[0][:200]}"
    return body, plan, asked


async def _serve_chat(request: web.Request, state: TruthState, path: str = CHAT) -> web.StreamResponse:
    arrival_ns = perf_counter_ns()
    read = _read_request(await request.read(), state.script)
    if isinstance(read, str):  # as vLLM answers a request it cannot serve: 400 and a JSON error
        return web.json_response({"error": {"message": read, "code": 400}}, status=400)
    body, plan, max_tokens = read
    rec = _start_record(state, body, plan, arrival_ns)
    rec["authorization"] = request.headers.get("Authorization")  # what the client sent (API key tests)
    rec["path"] = path
    if plan.status != 200:
        rec["end_ns"] = perf_counter_ns()
        return web.json_response({"error": {"message": plan.error_message, "code": plan.status}}, status=plan.status)
    if plan.unstreamed or body.get("stream") is not True:  # stream defaults to false (OpenAI's API): one JSON body
        return await _unstreamed(plan, state, body, rec, path)

    heads = dialects.stream_heads(
        path, rec["id"], body.get("model") or "truth", plan.reasoning_field, plan.answer_field
    )
    event_head = heads["event"]
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await resp.prepare(request)
    write = _Writer(state, resp, rec)
    try:
        waited, epoch = await state.acquire(plan.engine)
    except asyncio.CancelledError:
        rec["dropped"], rec["end_ns"] = True, perf_counter_ns()
        raise
    start_ns = rec["slot_ns"] = perf_counter_ns() if waited else arrival_ns  # the plan's timings start here
    try:
        if plan.role_ms is not None and path != COMPLETIONS:  # a completions stream has no role chunk
            await _sleep_until(start_ns + int(plan.role_ms * 1e6), True)
            if path == RESPONSES:
                await write("role", 0, dialects.responses_start(rec["id"], event_head["model"]))
            else:
                await write("role", 0, dialects.choice_event(event_head, {"role": "assistant", "content": ""}))
        sent = await _token_chunks(request, plan, {**heads, "max_tokens": max_tokens}, write, start_ns)
        if sent is None:
            rec["dropped"] = True
            return resp
        rec["output_tokens"] = sent
        if plan.hang_ms > 0:
            await asyncio.sleep(plan.hang_ms / 1e3)
        await _finish(plan, event_head, write, sent, rec)
        state.add(plan, sent, rec["id"])
        state.observe_queue(plan.engine, (start_ns - arrival_ns) / 1e9)
        await resp.write_eof()
        return resp
    except (ConnectionResetError, asyncio.CancelledError):
        rec["dropped"] = True
        raise
    finally:
        rec["end_ns"] = perf_counter_ns()
        state.release(plan.engine, epoch)


async def _unstreamed(
    plan: ResponsePlan, state: TruthState, body: dict[str, Any], rec: dict[str, Any], path: str
) -> web.Response:
    """One JSON body after ``ttft_ms``: the answer to a request without ``"stream": true``, or to any request under
    ``ResponsePlan.unstreamed`` (a server that ignores ``stream: true``); the tokens are the stream's."""
    max_tokens = int(body.get("max_completion_tokens") or body.get("max_tokens") or body.get("max_output_tokens") or 16)
    sent = _total_tokens(plan, max_tokens)
    await _sleep_until(rec["arrival_ns"] + int(plan.ttft_ms * 1e6), True)
    usage = {"prompt_tokens": plan.prompt_tokens, "completion_tokens": sent, "total_tokens": plan.prompt_tokens + sent}
    finish = plan.finish_reason if plan.output_tokens is not None else "length"
    reasoning = min(plan.reasoning_tokens, sent)
    answer = dialects.unstreamed_body(
        path, rec["id"], body.get("model") or "truth", " x" * sent, finish, usage, reasoning
    )
    rec["output_tokens"], rec["end_ns"] = sent, perf_counter_ns()
    state.add(plan, sent, rec["id"])
    return web.json_response(answer)


GARBAGE_PAGE = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n"
_TRUTH_CONTEXT_TOKENS = 4096


def _garbage(state: TruthState, path: str, request: web.Request) -> web.Response | None:
    """The proxy error page (HTTP 200, text/html), or a hang-up, when the script says this request of ``path`` gets
    it; the gauge sampler's reads (its User-Agent, several a second while streams run) are not counted, so the
    numbers name the cells' own scrapes whatever the timing."""
    if request.headers.get("User-Agent") == GAUGE_USER_AGENT:
        return None
    n = state.path_requests.get(path, 0)
    state.path_requests[path] = n + 1
    if n in state.script.garbage.get(path, ()):  # type: ignore[call-overload]
        body = state.script.garbage_body.get(path)  # type: ignore[call-overload]
        if body is None:
            return web.Response(body=GARBAGE_PAGE, status=state.script.garbage_status, content_type="text/html")
        try:
            strict_loads(body)  # a body nested past the parser's depth is no JSON here (it was a 500)
            kind = "application/json"
        except ValueError:
            kind = "text/html"
        return web.Response(text=body, status=state.script.garbage_status, content_type=kind)
    if n in state.script.hangup.get(path, ()) and request.transport is not None:  # type: ignore[call-overload]
        request.transport.close()  # no byte of response: the response below is never written
        return web.Response(status=204)
    return None


async def _models(request: web.Request) -> web.Response:
    state: TruthState = request.app["state"]
    if not state.script.serve_models:
        raise web.HTTPNotFound(text="no /v1/models\n")
    bad = _garbage(state, "/v1/models", request)
    if bad is not None:
        return bad
    model = {"id": state.script.metrics.model_name, "object": "model", "max_model_len": _TRUTH_CONTEXT_TOKENS}
    return web.json_response({"object": "list", "data": [model]})


async def _tokenize(request: web.Request) -> web.Response:
    state: TruthState = request.app["state"]
    if not state.script.serve_tokenizer:
        raise web.HTTPNotFound(text="no /tokenize\n")
    bad = _garbage(state, "/tokenize", request)
    if bad is not None:
        return bad
    body = await request.json()
    msgs = body.get("messages") if isinstance(body, dict) else None
    text = " ".join(str(m.get("content", "")) for m in msgs or [] if isinstance(m, dict)) or str(body.get("prompt", ""))
    ids = [state.vocab.setdefault(word, len(state.vocab)) for word in text.split()]
    return web.json_response({"count": len(ids), "max_model_len": _TRUTH_CONTEXT_TOKENS, "tokens": ids})


async def _detokenize(request: web.Request) -> web.Response:
    state: TruthState = request.app["state"]
    if not state.script.serve_tokenizer:
        raise web.HTTPNotFound(text="no /detokenize\n")
    words = {i: w for w, i in state.vocab.items()}
    body = await request.json()
    return web.json_response({"prompt": " ".join(words.get(int(t), "?") for t in body.get("tokens") or [])})


async def _metrics(request: web.Request) -> web.Response:
    state: TruthState = request.app["state"]
    if not state.script.metrics.enabled:
        raise web.HTTPNotFound(text="metrics disabled\n")
    bad = _garbage(state, "/metrics", request)
    if bad is not None:
        return bad
    if state.script.metrics.style == "trtllm_json":  # trtllm-serve's iteration stats: drained on read
        running, waiting = sum(state.running.values()), sum(state.waiting.values())
        return web.json_response(state.drained.drain_iterations(running, waiting))
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
    request.app["state"].reset_counters(request.query.get("engine"))
    return web.json_response({"ok": True})


async def _clear(request: web.Request) -> web.Response:
    request.app["state"].log.clear()
    return web.json_response({"ok": True})


def make_app(script: TruthScript) -> web.Application:
    """The aiohttp application serving ``script`` (state in ``app["state"]``, a :class:`TruthState`)."""
    app = web.Application()
    app["state"] = TruthState(script)
    for path in (CHAT, COMPLETIONS, RESPONSES):
        app.router.add_post(path, _api(path))
    app.router.add_get("/metrics", _metrics)
    app.router.add_get("/v1/models", _models)
    app.router.add_post("/tokenize", _tokenize)
    app.router.add_post("/detokenize", _detokenize)
    add_engine_routes(app)
    app.router.add_get("/health", _health)
    app.router.add_get("/truth/log", _log)
    app.router.add_post("/truth/script", _set_script)
    app.router.add_post("/truth/reset", _reset)
    app.router.add_post("/truth/clear", _clear)
    return app


async def _serve(script: TruthScript, host: str, port: int, announce: Callable[[str], Any]) -> None:
    if script.firehose:
        from specscope.truth.firehose import serve_firehose

        return await serve_firehose(script, host, port, announce)
    runner = web.AppRunner(make_app(script), access_log=None)  # signals: see serve_forever
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    bound = runner.addresses[0][1]
    announce(f"http://{host}:{bound}")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop when installed (lower wake-up latency), else asyncio's default."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def _until_stopped(script: TruthScript, host: str, port: int, announce: Callable[[str], Any]) -> bool:
    """Serve until SIGTERM or SIGINT (handlers set here, so an inherited "ignore SIGINT" does not make Ctrl-C
    useless); return True when SIGINT stopped it."""
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    got: list[int] = []

    def stop(sig: int) -> None:
        got.append(sig)
        if task is not None:
            task.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop, sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
            pass
    try:
        await _serve(script, host, port, announce)
    except asyncio.CancelledError:
        if not got or task is None:
            raise
        task.uncancel()
    return signal.SIGINT in got


def serve_forever(
    script: TruthScript, host: str = "127.0.0.1", port: int = 0, announce: Callable[[str], Any] = print
) -> None:
    """Run the server in this process until stopped; ``announce(base_url)`` is called once listening.

    SIGTERM stops it and returns normally; SIGINT (Ctrl-C) stops it and raises :class:`KeyboardInterrupt`, so
    ``specscope truth-server`` ends like every command (exit 130).
    """
    with asyncio.Runner(loop_factory=_loop_factory()) as r:
        if r.run(_until_stopped(script, host, port, announce)):
            raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    """``python -m specscope.truth.server --port P [--script FILE]``: prints ``LISTENING <base_url>`` once.

    It also takes vLLM's command line, ``... [--script FILE] serve MODEL --host H --port P [vLLM flags]`` (the
    flags it does not know are ignored), so a recipe's ``vllm_command`` can run it in place of vLLM:
    ``vllm_command = [PYTHON, "-m", "specscope.truth.server", "--script", FILE]``.
    """
    ap = argparse.ArgumentParser(prog="specscope.truth.server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", type=Path, default=None)
    ap.add_argument("serve", nargs="*", help="vLLM's `serve MODEL` (ignored)")
    a, _ignored = ap.parse_known_args(argv)
    script = TruthScript.model_validate_json(a.script.read_text()) if a.script else TruthScript()

    def announce(url: str) -> None:
        sys.stdout.write(f"LISTENING {url}\n")
        sys.stdout.flush()

    try:
        serve_forever(script, a.host, a.port, announce)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

"""Client overhead: specscope's hot path on aiohttp vs the same hot path on httpx, against the ground-truth
server in firehose mode (no delays). Run by hand: ``.venv/bin/python benchmarks/client_overhead.py``.

The server runs in a child process pinned to CPU 0, the client in this process pinned to CPU 1 (when the
machine has 2+ cores). Reported per library: sustained output tokens/s and requests/s (wall clock) and the
client's own CPU time per 1M output tokens (``time.process_time``), which stays meaningful when the server,
not the client, is the limit. Medians of ``--runs`` alternated runs.

Measured here (2 shared cores with other suites running, load average 5-6; concurrency 64, 256 tokens per
request, 256 requests, medians of 3 alternated runs). The wall-clock numbers are limited by the Python truth
server on its one core (and by the shared machine), so the client CPU column is the comparison that counts:

    tokens/chunk  library  tok/s (wall)  req/s  client CPU s per 1M tokens
    1             aiohttp        20 489   80.0                        9.89
    1             httpx           5 573   21.8                       49.89
    4             aiohttp        40 686  158.9                        4.78
    4             httpx           7 510   29.3                       33.47

aiohttp's hot path costs 5x (1 token/chunk) to 7x (4 tokens/chunk) less client CPU than httpx's
``aiter_raw`` for the same capture-then-parse design, which is why ``specscope.client.stream`` uses aiohttp.
The issue-8 goal (>= 200k tok/s at 1 token/chunk) cannot be shown with this server: a faster firehose server
(raw asyncio protocol) is needed before the client becomes the limit.

Not done yet (issue 8): the peers (``vllm bench serve``, GuideLLM, AIPerf) in their own virtual environments.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from time import perf_counter_ns

import httpx

from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.client.stream import RawCapture, chat_url, max_tokens_of, parse_capture, prepare_body
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript


async def _httpx_run(base_url: str, requests, concurrency: int, settings: ClientSettings):
    """The same capture-then-parse hot path on httpx (``aiter_raw``), for comparison only."""
    url = chat_url(base_url)
    prepared = [(pid, prepare_body(b), max_tokens_of(b)) for pid, b in requests]
    raws: list[RawCapture] = []
    limits = httpx.Limits(max_connections=settings.connection_limit, max_keepalive_connections=settings.connection_limit)
    timeout = httpx.Timeout(settings.total_timeout_s, connect=settings.connect_timeout_s, read=settings.read_timeout_s)
    idx = 0
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        async def worker():
            nonlocal idx
            while idx < len(prepared):
                pid, body, mt = prepared[idx]
                idx += 1
                t = perf_counter_ns()
                raw = RawCapture(pid, t, t, max_tokens=mt)
                append = raw.chunks.append
                async with client.stream("POST", url, content=body,
                                         headers={"Content-Type": "application/json"}) as resp:
                    raw.http_status = resp.status_code
                    async for data in resp.aiter_raw():
                        append((perf_counter_ns(), data))
                raw.end_ns = perf_counter_ns()
                raws.append(raw)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return [parse_capture(r) for r in raws]


def _one(lib: str, base_url: str, n: int, concurrency: int, tokens: int) -> dict[str, float]:
    reqs = [(f"p{i}", {"messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": tokens}) for i in range(n)]
    settings = ClientSettings()
    cpu0 = time.process_time()
    t0 = perf_counter_ns()
    if lib == "aiohttp":
        recs = run_sync(run_fixed_concurrency(base_url, reqs, concurrency, settings))
    else:
        recs = run_sync(_httpx_run(base_url, reqs, concurrency, settings))
    wall_s = (perf_counter_ns() - t0) / 1e9
    cpu_s = time.process_time() - cpu0
    toks = sum(r.output_tokens or 0 for r in recs)
    bad = sum(r.status != "ok" for r in recs)
    return {"tok_s": toks / wall_s, "req_s": len(recs) / wall_s, "cpu_s_per_mtok": cpu_s / toks * 1e6, "bad": bad}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=512)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--tokens-per-chunk", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    two = (os.cpu_count() or 1) >= 2
    script = TruthScript(default=ResponsePlan(output_tokens=a.tokens, tokens_per_chunk=a.tokens_per_chunk),
                         record=False)
    with TruthServer(script, cpu=0 if two else None) as ts:
        if two:
            os.sched_setaffinity(0, {1})
        res: dict[str, list[dict]] = {"aiohttp": [], "httpx": []}
        _one("aiohttp", ts.base_url, 64, a.concurrency, a.tokens)  # warm-up
        for _ in range(a.runs):
            for lib in ("aiohttp", "httpx"):
                res[lib].append(_one(lib, ts.base_url, a.requests, a.concurrency, a.tokens))
    print(f"concurrency {a.concurrency}, {a.tokens} tokens/request, {a.tokens_per_chunk} token(s)/chunk, "
          f"{a.requests} requests, medians of {a.runs}")
    print(f"{'library':8} {'tok/s':>10} {'req/s':>8} {'client CPU s/1M tok':>20} {'not ok':>7}")
    for lib, rs in res.items():
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        print(f"{lib:8} {med['tok_s']:10.0f} {med['req_s']:8.1f} {med['cpu_s_per_mtok']:20.2f} {int(med['bad']):7d}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

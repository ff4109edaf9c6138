"""Busy polling (``ClientSettings.busy_poll`` / ``bench --busy-poll``) against the default client, side by side.

Two questions, both against the ground-truth server on 127.0.0.1, the two clients alternated round by round:

1. **Accuracy.** The truth suite's plan (TTFT 60 ms, then chunks of 1-3 tokens every 30-50 ms, 12 tokens) at
   concurrency 16 and 64, 256 requests per cell. Per cell: the client's TTFT and TPOT minus the truth the server
   logged for each request (``|error|`` p50 / p99 / max, ms), the client's CPU share (process CPU time / wall time
   of the cell; 1.0 = one core) and its self-check's loop-lag p99.
2. **Throughput.** The firehose server (no delays, 256 tokens of 1 token per event) at concurrency 64,
   4096 requests: output tokens/s while streams were in flight (first send to last end), so that polling is
   shown not to slow a client that is never idle anyway.

Run: ``python benchmarks/busy_poll.py [--rounds 6]``; prints a Markdown table (copied into RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from specscope.client.runner import run_fixed_concurrency_checked, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

MS = 1_000_000
PLAN = ResponsePlan(ttft_ms=60, inter_chunk_ms=[30, 40, 50], output_tokens=12, tokens_per_chunk=[1, 2, 3])
CLIENTS = {"default": ClientSettings(), "busy-poll": ClientSettings(busy_poll=True)}


def _reqs(n: int, tag: str, max_tokens: int) -> list[tuple[str, dict]]:
    return [
        (
            f"{tag}-{i}",
            {"model": "truth", "messages": [{"role": "user", "content": f"{tag}-{i}"}], "max_tokens": max_tokens},
        )
        for i in range(n)
    ]


def _accuracy_cell(ts: TruthServer, concurrency: int, n: int, tag: str, settings: ClientSettings) -> dict:
    """One cell against the truth plan: per-request |client - truth| for TTFT and TPOT (ms), CPU share, loop lag."""
    ts.clear_log()
    recs, check = run_sync(run_fixed_concurrency_checked(ts.base_url, _reqs(n, tag, 12), concurrency, settings))
    served = {s["prompt"]: s for s in ts.served()}
    ttft, tpot = [], []
    for r in recs:
        toks = [w for w in served[r.prompt_id]["writes"] if w[1] in ("content", "reasoning")]
        ttft.append(abs(r.ttft_ns - (toks[0][0] - r.send_ns)) / MS)
        tpot.append(abs(r.tpot_ns - (toks[-1][0] - toks[0][0]) / (sum(w[2] for w in toks) - 1)) / MS)
    return {
        "ttft_p50": float(np.percentile(ttft, 50)),
        "ttft_p99": float(np.percentile(ttft, 99)),
        "ttft_max": max(ttft),
        "tpot_p99": float(np.percentile(tpot, 99)),
        "cpu": check.client_cpu_fraction,
        "loop_p99": check.loop_lag_p99_ns / MS,
    }


def _throughput_cell(ts: TruthServer, n: int, tag: str, settings: ClientSettings) -> float:
    """Output tokens/s at concurrency 64 on the firehose server, first send to last end."""
    recs, _ = run_sync(run_fixed_concurrency_checked(ts.base_url, _reqs(n, tag, 256), 64, settings))
    span_s = (max(r.end_ns for r in recs) - min(r.send_ns for r in recs)) / 1e9
    return sum(r.output_tokens or 0 for r in recs) / span_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--requests", type=int, default=256)
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    acc: dict[tuple[str, int], list[dict]] = {}
    with TruthServer(TruthScript(default=PLAN)) as ts:
        for rnd in range(a.rounds):
            order = list(CLIENTS) if rnd % 2 == 0 else list(CLIENTS)[::-1]
            for conc in (16, 64):
                for name in order:
                    acc.setdefault((name, conc), []).append(
                        _accuracy_cell(ts, conc, a.requests, f"{name}{conc}r{rnd}", CLIENTS[name])
                    )
    tput: dict[str, list[float]] = {}
    fire = TruthScript(default=ResponsePlan(output_tokens=256), firehose=True, record=False)
    with TruthServer(fire) as ts:
        for rnd in range(a.rounds):
            for name in list(CLIENTS) if rnd % 2 == 0 else list(CLIENTS)[::-1]:
                tput.setdefault(name, []).append(_throughput_cell(ts, 4096, f"f{name}{rnd}", CLIENTS[name]))
    med = statistics.median
    print(
        f"\n{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, load average (1 min) {load0:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end; {a.rounds} alternated rounds, {a.requests} requests per accuracy cell.\n"
    )
    print(
        "| client | N | TTFT err p50 ms | TTFT err p99 ms (median, worst round) | TTFT err max ms (worst) "
        "| TPOT err p99 ms (worst) | client CPU share | loop lag p99 ms (median) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for (name, conc), rs in sorted(acc.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(
            f"| {name} | {conc} | {med(r['ttft_p50'] for r in rs):.3f} | {med(r['ttft_p99'] for r in rs):.2f}, "
            f"{max(r['ttft_p99'] for r in rs):.2f} | {max(r['ttft_max'] for r in rs):.2f} | "
            f"{max(r['tpot_p99'] for r in rs):.2f} | {med(r['cpu'] for r in rs):.2f} | "
            f"{med(r['loop_p99'] for r in rs):.2f} |"
        )
    print("\n| client | firehose tok/s at N=64 (median of rounds) | min | max |\n|---|---|---|---|")
    for name, xs in tput.items():
        print(f"| {name} | {med(xs):,.0f} | {min(xs):,.0f} | {max(xs):,.0f} |")


if __name__ == "__main__":
    main()

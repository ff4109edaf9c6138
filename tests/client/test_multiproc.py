"""Client scaling (issue 8): a fixed-concurrency cell split over W spawned client processes, one clock.

Against the real ground-truth server at concurrency 16 with W = 2: exact token totals, every request answered once,
records in request order, peak in-flight at the server exactly 16 (its truth log), TTFT error vs the served truth:
the smallest <= 0.25 ms (same CLOCK_MONOTONIC in the workers and the server: no offset) and the largest within the
client's own reported lag + 1 ms (marked ``timing``). Also:
perf_counter_ns is one clock across processes, the auto rule's values, the load split, and worker failures as
SpecscopeErrors within a bound (never a hang).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from time import perf_counter_ns

import numpy as np
import pytest

from hangguard import HANG_S
from specscope.client.runner import run_fixed_concurrency, run_fixed_concurrency_checked, run_sync
from specscope.client.settings import ClientSettings
from specscope.client.workers import ClientWorkerError, auto_workers, resolve_workers, run_in_workers, split_load
from specscope.errors import ConfigError
from specscope.stats.concurrency import achieved_concurrency
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

MS = 1_000_000
TOKENS = 12
# as the truth suite: TTFT 60 ms lets the server start all 16 handlers before the first stream ends
PLAN = ResponsePlan(
    ttft_ms=250,  # time for 16 handlers (two worker processes) to start before the first stream ends
    inter_chunk_ms=[3, 4, 5],
    output_tokens=TOKENS,
    tokens_per_chunk=[1, 2, 3],
    reasoning_tokens=1,
    prompt_tokens=9,
)


# ------------------------------------------------------------------------------------------- pure rules
def test_auto_workers_rule_values():
    # W = 1 while concurrency x 1000 events/s <= 150k events/s
    assert auto_workers(1, cpu_count=64) == 1
    assert auto_workers(64, cpu_count=2) == 1
    assert auto_workers(150, cpu_count=16) == 1
    assert auto_workers(151, cpu_count=16) == 2  # 151k events/s -> ceil(1.007) = 2
    assert auto_workers(256, cpu_count=2) == 2
    assert auto_workers(1000, cpu_count=16) == 7  # ceil(1000k / 150k)
    assert auto_workers(1000, cpu_count=4) == 4  # one per core at most
    assert auto_workers(1000, 3, cpu_count=16) == 3  # no worker without a request
    # a known event rate overrides the per-stream assumption
    assert auto_workers(512, expected_events_per_s=100_000, cpu_count=16) == 1
    assert auto_workers(64, expected_events_per_s=400_000, cpu_count=16) == 3
    assert auto_workers(2, expected_events_per_s=10_000_000, cpu_count=16) == 2  # never more than N
    with pytest.raises(ConfigError):
        auto_workers(0)
    with pytest.raises(ConfigError):
        auto_workers(4, expected_events_per_s=-1.0)


def test_resolve_workers_caps_and_auto():
    assert resolve_workers(ClientSettings(workers=4), 2, 100) == 2  # at most one per slot
    assert resolve_workers(ClientSettings(workers=4), 16, 1) == 1  # at most one per request
    assert resolve_workers(ClientSettings(workers=3), 16, 100) == 3
    assert resolve_workers(ClientSettings(), 16, 100) == 1  # auto at 16 streams
    assert ClientSettings(workers=2).describe()["workers"] == 2
    assert ClientSettings().describe()["workers"] == "auto"


def test_split_load_slots_and_order():
    # 5 slots over 2 workers: slots 0,2,4 -> worker 0, slots 1,3 -> worker 1; request i runs in slot i % 5
    assert split_load(10, 5, 2) == [(3, [0, 2, 4, 5, 7, 9]), (2, [1, 3, 6, 8])]
    assert split_load(3, 16, 2) == [(8, [0, 2]), (8, [1])]
    assert split_load(4, 4, 1) == [(4, [0, 1, 2, 3])]
    with pytest.raises(ConfigError):
        split_load(10, 2, 3)


# ------------------------------------------------------------------------------------------- one clock
def _child_clock(conn) -> None:
    while True:
        msg = conn.recv()
        if msg is None:
            break
        conn.send(perf_counter_ns())  # the instant the child saw the parent's message


def test_perf_counter_is_one_clock_across_spawned_processes():
    """The child's reading of the event "message received" lies between the parent's readings before sending
    and after the reply (a per-process clock offset of even 1 ms would fall outside a ~0.1 ms window)."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_child_clock, args=(child,), daemon=True)
    p.start()
    child.close()
    try:
        windows: list[int] = []
        deadline = time.monotonic() + HANG_S
        # at least 20 round trips, and on until one window is short (< 50 ms: what makes the check meaningful); a
        # loaded machine only makes that take more round trips (issue 37), each of them still checked
        while len(windows) < 20 or min(windows) >= 50 * MS:
            assert time.monotonic() < deadline, f"no round trip under 50 ms in {len(windows)}"
            t0 = perf_counter_ns()
            parent.send(1)
            c = parent.recv()
            t1 = perf_counter_ns()
            assert t0 < c < t1
            windows.append(t1 - t0)
        parent.send(None)
    finally:
        p.join(10)
        if p.is_alive():
            p.terminate()


# ------------------------------------------------------------------------------------------- real server
@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(default=PLAN)) as ts:
        yield ts


def _reqs(n: int, tag: str) -> list[tuple[str, dict]]:
    return [
        (
            f"{tag}-{i}",
            {"model": "truth", "messages": [{"role": "user", "content": f"{tag}-{i}"}], "max_tokens": TOKENS},
        )
        for i in range(n)
    ]


def _peak(served: list[dict]) -> int:
    ev = sorted([(s["arrival_ns"], 1) for s in served] + [(s["end_ns"], -1) for s in served])
    n = peak = 0
    for _, d in ev:
        n += d
        peak = max(peak, n)
    return peak


@pytest.mark.timing
def test_two_workers_at_concurrency_16_match_the_truth(truth):
    n = 32
    seen = []
    for attempt in range(5):  # timing on a shared 2-core machine: up to 5 batches; exact checks hold on every one
        truth.clear_log()
        reqs = _reqs(n, f"w2a{attempt}")
        recs, check = run_sync(run_fixed_concurrency_checked(truth.base_url, reqs, 16, ClientSettings(workers=2)))
        served_list = truth.served()
        served = {s["prompt"]: s for s in served_list}
        # every request answered once, records in request order, exact tokens
        assert len(served_list) == n and len(served) == n
        assert [r.prompt_id for r in recs] == [pid for pid, _ in reqs]
        assert all(r.status == "ok" for r in recs), [r.reason for r in recs]
        assert sum(r.output_tokens for r in recs) == TOKENS * n == sum(s["output_tokens"] for s in served_list)
        # the check merged both workers
        assert check.workers == 2 and check.requests == n
        assert check.loop_lag_samples > 0 and check.client_cpu_ns > 0
        assert check.settings["workers"] == 2
        # achieved concurrency: the server saw exactly 16 in flight at its peak, and the client's view matches the
        # server's within 5 %; both wall-clock properties on a shared machine, so they take part in the retry
        peak = _peak(served_list)
        iv = [(r.send_ns, served[r.prompt_id]["end_ns"]) for r in recs]
        server_conc = sum(e - b for b, e in iv) / (max(e for _, e in iv) - min(b for b, _ in iv))
        conc_err = abs(achieved_concurrency(recs) / server_conc - 1)
        # one clock: the client's TTFT (worker clock) vs the server's first token write (server clock)
        err = []
        for r in recs:
            toks = [w for w in served[r.prompt_id]["writes"] if w[1] in ("content", "reasoning")]
            assert r.first_token_ns >= toks[0][0]  # never seen before it was sent
            err.append(abs(r.ttft_ns - (toks[0][0] - r.send_ns)))
        # A clock offset between processes would shift every error, the smallest too: the smallest is <= 0.25 ms
        # (0.013-0.027 ms measured on the 2-core dev machine, loaded or not). The tail is the client's own lateness:
        # 16 first tokens arrive at once (one TTFT for all), so a worker reads its 8 one after another, and on 2
        # shared cores (3 client processes and the server) the last waits 3-6 ms (CI 2026-12-07: p90 2.9-4.2 ms on
        # all 15 batches). That lateness must show in the client's self-check, which is what CLIENT_LIMITED rests
        # on: the largest error is <= the largest loop or read lag it reported + 1 ms (one event's processing on a
        # contended core; 16 batches measured under double load kept within it, the closest 0.36 ms over).
        least, p50, p90, worst = (float(np.percentile(err, q)) / MS for q in (0, 50, 90, 100))
        own_lag = max(check.loop_lag_max_ns, check.read_lag_max_ns) / MS
        seen.append((peak, round(conc_err, 4), round(least, 3), round(p50, 3), round(p90, 3), round(worst, 3)))
        seen.append(("self-check lag max ms", round(own_lag, 3)))
        if peak == 16 and conc_err <= 0.05 and least <= 0.25 and worst <= own_lag + 1.0:
            return
    pytest.fail(f"(server peak, concurrency rel error, TTFT |error| min ms, p50, p90, max), own lag, per batch: {seen}")


def test_unchecked_runner_with_workers_returns_records_in_order(truth):
    truth.clear_log()
    reqs = _reqs(9, "u")  # 9 requests over 3 slots in 3 workers
    recs = run_sync(run_fixed_concurrency(truth.base_url, reqs, 3, ClientSettings(workers=3)))
    assert [r.prompt_id for r in recs] == [f"u-{i}" for i in range(9)]
    assert [r.output_tokens for r in recs] == [TOKENS] * 9
    assert sorted(s["prompt"] for s in truth.served()) == sorted(f"u-{i}" for i in range(9))


# ------------------------------------------------------------------------------------------- failures
class _ExitOnUnpickle:
    """Unpickling this in the worker ends the worker process at once (exit 3), before it reports ready."""

    def __reduce__(self):
        return (os._exit, (3,))


class _HangOnUnpickle:
    def __reduce__(self):
        return (time.sleep, (10 * HANG_S,))  # far past the hang guard: only a terminated worker ends sooner


def test_worker_error_is_a_specscope_error():
    # a body json cannot encode: the worker's own TypeError comes back as one ClientWorkerError
    reqs = [("a", {"messages": [], "max_tokens": 4, "x": {1, 2}}), ("b", {"messages": [], "max_tokens": 4})]
    with pytest.raises(ClientWorkerError) as ei:
        run_sync(run_fixed_concurrency_checked("http://127.0.0.1:9", reqs, 2, ClientSettings(workers=2)))
    assert "TypeError" in str(ei.value) and ei.value.fix


def test_dead_worker_is_reported_not_waited_for():
    reqs = [("a", {"messages": [], "x": _ExitOnUnpickle()}), ("b", {"messages": []})]
    with pytest.raises(ClientWorkerError, match="died"):  # not "did not start in time": its death was seen first
        run_sync(run_in_workers("http://127.0.0.1:9", reqs, 2, ClientSettings(), 2, start_timeout_s=HANG_S))


def test_stuck_worker_times_out():
    reqs = [("a", {"messages": [], "x": _HangOnUnpickle()}), ("b", {"messages": []})]
    t0 = time.perf_counter()
    with pytest.raises(ClientWorkerError, match="did not start in time"):
        run_sync(run_in_workers("http://127.0.0.1:9", reqs, 2, ClientSettings(), 2, start_timeout_s=3.0))
    # the stuck worker was terminated, not waited for: its sleep outlasts the hang guard tenfold
    assert time.perf_counter() - t0 < HANG_S


def test_two_workers_on_the_firehose_return_large_results():
    """256 requests x 256 tokens at concurrency 64: each worker pickles back far more than a pipe buffer
    (64 KiB); every token arrives, in request order (regression: a non-blocking pipe broke mid-message)."""
    script = TruthScript(default=ResponsePlan(output_tokens=256, tokens_per_chunk=1), firehose=True, record=False)
    reqs = [
        (f"f{i}", {"model": "truth", "messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": 256})
        for i in range(256)
    ]
    with TruthServer(script) as ts:
        recs, check = run_sync(run_fixed_concurrency_checked(ts.base_url, reqs, 64, ClientSettings(workers=2)))
    assert [r.prompt_id for r in recs] == [f"f{i}" for i in range(256)]
    assert sum(r.output_tokens for r in recs) == 256 * 256
    assert sum(r.content_chunks for r in recs) == 256 * 256  # one token per event
    assert all(r.status == "ok" for r in recs)
    assert check.workers == 2 and check.requests == 256

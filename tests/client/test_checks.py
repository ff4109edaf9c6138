"""Client self-checks (send / loop / read lag, CLIENT_LIMITED) against the ground-truth server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time

import pytest

from specscope.client.checks import CheckThresholds, ClientCheck, ClientMonitor, lag_stats
from specscope.client.runner import run_fixed_concurrency_checked, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

MS = 1_000_000


@pytest.fixture(scope="module")
def slow_truth():
    """A server far slower than the client's own limit: 20 ms TTFT, 5 ms between tokens, 16 tokens."""
    with TruthServer(
        TruthScript(default=ResponsePlan(ttft_ms=20, inter_chunk_ms=5, output_tokens=16), record=False)
    ) as ts:
        yield ts


def _reqs(n: int) -> list[tuple[str, dict]]:
    return [(f"p{i}", {"messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": 16}) for i in range(n)]


def test_the_self_check_reports_its_samplers_and_settings(slow_truth):
    """What the self-check records, whatever the machine's load: both samplers ran, and the settings it ran with."""
    recs, check = run_sync(run_fixed_concurrency_checked(slow_truth.base_url, _reqs(24), 8, ClientSettings()))
    assert [r.status for r in recs] == ["ok"] * 24 and check.requests == 24
    assert check.loop_lag_samples > 0 and check.read_lag_samples > 0
    assert check.settings["connection_limit"] == 4096 and check.settings["read_timeout_s"] == 600.0


# timing (issue 37): the verdict and the sample counts need a client that is not starved; a fresh clone's make test
# beside two others (2026-12-07) counted 35 read-lag samples where a quiet machine counts over 100
@pytest.mark.timing
def test_slow_server_never_flagged(slow_truth):
    """Up to five cells: other work on this 2-core machine can really starve the client for a few ms (a
    true CLIENT_LIMITED; a fresh-clone run beside a mypy run saw 20.8, 13.9 and 10.3 ms in three cells); a
    systematic false flag (parsing counted as lag, the probe's start-up, the first connections) fails all five."""
    seen = []
    for _ in range(5):
        recs, check = run_sync(run_fixed_concurrency_checked(slow_truth.base_url, _reqs(24), 8, ClientSettings()))
        assert [r.status for r in recs] == ["ok"] * 24
        seen.append(check.limited_reason())
        if seen[-1] is None:
            break
    assert seen[-1] is None, seen
    assert check.requests == 24
    # ~3 x 100 ms of streaming at a 1 ms interval: both samplers really ran
    assert check.loop_lag_samples > 100 and check.read_lag_samples > 100
    assert check.settings["connection_limit"] == 4096 and check.settings["read_timeout_s"] == 600.0
    assert check.settings["http_library"] == "asyncio+httptools" and "aiohttp_version" in check.settings
    assert 0 < check.client_cpu_fraction < 1.0


async def _starved(base_url: str) -> tuple[list, ClientCheck]:
    """The same cell while a busy loop in the same process holds the event loop 30 ms at a time."""
    stop = asyncio.Event()

    async def hog() -> None:
        while not stop.is_set():
            end = time.perf_counter_ns() + 30 * MS
            while time.perf_counter_ns() < end:
                pass
            await asyncio.sleep(0.001)

    h = asyncio.create_task(hog())
    try:
        return await run_fixed_concurrency_checked(base_url, _reqs(24), 8, ClientSettings())
    finally:
        stop.set()
        await h


def test_starved_client_flagged(slow_truth):
    recs, check = run_sync(_starved(slow_truth.base_url))
    assert [r.status for r in recs] == ["ok"] * 24
    reason = check.limited_reason()
    assert reason is not None and reason.startswith("CLIENT_LIMITED(")
    # the probe samples uniformly in time: with the loop held 30 of every ~31 ms, its p99 is near 30 ms
    assert check.read_lag_p99_ns > 20 * MS
    assert "read lag p99" in reason and "loop lag p99" in reason
    assert check.to_dict()["client_limited"] == reason


def test_limited_reason_text_and_dict():
    c = ClientCheck(
        requests=3,
        send_lag_p50_ns=0,
        send_lag_p99_ns=21 * MS,
        send_lag_max_ns=22 * MS,
        loop_lag_samples=10,
        loop_lag_p50_ns=0,
        loop_lag_p99_ns=12_340_000,
        loop_lag_max_ns=13 * MS,
        read_lag_samples=10,
        read_lag_p50_ns=0,
        read_lag_p99_ns=5 * MS,
        read_lag_max_ns=5 * MS,
        wall_ns=100 * MS,
        client_cpu_ns=25 * MS,
        sample_interval_ns=MS,
    )
    assert c.limited_reasons() == ["send lag p99 21.0 ms > 20 ms", "loop lag p99 12.3 ms > 10 ms"]
    assert c.limited_reason() == "CLIENT_LIMITED(send lag p99 21.0 ms > 20 ms; loop lag p99 12.3 ms > 10 ms)"
    d = c.to_dict()
    assert d["thresholds"] == {"loop_lag_p99_ns": 10 * MS, "read_lag_p99_ns": 10 * MS, "send_lag_p99_ns": 20 * MS}
    assert d["client_cpu_fraction"] == 0.25
    loose = ClientCheck(
        **{
            **{k: getattr(c, k) for k in c.__dataclass_fields__},
            "thresholds": CheckThresholds(20 * MS, 20 * MS, 30 * MS),
        }
    )
    assert loose.limited_reason() is None


def test_lag_stats():
    assert lag_stats([]) == (0, 0, 0, 0)
    assert lag_stats(list(range(101))) == (101, 50, 99, 100)


@pytest.mark.timing
def test_probe_child_stops():
    async def go():
        async with ClientMonitor(ClientSettings()) as mon:
            proc = mon._proc
            await asyncio.sleep(0.2)
        return mon, proc

    mon, proc = asyncio.run(go())
    assert proc is not None and proc.poll() is not None  # the probe child is gone
    assert len(mon.read_lags_ns) > 50 and len(mon.loop_lags_ns) > 50
    assert mon.result([]).requests == 0

"""Open-loop load (constant / Poisson schedules, no coordinated omission) and the rate sweep, against the
ground-truth server on 127.0.0.1."""

from __future__ import annotations

import numpy as np
import pytest

from specscope.client.openloop import OpenLoopSchedule, arrival_offsets_ns, run_open_loop, run_rate_sweep
from specscope.client.runner import run_sync
from specscope.client.settings import ClientSettings
from specscope.errors import ConfigError
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

MS = 1_000_000


@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(default=ResponsePlan(ttft_ms=50, inter_chunk_ms=2, output_tokens=8))) as ts:
        yield ts


def _reqs(n: int, tag: str = "q") -> list[tuple[str, dict]]:
    return [(f"{tag}{i}", {"messages": [{"role": "user", "content": f"{tag}{i}"}], "max_tokens": 8}) for i in range(n)]


def test_constant_schedule_exact():
    assert arrival_offsets_ns(4, 100.0).tolist() == [0, 10 * MS, 20 * MS, 30 * MS]
    assert arrival_offsets_ns(3, 3.0).tolist() == [0, 333_333_333, 666_666_667]
    assert arrival_offsets_ns(0, 5.0).tolist() == []


def test_poisson_schedule_seeded_and_exponential():
    a = arrival_offsets_ns(20_001, 1000.0, "poisson", seed=7)
    assert np.array_equal(a, arrival_offsets_ns(20_001, 1000.0, "poisson", seed=7))
    assert not np.array_equal(a, arrival_offsets_ns(20_001, 1000.0, "poisson", seed=8))
    gaps = np.diff(a) / MS  # (20000,) ms
    assert a[0] == 0 and (gaps >= 0).all()
    assert gaps.mean() == pytest.approx(1.0, rel=0.03)  # mean 1/rate; sd/sqrt(n) = 0.7 %
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, rel=0.05)  # exponential: CV 1


@pytest.mark.parametrize("bad", [dict(rate_per_s=0), dict(rate_per_s=-1), dict(arrival="burst")])
def test_bad_schedule(bad):
    with pytest.raises(ConfigError):
        arrival_offsets_ns(3, **{"rate_per_s": 10.0, "arrival": "constant", **bad})


@pytest.mark.timing
def test_open_loop_does_not_wait_for_answers(truth):
    """20 requests at 100/s against a 50 ms TTFT: the schedule holds although ~6 are always in flight."""
    truth.clear_log()
    recs = run_sync(run_open_loop(truth.base_url, _reqs(20), OpenLoopSchedule(100.0)))
    served = truth.served()
    assert [r.status for r in recs] == ["ok"] * 20 and [r.output_tokens for r in recs] == [8] * 20
    intended = np.array([r.intended_ns for r in recs])
    assert np.diff(intended).tolist() == [10 * MS] * 19  # exactly the schedule
    send_lag_ms = np.array([r.send_ns - r.intended_ns for r in recs]) / MS
    assert (send_lag_ms >= 0).all()  # never sent before its instant
    assert np.median(send_lag_ms) < 10  # includes opening a connection to a busy Python server
    peak = max(sum(1 for s in served if s["arrival_ns"] <= t < s["end_ns"]) for t in (s["arrival_ns"] for s in served))
    assert peak >= 5  # the server saw overlapping requests: nothing waited for an answer


@pytest.mark.timing
def test_no_coordinated_omission_when_pool_queues(truth):
    """Pool of 2 connections, 10 requests at 100/s, each ~65 ms: requests wait in the client; latency from the
    schedule keeps that wait, TTFT from send does not."""
    recs = run_sync(
        run_open_loop(truth.base_url, _reqs(10, "co"), OpenLoopSchedule(100.0), ClientSettings(connection_limit=2))
    )
    assert all(r.status == "ok" for r in recs)
    last = recs[-1]
    # 10 requests through 2 connections take >= 5 rounds of >= 64 ms; the last was due at 90 ms
    assert last.send_ns - last.intended_ns > 150 * MS
    assert last.first_token_ns - last.intended_ns == last.ttft_ns + (last.send_ns - last.intended_ns)
    assert last.ttft_ns < 100 * MS


def test_poisson_run_uses_its_schedule(truth):
    recs = run_sync(run_open_loop(truth.base_url, _reqs(12, "p"), OpenLoopSchedule(200.0, "poisson", seed=3)))
    offs = arrival_offsets_ns(12, 200.0, "poisson", seed=3)
    intended = np.array([r.intended_ns for r in recs])
    assert np.array_equal(intended - intended[0], offs)
    assert all(r.status == "ok" for r in recs)


@pytest.mark.timing
def test_rate_sweep(truth):
    pts = run_sync(run_rate_sweep(truth.base_url, _reqs(12, "s"), [40, 80]))
    assert [p.rate_per_s for p in pts] == [40.0, 80.0]
    for p in pts:
        assert len(p.records) == 12 and all(r.status == "ok" for r in p.records)
        assert p.sent_rate_per_s == pytest.approx(p.rate_per_s, rel=0.25)
        assert p.check.requests == 12
        assert p.output_tok_s > 0
    with pytest.raises(ConfigError):
        run_sync(run_rate_sweep(truth.base_url, _reqs(1), []))


def test_open_loop_sends_the_api_key(truth):
    """``--api-key`` reaches every open-loop request as ``Authorization: Bearer <key>`` (as the closed loop does)."""
    truth.clear_log()
    settings = ClientSettings(api_key="sk-open-loop")
    recs = run_sync(run_open_loop(truth.base_url, _reqs(3, "key"), OpenLoopSchedule(50.0), settings))
    assert [r.status for r in recs] == ["ok"] * 3
    assert [s["authorization"] for s in truth.served()] == ["Bearer sk-open-loop"] * 3

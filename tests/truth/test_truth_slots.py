"""The ground-truth server's slot cap (``max_running``) and the gauge sampler that reads it, against a real server
on 127.0.0.1: at most K responses generate at once, the rest wait first in first out, and the gauges say so."""

from __future__ import annotations

import pytest

from specscope.client.gauges import GaugeSampler, parse_gauges, parse_sample
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.records import GaugeSample
from specscope.truth.process import TruthServer
from specscope.truth.script import MetricsPlan, ResponsePlan, TruthScript

MS = 1_000_000
# 20 tokens, one every 40 ms after a 100 ms TTFT: 860 ms of generation per response
PLAN = ResponsePlan(output_tokens=20, ttft_ms=100, inter_chunk_ms=40, role_ms=None)


def _bodies(n: int) -> list[tuple[str, dict]]:
    return [
        (f"p{i}", {"model": "truth", "messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": 20})
        for i in range(n)
    ]


def test_parse_gauges_sums_engines_and_ignores_other_lines():
    text = (
        "# HELP vllm:num_requests_running running\n"
        "# TYPE vllm:num_requests_running gauge\n"
        'vllm:num_requests_running{engine="0",model_name="m"} 3.0\n'
        'vllm:num_requests_running{engine="1",model_name="m"} 2.0 1767225600000\n'
        'vllm:num_requests_waiting{engine="0",model_name="m"} 5.0\n'
        'vllm:num_requests_running_total{engine="0"} 99.0\n'
        "vllm:generation_tokens_total 7.0\n"
    )
    assert parse_gauges(text) == (5.0, 5.0)
    assert parse_gauges("llamacpp:requests_processing 4\nllamacpp:requests_deferred 12\n") == (4.0, 12.0)
    assert parse_gauges("llamacpp:tokens_predicted_total 4\n") is None
    hist = (
        'vllm:request_queue_time_seconds_sum{engine="0"} 1.5\nvllm:request_queue_time_seconds_sum{engine="1"} 2.0\n'
        'vllm:request_queue_time_seconds_count{engine="0"} 3.0\nvllm:request_queue_time_seconds_count{engine="1"} 4.0\n'
        'vllm:request_queue_time_seconds_bucket{engine="0",le="+Inf"} 3.0\n'
    )
    assert parse_sample(text + hist, 7) == GaugeSample(7, 5.0, 5.0, 3.5, 7.0)
    assert parse_sample("llamacpp:requests_processing 4\n", 7) == GaugeSample(7, 4.0, 0.0, None, None)


def _cap_3_of_8() -> tuple[list, tuple[GaugeSample, ...], list[dict]]:
    """8 requests at once to a server with 3 slots, its gauges sampled every 50 ms: (the client's records, the
    samples, the server's record of each request in arrival order)."""
    script = TruthScript(default=PLAN, max_running=3, metrics=MetricsPlan(engines=["0"]))
    with TruthServer(script) as ts:
        with GaugeSampler(ts.base_url, interval_s=0.05) as sampler:
            recs = run_sync(run_fixed_concurrency(ts.base_url, _bodies(8), 8, ClientSettings()))
        samples = sampler.stop()
        served = sorted(ts.served(), key=lambda r: r["arrival_ns"])
    return recs, samples, served


def test_cap_3_of_8_runs_3_and_queues_5_fifo_with_unchanged_decode():
    """What the server did, whatever the machine's load (issue 37); what the sampled gauges show while all 8 are in
    is test_cap_3_of_8_gauges_show_3_running_and_5_waiting's (timing)."""
    recs, samples, served = _cap_3_of_8()
    assert [r.status for r in recs] == ["ok"] * 8 and [r.output_tokens for r in recs] == [20] * 8
    # FIFO: the first 3 arrivals start at once; those that arrived while the first 3 ran wait (all 5, unless load
    # delayed a request past the first response's end), and slots go out in arrival order, each when one frees
    first_end = min(s["end_ns"] for s in served[:3])
    assert [s["slot_ns"] == s["arrival_ns"] for s in served[:3]] == [True] * 3
    assert all(s["slot_ns"] > s["arrival_ns"] for s in served[3:] if s["arrival_ns"] < first_end)
    slots = [s["slot_ns"] for s in served]
    assert slots == sorted(slots)
    for s in served:
        content = [w[0] for w in s["writes"] if w[1] == "content"]
        assert len(content) == 20
        # the plan's deadlines run from the slot, not the arrival: TTFT 100 ms, then one token every 40 ms
        assert all(t - s["slot_ns"] >= (100 + 40 * i) * MS for i, t in enumerate(content))
    # the gauges: never more than 3 running; the last reading, after every response came, has no one waiting
    assert samples and max(g.running for g in samples) <= 3.0
    assert samples[-1].running + samples[-1].waiting <= 3.0


@pytest.mark.timing
def test_cap_3_of_8_gauges_show_3_running_and_5_waiting():
    """While all 8 are in (the last arrival to the first end: ~700 ms on a free machine), the samples read 3 running
    and 5 waiting. Timing: all 8 must arrive within the first response's 860 ms, at least 5 samples of the 50 ms
    sampler must land in that window (~14 expected: a margin near 3x), and each sample's answer must come within 5 ms
    of its send (the window's margin at both ends)."""
    recs, samples, served = _cap_3_of_8()
    assert [r.status for r in recs] == ["ok"] * 8
    assert [s["slot_ns"] == s["arrival_ns"] for s in served] == [True] * 3 + [False] * 5
    assert max(g.running for g in samples) == 3.0
    assert max(g.waiting for g in samples) == 5.0
    first_end = min(s["end_ns"] for s in served)
    last_arrival_ns = max(x["arrival_ns"] for x in served)
    full = [g for g in samples if last_arrival_ns + 5 * MS < g.t_ns < first_end - 5 * MS]
    assert len(full) >= 5 and {(g.running, g.waiting) for g in full} == {(3.0, 5.0)}
    assert samples[-1].running + samples[-1].waiting <= 3.0


def test_sampler_on_a_server_without_metrics_gives_no_samples():
    with TruthServer(TruthScript(metrics=MetricsPlan(enabled=False))) as ts:
        sampler = GaugeSampler(ts.base_url, interval_s=0.05)
        sampler.start()
        assert sampler.stop() == ()
    assert sampler.failures >= 2  # the first reading and the last one, both 404


def test_sampler_reads_before_and_after_with_the_queue_histogram():
    with TruthServer(TruthScript(default=PLAN)) as ts:
        sampler = GaugeSampler(ts.base_url, interval_s=0.05)
        sampler.start()
        run_sync(run_fixed_concurrency(ts.base_url, _bodies(2), 2, ClientSettings()))
        samples = sampler.stop()
    first, last = samples[0], samples[-1]
    assert (first.running, first.waiting, first.queue_sum_s, first.queue_count) == (0.0, 0.0, 0.0, 0.0)
    assert (last.running, last.waiting, last.queue_sum_s, last.queue_count) == (0.0, 0.0, 0.0, 2.0)
    assert max(g.running for g in samples) == 2.0

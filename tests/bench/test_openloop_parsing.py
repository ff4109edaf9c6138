"""Parsing of --rates / --slo, Prometheus durations and selectors, and the in-flight sweep (exact values)."""

from __future__ import annotations

from specscope.bench.openloop_cell import rate_requests
from specscope.bench.prometheus_source import parse_duration_s, series_query
from specscope.bench.spec import by_name
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.goodput import in_flight


def test_parse_rates_and_slo():
    spec = by_name()
    assert spec["request_rate"].parse("1,2,4.5") == [1.0, 2.0, 4.5]
    assert spec["slo"].parse("ttft=2s,tpot=50ms") == {"ttft": 2.0, "tpot": 0.05}
    assert spec["slo"].parse("tpot=250us") == {"tpot": 0.00025}


def test_rate_cells_take_their_levels_and_request_counts_from_the_rates():
    o = BenchOptions(rates=(0.1, 2.0, 20.0), levels=(7,))
    assert o.levels == (1, 2, 3)
    counts = [rate_requests(o, CellKey("base", "prose", level, 0)) for level in o.levels]
    assert counts == [2, 16, 64]  # round(rate x 8 s), at least 2, at most 64


def test_prometheus_durations_and_query():
    assert [parse_duration_s(t) for t in ("1s", "500ms", "1m30s", "15s")] == [1.0, 0.5, 90.0, 15.0]
    q = series_query('{job="base"}')
    assert q.startswith('{job="base", __name__=~"') and q.endswith('"}')
    names = set(q.removeprefix('{job="base", __name__=~"').removesuffix('"}').split("|"))
    # every engine's speculative counters and running / waiting gauges (issue 34: SGLang's and TensorRT-LLM's were
    # never queried), and nothing that is not read
    for name in (
        "vllm:spec_decode_num_drafts_total",
        "llamacpp:draft_tokens_accepted_total",
        "sglang:spec_verify_calls_total",
        "sglang:num_running_reqs",
        "sglang:num_queue_reqs",
        "trtllm_spec_decode_num_draft_tokens_total",
        "trtllm:spec_decode_num_accepted_tokens_total",
        "trtllm_num_requests_waiting",
    ):
        assert name in names
    assert "sglang:spec_accept_rate" not in names and "vllm:spec_decode_num_emitted_tokens_total" not in names
    assert series_query("") == "{" + q.removeprefix('{job="base", ')


def test_in_flight_sweep():
    # spans (ns): [0, 10), [5, 15), [20, 30) in window [0, 40): area 10 + 10 + 10 = 30 -> mean 0.75, max 2
    assert in_flight([(0, 10), (5, 15), (20, 30)], 0, 40) == (0.75, 2)

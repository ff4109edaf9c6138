"""The client's process count for the next cell, from what the config's earlier cells measured."""

from __future__ import annotations

from specscope.bench.client_choice import ClientHistory, choose_settings
from specscope.client.settings import ClientSettings


def test_first_cell_uses_the_assumed_rule_and_says_so():
    s, why = choose_settings(ClientSettings(), 4, 4, ClientHistory())
    assert s.workers == 1 and why == "1 client process(es): nothing measured yet, assumed per-stream event rate"


def test_measured_rate_decides():
    s, why = choose_settings(ClientSettings(), 4, 4, ClientHistory(events_per_stream_s=1000.0))
    assert s.workers == 1 and why == "1 client process(es) for a measured 4,000 events/s (1,000 per stream)"


def test_a_cell_that_fell_behind_gets_one_more_process():
    h = ClientHistory(events_per_stream_s=1000.0, workers=1, limited="CLIENT_LIMITED(loop lag p99 12.0 ms > 10 ms)")
    s, why = choose_settings(ClientSettings(), 4, 4, h)
    assert s.workers == 2 and why.endswith(
        "the last cell fell behind with 1 (CLIENT_LIMITED(loop lag p99 12.0 ms > 10 ms)): 2"
    )


def test_an_explicit_worker_count_is_kept():
    s, why = choose_settings(ClientSettings(workers=3), 4, 4, ClientHistory(events_per_stream_s=1e6))
    assert s.workers == 3 and why == "3 client process(es), as set"

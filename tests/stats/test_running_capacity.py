"""Server-side concurrency from gauge samples (``specscope.stats.capacity``): exact figures from hand-made records."""

from __future__ import annotations

import dataclasses

import pytest

from specscope.records import CellKey, CellResult, ClientFacts, GaugeSample, OpenLoopFacts, StreamRecord
from specscope.stats.capacity import GUARD_NS, capacity, decode_tok_s, queue_mean_s, queue_p50_s, ttfo_s
from specscope.stats.cells import summarize_cell

MS = 1_000_000


def stream(send_ms: float, end_ms: float, first_ms: float | None = None, last_ms: float | None = None, **kw):
    base = dict(
        prompt_id="p",
        intended_ns=int(send_ms * MS),
        send_ns=int(send_ms * MS),
        first_token_ns=None if first_ms is None else int(first_ms * MS),
        first_content_ns=None if first_ms is None else int(first_ms * MS),
        last_token_ns=None if last_ms is None else int(last_ms * MS),
        end_ns=int(end_ms * MS),
        content_chunks=1,
        reasoning_chunks=0,
        output_tokens=11,
        prompt_tokens=8,
        token_source="usage",
        finish_reason="length",
        status="ok",
        reason=None,
        http_status=200,
    )
    base.update(kw)
    return StreamRecord(**base)


def g(t_ms: float, running: float, waiting: float) -> GaugeSample:
    return GaugeSample(int(t_ms * MS), running, waiting)


def test_time_weighted_over_the_offered_window_only():
    # 4 streams sent at 0..3 ms, the first ends at 1000 ms: offered window [3 + 20, 1000 - 20] ms
    streams = [stream(i, 1000 + 500 * i) for i in range(4)]
    samples = [g(10, 1, 3), g(100, 2, 2), g(400, 2, 2), g(700, 3, 1), g(1500, 0, 0)]
    cap = capacity(samples, streams, requested=4)
    assert cap is not None and cap.window == "offered" and cap.samples == 3
    # 2 from 100 to 700 ms (600 ms), 3 from 700 to 980 ms (280 ms): (2 x 600 + 3 x 280) / 880
    assert cap.running_concurrency == pytest.approx((2 * 600 + 3 * 280) / 880)
    assert cap.waiting_mean == pytest.approx((2 * 600 + 1 * 280) / 880)
    assert cap.running_max == 3 and cap.waiting_max == 3
    assert cap.limited == "CAPACITY_LIMITED(ceiling=3, requested=4)"
    assert GUARD_NS == 20 * MS


def test_not_limited_when_nobody_waits_or_the_level_is_reached():
    streams = [stream(0, 1000), stream(0, 1000)]
    assert capacity([g(t, 1, 0) for t in (100, 400, 700)], streams, 2).limited is None  # short, but no queue
    full = capacity([g(t, 2, 0) for t in (100, 400, 700)], streams, 2)
    assert full.running_concurrency == 2.0 and full.waiting_mean == 0.0 and full.limited is None


def test_short_streams_fall_back_to_the_whole_cell():
    streams = [stream(0, 100), stream(0, 1000)]  # offered window 20..80 ms holds no sample
    cap = capacity([g(50, 2, 0), g(200, 1, 0), g(600, 1, 0)], streams, 2)
    assert cap.window == "cell" and cap.samples == 3
    assert cap.running_concurrency == pytest.approx((2 * 150 + 1 * 400 + 1 * 400) / 950)


def test_no_samples_or_no_streams_give_none():
    assert capacity([], [stream(0, 10)], 1) is None
    assert capacity([g(1, 1, 0)], [stream(0, 10, status="failed")], 1) is None


def test_decode_rate_and_ttfo_per_stream():
    s = stream(0, 1200, first_ms=200, last_ms=1200)  # 11 tokens: 10 after the first in 1 s
    assert decode_tok_s(s) == pytest.approx(10.0)
    assert ttfo_s(s) == pytest.approx(0.2)
    assert decode_tok_s(stream(0, 10, first_ms=5, last_ms=5, output_tokens=1)) is None
    assert ttfo_s(dataclasses.replace(s, first_content_ns=int(700 * MS))) == pytest.approx(0.7)  # after reasoning


def test_summary_carries_the_capacity_fields_and_keeps_the_status():
    streams = tuple(stream(i, 1000 + i, first_ms=100 + i, last_ms=1000 + i) for i in range(4))
    result = CellResult(
        CellKey("c", "prose", 4, 0), streams, 0, 1003 * MS, None, None, gauges=tuple(g(t, 3, 1) for t in (50, 300, 600))
    )
    s = summarize_cell(result)
    # a finding about the server, not a flaw of the measurement: the reason is there, the status stays ok
    assert s.status == "ok" and s.reasons == ("CAPACITY_LIMITED(ceiling=3, requested=4)",)
    assert (s.running_concurrency, s.waiting_mean, s.running_max, s.waiting_max) == (3.0, 1.0, 3.0, 1.0)
    assert s.gauge_samples == 3 and s.gauge_window == "offered"
    assert s.capacity_limited == "CAPACITY_LIMITED(ceiling=3, requested=4)"
    assert s.decode_tok_s == pytest.approx((10 / 0.9,) * 4)
    assert s.ttfo_p50_s == pytest.approx(0.1)
    assert type(s).from_dict(s.to_dict()) == s
    bare = summarize_cell(dataclasses.replace(result, gauges=()))
    assert bare.running_concurrency is None and bare.capacity_limited is None and bare.gauge_samples == 0
    assert bare.reasons == () and bare.queue_p50_s is None


def test_limited_reason_follows_the_reasons_that_degrade_and_keeps_their_status():
    streams = tuple(stream(i, 1000 + i, first_ms=100 + i, last_ms=1000 + i) for i in range(4))
    gauges = tuple(g(t, 3, 1) for t in (50, 300, 600))
    result = CellResult(CellKey("c", "prose", 4, 0), streams, 0, 1003 * MS, None, None, reasons=("X",), gauges=gauges)
    s = summarize_cell(result)
    assert s.status == "degraded" and s.reasons == ("X", "CAPACITY_LIMITED(ceiling=3, requested=4)")


def test_queue_p50_is_the_median_of_the_waits_the_responses_reported():
    waits = (
        0.0,
        0.0,
        0.0,
        1.25,
        1.25,
        1.25,
        2.5,
        2.5,
    )  # cap 3 at N=8: 3 at once, then 3 after one response, 2 after two
    streams = tuple(dataclasses.replace(stream(i, 1000 + i), queue_s=q) for i, q in enumerate(waits))
    unreported = dataclasses.replace(stream(9, 1009), queue_s=None)
    failed = dataclasses.replace(stream(10, 1010, status="failed"), queue_s=99.0)
    assert queue_p50_s((*streams, unreported, failed)) == 1.25
    assert queue_p50_s((unreported,)) is None


def test_queue_mean_is_the_histogram_delta_between_first_and_last_reading():
    samples = [
        GaugeSample(300, 3, 5, 12.0, 20.0),
        GaugeSample(100, 0, 0, 2.0, 10.0),  # read before the cell's requests (any order)
        GaugeSample(200, 3, 5),  # a reading without the histogram is skipped
    ]
    assert queue_mean_s(samples) == pytest.approx((12.0 - 2.0) / (20.0 - 10.0))
    assert queue_mean_s([GaugeSample(1, 0, 0, 2.0, 10.0), GaugeSample(2, 0, 0, 2.0, 10.0)]) is None  # none finished
    assert queue_mean_s([GaugeSample(1, 0, 0)]) is None


def test_an_open_loop_requests_no_concurrency_so_it_is_never_capacity_limited():
    """A rate cell's key holds the level's position (4: the fourth rate), not a requested N: the same gauges that
    make a fixed-concurrency cell CAPACITY_LIMITED say nothing about a request rate. Its window is the whole cell."""
    streams = tuple(stream(i, 1000 + i, first_ms=100 + i, last_ms=1000 + i) for i in range(4))
    gauges = tuple(g(t, 1, 3) for t in (50, 300, 600))
    facts = ClientFacts(open_loop=OpenLoopFacts(arrival="poisson", rate_per_s=2.0))
    result = CellResult(CellKey("c", "prose", 4, 0), streams, 0, 1003 * MS, None, None, client=facts, gauges=gauges)
    s = summarize_cell(result)
    assert s.status == "ok" and s.reasons == () and s.capacity_limited is None
    assert s.gauge_window == "cell" and s.gauge_samples == 3
    assert (s.running_concurrency, s.waiting_mean) == (1.0, 3.0)
    closed = summarize_cell(dataclasses.replace(result, client=ClientFacts()))
    assert closed.capacity_limited == "CAPACITY_LIMITED(ceiling=1, requested=4)"

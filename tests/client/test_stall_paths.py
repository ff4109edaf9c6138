"""A silent stream reads the same on every client path (issue 17): with ``stall_timeout_s`` set, silence after
the response head fails the stream ``STALLED``; without it, the read timeout gives ``timeout``. Against the truth
server, whose script stalls after 3 token chunks for twice the hang guard (issue 37: far past any timer of the client's,
however long a loaded machine takes; the client's timers are 2 s, so that a loaded machine's scheduling gap between
the first chunks is not taken for the stall)."""

from __future__ import annotations

import pytest

from hangguard import HANG_S
from specscope.client.openloop import arrival_offsets_ns, capture_open_loop
from specscope.client.parse import parse_capture
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

STALL = ResponsePlan(output_tokens=8, finish_reason="length", stall_after_chunks=3, stall_ms=2 * HANG_S * 1000)
TIMER_S = 2.0
REQS = [(f"p{i}", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 8}) for i in range(2)]


@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(default=STALL)) as server:
        yield server


def _records(truth, path: str, settings: ClientSettings):
    if path == "open-loop":  # aiohttp, one request every 10 ms
        raws = run_sync(capture_open_loop(truth.base_url, REQS, arrival_offsets_ns(len(REQS), 100.0), settings))
        return [parse_capture(r) for r in raws]
    return run_sync(run_fixed_concurrency(truth.base_url, REQS, 2, settings.model_copy(update={"hot_path": path})))


@pytest.mark.parametrize("path", ["wire", "aiohttp", "open-loop"])
def test_a_stall_is_stalled_on_every_path(truth, path):
    recs = _records(truth, path, ClientSettings(stall_timeout_s=TIMER_S))
    assert [(r.status, r.reason, r.content_chunks, r.output_tokens) for r in recs] == [
        ("failed", "STALLED", 3, None)
    ] * 2
    for r in recs:  # given up after the stall timeout (its timer runs from the read, a little before the last token)
        assert TIMER_S - 0.05 <= (r.end_ns - r.last_token_ns) / 1e9 < HANG_S  # long before the stall ended


@pytest.mark.parametrize("path", ["wire", "aiohttp", "open-loop"])
def test_without_a_stall_timeout_the_read_timeout_is_timeout_on_every_path(truth, path):
    recs = _records(truth, path, ClientSettings(read_timeout_s=TIMER_S))
    assert [(r.status, r.reason, r.content_chunks) for r in recs] == [
        ("degraded", "timeout; no [DONE]; no usage; short without stop", 3)
    ] * 2

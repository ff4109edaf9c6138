"""What the server really ran (issue 12, part 4): a bench cell at N=8 against the ground-truth server with a slot cap
of 3 and against one without, on 127.0.0.1. The server's gauges are exact, so the figures are too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

# the gauge means are time-weighted samples at 5 Hz of a real server: load on the machine moves them (timing)
pytestmark = [pytest.mark.integration, pytest.mark.timing]

# 24 tokens, TTFT 100 ms then one token every 50 ms: 1.25 s of generation per response, 20 tok/s of decode; each
# response reports its queue wait as vLLM does with --enable-per-request-metrics (metrics.queue_time_ms)
PLAN = ResponsePlan(
    output_tokens=24, finish_reason="length", ttft_ms=100, inter_chunk_ms=50, role_ms=None, per_request_metrics=True
)
DURATION_S = 0.1 + 23 * 0.05
LIMITED = "CAPACITY_LIMITED(ceiling=3, requested=8)"
SEND_SPREAD_S = 0.005  # the first 8 sends of a cell leave within this of each other (sub-ms on a quiet machine)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("capacity")
    with TruthServer(TruthScript(default=PLAN)) as free, TruthServer(TruthScript(default=PLAN, max_running=3)) as cap:
        opts = BenchOptions(configs=("base", "capped"), workloads=("prose",), levels=(8,), repeats=1, max_tokens=24)
        return run_bench(opts, servers={"base": free.base_url, "capped": cap.base_url}, run_dir=out / "run")


def _cells(run_dir):
    with open_run(run_dir) as run:
        return {c.config: c for c in summarize_run(run)}


def test_cap_3_at_n8_is_capacity_limited_with_ceiling_3(run_dir):
    c = _cells(run_dir)["capped"]
    # a correct measurement of a limited server: ok, with the finding in its reasons
    assert c.status == "ok" and c.streams == 8 and c.output_tokens == 8 * 24
    assert c.reasons == (LIMITED,)
    assert c.running_concurrency == pytest.approx(3.00, abs=0.05)
    assert c.waiting_mean == pytest.approx(5.00, abs=0.05)  # all 8 out: 3 run, 5 wait
    assert c.running_max == 3.0 and c.waiting_max == 5.0
    assert c.gauge_window == "offered" and c.gauge_samples >= 3
    assert c.capacity_limited == LIMITED
    # the client's view counts queued requests as in flight: (3 x 1 + 3 x 2 + 2 x 3 responses) / 3 responses = 5
    assert c.achieved_concurrency == pytest.approx(5.0, abs=0.1)
    # decode unchanged (20 tok/s per stream), TTFT grows by whole responses: rounds of 3, 3 and 2
    assert all(r == pytest.approx(20.0, rel=0.05) for r in c.decode_tok_s)
    # a queued request's slot opens when an earlier response ends, 1.25 s after *that* request arrived; the 8 requests
    # go out within a few ms of each other, so a queued TTFT (from its own send) is 1.35 s less that stagger (CI saw
    # 1.349965 s): whole responses, to within SEND_SPREAD_S
    assert c.ttft_p50_s >= DURATION_S + 0.1 - SEND_SPREAD_S
    assert c.ttft_p95_s >= 2 * DURATION_S + 0.1 - SEND_SPREAD_S
    # vLLM's queue-time histogram as the truth server serves it: 3 waited one response, 2 waited two, 3 not at all
    assert c.queue_mean_s == pytest.approx((3 * DURATION_S + 2 * 2 * DURATION_S) / 8, abs=0.02)
    # each response's own wait (metrics.queue_time_ms): waits 0, 0, 0, D, D, D, 2D, 2D, so the median is D
    assert c.queue_p50_s == pytest.approx(DURATION_S, abs=0.02)


def test_cap_3_at_n8_queued_streams_report_their_wait_and_the_first_3_none(run_dir):
    with open_run(run_dir) as run:
        (cell,) = [r for r in run.cells() if r.key.config == "capped"]
    waits = sorted(s.queue_s for s in cell.streams)
    assert waits[:3] == [0.0, 0.0, 0.0]  # a slot at once: exactly 0
    assert all(w == pytest.approx(DURATION_S, abs=0.02) for w in waits[3:6])  # one response ahead
    assert all(w == pytest.approx(2 * DURATION_S, abs=0.02) for w in waits[6:])  # two responses ahead


def test_no_cap_at_n8_runs_8_and_is_not_limited(run_dir):
    c = _cells(run_dir)["base"]
    assert c.status == "ok" and c.streams == 8 and c.reasons == ()
    assert c.running_concurrency == pytest.approx(8.00, abs=0.05)
    assert c.waiting_mean == 0.0 and c.running_max == 8.0
    assert c.capacity_limited is None
    assert all(r == pytest.approx(20.0, rel=0.05) for r in c.decode_tok_s)
    assert c.ttft_p95_s < DURATION_S  # nobody waited for a slot
    assert c.queue_mean_s == 0.0 and c.queue_p50_s == 0.0


def _report(run_dir, fmt: str) -> str:
    cmd = [sys.executable, "-m", "specscope", "report", str(run_dir), "--format", fmt]
    wide = {**os.environ, "COLUMNS": "400"}  # one table row per line
    return subprocess.run(cmd, capture_output=True, text=True, check=True, env=wide).stdout


def test_report_has_the_server_capacity_table(run_dir):
    doc = json.loads(_report(run_dir, "json"))
    (table,) = [t for s in doc["sections"] for t in s["tables"] if t["key"] == "capacity"]
    rows = {r[0]: r for r in table["rows"]}
    names = [c["name"] for c in table["columns"]]
    assert names == ["config", "workload", "N", "client", "running", "waiting", "ceiling", "queue p50", "capacity"]
    assert rows["capped"][2] == "8" and rows["capped"][4] == "3.00" and rows["capped"][5] == "5.00"
    assert rows["capped"][6] == "3"
    cells = {c["config"]: c for c in doc["cells"]}
    assert rows["capped"][7] == f"{cells['capped']['queue_p50_s']:.3f} s"  # the median wait: one response ahead
    assert rows["capped"][-1] == f"{LIMITED} in 1 of 1 rounds"
    assert rows["base"][4] == "8.00" and rows["base"][5] == "0.00" and rows["base"][6] == "8"
    assert rows["base"][7] == "0.000 s" and rows["base"][-1] == "reached"
    # the cells of the JSON report carry the reason; the limited cell stays ok and gets its speedup
    assert (cells["capped"]["status"], cells["capped"]["reasons"]) == ("ok", [LIMITED])
    assert (cells["base"]["status"], cells["base"]["reasons"]) == ("ok", [])
    assert cells["capped"]["queue_p50_s"] == pytest.approx(DURATION_S, abs=0.02)
    (speedups,) = [t for s in doc["sections"] for t in s["tables"] if t["key"] == "speedup"]
    assert speedups["values"][0][2] is not None  # capped vs base, N=8: computed from the ok cells


def test_text_report_names_the_reason(run_dir):
    text = _report(run_dir, "text")
    assert f"{LIMITED} in 1 of 1 rounds" in text and "queue p50" in text

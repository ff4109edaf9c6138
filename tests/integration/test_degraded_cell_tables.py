"""A degraded cell stays in the tables (issue 35, item 4): marked, with target vs achieved concurrency and what the
server was doing (its running / waiting gauges), left out of the averages by name.

A real bench cell against the truth server: 3 streams of 8 tokens, each waiting 600 ms for its first token, so the
server's running gauge reads 3 and its waiting gauge 0 while the load is offered. The client's self-check thresholds
are set to 0 ns for this test (the lags it measures are real; any lag is then over the threshold), so every cell is
``CLIENT_LIMITED``: degraded, the way a loaded machine makes it.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys

import pytest

from hangguard import HANG_S
from specscope.bench import run_bench
from specscope.client import checks
from specscope.config import BenchOptions
from specscope.stats.capacity import client_limited_reason
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(output_tokens=8, ttft_ms=600.0, inter_chunk_ms=20.0, finish_reason="length")


def test_client_limited_cell_stays_in_the_tables_with_the_servers_gauges(tmp_path, monkeypatch):
    monkeypatch.setattr(checks, "CheckThresholds", functools.partial(checks.CheckThresholds, 0, 0, 0))
    opts = BenchOptions(configs=("base",), workloads=("prose",), levels=(3,), repeats=1, max_tokens=8)
    with TruthServer(TruthScript(default=PLAN)) as ts:
        run_dir = run_bench(opts, servers={"base": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
    assert cell.status == "degraded" and (cell.running_max, cell.waiting_max) == (3, 0)
    (limited,) = [r for r in cell.reasons if r.startswith("CLIENT_LIMITED(")]
    assert limited.endswith("; server running at most 3, waiting at most 0)")  # N=3 all ran: not idle
    assert cell.achieved_concurrency is not None
    achieved = f"{cell.achieved_concurrency:.2f} / 3"

    res = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run_dir), "-f", "json"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 0, res.stderr
    tables = {t["key"]: t for s in json.loads(res.stdout)["sections"] for t in s["tables"]}
    # the concurrency table keeps the cell, marked and left out of the (empty) mean by name
    assert tables["concurrency"]["rows"] == [["base", "prose", f"—; left out: round 0 degraded {achieved}"]]
    (row,) = tables["not_ok"]["rows"]
    assert row[:6] == ["base", "prose", "3", "0", "degraded", achieved]
    assert re.fullmatch(r"running \d\.\d\d \(max 3\), waiting 0\.00 \(max 0\)", row[6]), row[6]
    assert limited in row[7]


def test_the_reason_says_when_the_server_was_idle_while_the_client_could_not_send():
    # case C16 (tests/data/cases/C16): target 4, the server's gauges running 3 and waiting 0 in every scrape
    reason = "CLIENT_LIMITED(send lag p99 1000.0 ms > 20 ms)"
    fields = {"running_max": 3.0, "waiting_max": 0.0}
    assert client_limited_reason(reason, fields, 4) == (
        "CLIENT_LIMITED(send lag p99 1000.0 ms > 20 ms; server idle meanwhile: running at most 3 of N=4, waiting 0)"
    )
    assert client_limited_reason(reason, {"running_max": None, "waiting_max": None}, 4) == reason  # no gauges
    assert client_limited_reason("BUSY_AT_SCRAPE(after=1)", fields, 4) == "BUSY_AT_SCRAPE(after=1)"

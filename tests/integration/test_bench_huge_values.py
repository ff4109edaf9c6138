"""A run stays readable whatever numbers a server reports (issue 37, W1): a ``usage.prompt_tokens`` or
``reasoning_tokens`` of 10**20 or a llama.cpp ``timings.draft_n`` of 10**20 (past the 64-bit range every stored
integer lies in) is no count: absent in the stored stream, named, and ``report`` / ``--resume`` read the run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.records import INT_BOUND, CellKey
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

HUGE = 10**20
USAGE = {"prompt_tokens": HUGE, "completion_tokens": 6, "completion_tokens_details": {"reasoning_tokens": HUGE}}
FINAL = {
    "id": "x",
    "object": "chat.completion.chunk",
    "choices": [],
    "usage": USAGE,
    "timings": {"draft_n": HUGE, "draft_n_accepted": 3},
}


def test_counts_past_the_stored_range_are_absent_and_the_run_reads(tmp_path):
    assert HUGE >= INT_BOUND
    plan = ResponsePlan(
        output_tokens=6,
        ttft_ms=5,
        inter_chunk_ms=1,
        role_ms=None,
        usage="absent",
        inject_events=[(6, f"data: {json.dumps(FINAL)}\n\n")],
    )
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(1,), repeats=1, max_tokens=6)
    with TruthServer(TruthScript(default=plan)) as ts:
        run_dir = run_bench(opts, servers={"x": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        (stream,) = run.streams(CellKey("x", "prose", 1, 0))
    assert (stream.prompt_tokens, stream.reasoning_tokens) == (None, None)
    assert stream.output_tokens == 6  # the one count in range is kept
    assert stream.spec is not None and "VALUE_OUT_OF_RANGE(draft_tokens)" in stream.spec.warnings
    assert stream.spec.draft_tokens is None and stream.spec.accepted_tokens == 3
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run_dir), "-f", "json"], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr[-1500:]
    (cell,) = json.loads(res.stdout)["cells"]
    assert cell["streams"] == 1

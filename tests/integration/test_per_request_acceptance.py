"""Per-response speculative data stands on its own (issue 35, item 7): against the truth server scripted as a
TensorRT-LLM server (``/prometheus/metrics`` has draft and accepted token counters but no drafts counter) whose
responses carry TensorRT-LLM's per-choice ``speculative_decoding`` record (accepted, drafted, verify steps and the
accepted-count histogram), the acceptance rate, length and per-position figures (unconditional and conditional)
come from the responses, in every report format; no "0 verify steps" anywhere.

Each response: 12 tokens in 4 verify steps of 3 drafts; 3 / 2 / 1 steps accepted at least 1 / 2 / 3 drafts, so
accepted 6, drafted 12, histogram {0: 1, 1: 1, 2: 1, 3: 1}. Rate 6 / 12 = 50.0 %; length 1 + 6 / 4 = 2.50; u_i =
3/4, 2/4, 1/4 = 75.0 / 50.0 / 25.0 %; a_i = 75.0 %, 2/3 = 66.7 %, 1/2 = 50.0 %. N=1 and N=2 send 3 responses: 12
verify steps, 36 drafted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(
    output_tokens=12,
    tokens_per_chunk=3,
    finish_reason="length",
    drafts=4,
    draft_tokens=12,
    accepted_per_position=[3, 2, 1],
    per_request_spec="trtllm",
)
RATE_CELL = "50.0% (len 2.50; 12 verify steps, 36 drafted; few verify steps)"
DETAIL = ["spec", "edit", "50.0%", "12 verify steps, 36 drafted; few verify steps", "2.50", "2.50"]
POSITIONS = ["75.0% / 50.0% / 25.0%", "75.0% / 66.7% / 50.0%", "ok"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """The run, benched again (up to 3 times, each in its own folder) while the client's self-check flagged a cell
    (``CLIENT_LIMITED``: the cell is rightly left out of the pooled figures, so the exact 12 verify steps cannot
    hold; a fresh clone's make test beside vLLM's CPU suite, 2026-12-06, flagged the N=2 cell and pooled 4)."""
    tmp = tmp_path_factory.mktemp("per_request")
    opts = BenchOptions(configs=("spec",), workloads=("edit",), levels=(1, 2), repeats=1, max_tokens=12)
    flagged: list[list[str]] = []
    for attempt in range(3):
        with TruthServer(TruthScript(default=PLAN, metrics=MetricsPlan(style="trtllm"))) as ts:
            run = run_bench(opts, servers={"spec": ts.base_url}, run_dir=tmp / f"run{attempt}")
        with open_run(run) as r:
            limited = [
                f"N={c.concurrency}" for c in summarize_run(r) if any(x.startswith("CLIENT_LIMITED") for x in c.reasons)
            ]
        if not limited:
            return run
        flagged.append(limited)
    pytest.skip(f"the client's self-check flagged a cell in each of 3 benches (a loaded machine): {flagged}")


def _report(run_dir: Path, fmt: str) -> str:
    out = run_dir.parent / f"r.{fmt}"
    cmd = [sys.executable, "-m", "specscope", "report", str(run_dir), "-f", fmt, "-o", str(out), "--width", "400"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode == 0, res.stderr
    return out.read_text(encoding="utf-8")


def test_each_cell_has_rate_length_and_positions_from_its_responses(run_dir):
    with open_run(run_dir) as run:
        cells = {c.concurrency: c for c in summarize_run(run)}
    for n, c in cells.items():
        assert c.counters is not None and c.counters.drafts is None  # no drafts counter on this server
        assert (c.acceptance_source, c.acceptance_rate, c.acceptance_length) == ("per_request", 0.5, 2.5), n
        assert c.acceptance_per_position == (0.75, 0.5, 0.25)


def test_json_report_tables_and_cells(run_dir):
    doc = json.loads(_report(run_dir, "json"))
    tables = {t["key"]: t for s in doc["sections"] for t in s["tables"]}
    assert tables["acceptance"]["rows"] == [["spec", RATE_CELL]]
    (row,) = tables["acceptance_detail"]["rows"]
    assert row[: len(DETAIL)] == DETAIL and row[-3:] == POSITIONS
    assert [(c["acceptance_rate"], c["acceptance_length"]) for c in doc["cells"]] == [(0.5, 2.5), (0.5, 2.5)]


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_text_markdown_and_html_print_the_same_figures(run_dir, fmt):
    flat = " ".join(_report(run_dir, fmt).split())
    assert "0 verify steps" not in flat and "0 rounds" not in flat
    for figure in (RATE_CELL, "75.0% / 50.0% / 25.0%", "75.0% / 66.7% / 50.0%", "12 verify steps, 36 drafted"):
        assert figure in flat, (fmt, figure)

"""A capacity plan rests on the log's own numbers at the plan's own max-num-seqs (issue 35, item 6).

The log: block [A] of tests/data/fixtures/vllm_log_line_variants.log, a real vLLM v0.24.0 start-up (source in
tests/data/SOURCES.md) with ``max_num_seqs': 1`` and ``max_model_len': 131072`` in its non-default args, ``GPU KV
cache size: 567,978 tokens`` and ``Maximum concurrency for 131,072 tokens per request: 4.33x``. vLLM sizes the KV
pool after a profiling run of max_num_seqs sequences, so its pool and its 4.33x hold at max_num_seqs 1: at
max-num-seqs 4 the answer is unknown (never "4 fit" from the 4.33x), and the log's own answer (1 at once, limited by
max_num_seqs 1, 567,978 / 131,072 = 4.3333x) is given beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paths import FIXTURES
from specscope.cli import app

LINES = (FIXTURES / "vllm_log_line_variants.log").read_text(encoding="utf-8").splitlines()


@pytest.fixture
def log(tmp_path: Path) -> Path:
    start = LINES.index(next(line for line in LINES if line.startswith("## [A]")))
    end = LINES.index(next(line for line in LINES if line.startswith("## [B]")))
    path = tmp_path / "vllm_0240.log"
    path.write_text("\n".join(LINES[start + 1 : end]) + "\n", encoding="utf-8")
    return path


def _plan(log: Path, spec: str, *fmt: str) -> str:
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--plan", spec, *fmt])
    assert r.exit_code in (0, 1), r.output
    return r.output


def test_a_plan_at_another_max_num_seqs_is_unknown_with_the_logs_own_answer_beside_it(log):
    plan = json.loads(_plan(log, "requests=4,tokens=131072,max-num-seqs=4", "--format", "json"))["plan"]
    assert (plan["max_num_seqs"], plan["pool_max_num_seqs"]) == (4, 1)
    for key in ("fit_with_spec", "fit_without_spec", "fits_with_spec", "fits_without_spec"):
        assert plan[key] is None, key
    assert plan["capacity_cost_of_speculation_percent"] is None and plan["limited_by"] == "unknown"
    assert plan["fit_with_spec_at_pool_max_num_seqs"] == 1
    text = _plan(log, "requests=4,tokens=131072,max-num-seqs=4")
    assert "plan: 4 requests x 131,072 tokens, max-num-seqs 4 (plan): unknown" in text
    assert "the log's KV pool was sized at its own max_num_seqs 1" in text
    assert "at the log's own max_num_seqs 1: 1 at once with the speculative reservation" in text
    assert "capacity cost of speculation: unknown" in text
    assert ": fit" not in text and "4 at once" not in text


def test_a_plan_at_the_logs_own_max_num_seqs_names_the_figures_it_rests_on(log):
    plan = json.loads(_plan(log, "requests=4,tokens=131072", "--format", "json"))["plan"]
    assert (plan["max_num_seqs"], plan["max_num_seqs_source"]) == (1, "log (non-default args)")
    assert (plan["fit_with_spec"], plan["fit_without_spec"], plan["fits_with_spec"]) == (1, 1, False)
    assert plan["limited_by"] == "max-num-seqs"
    assert plan["basis"] == plan["basis_without_spec"] == "vLLM's own concurrency at 131,072 tokens (4.3333x)"
    text = _plan(log, "requests=4,tokens=131072,max-num-seqs=1")
    assert "plan: 4 requests x 131,072 tokens, max-num-seqs 1 (plan): do NOT fit" in text
    assert "with the speculative reservation: 1 at once (limited by max-num-seqs 1)" in text
    assert "the KV pool sized at max_num_seqs 1 (log, non-default args)" in text

"""Issue 26 against the truth server: scripted to emit each engine's per-response shapes and /metrics, `bench` gives
the exact accepted / drafted / verify-step totals the script counted, the accepted-count histogram of a variable-k
script sums to the verify steps, and a gauge-only or unknown-field server gives its named warning and no acceptance
figure (and never '0 drafts')."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from specscope.bench import run_bench
from specscope.cli import app
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# fixed k = 3: 12 tokens in 4 verify steps of 3 drafts; 3 / 2 / 1 steps accepted at least 1 / 2 / 3 drafts
FIXED = dict(output_tokens=12, tokens_per_chunk=3, finish_reason="length", drafts=4, draft_tokens=12)
# variable k: 5 steps drafting 4, 1, 2, 4, 1 tokens (12 drafted); steps accepting at least 1..4: 4, 2, 1, 1
VARIABLE = dict(output_tokens=17, tokens_per_chunk=2, finish_reason="length", drafts=5, draft_tokens=12)


def _bench(tmp_path, name: str, plan: ResponsePlan, metrics: MetricsPlan) -> list[Any]:
    opts = BenchOptions(configs=(name,), workloads=("edit",), levels=(1, 2), repeats=1, max_tokens=plan.output_tokens)
    with TruthServer(TruthScript(default=plan, metrics=metrics)) as ts:
        run_dir = run_bench(opts, servers={name: ts.base_url}, run_dir=tmp_path / name)
    with open_run(run_dir) as run:
        return summarize_run(run)


@pytest.mark.timing  # every cell must be ok: the client self-check marks a cell CLIENT_LIMITED on a loaded VM
@pytest.mark.parametrize(
    ("shape", "style", "steps_reported"),
    [
        ("vllm", "vllm", True),
        ("vllm_choice", "vllm", True),
        ("sglang", "sglang", True),
        ("sglang_sglext", "sglang", True),
        ("trtllm", "trtllm", True),
        ("llamacpp", "llamacpp", False),
    ],
)
def test_each_engine_shape_gives_the_scripted_totals(tmp_path, shape: str, style: str, steps_reported: bool) -> None:
    plan = ResponsePlan(**FIXED, accepted_per_position=[3, 2, 1], per_request_spec=shape)
    cells = _bench(tmp_path, shape, plan, MetricsPlan(style=style))
    assert [c.concurrency for c in cells] == [1, 2]
    for c in cells:
        n, sr = c.concurrency, c.spec_requests
        assert c.status == "ok", c.reasons
        assert sr is not None and sr["requests"] == n
        assert (sr["accepted_tokens"], sr["draft_tokens"]) == (6 * n, 12 * n)
        assert sr["verify_steps"] == (4 * n if steps_reported else None)  # llama.cpp does not report verify steps
        if steps_reported:
            assert sr["histogram"] == {"0": n, "1": n, "2": n, "3": n} and sr["histogram_steps"] == 4 * n
        assert c.acceptance_rate == 0.5
        assert not [r for r in c.reasons if "UNREAD" in r or "WRONG_TYPE" in r or "MISMATCH" in r], c.reasons


def test_variable_k_histogram_sums_to_the_steps(tmp_path) -> None:
    """TensorRT-LLM shape with a draft length that varies per step: no k is stated, the histogram keyed by accepted
    drafts sums to the verify steps and its accepted total is the accepted count."""
    plan = ResponsePlan(**VARIABLE, accepted_per_position=[4, 2, 1, 1], per_request_spec="trtllm")
    cells = _bench(tmp_path, "trt-var", plan, MetricsPlan(style="trtllm"))
    for c in cells:
        n, sr = c.concurrency, c.spec_requests
        assert sr["configured_k"] == [] and sr["verify_steps"] == 5 * n
        hist = {int(j): v for j, v in sr["histogram"].items()}
        assert hist == {0: n, 1: 2 * n, 2: n, 4: n}  # at least 0..4 accepted: 5, 4, 2, 1, 1 steps
        assert sum(hist.values()) == sr["verify_steps"] and sum(j * v for j, v in hist.items()) == 8 * n
        assert (sr["accepted_tokens"], sr["draft_tokens"]) == (8 * n, 12 * n)


def test_gauge_only_server_warns_and_gives_no_acceptance(tmp_path) -> None:
    plan = ResponsePlan(**FIXED, accepted_per_position=[3, 2, 1])  # no per-response fields
    cells = _bench(tmp_path, "sgl-gauges", plan, MetricsPlan(style="sglang_gauges"))
    run_dir = tmp_path / "sgl-gauges"
    for c in cells:
        assert c.acceptance_rate is None and c.acceptance_length is None
        assert c.spec_window["state"] == "gauge_only"
        assert any(r.startswith("GAUGE_NOT_WINDOW(") for r in c.reasons), c.reasons
        assert (c.counters.drafts if c.counters is not None else None) is None
    report = CliRunner().invoke(app, ["report", str(run_dir)])
    assert report.exit_code == 0, report.output
    # The acceptance table's legend explains the '0 drafts (not engaged)' cell; no cell may say it here.
    text = " ".join(report.output.split()).replace("'0 drafts (not engaged)'", "")
    assert "0 drafts" not in text and "GAUGE_NOT_WINDOW" in report.output


def test_unknown_field_server_warns_and_gives_no_acceptance(tmp_path) -> None:
    plan = ResponsePlan(**FIXED, accepted_per_position=[3, 2, 1], per_request_spec="unknown")
    cells = _bench(tmp_path, "odd", plan, MetricsPlan(style="sglang_gauges"))  # no spec counter either
    for c in cells:
        assert c.acceptance_rate is None and c.per_request_draft_tokens is None
        assert "UNREAD_SPEC_FIELD(speculative_tree_stats)" in " ".join(c.reasons)
    report = CliRunner().invoke(app, ["report", str(tmp_path / "odd"), "--format", "json"])
    assert report.exit_code == 0, report.output
    assert "UNREAD_SPEC_FIELD" in json.dumps(json.loads(report.output))

"""Every per-response shape docs/engines.md's per-response table marks read, reached through the command a user runs:
`specscope bench --server NAME=URL` against the truth server scripted to write that engine's fields
(``ResponsePlan.per_request_spec``), and the run's per-response pool holds the scripted counts. Each read row of the
table names its node id here (``tests/test_engines_doc.py`` checks that it exists and runs the CLI)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from specscope.cli import app
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# k = 3: 12 tokens in 4 verify steps of 3 drafts; 3 / 2 / 1 steps accepted at least 1 / 2 / 3 drafts: 6 accepted
PLAN = dict(output_tokens=12, tokens_per_chunk=3, finish_reason="length", drafts=4, draft_tokens=12)
#: shape -> (the /metrics style beside it, the shape the reader names, verify steps, histogram, configured k)
HIST = {"0": 1, "1": 1, "2": 1, "3": 1}
SHAPES = {
    "vllm": ("vllm", "vllm.metrics.speculative_decoding", 4, HIST, [3]),
    "vllm_choice": ("vllm", "vllm.choices.speculative_decoding_stats", 4, HIST, [3]),
    # current names beside their older aliases (spec_accepted_drafts / spec_proposed_drafts), which must agree
    "sglang": ("sglang", "sglang.meta_info", 4, HIST, []),
    # 0.5.9 and before: counts and verify_ct, no histogram (absent: None, never an empty histogram)
    "sglang_059": ("sglang", "sglang.meta_info", 4, None, []),
    "sglang_sglext": ("sglang", "sglang.sglext.spec_tokens_details", 4, HIST, []),
    "trtllm": ("trtllm", "trtllm.choices.speculative_decoding", 4, HIST, [3]),
    "llamacpp": ("llamacpp", "llamacpp.timings", None, None, []),  # no verify steps, no histogram, no k
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_bench_reads_each_per_response_shape(tmp_path, shape: str) -> None:
    style, read_as, steps, histogram, k = SHAPES[shape]
    plan = ResponsePlan(**PLAN, accepted_per_position=[3, 2, 1], per_request_spec=shape)
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan(style=style))) as ts:
        args = ["bench", "--server", f"s={ts.base_url}", "--workloads", "prose", "--max-concurrency", "1"]
        args += ["--repeats", "1", "--max-tokens", "12", "--out", str(tmp_path), "-f", "json"]
        r = CliRunner().invoke(app, args)
    assert r.exit_code in (0, 1), r.output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
    sr = cell.spec_requests
    assert sr is not None and sr["requests"] == 1, (shape, cell.reasons)
    assert (sr["accepted_tokens"], sr["draft_tokens"], sr["verify_steps"]) == (6, 12, steps)
    assert (sr["shapes"], sr["histogram"], sr["configured_k"]) == ([read_as], histogram, k)
    assert not [x for x in cell.reasons if "UNREAD" in x or "WRONG_TYPE" in x], cell.reasons


def test_bench_reads_the_per_step_arrays_of_the_detailed_level(tmp_path) -> None:
    """vLLM's ``detailed`` level (``per_step_accepted`` / ``per_step_drafted``): 4 verify steps of 3 drafts accepting
    3, 2, 1, 0, read into each stream's per-step record through ``bench``."""
    plan = ResponsePlan(
        output_tokens=10,
        tokens_per_chunk=[4, 3, 2, 1],
        finish_reason="length",
        drafts=4,
        draft_tokens=12,
        accepted_per_position=[3, 2, 1],
        spec_steps_accepted=[3, 2, 1, 0],
    )
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"s={ts.base_url}", "--workloads", "prose", "--max-concurrency", "1"]
        args += ["--repeats", "1", "--max-tokens", "10", "--out", str(tmp_path), "-f", "json"]
        r = CliRunner().invoke(app, args)
    assert r.exit_code in (0, 1), r.output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    with open_run(run_dir) as run:
        (stream,) = run.streams(next(iter(run.cells())).key)
    assert stream.spec is not None
    assert (tuple(stream.spec.accepted_per_step), tuple(stream.spec.draft_per_step)) == ((3, 2, 1, 0), (3, 3, 3, 3))

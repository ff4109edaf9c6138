"""Capacity planning from a real vLLM v0.20.0 start-up log (tests/data, see SOURCES.md): the pool in blocks, the
per-request charge, the speculative scratch, the reconstruction against the log's figures, and `serve --plan`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app
from specscope.errors import ConfigError
from specscope.launch import parse_vllm_log, read_vllm_log
from specscope.launch.capacity import kv_capacity, parse_plan_spec, plan_capacity

LOG = Path(__file__).resolve().parents[1] / "data" / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"


def test_pool_reconstructed_from_blocks_matches_the_log() -> None:
    cap = kv_capacity(read_vllm_log(LOG))
    # 36,432 tokens = 23 x 1584 per group; 4 groups (16 attention + 48 GDN layers); 93 blocks give 93 / 51 = 1.82x
    assert (cap.block_size_tokens, cap.kv_groups, cap.mamba_groups, cap.pool_blocks) == (1584, 4, 3, 93)
    assert cap.pool_blocks_source == "reconstructed from KV tokens and max concurrency"
    assert cap.blocks_per_request_at_len == 42 + 3 * (2 + 1)
    assert cap.reconstructed_max_concurrency == round(93 / 51, 4) and cap.reported_max_concurrency == 1.82
    assert cap.reconstructed_kv_tokens == cap.reported_kv_tokens == 36_432
    assert cap.spec_scratch_blocks_per_request == 3
    assert cap.block_bytes == round(4.8 * 2**30) // 93
    assert cap.mismatches == []


def test_plan_with_and_without_the_speculative_reservation() -> None:
    cap = kv_capacity(read_vllm_log(LOG))
    p = plan_capacity(cap, requests=5, tokens=8192, max_num_seqs=20)
    # ceil(8192/1584)=6 + 3 mamba groups x 2 = 12 blocks; with k=1: ceil(8193/1584)=6 + 3 x 3 = 15 blocks
    assert (p.blocks_per_request_without_spec, p.blocks_per_request_with_spec) == (12, 15)
    assert (p.fit_without_spec, p.fit_with_spec) == (93 // 12, 93 // 15) == (7, 6)
    assert p.fits_with_spec and p.limited_by == "KV pool"
    assert p.capacity_cost_of_speculation_percent == pytest.approx(100 / 7)
    small = plan_capacity(cap, requests=2, tokens=100, max_num_seqs=2)
    assert small.fit_with_spec == 2 and small.limited_by == "max-num-seqs"


def test_a_mismatch_is_shown() -> None:
    text = LOG.read_text(encoding="utf-8").replace("per request: 1.82x", "per request: 2.50x")
    cap = kv_capacity(parse_vllm_log(text))
    assert cap.pool_blocks_source == "KV tokens / block size"
    assert "max concurrency at 65,536 tokens: log 2.50x, blocks give" in cap.mismatches[0]


def test_plan_spec_errors() -> None:
    assert parse_plan_spec("requests=20,tokens=32768,max-num-seqs=20") == {
        "requests": 20,
        "tokens": 32768,
        "max_num_seqs": 20,
    }
    with pytest.raises(ConfigError, match="tokens takes a token count; found: tokens=lots"):
        parse_plan_spec("requests=20,tokens=lots")
    with pytest.raises(ConfigError, match="KEY=positive integer"):
        parse_plan_spec("requests=lots,tokens=2k")
    with pytest.raises(ConfigError, match="needs requests and tokens"):
        parse_plan_spec("requests=20")


def test_serve_parse_log_plan_cli() -> None:
    args = ["serve", "--parse-log", str(LOG), "--plan", "requests=20,tokens=32768,max-num-seqs=20"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "plan: 20 requests x 32,768 tokens, max-num-seqs 20 (plan): do NOT fit" in r.output
    assert "with the speculative reservation: 3 at once (30 blocks each; limited by KV pool)" in r.output
    assert "without it: 3 at once (27 blocks each)" in r.output
    assert "KV pool: 93 blocks x 52.85 MiB per block = 4.80 GiB" in r.output
    j = CliRunner().invoke(app, [*args, "--format", "json"])
    doc = json.loads(j.output)
    assert doc["plan"]["fit_with_spec"] == 3 and doc["capacity"]["pool_blocks"] == 93

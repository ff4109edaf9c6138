"""The seeds' KV table from log facts: seed 000's numbers reproduce its -10% / -40% column."""

from __future__ import annotations

import pytest

from specscope.launch import parse_vllm_log
from specscope.launch.kv_table import kv_table


def _log(gib: float, tokens: str, conc: float) -> str:
    # vLLM 0.20-style lines (fixture vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log wording), seed 000 values
    return (
        f"INFO [gpu_model_runner.py:4879] Model loading took {gib} GiB memory and 10.0 seconds\n"
        f"INFO [kv_cache_utils.py:1711] GPU KV cache size: {tokens} tokens\n"
        f"INFO [kv_cache_utils.py:1716] Maximum concurrency for 262,144 tokens per request: {conc}x\n"
    )


def test_seed000_kv_table():
    facts = {
        "base": parse_vllm_log(_log(18.76, "2,041,963", 7.79)),
        "mtp": parse_vllm_log(_log(19.55, "1,839,553", 7.02)),
        "dflash": parse_vllm_log(_log(22.16, "1,233,978", 4.71)),
    }
    rows = kv_table(facts)
    assert [r.config for r in rows] == ["base", "mtp", "dflash"]
    assert [r.weights_loaded_gib for r in rows] == [18.76, 19.55, 22.16]
    assert [r.kv_cache_size_tokens for r in rows] == [2041963, 1839553, 1233978]
    assert [r.max_concurrency_at_len_tokens for r in rows] == [262144] * 3
    assert rows[0].max_concurrency_change_vs_base is None
    assert rows[1].max_concurrency_change_vs_base == pytest.approx(7.02 / 7.79 - 1, abs=1e-12)
    assert round(rows[1].max_concurrency_change_vs_base * 100) == -10  # seed 000: "7.02x (-10%)"
    assert round(rows[2].max_concurrency_change_vs_base * 100) == -40  # seed 000: "4.71x (-40%)"
    assert rows[2].kv_tokens_change_vs_base == pytest.approx(1233978 / 2041963 - 1, abs=1e-12)


def test_no_base_or_missing_numbers():
    rows = kv_table({"mtp": parse_vllm_log(_log(19.55, "1,839,553", 7.02)), "empty": parse_vllm_log("")}, base="base")
    assert [r.max_concurrency_change_vs_base for r in rows] == [None, None]
    rows = kv_table({"base": parse_vllm_log(_log(1.0, "100", 2.0)), "empty": parse_vllm_log("")})
    assert rows[1].kv_tokens_change_vs_base is None and rows[1].kv_cache_size_tokens is None

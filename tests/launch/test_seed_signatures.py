"""Issue 13: the failure lines the seeds quote are recognised, each with its severity and fix (`serve --parse-log`
exits 1 on an error, 0 on a warning alone), and the periodic scheduler stats lines become a time series."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app
from specscope.launch import parse_vllm_log

P = "(EngineCore_DP0 pid=812) ERROR 05-02 10:00:0{i} [core.py:700] "
LINES = {
    "dflash_mixed_layer_types": "NotImplementedError: DFlash does not yet support mixed sliding/full attention via "
    "layer_types; see https://github.com/vllm-project/vllm/issues/40898.",
    "weights_not_initialized": "ValueError: Following weights were not initialized from checkpoint: {'mtp.fc.weight'}",
    "weight_shape_mismatch": "    assert self.data.shape == loaded_weight.shape",
    "min_p_with_speculation": "min_p and logit_bias parameters won't work with speculative decoding.",
    # seed 003: the AssertionError is often cut off; its text alone must be enough
    "memory_profiling": "Initial free memory 89.17 GiB, current free memory 91.27 GiB",
    "engine_dead": "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
    "cuda_fault": "RuntimeError: CUDA error: unspecified launch failure",
    "illegal_memory_access": "RuntimeError: CUDA error: an illegal memory access was encountered",
}


@pytest.mark.parametrize("code", sorted(LINES))
def test_each_signature_alone_exits_1_with_its_fix(tmp_path: Path, code: str) -> None:
    log = tmp_path / "vllm.log"
    log.write_text(P.format(i=1) + LINES[code] + "\n")
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    assert r.exit_code == (0 if code == "min_p_with_speculation" else 1), r.output  # a warning alone exits 0
    (f,) = json.loads(r.output)["failures"]
    assert f["code"] == code and f["line_number"] == 1 and f["fix"]
    assert f["severity"] == ("warning" if code == "min_p_with_speculation" else "error")


def test_all_signatures_in_one_log_in_log_order() -> None:
    text = "".join(P.format(i=i % 10) + line + "\n" for i, line in enumerate(LINES.values()))
    assert parse_vllm_log(text).failure_codes() == list(LINES)


def test_fixes_name_the_right_commands() -> None:
    facts = parse_vllm_log("\n".join(LINES.values()))
    fixes = {f.code: f.fix for f in facts.failures}
    assert fixes["dflash_mixed_layer_types"].startswith("`specscope surgery dflash-layers DRAFT --all-sliding")
    assert "specscope audit MODEL" in fixes["weights_not_initialized"]
    assert "`specscope surgery patch-config MODEL --sync --out NEW_FOLDER`" in fixes["weight_shape_mismatch"]
    assert "--kv-cache-memory-bytes" in fixes["memory_profiling"]


def test_stats_lines_become_a_time_series() -> None:
    text = (
        "(APIServer pid=1) INFO 05-02 10:00:05 [loggers.py:123] Engine 000: Avg prompt throughput: 120.5 tokens/s, "
        "Avg generation throughput: 35.2 tokens/s, Running: 16 reqs, Waiting: 0 reqs, GPU KV cache usage: 71.0%, "
        "Prefix cache hit rate: 0.0%\n"
        "(APIServer pid=1) INFO 05-02 10:00:15 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 81.3 tokens/s, Running: 21 reqs, Waiting: 21 reqs, GPU KV cache usage: 97.2%, "
        "Prefix cache hit rate: 0.0%\n"
    )
    stats = parse_vllm_log(text).stats
    assert [(s.t_s, s.running_reqs, s.waiting_reqs, s.kv_cache_usage_percent) for s in stats] == [
        (0.0, 16, 0, 71.0),
        (10.0, 21, 21, 97.2),
    ]
    assert stats[1].generation_throughput_tokens_per_s == 81.3 and stats[0].prompt_throughput_tokens_per_s == 120.5

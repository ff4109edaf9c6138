"""`surgery graft` refuses a source no engine could load into the target (issue 27 follow-up, defect 14): exit 2,
found / expected / fix, nothing written. Where each family keeps its head: src/specscope/audit/architectures.toml
(vLLM qwen3_5_mtp.py ``mtp.``, deepseek_mtp.py ``model.layers.N.``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_qwen36_checkpoint, write_safetensors
from specscope.errors import SurgeryError
from specscope.surgery import plan_graft


def _deepseek(root: Path, hidden: int = 64) -> Path:
    import ml_dtypes
    import numpy as np

    root.mkdir(parents=True)
    t = {
        "model.embed_tokens.weight": np.zeros((32, hidden), ml_dtypes.bfloat16),
        "model.layers.0.self_attn.q_proj.weight": np.zeros((hidden, hidden), ml_dtypes.bfloat16),
        "model.layers.0.input_layernorm.weight": np.zeros((hidden,), ml_dtypes.bfloat16),
    }
    write_safetensors(root / "model.safetensors", t)
    cfg = {"model_type": "deepseek_v3", "hidden_size": hidden, "num_hidden_layers": 1, "num_nextn_predict_layers": 1}
    (root / "config.json").write_text(json.dumps(cfg))
    return root


def test_a_qwen_head_into_a_deepseek_target_is_refused(tmp_path: Path) -> None:
    qwen = make_qwen36_checkpoint(tmp_path / "qwen")
    ds = _deepseek(tmp_path / "ds")
    with pytest.raises(SurgeryError) as info:
        plan_graft(ds, qwen, "mtp.", tmp_path / "out")
    e = info.value
    assert e.message == "--prefix mtp. is not where a DeepSeek-V3 / R1 / Kimi-K2 MTP head lives"
    assert e.expected == "model.layers.1. (the target's DeepSeek-V3 / R1 / Kimi-K2 MTP head)"
    assert e.fix == "graft from a DeepSeek-V3 / R1 / Kimi-K2 MTP source with --prefix model.layers.1."
    assert not (tmp_path / "out").exists()


def test_an_empty_prefix_is_refused(tmp_path: Path) -> None:
    qwen = make_qwen36_checkpoint(tmp_path / "qwen")
    with pytest.raises(SurgeryError, match="an empty --prefix grafts the whole source checkpoint"):
        plan_graft(qwen, qwen, "", tmp_path / "out")


def test_a_source_of_another_hidden_size_is_refused(tmp_path: Path) -> None:
    qwen = make_qwen36_checkpoint(tmp_path / "qwen")
    wide = make_qwen36_checkpoint(tmp_path / "wide")
    cfg = json.loads((wide / "config.json").read_text())
    (wide / "config.json").write_text(json.dumps(cfg | {"hidden_size": 128}))
    with pytest.raises(SurgeryError) as info:
        plan_graft(qwen, wide, "mtp.", tmp_path / "out")
    assert (info.value.message, info.value.found) == (
        "the graft source has another hidden size",
        f"{wide}: hidden_size 128",
    )


def test_the_cli_exits_2_with_found_expected_fix(tmp_path: Path) -> None:
    qwen = make_qwen36_checkpoint(tmp_path / "qwen")
    ds = _deepseek(tmp_path / "ds")
    env = {k: v for k, v in os.environ.items() if k != "SPECSCOPE_DEBUG"}
    argv = ["surgery", "graft", str(ds), "--from", str(qwen), "--out", str(tmp_path / "o")]
    p = subprocess.run(
        [sys.executable, "-m", "specscope", *argv], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "found: --prefix mtp.; expected: model.layers.1." in p.stderr and "fix: graft from a DeepSeek" in p.stderr


def _deepseek_layers(root: Path, fill: float, layers: int = 12) -> Path:
    """A DeepSeek-V3 checkpoint with ``layers`` main layers and its MTP head at layer ``layers`` (one tensor each)."""
    import ml_dtypes
    import numpy as np

    root.mkdir(parents=True)
    t = {"model.embed_tokens.weight": np.full((32, 64), fill, ml_dtypes.bfloat16)}
    for i in range(layers + 1):
        t[f"model.layers.{i}.self_attn.q_proj.weight"] = np.full((64, 64), fill, ml_dtypes.bfloat16)
    write_safetensors(root / "model.safetensors", t)
    cfg = {"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": layers, "num_nextn_predict_layers": 1}
    (root / "config.json").write_text(json.dumps(cfg))
    return root


def test_a_prefix_without_its_closing_dot_that_reaches_main_layers_is_refused(tmp_path: Path) -> None:
    """``--prefix model.layers.1`` on a target whose head is layer 12 matched layers 1, 10, 11 and 12 by string: the
    graft replaced three backbone layers with the source's (vLLM deepseek_mtp.py takes a head weight only under
    ``model.layers.{i}.`` with the dot; sgl-project/sglang PR #40311: MTP weights loaded into a main layer)."""
    tgt = _deepseek_layers(tmp_path / "tgt", 1.0)
    src = _deepseek_layers(tmp_path / "src", 2.0)
    before = {p.name: p.read_bytes() for p in tgt.iterdir()}
    with pytest.raises(SurgeryError) as info:
        plan_graft(tgt, src, "model.layers.1", tmp_path / "out")
    e = info.value
    assert e.message == "--prefix model.layers.1 selects tensors outside the DeepSeek-V3 / R1 / Kimi-K2 MTP head"
    assert e.found == f"graft source {src}: 3 tensors outside it, e.g. model.layers.1.self_attn.q_proj.weight"
    assert e.expected == "tensors under model.layers.12. only"
    assert e.fix == "graft with --prefix model.layers.12. (the head, with its closing dot)"
    assert not (tmp_path / "out").exists()
    assert {p.name: p.read_bytes() for p in tgt.iterdir()} == before
    # the head's own prefix, and the same prefix without its dot where nothing else matches, still graft
    plan = plan_graft(tgt, src, "model.layers.12.", tmp_path / "out")
    assert [t.name for t in plan.shards[-1].tensors] == ["model.layers.12.self_attn.q_proj.weight"]
    assert [t.name for t in plan_graft(tgt, src, "model.layers.12", tmp_path / "o2").shards[-1].tensors] == [
        "model.layers.12.self_attn.q_proj.weight"
    ]


def test_a_head_quantized_by_another_method_than_the_targets_is_refused(tmp_path: Path) -> None:
    """DeepSeek-V3's original ships its MTP layer in block FP8 (``weight`` F8_E4M3 + ``weight_scale_inv``; intel/
    auto-round PR #1526 dequantizes such MTP tensors to BF16 before copying them into another format). graft copied
    them as they were into a ModelOpt NVFP4 target, whose config has no reading for ``weight_scale_inv``: the result
    failed its own audit (MTP_QUANTIZED_BUT_EXCLUDED). Refused now, source and target untouched, nothing written."""
    import ml_dtypes
    import numpy as np

    tgt = _deepseek_layers(tmp_path / "tgt", 1.0, layers=1)
    cfg = json.loads((tgt / "config.json").read_text())
    cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["lm_head"]}
    (tgt / "config.json").write_text(json.dumps(cfg))
    src = tmp_path / "src"
    src.mkdir()
    t = {"model.embed_tokens.weight": np.zeros((32, 64), ml_dtypes.bfloat16)}
    for i in (0, 1):
        t[f"model.layers.{i}.self_attn.q_proj.weight"] = np.ones((64, 64), ml_dtypes.float8_e4m3fn)
        t[f"model.layers.{i}.self_attn.q_proj.weight_scale_inv"] = np.ones((1, 1), np.float32)
    write_safetensors(src / "model.safetensors", t)
    qc = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
    scfg = {"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 1, "num_nextn_predict_layers": 1}
    (src / "config.json").write_text(json.dumps(scfg | {"quantization_config": qc}))
    before = {p: p.read_bytes() for d in (tgt, src) for p in d.iterdir()}
    with pytest.raises(SurgeryError) as info:
        plan_graft(tgt, src, "model.layers.1.", tmp_path / "out")
    e = info.value
    assert e.message == "the graft source's head is quantized by another method than the target's"
    assert e.found == f"{src}: 1 quantized linears under model.layers.1. (fp8), e.g. model.layers.1.self_attn.q_proj"
    assert e.expected == "unquantized linears, or linears quantized by modelopt like the target's"
    assert not (tmp_path / "out").exists()
    assert {p: p.read_bytes() for d in (tgt, src) for p in d.iterdir()} == before

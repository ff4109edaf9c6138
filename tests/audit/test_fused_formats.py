"""Fused, packed and MoE names against each format's exclusion list (issue 27 item 4): "k of n children" and the
unmatched ones, on checkpoints these tests write.

Matching rules per format (sources in audit/quantcfg.py): compressed-tensors ``ignore`` (exact names or ``re:``),
ModelOpt ``exclude_modules`` (fnmatch wildcards), Quark ``exclude``, AWQ ``modules_to_not_convert`` (substrings),
GPTQModel ``dynamic`` ``-:`` rules (regular expressions). The engine fuses q/k/v, gate/up and every expert of a MoE
layer (vLLM ``packed_modules_mapping``, ``FusedMoE``), so a split exclusion cannot be served.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, I, dense_config, write

L0 = "model.layers.0."


def _moe(root: Path, qc: dict, *, packed: bool = False) -> Path:
    shapes: dict[str, list[int]] = {"model.embed_tokens.weight": [32, H], "lm_head.weight": [32, H]}
    arrays: dict[str, np.ndarray] = {}
    for p in "qkvo":  # quantized attention: packed int32 codes (GPTQ/AWQ style) so the checkpoint counts as quantized
        arrays[f"{L0}self_attn.{p}_proj.qweight"] = np.zeros((H // 8, H), dtype=np.int32)
        arrays[f"{L0}self_attn.{p}_proj.scales"] = np.zeros((1, H), dtype=np.float16)
    if packed:
        shapes[f"{L0}mlp.experts.gate_up_proj"] = [4, H, 2 * I]
        shapes[f"{L0}mlp.experts.down_proj"] = [4, I, H]
    else:
        for e in range(4):
            for p, shape in (("gate", [I, H]), ("up", [I, H]), ("down", [H, I])):
                shapes[f"{L0}mlp.experts.{e}.{p}_proj.weight"] = shape
    cfg = {**dense_config(1, 32), "num_experts": 4, "num_experts_per_tok": 2, "quantization_config": qc}
    return write(root, shapes, cfg, arrays=arrays)


EXPERTS = f"{L0}mlp.experts"


@pytest.mark.parametrize(
    "qc",
    [
        {"quant_method": "compressed-tensors", "ignore": [f"re:{L0}mlp\\.experts\\.[01]\\..*"]},
        {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": [f"{L0}mlp.experts.[01].*"]},
        {"quant_method": "quark", "exclude": [f"{EXPERTS}.0", f"{EXPERTS}.1"]},
        {"quant_method": "awq", "modules_to_not_convert": ["experts.0.", "experts.1."]},
        {"quant_method": "gptq", "dynamic": {f"-:{L0}mlp\\.experts\\.[01]\\.": {}}},
    ],
    ids=["compressed-tensors", "modelopt", "quark", "awq", "gptq"],
)
def test_experts_half_excluded_is_k_of_n_children(tmp_path: Path, qc: dict) -> None:
    r = audit_checkpoint(_moe(tmp_path / "ck", qc))
    (f,) = r.by_code("FUSED_GROUP_PARTIALLY_EXCLUDED")
    assert f.message == f"1 fused modules have only some children excluded in config.json: {EXPERTS} (6 of 12 children)"
    group = f.details["groups"][EXPERTS]
    assert (group["k"], group["n"]) == (6, 12)
    assert group["not_excluded"] == [f"{EXPERTS}.{e}.{p}_proj" for e in (2, 3) for p in ("down", "gate", "up")]


def test_packed_experts_partly_excluded_by_per_expert_names(tmp_path: Path) -> None:
    qc = {"quant_method": "compressed-tensors", "ignore": [f"{EXPERTS}.3.gate_proj", f"{EXPERTS}.3.up_proj"]}
    r = audit_checkpoint(_moe(tmp_path / "ck", qc, packed=True))
    (f,) = r.by_code("FUSED_GROUP_PARTIALLY_EXCLUDED")
    group = f.details["groups"][EXPERTS]
    assert (group["k"], group["n"]) == (2, 12)  # 4 experts x (gate, up, down) behind two packed tensors
    assert f.found.startswith(f"{EXPERTS}: 2 of 12 children excluded ({EXPERTS}.3.gate_proj, {EXPERTS}.3.up_proj)")


@pytest.mark.parametrize(
    "qc",
    [
        {"quant_method": "compressed-tensors", "ignore": [f"re:{L0}mlp\\.experts\\..*"]},
        {"quant_method": "awq", "modules_to_not_convert": ["experts"]},
        {"quant_method": "compressed-tensors", "ignore": [EXPERTS]},
    ],
)
def test_all_experts_excluded_is_no_finding(tmp_path: Path, qc: dict) -> None:
    assert audit_checkpoint(_moe(tmp_path / "ck", qc)).by_code("FUSED_GROUP_PARTIALLY_EXCLUDED") == []
    assert audit_checkpoint(_moe(tmp_path / "p", qc, packed=True)).by_code("FUSED_GROUP_PARTIALLY_EXCLUDED") == []

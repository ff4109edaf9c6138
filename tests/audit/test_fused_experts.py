"""A Qwen3-MoE / Qwen2-MoE / Mixtral draft storing each sparse layer's experts fused (issue 36, aud66).

Newer transformers hold a MoE layer's experts as two 3-D tensors, ``mlp.experts.gate_up_proj`` ``[E, 2I, H]`` and
``mlp.experts.down_proj`` ``[E, H, I]``, and may save them so. vLLM's own loader reads per-expert names only:
``qwen3_moe.py`` @2e0831b0 ``Qwen3MoeModel.load_weights`` maps ``experts.{e}.gate_proj / up_proj / down_proj``
(``make_expert_params_mapping``); the stacked mapping skips any name under ``mlp.experts`` and the fused name, matching
no expert entry, reaches ``params_dict[name]``: a KeyError at load (a fused-name alias was proposed in vLLM PR #42577,
closed; PR #36997 added one for the Transformers modelling backend only).

Before: the draft was ``DRAFT_TENSORS_MISSING`` listing every per-expert tensor of every sparse layer as missing
(``model.layers.0.mlp.experts.0.gate_proj.weight`` ...), as if they were absent. Now
``DRAFT_TENSORS_MISSING/fused-experts`` names the fused tensors found and that vLLM reads per-expert names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, I, dense_config, dense_model, write
from .test_families import V
from .test_hunt64 import ATTN, NORMS, QK, _draft

E = 3
MIXTRAL_COMMON = [*NORMS, *ATTN, "block_sparse_moe.gate.weight"]
ROWS = [
    ("Qwen3MoeForCausalLM", "mlp.", [*NORMS, *ATTN, *QK, "mlp.gate.weight"], {"num_experts": E}),
    ("MixtralForCausalLM", "block_sparse_moe.", MIXTRAL_COMMON, {"num_local_experts": E}),
]


def _fused(arch: str, prefix: str, common: list[str], cfg: dict, *, drop: str = "") -> tuple[dict, dict]:
    shapes, config = _draft(arch, [True, True], [list(common) for _ in range(2)], **cfg)
    for i in range(2):
        shapes[f"model.layers.{i}.{prefix}experts.gate_up_proj"] = [E, 2 * I, H]
        shapes[f"model.layers.{i}.{prefix}experts.down_proj"] = [E, H, I]
    shapes.pop(drop, None)
    return shapes, config


@pytest.mark.parametrize(("arch", "prefix", "common", "cfg"), ROWS, ids=["qwen3_moe", "mixtral"])
def test_fused_experts_are_named_not_listed_as_missing(
    tmp_path: Path, arch: str, prefix: str, common: list[str], cfg: dict
) -> None:
    d = write(tmp_path / "d", *_fused(arch, prefix, common, cfg))
    r = audit_checkpoint(write(tmp_path / "t", dense_model(3, V), dense_config(3, V)), draft=d)
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert (f.severity.value, r.exit_code) == ("error", 1)
    assert f"model.layers.0.{prefix}experts.gate_up_proj [{E}, {2 * I}, {H}]" in f.message, f.message
    assert f"model.layers.1.{prefix}experts.down_proj" in f.message and "per-expert" in f.message
    assert "experts.0." in f.message and "experts.1.gate" not in f.message  # one example, not the list
    assert f.details["fused"] == [
        f"model.layers.{i}.{prefix}experts.{w}" for i in range(2) for w in ("down_proj", "gate_up_proj")
    ]


def test_a_missing_router_beside_fused_experts_is_still_named(tmp_path: Path) -> None:
    arch, prefix, common, cfg = ROWS[0]
    d = write(tmp_path / "d", *_fused(arch, prefix, common, cfg, drop="model.layers.1.mlp.gate.weight"))
    r = audit_checkpoint(write(tmp_path / "t", dense_model(3, V), dense_config(3, V)), draft=d)
    codes = sorted((f.code, f.tensor) for f in r.errors)
    assert ("DRAFT_TENSORS_MISSING", "model.layers.1.mlp.gate.weight") in codes, codes
    (plain,) = [f for f in r.errors if f.tensor == "model.layers.1.mlp.gate.weight"]
    assert "experts" not in plain.message and plain.details["missing"] == ["model.layers.1.mlp.gate.weight"]

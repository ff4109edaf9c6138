"""Rule 4b (audit/rules_actscale.py): W4A4 NVFP4 modules need a valid activation scale, one per fused GEMM.

Checkpoints are written here (tests/audit/qwen36.py's reference writer): one shard of NVFP4 linears in the ModelOpt
or compressed-tensors layout and a config that declares them W4A4 or W4A16, the ways each format does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .qwen36 import write_shard

MODS = [f"model.layers.0.mlp.{p}_proj" for p in ("gate", "up", "down")]
CODES = ("NVFP4_INPUT_SCALE_MISSING", "NVFP4_INPUT_SCALE_INVALID", "NVFP4_INPUT_SCALE_FUSED_MISMATCH")


def _write(root: Path, layout: str, scales: dict[str, float | None], qc: dict, shape: list[int] | None = None) -> Path:
    """NVFP4 MLP linears; ``scales[m]`` = the activation scale value, None = absent."""
    root.mkdir()
    specs: dict[str, tuple[str, list[int]]] = {}
    values: dict[str, float] = {}
    packed, per_tensor, act = (
        ("weight", "weight_scale_2", "input_scale")
        if layout == "modelopt"
        else ("weight_packed", "weight_global_scale", "input_global_scale")
    )
    for m in MODS:
        specs[f"{m}.{packed}"] = ("U8", [32, 16])
        specs[f"{m}.weight_scale"] = ("F8_E4M3", [32, 2])
        specs[f"{m}.{per_tensor}"] = ("F32", [] if layout == "modelopt" else [1])
        values[f"{m}.{per_tensor}"] = 1e-3 if layout == "modelopt" else 1e3
        if scales.get(m) is not None:
            specs[f"{m}.{act}"] = ("F32", shape if shape is not None else [])
            values[f"{m}.{act}"] = scales[m]  # type: ignore[assignment]
    write_shard(root / "model.safetensors", specs, values)
    (root / "config.json").write_text(json.dumps({"model_type": "llama", "quantization_config": qc}))
    return root


def _codes(root: Path) -> dict[str, object]:
    return {f.code: f for f in audit_checkpoint(root).findings if f.code in CODES}


MO_W4A4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []}
ACTS = {"num_bits": 4, "type": "float", "symmetric": True, "group_size": 16, "strategy": "tensor_group"}
WEIGHTS = {"num_bits": 4, "type": "float", "symmetric": True, "group_size": 16, "strategy": "tensor_group"}


def _ct(groups: dict) -> dict:
    return {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "config_groups": groups}


def test_modelopt_complete_and_consistent_is_clean(tmp_path: Path):
    assert _codes(_write(tmp_path / "c", "modelopt", dict.fromkeys(MODS, 5e-3), MO_W4A4)) == {}


def test_modelopt_missing_invalid_and_mismatched(tmp_path: Path):
    scales = {MODS[0]: 5e-3, MODS[1]: 6e-3, MODS[2]: None}
    found = _codes(_write(tmp_path / "c", "modelopt", scales, MO_W4A4))
    assert found["NVFP4_INPUT_SCALE_MISSING"].details["modules"] == [MODS[2]]
    assert "ratio 1.2" in found["NVFP4_INPUT_SCALE_FUSED_MISMATCH"].found
    bad = _codes(_write(tmp_path / "b", "modelopt", {MODS[0]: float("nan"), MODS[1]: 0.0, MODS[2]: 5e-3}, MO_W4A4))
    assert len(bad["NVFP4_INPUT_SCALE_INVALID"].details["scales"]) == 2
    wrong_shape = _codes(_write(tmp_path / "s", "modelopt", dict.fromkeys(MODS, 5e-3), MO_W4A4, shape=[2]))
    assert "NVFP4_INPUT_SCALE_INVALID" in wrong_shape


@pytest.mark.parametrize(
    "qc",
    [
        {**MO_W4A4, "quant_algo": "W4A16_NVFP4"},  # weight-only: no activation scale needed
        {**MO_W4A4, "ignore": ["model.layers.0.mlp*"]},  # excluded
        {
            **MO_W4A4,
            "quant_algo": "MIXED_PRECISION",
            "quantized_layers": {m: {"quant_algo": "W4A16_NVFP4", "group_size": 16} for m in MODS},
        },
    ],
)
def test_modelopt_w4a16_or_excluded_needs_none(tmp_path: Path, qc: dict):
    assert _codes(_write(tmp_path / "c", "modelopt", {}, qc)) == {}


def test_modelopt_mixed_precision_w4a4_entry_needs_one(tmp_path: Path):
    qc = {
        **MO_W4A4,
        "quant_algo": "MIXED_PRECISION",
        "quantized_layers": {
            MODS[0]: {"quant_algo": "NVFP4", "group_size": 16},
            **{m: {"quant_algo": "W4A16_NVFP4", "group_size": 16} for m in MODS[1:]},
        },
    }
    found = _codes(_write(tmp_path / "c", "modelopt", {}, qc))
    assert found["NVFP4_INPUT_SCALE_MISSING"].details["modules"] == [MODS[0]]


def test_compressed_tensors_target_precedence(tmp_path: Path):
    """compressed-tensors matches exact names before ``re:`` patterns before the class ``Linear``."""
    w4a4_all = {"g": {"targets": ["Linear"], "weights": WEIGHTS, "input_activations": ACTS}}
    found = _codes(_write(tmp_path / "a", "compressed-tensors", {}, _ct(w4a4_all)))
    assert found["NVFP4_INPUT_SCALE_MISSING"].details["modules"] == sorted(MODS)
    named_w4a16 = {
        **w4a4_all,
        "h": {"targets": [MODS[0], "re:.*down_proj$"], "weights": WEIGHTS, "input_activations": None},
    }
    found = _codes(_write(tmp_path / "b", "compressed-tensors", {}, _ct(named_w4a16)))
    assert found["NVFP4_INPUT_SCALE_MISSING"].details["modules"] == [MODS[1]]
    ok = _write(tmp_path / "c", "compressed-tensors", dict.fromkeys(MODS, 200.0), _ct(w4a4_all))
    assert _codes(ok) == {}
    bad_regex = {"g": {"targets": ["re:(", "Linear"], "weights": WEIGHTS, "input_activations": ACTS}}
    assert "NVFP4_INPUT_SCALE_MISSING" in _codes(_write(tmp_path / "d", "compressed-tensors", {}, _ct(bad_regex)))

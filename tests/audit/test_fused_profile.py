"""Fused-name resolution (``FUSED_GROUP_PARTIALLY_EXCLUDED``) and the MTP quantization profile (``MTP_QUANT_PROFILE``)
on small Qwen3.6-layout checkpoints built here (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

from specscope.audit import audit_checkpoint

from .qwen36 import EXCLUDE, build, config, hf_quant, quantize_nvfp4, tensor_specs, write_shard

Q3 = "model.language_model.layers.3.self_attn."


def _codes(report) -> list[tuple[str, str]]:
    return sorted((f.severity.value, f.code) for f in report.findings)


def test_fused_group_partially_excluded(tmp_path: Path) -> None:
    exclude = [*EXCLUDE, Q3 + "q_proj"]  # the checkpoint module is excluded, its fused partners k/v are not
    ck = build(tmp_path / "ck", nvfp4=True, cfg_exclude=exclude, hf_exclude=exclude)
    r = audit_checkpoint(ck)
    (f,) = r.by_code("FUSED_GROUP_PARTIALLY_EXCLUDED")
    assert f.severity.value == "error" and f.file == "config.json"
    assert (
        f.message == f"1 fused modules have only some children excluded in config.json: {Q3}qkv_proj (1 of 3 children)"
    )
    assert f.found == f"{Q3}qkv_proj: 1 of 3 children excluded ({Q3}q_proj); not excluded: {Q3}k_proj, {Q3}v_proj"
    assert f.details["groups"] == {
        Q3 + "qkv_proj": {"excluded": [Q3 + "q_proj"], "not_excluded": [Q3 + "k_proj", Q3 + "v_proj"], "k": 1, "n": 3}
    }


def test_fused_group_fully_excluded_is_fine(tmp_path: Path) -> None:
    exclude = [*EXCLUDE, Q3 + "q_proj", Q3 + "k_proj", Q3 + "v_proj"]
    r = audit_checkpoint(build(tmp_path / "ck", nvfp4=True, cfg_exclude=exclude, hf_exclude=exclude))
    assert r.by_code("FUSED_GROUP_PARTIALLY_EXCLUDED") == []


def test_mtp_quantized_only_in_its_mlp_is_partial(tmp_path: Path) -> None:
    """Seed 004's shape: the head's MLP quantized on purpose, fc and attention BF16 and excluded."""
    specs = quantize_nvfp4(tensor_specs())
    mtp_mlp = {n: s for n, s in tensor_specs().items() if n.startswith("mtp.layers.0.mlp.")}
    for n in mtp_mlp:
        del specs[n]
    specs.update(quantize_nvfp4(mtp_mlp, quantize_mtp=True))
    exclude = [e for e in EXCLUDE if e != "mtp*"] + ["mtp.fc", "mtp.layers.0.self_attn*"]
    root = tmp_path / "ck"
    root.mkdir()
    write_shard(root / "model.safetensors", specs)
    (root / "config.json").write_text(json.dumps(config(nvfp4=True, exclude=exclude)))
    (root / "hf_quant_config.json").write_text(json.dumps(hf_quant(exclude=exclude)))
    for n in ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json"):
        (root / n).write_text("{}")
    r = audit_checkpoint(root)
    assert _codes(r) == [("info", "MTP_QUANT_PROFILE")]
    (f,) = r.findings
    assert f.message == "MTP quantization: partial - 3 linears quantized, 5 unquantized, all of those excluded"
    assert f.details["quantized"] == [
        "mtp.layers.0.mlp.down_proj",
        "mtp.layers.0.mlp.gate_proj",
        "mtp.layers.0.mlp.up_proj",
    ]
    assert r.facts["mtp_quantization"]["profile"] == "partial"


def test_profile_none_and_full_are_facts(tmp_path: Path) -> None:
    none = audit_checkpoint(build(tmp_path / "a", nvfp4=True))
    assert none.facts["mtp_quantization"]["profile"] == "none" and none.by_code("MTP_QUANT_PROFILE") == []
    exclude = [e for e in EXCLUDE if e != "mtp*"]
    full = audit_checkpoint(
        build(tmp_path / "b", nvfp4=True, quantize_mtp=True, cfg_exclude=exclude, hf_exclude=exclude)
    )
    assert full.facts["mtp_quantization"]["profile"] == "full"
    assert len(full.facts["mtp_quantization"]["quantized"]) == 8

"""Small Qwen3.6-layout checkpoints (BF16 and ModelOpt NVFP4): exact findings for each defect of the issue."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from paths import FIXTURES
from specscope.audit import audit_checkpoint
from specscope.checkpoint import load_checkpoint

from .qwen36 import H, build, tensor_specs, write_shard


def _codes(report) -> list[tuple[str, str]]:
    return sorted((f.severity.value, f.code) for f in report.findings)


@pytest.mark.parametrize("nvfp4", [False, True])
def test_clean_pair(tmp_path: Path, nvfp4: bool) -> None:
    r = audit_checkpoint(build(tmp_path / "ck", nvfp4=nvfp4))
    assert _codes(r) == []
    assert r.exit_code == 0
    assert r.facts["mtp"]["required_tensors"] == 15  # fc, 3 norms, 11 layer tensors (seed 003: "the 15 mtp.* tensors")
    if nvfp4:
        assert r.facts["quant_config_used_by_vllm"] == "config.json"


def test_mtp_fc_missing(tmp_path: Path) -> None:
    r = audit_checkpoint(build(tmp_path / "ck", nvfp4=True, with_fc=False))
    assert _codes(r) == [("error", "MTP_INCOMPLETE")]
    assert r.findings[0].details["missing"] == ["mtp.fc.weight"]
    assert (r.findings[0].details["present"], r.findings[0].details["expected"]) == (14, 15)


def test_mtp_unquantized_not_excluded(tmp_path: Path) -> None:
    ck = build(
        tmp_path / "ck",
        nvfp4=True,
        cfg_exclude=[
            "lm_head",
            "model.language_model.embed_tokens",
            "model.language_model.layers.*.linear_attn*",
            "model.visual*",
        ],
        hf_exclude=[
            "lm_head",
            "model.language_model.embed_tokens",
            "model.language_model.layers.*.linear_attn*",
            "model.visual*",
        ],
    )
    r = audit_checkpoint(ck)
    assert _codes(r) == [("error", "MTP_UNQUANTIZED_NOT_EXCLUDED")]
    assert r.findings[0].details["modules"] == sorted(
        ["mtp.fc"]
        + [f"mtp.layers.0.self_attn.{p}_proj" for p in "qkvo"]
        + [f"mtp.layers.0.mlp.{p}_proj" for p in ("gate", "up", "down")]
    )


def test_mtp_quantized_but_excluded(tmp_path: Path) -> None:
    r = audit_checkpoint(build(tmp_path / "ck", nvfp4=True, quantize_mtp=True))
    assert _codes(r) == [("error", "MTP_QUANTIZED_BUT_EXCLUDED")]
    assert len(r.findings[0].details["modules"]) == 8


def test_configs_disagree_on_mtp_exclusion(tmp_path: Path) -> None:
    """hf_quant_config.json patched (mtp* excluded), config.json (read first by vLLM) not."""
    base = [
        "lm_head",
        "model.language_model.embed_tokens",
        "model.language_model.layers.*.linear_attn*",
        "model.visual*",
    ]
    r = audit_checkpoint(build(tmp_path / "ck", nvfp4=True, cfg_exclude=base, hf_exclude=base + ["mtp*"]))
    assert _codes(r) == [("error", "MTP_UNQUANTIZED_NOT_EXCLUDED"), ("error", "QUANT_CONFIG_MISMATCH")]
    mm = r.by_code("QUANT_CONFIG_MISMATCH")[0]
    assert mm.details["only_in_hf_quant_config_json"] == ["mtp*"]
    assert mm.details["supported_by_tensors"] == "hf_quant_config.json" and mm.file == "config.json"


def test_fp8_kv_without_scales(tmp_path: Path) -> None:
    r = audit_checkpoint(
        build(tmp_path / "ck", nvfp4=True, hf_kv="FP8", cfg_kv={"type": "float", "num_bits": 8, "dynamic": False})
    )
    assert _codes(r) == [("error", "FP8_KV_SCALES_ABSENT")]
    assert r.findings[0].details == {"layers_complete": 0, "attention_layers": 1}


def test_fp8_kv_with_scales_is_clean(tmp_path: Path) -> None:
    r = audit_checkpoint(
        build(
            tmp_path / "ck",
            nvfp4=True,
            hf_kv="FP8",
            kv_scales=True,
            cfg_kv={"type": "float", "num_bits": 8, "dynamic": False},
        )
    )
    assert _codes(r) == []
    assert [(row["layer"], row["k"], row["v"]) for row in r.facts["kv_scales"]] == [
        (3, pytest.approx(0.001), pytest.approx(0.001))
    ]


def test_corrupted_header(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck", nvfp4=True)
    shard = ck / "model-00002-of-00002.safetensors"
    raw = bytearray(shard.read_bytes())
    (n,) = struct.unpack("<Q", raw[:8])
    raw[8 : 8 + n] = raw[8 : 8 + n].replace(b'"dtype":"BF16"', b'"dtype":"F32",', 1)[:n]  # same length, broken JSON
    shard.write_bytes(bytes(raw))
    r = audit_checkpoint(ck)
    errs = [(f.code, f.file) for f in r.errors]
    assert ("HEADER_JSON", "model-00002-of-00002.safetensors") in errs
    assert r.exit_code == 1


def test_stale_copy_in_another_shard(tmp_path: Path) -> None:
    """mtp.norm.weight indexed to shard 2; an old copy also sits in an extra shard the index references."""
    ck = build(tmp_path / "ck")
    write_shard(ck / "model-extra.safetensors", {"mtp.norm.weight": ("BF16", [H]), "extra.bias": ("BF16", [H])})
    idx = json.loads((ck / "model.safetensors.index.json").read_text())
    idx["weight_map"]["extra.bias"] = "model-extra.safetensors"
    idx["metadata"]["total_size"] += 2 * H
    (ck / "model.safetensors.index.json").write_text(json.dumps(idx))
    r = audit_checkpoint(ck)
    assert _codes(r) == [("info", "SHARD_UNINDEXED_TENSORS"), ("warning", "STALE_TENSOR_COPY")]
    (f,) = r.by_code("STALE_TENSOR_COPY")
    assert (f.tensor, f.file) == ("mtp.norm.weight", "model-extra.safetensors")


def test_tensor_count_of_builder(tmp_path: Path) -> None:
    ck = load_checkpoint(build(tmp_path / "ck"))
    assert len(ck.locations) == len(tensor_specs()) == len(ck.weight_map)
    assert sum(1 for n in ck.locations if n.startswith("mtp.")) == 15


def test_vl_processor_configs_missing(tmp_path: Path) -> None:
    r = audit_checkpoint(build(tmp_path / "ck", processors=False))
    assert sorted((f.severity.value, f.file) for f in r.findings) == [
        ("error", "preprocessor_config.json"),
        ("warning", "processor_config.json"),
        ("warning", "video_preprocessor_config.json"),
    ]


def test_real_qwen36_config_with_fixture_quant_config(tmp_path: Path) -> None:
    """The real Qwen3.6-27B config.json (fixture) and the Darwin ModelOpt hf_quant_config parse and audit."""
    (tmp_path / "config.json").write_text((FIXTURES / "qwen3_6_27b_config.json").read_text())
    (tmp_path / "hf_quant_config.json").write_text(
        (FIXTURES / "modelopt_nvfp4_qwen3_5_9b_darwin_hf_quant_config.json").read_text()
    )
    r = audit_checkpoint(tmp_path)
    assert r.census is None
    assert r.facts["quant_config_used_by_vllm"] in ("config.json", "hf_quant_config.json")
    # configs only (no index, no shard): the head is named and counted, its tensors are not judged (NO_WEIGHTS says
    # the weights were not audited) - a user checking a release before downloading it gets no false MTP error
    assert ("warning", "NO_WEIGHTS") in _codes(r)
    assert not [c for _, c in _codes(r) if c.startswith("MTP_")]
    assert (r.facts["mtp"]["family"], r.facts["mtp"]["layers"], r.facts["mtp"]["names_from"]) == (
        "qwen3_5_mtp",
        1,
        "none",
    )


@pytest.mark.parametrize(
    "fixture",
    [
        "ct_nvfp4_devstral_quantization_config.json",
        "modelopt_nvfp4_deepseek_r1_hf_quant_config.json",
        "dflash_draft_qwen3_5_27b_target_config.json",
    ],
)
def test_fixtures_audit_without_crash(tmp_path: Path, fixture: str) -> None:
    data = json.loads((FIXTURES / fixture).read_text())
    if "hf_quant" in fixture:
        (tmp_path / "hf_quant_config.json").write_text(json.dumps(data))
        (tmp_path / "config.json").write_text(json.dumps({"model_type": "deepseek_v3", "num_hidden_layers": 61}))
    elif "ct_" in fixture:
        (tmp_path / "config.json").write_text(json.dumps({"model_type": "mistral", "quantization_config": data}))
    else:
        (tmp_path / "config.json").write_text(json.dumps(data))
    r = audit_checkpoint(tmp_path)
    assert r.exit_code in (0, 1)
    if "dflash" in fixture:
        assert [f.code for f in r.errors] == []
        assert [row["type"] for row in r.facts["draft_layers"]] == ["full_attention"] * len(data["layer_types"])

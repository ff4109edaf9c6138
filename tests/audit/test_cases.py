"""The cases in tests/data/cases (sources: tests/data/SOURCES.md), audit parts: exact findings per case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paths import CASES
from specscope.audit import Severity, audit_checkpoint, check_draft_config


def _codes(report) -> list[tuple[str, str]]:
    return sorted((f.severity.value, f.code) for f in report.findings)


def test_c01_deepseek_mtp_layer_missing() -> None:
    r = audit_checkpoint(CASES / "C01" / "checkpoint")
    assert _codes(r) == [("error", "MTP_WEIGHTS_MISSING")]
    (f,) = r.findings
    assert f.details["prefixes"] == ["model.layers.2."]
    assert f.details["tensors_found"] == 0
    # EXPECTED.md names enorm, hnorm and eh_proj "in particular" (0 of 3); the deepseek_mtp family of
    # audit/architectures.toml also requires shared_head.norm (DeepSeek-V3's index holds model.layers.61.shared_head.
    # norm.weight and vLLM's deepseek_mtp.py loads it per layer), so the finding counts 0 of 4.
    assert f.details["specific_missing"] == [
        "model.layers.2.enorm.weight",
        "model.layers.2.hnorm.weight",
        "model.layers.2.eh_proj.weight",
        "model.layers.2.shared_head.norm.weight",
    ]
    assert f.details["family"] == "deepseek_mtp"
    assert "0 of 4" in f.message and "acceptance ~0" in f.consequence
    assert "specscope surgery graft" in f.fix and "--prefix model.layers.2." in f.fix and "enorm" in f.fix
    assert "mtp.fc" not in f.fix and "Qwen" not in f.fix
    assert r.exit_code == 1


def test_c02_index_entry_not_in_shard() -> None:
    r = audit_checkpoint(CASES / "C02" / "checkpoint")
    assert _codes(r) == [
        ("error", "INDEX_ENTRY_NOT_IN_SHARD"),
        ("error", "MTP_INCOMPLETE"),
        ("warning", "INDEX_TOTAL_SIZE_MISMATCH"),
    ]
    (orphan,) = r.by_code("INDEX_ENTRY_NOT_IN_SHARD")
    assert orphan.tensor == "mtp.fc.weight" and orphan.file == "model-00002-of-00002.safetensors"
    assert orphan.details["index_entries"] == 25
    assert orphan.details["tensors_in_headers"] == 24
    assert orphan.details["orphan_index_entries"] == 1
    assert orphan.details["found_in"] == []
    (size,) = r.by_code("INDEX_TOTAL_SIZE_MISMATCH")
    assert (size.details["declared_bytes"], size.details["measured_bytes"], size.details["difference_bytes"]) == (
        164_864,
        148_480,
        16_384,
    )
    (mtp,) = r.by_code("MTP_INCOMPLETE")
    assert (mtp.details["expected"], mtp.details["present"], mtp.details["missing"]) == (13, 12, ["mtp.fc.weight"])
    assert r.exit_code == 1


def test_c03_mtp_in_unreferenced_shard() -> None:
    r = audit_checkpoint(CASES / "C03" / "checkpoint")
    assert _codes(r) == [("error", "MTP_NOT_INDEXED"), ("warning", "UNREFERENCED_SHARD")]
    (shard,) = r.by_code("UNREFERENCED_SHARD")
    assert shard.file == "model-mtp.safetensors"
    assert shard.details == {"tensors": 13, "tensor_bytes": 86_656}
    (mtp,) = r.by_code("MTP_NOT_INDEXED")
    assert len(mtp.details["unindexed"]) == 13 and mtp.details["shards"] == ["model-mtp.safetensors"]


def test_c06_bf16_mtp_not_excluded() -> None:
    r = audit_checkpoint(CASES / "C06" / "checkpoint")
    assert _codes(r) == [("error", "MTP_UNQUANTIZED_NOT_EXCLUDED")]
    (f,) = r.findings
    expected = {"mtp.fc"} | {f"mtp.layers.0.self_attn.{p}_proj" for p in "qkvo"} | {"mtp.layers.0.mlp.gate"}
    expected |= {f"mtp.layers.0.mlp.experts.{e}.{p}_proj" for e in (0, 1) for p in ("gate", "up", "down")}
    expected |= {f"mtp.layers.0.mlp.shared_expert.{p}_proj" for p in ("gate", "up", "down")}
    expected |= {"mtp.layers.0.mlp.shared_expert_gate"}
    assert len(expected) == 16
    assert set(f.details["modules"]) == expected and len(f.details["modules"]) == 16
    assert "BF16 [32, 64]" in f.found and "U8 [32, 32]" in f.expected


def test_c06_patched_exclude_list_is_clean(tmp_path: Path) -> None:
    src = CASES / "C06" / "checkpoint"
    for p in src.iterdir():
        (tmp_path / p.name).write_bytes(p.read_bytes())
    cfg = json.loads((src / "config.json").read_text())
    cfg["quantization_config"]["exclude"] = json.loads(
        (CASES / "C06" / "expected_exclude_after_patch.json").read_text()
    )["exclude"]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert _codes(audit_checkpoint(tmp_path)) == []


def test_c08_scale_convention() -> None:
    ok = audit_checkpoint(CASES / "C08" / "A_convention" / "modelopt_ok")
    assert ok.by_code("NVFP4_SCALE_CONVENTION") == []
    bad = audit_checkpoint(CASES / "C08" / "A_convention" / "modelopt_inverted")
    (f,) = bad.by_code("NVFP4_SCALE_CONVENTION")
    assert f.severity is Severity.ERROR
    assert f.details["scales"] == ["mtp.fc.weight_scale_2 = 1000", "mtp.fc.input_scale = 200"]
    # summarised once (defect 15: every scale was listed in the message and again in found)
    assert f.message.startswith(
        "2 input_scale/weight_scale_2 scales of 1 modules (200 to 1000) under a modelopt config"
    )
    assert f.found == "mtp.fc.weight_scale_2 = 1000 (+1 more, values 200 to 1000)"


def _c09(name: str) -> dict:
    return json.loads((CASES / "C09" / name).read_text())


def test_c09_mixed_layers_warn_only() -> None:
    findings, table = check_draft_config(_c09("draft_config.json"), target_num_layers=64)
    assert [(f.severity.value, f.code) for f in findings] == [
        ("warning", "DFLASH_MIXED_LAYER_TYPES"),
        ("info", "DFLASH_MAX_WINDOW_LAYERS_IGNORED"),
    ]
    assert table == [{"layer": i, "type": "sliding_attention", "window": 4096, "causal": True} for i in range(4)] + [
        {"layer": 4, "type": "full_attention", "window": None, "causal": False}
    ]


@pytest.mark.parametrize(
    "variant,severity,code",
    [
        ("variant_len_mismatch.json", "error", "DFLASH_LAYER_TYPES_LENGTH"),
        ("variant_window_missing.json", "error", "DFLASH_SLIDING_WINDOW_MISSING"),
        ("variant_flag_disables_swa.json", "warning", "DFLASH_SWA_FLAG_CONFLICT"),
        ("variant_swa_only_in_dflash_config.json", "warning", "DFLASH_SWA_ONLY_IN_DFLASH_CONFIG"),
        ("variant_window_smaller_than_block.json", "error", "DFLASH_WINDOW_SMALLER_THAN_BLOCK"),
    ],
)
def test_c09_variants(variant: str, severity: str, code: str) -> None:
    findings, _ = check_draft_config(_c09(variant), target_num_layers=64)
    hits = [f for f in findings if f.code == code]
    assert len(hits) == 1 and hits[0].severity.value == severity
    assert not [f for f in findings if f.severity is Severity.ERROR and f.code != code]


def test_c09_via_audit_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((CASES / "C09" / "variant_window_smaller_than_block.json").read_text())
    r = audit_checkpoint(tmp_path)
    assert ("error", "DFLASH_WINDOW_SMALLER_THAN_BLOCK") in _codes(r)
    assert r.exit_code == 1


def test_c10_mixed_scales() -> None:
    r = audit_checkpoint(CASES / "C10" / "A_mixed")
    assert _codes(r) == [("warning", "FP8_KV_SCALE_MISSING"), ("warning", "FP8_KV_V_ONLY")]
    (miss,) = r.by_code("FP8_KV_SCALE_MISSING")
    assert miss.details["missing"] == {"0": ["k", "v"], "1": ["k"]} and miss.details["layers_complete"] == 1
    assert r.by_code("FP8_KV_V_ONLY")[0].details["layers"] == [1]
    vals = [(row["layer"], row["k"], row["v"]) for row in r.facts["kv_scales"]]
    assert [(i, k, None if v is None else round(v, 6)) for i, k, v in vals] == [
        (0, None, None),
        (1, None, 0.08),
        (2, pytest.approx(0.05), 0.08),
    ]
    assert r.exit_code == 0 and r.exit_code_for(strict=True) == 1


def test_c10_no_scales() -> None:
    r = audit_checkpoint(CASES / "C10" / "B_none")
    assert _codes(r) == [("error", "FP8_KV_SCALES_ABSENT")]
    assert r.findings[0].details == {"layers_complete": 0, "attention_layers": 3}


def test_c11_config_copies_disagree() -> None:
    r = audit_checkpoint(CASES / "C11" / "checkpoint")
    assert _codes(r) == [("error", "QUANT_CONFIG_MISMATCH"), ("warning", "QUANT_CONFIG_MISMATCH")]
    kv = next(f for f in r.findings if f.details["field"] == "kv_cache")
    assert kv.severity is Severity.WARNING
    assert (kv.details["hf_quant_config_json"], kv.details["config_json"]) == ("FP8", "none")
    assert (kv.details["layers_with_scales"], kv.details["attention_layers"]) == (1, 1)
    assert kv.details["supported_by_tensors"] == "hf_quant_config.json"
    ex = next(f for f in r.findings if f.details["field"] == "exclude")
    assert ex.severity is Severity.ERROR
    assert ex.details["only_in_config_json"] == ["mtp*"] and ex.details["only_in_hf_quant_config_json"] == []
    assert ex.details["supported_by_tensors"] == "config.json"
    assert r.facts["quant_config_used_by_vllm"] == "config.json"


@pytest.mark.parametrize(
    "fname,ok",
    [
        ("a_zero_size_ok", True),
        ("b_zero_offsets_nonzero_shape", False),
        ("c_empty_metadata", True),
        ("d_header_too_large", False),
        ("e_offsets_reversed", False),
        ("f_truncated_data", False),
        ("g_metadata_only", True),
        ("h_gap_between_tensors", False),
        ("i_duplicate_name", False),
        ("j_overlapping_tensors", False),
        ("k_metadata_non_string_value", False),
        ("l_trailing_bytes", False),
    ],
)
def test_c12_audit_verdicts(fname: str, ok: bool) -> None:
    r = audit_checkpoint(CASES / "C12" / "files" / f"{fname}.safetensors")
    assert (r.exit_code == 0) is ok
    assert len(r.errors) == (0 if ok else 1)


# C08 B1: gate/up pairs with different NVFP4 global scales; both conventions give the same verdict
@pytest.mark.parametrize(
    "fname, shared",
    [
        ("experts_scale2.modelopt.safetensors", {"0": 4.83e-5, "2": 1e-4}),
        ("experts_global_scale.compressed_tensors.safetensors", {"0": 20703.93, "2": 10000.0}),
    ],
)
def test_c08_b1_gate_up_scale_mismatch(fname, shared):
    from specscope.audit import audit_checkpoint

    rep = audit_checkpoint(CASES / "C08" / "B_gate_up" / fname)
    [f] = rep.by_code("NVFP4_GATE_UP_SCALE_MISMATCH")
    assert f.severity.value == "warning"
    d = f.details
    assert (d["pairs"], d["mismatched"]) == (3, 2)
    assert d["mismatched_fraction"] == pytest.approx(2 / 3)
    assert d["ratio_max"] == pytest.approx(10.0, rel=1e-4)
    by = {p["expert"].rsplit(".", 1)[-1]: p for p in d["per_pair"]}
    assert set(by) == {"0", "2"}  # expert 1's halves agree
    assert by["0"]["ratio"] == pytest.approx(1.2545, rel=1e-4)
    assert by["0"]["up_multiplier"] == pytest.approx(0.7971, rel=1e-4)
    assert by["2"]["up_multiplier"] == pytest.approx(10.0, rel=1e-4)
    for e, v in shared.items():
        assert by[e]["shared_stored"] == pytest.approx(v, rel=1e-4)


def test_config_only_folder_warns_no_weights(tmp_path):
    from specscope.audit import audit_checkpoint

    (tmp_path / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}')
    rep = audit_checkpoint(tmp_path)
    [f] = rep.by_code("NO_WEIGHTS")
    assert f.severity.value == "warning" and rep.exit_code == 0 and rep.exit_code_for(strict=True) == 1

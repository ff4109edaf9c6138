"""Shared cases C03 (reindex), C06 (exclude unquantized MTP), C11 (sync configs), seed 000 (dflash-layers)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import tree_hashes
from paths import CASES, FIXTURES
from specscope.errors import SurgeryError
from specscope.surgery import apply_plan, plan_dflash_layers, plan_patch_config, plan_reindex


def copy_case(tmp_path: Path, case: str) -> Path:
    dst = tmp_path / case
    shutil.copytree(CASES / case / "checkpoint", dst)
    return dst


def test_c03_reindex_in_place_exact_and_idempotent(tmp_path: Path):
    ck = copy_case(tmp_path, "C03")
    shards_before = {k: v for k, v in tree_hashes(ck).items() if k.endswith(".safetensors")}
    plan = plan_reindex(ck)
    assert any("13 tensors added" in n and "model-mtp.safetensors" in n for n in plan.notes)
    result = apply_plan(plan)
    assert result.audit_exit_code == 0 and result.audit_findings == []  # C03: after reindex the audit is clean
    want = (CASES / "C03/expected_reindexed.model.safetensors.index.json").read_bytes()
    got = (ck / "model.safetensors.index.json").read_bytes()
    assert got == want
    idx = json.loads(got)
    assert len(idx["weight_map"]) == 34 and idx["metadata"]["total_size"] == 234_752
    assert {k: v for k, v in tree_hashes(ck).items() if k.endswith(".safetensors")} == shards_before
    again = plan_reindex(ck)
    assert again.jsons == []  # nothing to change the second time
    apply_plan(again)
    assert (ck / "model.safetensors.index.json").read_bytes() == want


def test_c03_reindex_to_new_folder_links_shards(tmp_path: Path):
    src = CASES / "C03/checkpoint"
    before = tree_hashes(src)
    out = tmp_path / "fixed"
    apply_plan(plan_reindex(src, out))
    assert tree_hashes(src) == before
    assert (out / "model.safetensors.index.json").read_bytes() == (
        CASES / "C03/expected_reindexed.model.safetensors.index.json"
    ).read_bytes()
    for shard in ("model-00001-of-00002.safetensors", "model-mtp.safetensors"):
        assert (out / shard).read_bytes() == (src / shard).read_bytes()


def test_c06_exclude_unquantized_mtp(tmp_path: Path):
    ck = copy_case(tmp_path, "C06")
    from specscope.audit import audit_checkpoint

    assert "MTP_UNQUANTIZED_NOT_EXCLUDED" in {f.code for f in audit_checkpoint(ck).findings}
    result = apply_plan(plan_patch_config(ck, exclude_unquantized="mtp."))
    assert not any(f["code"].startswith("MTP_") for f in result.audit_findings)
    got = json.loads((ck / "config.json").read_text())["quantization_config"]["exclude"]
    want = json.loads((CASES / "C06/expected_exclude_after_patch.json").read_text())["exclude"]
    assert got[:3] == want[:3] == ["lm_head", "model.layers.0.mlp.gate", "model.layers.0.mlp.shared_expert_gate"]
    assert got == want and len(got) == len(set(got)) == 19  # appended sorted by name
    assert not any(n.endswith(("norm", "layernorm")) for n in got)
    assert not (ck / "hf_quant_config.json").exists()  # Quark keeps the list in config.json only
    assert plan_patch_config(ck, exclude_unquantized="mtp.").jsons == []  # second run: nothing to add


def test_c11_sync_toward_the_tensors(tmp_path: Path):
    ck = copy_case(tmp_path, "C11")
    cfg0 = json.loads((ck / "config.json").read_text())
    hf0 = json.loads((ck / "hf_quant_config.json").read_text())
    from specscope.audit import audit_checkpoint

    assert "QUANT_CONFIG_MISMATCH" in {f.code for f in audit_checkpoint(ck).findings}
    plan = plan_patch_config(ck, sync=True)
    assert len(plan.notes) == 2 and any("kv_cache_scheme" in n for n in plan.notes)
    result = apply_plan(plan)
    assert not any(f["code"] == "QUANT_CONFIG_MISMATCH" for f in result.audit_findings)
    cfg = json.loads((ck / "config.json").read_text())
    hf = json.loads((ck / "hf_quant_config.json").read_text())
    assert cfg["quantization_config"]["kv_cache_scheme"] == {"type": "float", "num_bits": 8, "dynamic": False}
    assert hf["quantization"]["exclude_modules"] == ["lm_head", "mtp*"]
    assert hf["quantization"]["kv_cache_quant_algo"] == "FP8"  # never synced toward the stale side
    assert cfg["quantization_config"]["ignore"] == ["lm_head", "mtp*"]
    cfg0["quantization_config"]["kv_cache_scheme"] = cfg["quantization_config"]["kv_cache_scheme"]
    hf0["quantization"]["exclude_modules"] = ["lm_head", "mtp*"]
    assert cfg == cfg0 and hf == hf0  # all other keys unchanged
    again = plan_patch_config(ck, sync=True)
    assert again.jsons == [] and again.notes == ["configs already agree"]


def test_patch_config_needs_an_option(tmp_path: Path):
    with pytest.raises(SurgeryError, match="nothing to patch"):
        plan_patch_config(CASES / "C11/checkpoint")


def test_dflash_all_sliding(tmp_path: Path):
    draft = tmp_path / "dflash"
    draft.mkdir()
    cfg = json.loads((FIXTURES / "dflash_draft_qwen3_5_27b_target_config.json").read_text())
    # seed 000: z-lab/Qwen3.6-27B-DFlash declares 4 sliding + 1 full layer with a 2048-token window
    cfg["layer_types"] = ["sliding_attention"] * 4 + ["full_attention"]
    cfg["sliding_window"] = 2048
    (draft / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    (draft / "model.safetensors").write_bytes(b"not read by this operation")
    out = tmp_path / "fixed"
    plan = plan_dflash_layers(draft, all_sliding=True, out=out)
    assert any("[4]" in n and "below 2048 tokens" in n for n in plan.notes)
    apply_plan(plan, run_audit=False)
    new = json.loads((out / "config.json").read_text())
    assert new["layer_types"] == ["sliding_attention"] * 5
    cfg["layer_types"] = new["layer_types"]
    assert new == cfg
    assert (out / "model.safetensors").stat().st_ino == (draft / "model.safetensors").stat().st_ino


def test_dflash_without_window_is_refused(tmp_path: Path):
    draft = tmp_path / "dflash"
    draft.mkdir()
    shutil.copy(FIXTURES / "dflash_draft_qwen3_5_27b_target_config.json", draft / "config.json")
    with pytest.raises(SurgeryError, match="sliding_window"):
        plan_dflash_layers(draft, all_sliding=True, out=tmp_path / "o")

"""An MTP head the config does not declare, named with the key its own family's loader reads (issue 36: never another
family's fix), on checkpoints written with the loaders' tensor names (fresh-user check, 2026-12-05).

* DeepSeek-V4 (vLLM ``deepseek_v4_mtp.py`` @023da1fc: ``mtp.{i}.*``, counted by ``num_nextn_predict_layers``) with
  ``num_nextn_predict_layers: 0`` was told to declare ``mtp_num_hidden_layers: 1`` (Qwen3.5's key, which its loader
  never reads) and its declared 0 shown as "absent".
* LongCat-Flash (``longcat_flash_mtp.py`` @0bb55d60: ``model.mtp.*``), MiMo-V2 (``mimo_v2_mtp.py`` @037951aa:
  ``model.mtp.layers.*``) and Inkling (``model.mtp.layers.*``) heads stored without their declaration were not named
  at all, and their bytes were counted in the target's per-step bytes. (LongCat-Flash's head without the key is since
  judged as the one layer vLLM builds by default: ``tests/audit/test_mtp_default_layers.py``.)
* A model type with no MTP loader in the census (``llama``) holding ``mtp.*`` tensors was told Qwen's key.
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, nbytes, write

V = 64


def _plain_bytes(tmp_path: Path, cfg: dict) -> int:
    return audit_checkpoint(write(tmp_path / "plain", dense_model(2, V), cfg)).census.target_bytes_per_token


def test_deepseek_v4_head_is_told_its_own_key(tmp_path: Path) -> None:
    head = {"mtp.0.enorm.weight": [H], "mtp.0.hnorm.weight": [H], "mtp.0.e_proj.weight": [H, H]}
    head |= {"mtp.0.h_proj.weight": [H, H], "mtp.0.norm.weight": [H]} | layer("mtp.0.")
    cfg = {**dense_config(2, V), "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4"}
    cfg["num_nextn_predict_layers"] = 0
    (f,) = audit_checkpoint(write(tmp_path / "v4", dense_model(2, V) | head, cfg)).findings
    assert f.code == "MTP_UNDECLARED"
    assert "(num_nextn_predict_layers: 0)" in f.message
    assert "num_nextn_predict_layers: 1" in f.fix and "mtp_num_hidden_layers" not in f.fix


def test_model_mtp_heads_are_named_and_not_counted_as_target_bytes(tmp_path: Path) -> None:
    """(A MiMo-V2 head is since judged as the one layer vLLM builds whatever the config declares:
    tests/audit/test_mtp_default_layers.py.) Inkling's loader needs mtp_config.num_nextn_predict_layers >= 1 (vLLM
    speculative.py @002e77c1 raises "The Inkling checkpoint does not contain MTP weights")."""
    p = "model.mtp.layers.0."
    inkling = {p + "embed_norm.weight": [H], p + "hidden_norm.weight": [H], p + "input_proj.weight": [H, 2 * H]}
    inkling |= layer(p + "transformer_block.")
    cases = [("inkling_model", [], inkling)]
    for model_type, archs, head in cases:
        cfg = {**dense_config(2, V), "model_type": model_type} | ({"architectures": archs} if archs else {})
        r = audit_checkpoint(write(tmp_path / model_type, dense_model(2, V) | head, cfg))
        (f,) = r.findings
        assert f.code == "MTP_UNDECLARED", model_type
        assert f.details["prefixes"] == ["model.mtp."] and "num_nextn_predict_layers: 1" in f.fix
        assert r.census.target_bytes_per_token == _plain_bytes(tmp_path / model_type, cfg)
        assert r.census.bytes_by_group["mtp_draft"] == nbytes(head)


def test_a_model_type_without_an_mtp_loader_is_told_no_family_key(tmp_path: Path) -> None:
    head = {"mtp.0.proj.weight": [H, 2 * H], "mtp.0.norm.weight": [H]} | layer("mtp.0.block.")
    cfg = {**dense_config(2, V), "model_type": "llama"}
    (f,) = audit_checkpoint(write(tmp_path / "llama", dense_model(2, V) | head, cfg)).findings
    assert f.code == "MTP_UNDECLARED"
    assert "mtp_num_hidden_layers" not in f.fix and "num_nextn_predict_layers" not in f.fix
    assert "llama" in f.fix

"""MTP heads of model types the family table does not list: judged only where the layout is recognised, never with
another family's tensors or source.

Sources (public reports of exactly this misreading): osaurus-ai/vmlx ``renders native MTP for ERNIE-4.5, whose head is
stored as mtp_block (no bare mtp segment)`` (an inspector that looked for a bare ``mtp`` segment hid a working head);
vLLM ``ernie_mtp.py`` @028aedf6 (``model.mtp_emb_norm.0``, ``model.mtp_hidden_norm.0``, ``model.mtp_linear_proj.0``,
``model.mtp_block.0.*``), ``nemotron_h_mtp.py`` @01ca2773 (Nemotron-H: ``mtp.layers.{j}.enorm`` / ``hnorm`` /
``eh_proj`` / ``final_layernorm`` over the ``mtp_hybrid_override_pattern`` layers: ``mtp.*`` names without Qwen's
``mtp.fc``), ``longcat_flash_mtp.py`` (``model.mtp.layers.{i}.*``), ``config/speculative.py`` @002e77c1 (which
model types carry ``num_nextn_predict_layers``).
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write

V = 64


def _main(model_type: str) -> tuple[dict[str, list[int]], dict]:
    cfg = {**dense_config(2, V), "model_type": model_type, "num_nextn_predict_layers": 1}
    return dense_model(2, V), cfg


def test_nemotron_h_mtp_head_is_not_judged_as_qwen(tmp_path: Path) -> None:
    shapes, cfg = _main("nemotron_h")
    cfg["mtp_hybrid_override_pattern"] = "*E"
    shapes.update({"mtp.layers.0.enorm.weight": [H], "mtp.layers.0.hnorm.weight": [H]})
    shapes["mtp.layers.0.eh_proj.weight"] = [H, 2 * H]
    shapes.update({f"mtp.layers.0.mixer.{p}_proj.weight": [H, H] for p in "qkvo"})
    shapes["mtp.layers.1.mixer.experts.0.up_proj.weight"] = [H, H]
    shapes["mtp.layers.1.final_layernorm.weight"] = [H]
    r = audit_checkpoint(write(tmp_path / "nemotron", shapes, cfg))
    assert r.errors == [], [(f.code, f.message, f.fix) for f in r.errors]
    (f,) = r.by_code("MTP_LAYOUT_UNKNOWN")
    assert f.severity.value == "warning" and r.exit_code == 0
    assert f.message == (
        "config declares 1 MTP layer(s) (num_nextn_predict_layers: 1) for model_type 'nemotron_h', which specscope's "
        "family table does not list; the checkpoint holds 9 tensors under mtp. (e.g. mtp.layers.0.eh_proj.weight, "
        "mtp.layers.0.enorm.weight, mtp.layers.0.hnorm.weight) but none of the Qwen3.5 layout's own tensors "
        "(mtp.fc.weight, mtp.pre_fc_norm_hidden.weight, mtp.pre_fc_norm_embedding.weight, "
        "mtp.norm.weight): the head is not judged"
    )
    assert "Qwen3.6-27B" not in (f.fix or "")
    assert r.facts["mtp"]["unlisted_model_type"] == "nemotron_h"


def test_longcat_style_head_elsewhere_is_not_reported_missing(tmp_path: Path) -> None:
    shapes, cfg = _main("longcat_flash")
    shapes.update(layer("model.mtp.layers.0.transformer_layer."))
    shapes.update({"model.mtp.layers.0.enorm.weight": [H], "model.mtp.layers.0.eh_proj.weight": [H, 2 * H]})
    r = audit_checkpoint(write(tmp_path / "longcat", shapes, cfg))
    assert [f.code for f in r.findings] == ["MTP_LAYOUT_UNKNOWN"], [(f.code, f.message) for f in r.findings]
    assert "11 tensors under model.mtp." in r.findings[0].message
    assert r.exit_code == 0


def test_unlisted_model_type_in_the_deepseek_layout_is_judged_without_naming_deepseek(tmp_path: Path) -> None:
    """Bailing / Step-3.5 style: the DeepSeek layout at model.layers.N, under another model type."""
    shapes, cfg = _main("bailing_moe")
    p = "model.layers.2."
    shapes.update(layer(p))
    shapes.update({p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "shared_head.norm.weight": [H]})
    r = audit_checkpoint(write(tmp_path / "bailing", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and "model.layers.2.eh_proj.weight" in f.message
    assert "model_type 'bailing_moe', read with the DeepSeek-V3 layout" in f.message
    assert "deepseek-ai" not in f.fix and "DeepSeek-V3 / R1" not in f.message
    assert "--prefix model.layers.2." in f.fix


def test_unlisted_model_type_with_no_head_anywhere_is_still_missing(tmp_path: Path) -> None:
    shapes, cfg = _main("bailing_moe")
    r = audit_checkpoint(write(tmp_path / "none", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_WEIGHTS_MISSING" and "deepseek-ai" not in f.fix
    assert r.exit_code == 1

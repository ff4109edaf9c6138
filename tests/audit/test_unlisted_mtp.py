"""MTP heads of model types outside the census (no family of audit/architectures.toml lists them): a named warning
that lists what is stored and what the nearest family would need, never another family's rule, error or fix.

Sources (public reports of exactly this misreading): osaurus-ai/vmlx ``renders native MTP for ERNIE-4.5, whose head is
stored as mtp_block (no bare mtp segment)`` (an inspector that looked for a bare ``mtp`` segment hid a working head);
vLLM ``ernie_mtp.py`` @028aedf6 (``model.mtp_emb_norm.0``, ``model.mtp_hidden_norm.0``, ``model.mtp_linear_proj.0``,
``model.mtp_block.0.*``), ``nemotron_h_mtp.py`` @01ca2773 (Nemotron-H, now a family of its own:
``mtp.layers.{j}.enorm`` / ``hnorm`` / ``eh_proj`` / ``final_layernorm`` over the ``mtp_hybrid_override_pattern``
layers: ``mtp.*`` names without Qwen's ``mtp.fc``, never judged as Qwen), ``longcat_flash_mtp.py``
(``model.mtp.layers.{i}.*``), ``config/speculative.py`` @002e77c1 (which model types carry
``num_nextn_predict_layers``).
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write

V = 64


def _main(model_type: str) -> tuple[dict[str, list[int]], dict]:
    cfg = {**dense_config(2, V), "model_type": model_type, "num_nextn_predict_layers": 1}
    return dense_model(2, V), cfg


def test_nemotron_h_mtp_head_is_judged_by_its_own_family_not_qwens(tmp_path: Path) -> None:
    """Nemotron-H's ``mtp.*`` names (no ``mtp.fc``) are read with nemotron_h_mtp.py's names, never Qwen3.5's."""
    shapes, cfg = _main("nemotron_h")
    cfg["mtp_hybrid_override_pattern"] = "*E"
    shapes.update({"mtp.layers.0.enorm.weight": [H], "mtp.layers.0.hnorm.weight": [H]})
    shapes["mtp.layers.0.eh_proj.weight"] = [H, 2 * H]
    shapes.update({f"mtp.layers.0.mixer.{p}_proj.weight": [H, H] for p in "qkvo"})
    shapes["mtp.layers.1.mixer.experts.0.up_proj.weight"] = [H, H]
    shapes["mtp.layers.1.final_layernorm.weight"] = [H]
    r = audit_checkpoint(write(tmp_path / "nemotron", shapes, cfg))
    assert r.findings == [] and r.exit_code == 0, [(f.code, f.message) for f in r.findings]
    assert r.facts["mtp"]["family"] == "nemotron_h_mtp" and "unlisted_model_type" not in r.facts["mtp"]
    del shapes["mtp.layers.1.final_layernorm.weight"]
    r = audit_checkpoint(write(tmp_path / "no_end_norm", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and f.message.endswith("missing: mtp.layers.1.final_layernorm.weight")
    assert "mtp.fc" not in f.message and "Qwen" not in (f.fix or "")


def test_a_head_elsewhere_than_the_nearest_layout_is_not_reported_missing(tmp_path: Path) -> None:
    """An unlisted model type whose head sits under a prefix of its own (here ``model.nextn.*``)."""
    shapes, cfg = _main("acme_moe")
    shapes.update(layer("model.nextn.layers.0."))
    shapes.update({"model.nextn.layers.0.enorm.weight": [H], "model.nextn.layers.0.eh_proj.weight": [H, 2 * H]})
    r = audit_checkpoint(write(tmp_path / "nextn", shapes, cfg))
    assert [f.code for f in r.findings] == ["MTP_LAYOUT_UNKNOWN"], [(f.code, f.message) for f in r.findings]
    assert "11 tensors under model.nextn." in r.findings[0].message
    assert r.exit_code == 0


def test_unlisted_model_type_in_the_deepseek_layout_is_a_warning_not_deepseeks_error(tmp_path: Path) -> None:
    """A DeepSeek-like head at model.layers.N under a model type outside the census: listed, not judged, even with
    a tensor that DeepSeek's loader would want missing (``eh_proj``)."""
    shapes, cfg = _main("bailing_moe")
    p = "model.layers.2."
    shapes.update(layer(p))
    shapes.update({p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "shared_head.norm.weight": [H]})
    r = audit_checkpoint(write(tmp_path / "bailing", shapes, cfg))
    assert r.errors == [] and r.exit_code == 0
    (f,) = r.warnings
    assert f.code == "MTP_LAYOUT_UNKNOWN" and "model_type 'bailing_moe'" in f.message
    assert (
        "the nearest family, DeepSeek-V3, would need model.layers.2.enorm.weight, model.layers.2.hnorm.weight, "
        "model.layers.2.eh_proj.weight, model.layers.2.shared_head.norm.weight (3 of them stored)"
    ) in f.message
    assert f.details["nearest_stored"] == 3 and f.details["tensors"] == 12
    assert "deepseek-ai" not in (f.fix or "") and "graft" not in (f.fix or "") and "DeepSeek-V3 / R1" not in f.message


def test_unlisted_model_type_with_no_head_anywhere_is_still_missing(tmp_path: Path) -> None:
    shapes, cfg = _main("bailing_moe")
    r = audit_checkpoint(write(tmp_path / "none", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_WEIGHTS_MISSING" and "deepseek-ai" not in f.fix
    assert r.exit_code == 1


def test_an_unlisted_model_type_with_no_head_gets_no_other_familys_fix(tmp_path: Path) -> None:
    """No MTP tensor anywhere: the head is missing whatever the family (an error), but the fix is not DeepSeek's graft
    of ``model.layers.N.``: the model type is named as outside the census (fresh-user finding, 2026-12-05)."""
    shapes, cfg = _main("foobar")
    r = audit_checkpoint(write(tmp_path / "foobar", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_WEIGHTS_MISSING" and r.exit_code == 1
    assert "'foobar' is not in specscope's census" in f.fix and "graft" not in f.fix and "--prefix" not in f.fix


def test_a_checkpoint_without_a_model_config_is_named_not_passed(tmp_path: Path) -> None:
    """No config.json, or ``{}``, beside the weights: no rule can tell which head is declared (a missing MTP layer goes
    unseen), so the audit says so (CONFIG_UNRECOGNISED, a warning) instead of 'no findings' (fresh-user finding)."""
    shapes, cfg = _main("deepseek_v3")
    folder = write(tmp_path / "ck", shapes, cfg)
    (folder / "config.json").write_text("{}")
    (f,) = audit_checkpoint(folder).findings
    assert f.code == "CONFIG_UNRECOGNISED" and f.found == "keys: none" and "no architecture or model_type" in f.message
    (folder / "config.json").unlink()
    (f,) = audit_checkpoint(folder).findings
    assert f.code == "CONFIG_UNRECOGNISED" and f.found == "file absent"
    assert audit_checkpoint(write(tmp_path / "ok", dense_model(2, V), dense_config(2, V))).findings == []


def test_a_head_outside_the_layout_is_not_counted_as_target_bytes(tmp_path: Path) -> None:
    """The tensors of an unlisted type's head stored elsewhere than the nearest layout (``model.mtp.layers.0.*``,
    MiMo-like names under a model type outside the census) are the head's, not the target's: the byte census
    counted them as target weights read per token (0.31 MB where the main model reads 0.21 MB; fresh-user check,
    2026-12-06) and said the checkpoint held none of the head's tensors."""
    shapes, cfg = _main("acme_moe")
    plain = audit_checkpoint(write(tmp_path / "plain", dict(shapes), {**cfg, "num_nextn_predict_layers": 0}))
    head = layer("model.mtp.layers.0.")
    head.update({"model.mtp.layers.0.token_layernorm.weight": [H], "model.mtp.layers.0.input_proj.weight": [H, 2 * H]})
    shapes.update(head)
    r = audit_checkpoint(write(tmp_path / "mtp", shapes, cfg))
    assert [f.code for f in r.findings] == ["MTP_LAYOUT_UNKNOWN"]
    assert r.census is not None and plain.census is not None
    assert r.census.target_bytes_per_token == plain.census.target_bytes_per_token == 11456
    assert r.census.bytes_by_group["mtp_draft"] == r.census.total_bytes - plain.census.total_bytes
    assert r.census.draft_bytes_per_step is None
    assert r.census.draft_rule == (
        f"MTP (model_type 'acme_moe', read with the DeepSeek-V3 layout): the head's {len(head)} tensors under "
        "model.mtp. are outside that layout: its bytes per step are unknown"
    )

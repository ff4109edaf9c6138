"""Unknown figures are said to be unknown (issue 27 follow-up, defect 10): a declared head with no tensors has no
draft bytes (not 0 bytes, not 0.0 %, not "0 own tensors"); a tokenizer hole is "(no token)", not None; large
figures keep their thousands separators."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from specscope.audit import audit_checkpoint
from specscope.audit.rules_vocab import compare_tokenizers
from specscope.checkpoint.tokenizer import TokenizerView
from specscope.cli import app

from .ckmaker import dense_config, dense_model, write


def test_a_declared_head_without_tensors_has_unknown_draft_bytes(tmp_path: Path) -> None:
    cfg = {**dense_config(2, 64), "model_type": "qwen3_next", "mtp_num_hidden_layers": 1}
    ck = write(tmp_path / "nomtp", dense_model(2, 64), cfg)
    c = audit_checkpoint(ck, bandwidth="h200").census
    assert c is not None and (c.draft_bytes_per_step, c.draft_share) == (None, None)
    assert c.draft_rule is not None and "holds none of the head's tensors" in c.draft_rule
    out = CliRunner().invoke(app, ["audit", str(ck), "--bandwidth", "h200"])
    text = " ".join(out.stdout.split())
    assert "draft bytes unknown (why: the draft bytes rule below)" in text
    assert "the checkpoint holds none of the head's tensors: its bytes per step are unknown" in text
    assert "0 own tensors" not in text and "0.0% of a target pass" not in text
    tok_s = 4.8e12 / c.target_bytes_per_token
    assert f"roofline {tok_s:,.1f} tok/s at 4800 GB/s" in text


def test_a_tokenizer_hole_is_named_as_no_token() -> None:
    draft = TokenizerView("tokenizer.json", "BPE", {0: "a", 2: "c"})
    target = TokenizerView("tokenizer.json", "BPE", {0: "a", 1: "b", 2: "c"})
    (f,) = compare_tokenizers(draft, target)
    assert f.message.endswith("first at id 1: draft (no token), target 'b'")
    assert "None" not in (f.found or "")


def test_an_unknown_quant_method_is_named_and_not_read_with_another_dialects_keys(tmp_path: Path) -> None:
    """``quant_method: bitnet_magic`` gave no finding at all, exit 0 (fresh-user check, 2026-12-05)."""
    config = dense_config(1, 64) | {"quantization_config": {"quant_method": "BitNet_Magic", "ignore": ["lm_head"]}}
    r = audit_checkpoint(write(tmp_path / "ck", dense_model(1, 64), config))
    (f,) = r.by_code("QUANT_METHOD_UNKNOWN")
    assert f.severity == "warning" and f.file == "config.json"
    assert f.message == "config.json declares quant_method 'bitnet_magic', which no loader specscope has read knows"
    assert "fp8" in f.expected and "compressed-tensors" in f.expected
    assert [g.code for g in r.findings if g.code.startswith(("MTP_", "QUANT_"))] == ["QUANT_METHOD_UNKNOWN"]
    known = dense_config(1, 64) | {"quantization_config": {"quant_method": "bitsandbytes"}}
    assert audit_checkpoint(write(tmp_path / "bnb", dense_model(1, 64), known)).by_code("QUANT_METHOD_UNKNOWN") == []


def test_a_head_left_under_another_prefix_is_named_in_the_fix(tmp_path: Path) -> None:
    """A DeepSeek head left at ``model.layers.61.*`` after the main layers were cut to 2: the audit said "0 tensors"
    and asked for a graft from a release, never naming the 4 head tensors it holds (fresh-user check, 2026-12-05)."""
    from .ckmaker import H, layer

    shapes = dense_model(2, 64) | layer("model.layers.61.")
    shapes |= {
        "model.layers.61.enorm.weight": [H],
        "model.layers.61.hnorm.weight": [H],
        "model.layers.61.eh_proj.weight": [H, 2 * H],
        "model.layers.61.shared_head.norm.weight": [H],
    }
    config = dense_config(2, 64, architectures=["DeepseekV3ForCausalLM"], model_type="deepseek_v3")
    config["num_nextn_predict_layers"] = 1
    r = audit_checkpoint(write(tmp_path / "ck", shapes, config))
    (f,) = r.by_code("MTP_WEIGHTS_MISSING")
    assert f.details["held_elsewhere"] == [
        "model.layers.61.eh_proj.weight",
        "model.layers.61.enorm.weight",
        "model.layers.61.hnorm.weight",
        "model.layers.61.shared_head.norm.weight",
    ]
    assert f.fix.startswith(
        "the checkpoint holds 4 tensors that look like this head under another prefix (model.layers.61.eh_proj.weight, "
        "model.layers.61.enorm.weight, model.layers.61.hnorm.weight (+1 more)): rename them to model.layers.2."
    )

"""Medusa heads declared by FasterDecoding's ``medusa_num_heads`` (vLLM's MedusaConfig renames it to ``num_heads``):
the audit read 1 head and a draft missing its third head passed (fresh-user check, 2026-12-05)."""

from __future__ import annotations

from specscope.audit import audit_checkpoint

from .ckmaker import H, write

V = 64
CONFIG = {"medusa_num_heads": 3, "medusa_num_layers": 1, "hidden_size": H, "vocab_size": V}


def _heads(n: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for h in range(n):
        out |= {f"blocks.{h}.layers.0.weight": [H, H], f"blocks.{h}.layers.0.bias": [H], f"lm_heads.{h}.weight": [V, H]}
    return out


def test_three_heads_declared_by_medusa_num_heads_are_all_checked(tmp_path):
    assert audit_checkpoint(write(tmp_path / "ok", _heads(3), CONFIG)).exit_code == 0
    r = audit_checkpoint(write(tmp_path / "two", _heads(2), CONFIG))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert sorted(f.details["missing"]) == ["blocks.2.layers.0.weight", "lm_heads.2.weight"]
    assert r.exit_code == 1


def test_heads_declared_under_any_key_with_num_and_heads_are_read_as_vllm_reads_them(tmp_path):
    """FasterDecoding/Medusa issue #76: ``medusa_model_new.py`` reads ``num_medusa_heads`` / ``num_medusa_layers``.
    vLLM ``transformers_utils/configs/medusa.py`` @0531c222 renames every key holding "num" and "heads" to
    ``num_heads`` (and "num" and "layers" to ``num_hidden_layers``), so that spelling declares 3 heads too."""
    cfg = {"num_medusa_heads": 3, "num_medusa_layers": 1, "hidden_size": H, "vocab_size": V}
    ok = audit_checkpoint(write(tmp_path / "ok", _heads(3), cfg))
    assert ok.exit_code == 0 and ok.facts["draft_family"]["layers"] == 3
    r = audit_checkpoint(write(tmp_path / "two", _heads(2), cfg))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert sorted(f.details["missing"]) == ["blocks.2.layers.0.weight", "lm_heads.2.weight"]


def test_no_heads_key_is_vllms_default_of_five_heads(tmp_path):
    """FasterDecoding/Medusa issue #76: the published 13b / 33b configs lacked the heads key. vLLM's MedusaConfig then
    builds its default ``num_heads=5``: with 3 heads stored, heads 3 and 4 stay uninitialised (the loader does not
    check), so the audit reads 5 and names what is missing."""
    cfg = {"architectures": ["MedusaModel"], "model_type": "medusa", "hidden_size": H, "vocab_size": V}
    r = audit_checkpoint(write(tmp_path / "three", _heads(3), cfg))
    assert r.facts["draft_family"]["layers"] == 5
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert sorted(f.details["missing"]) == [
        "blocks.3.layers.0.weight",
        "blocks.4.layers.0.weight",
        "lm_heads.3.weight",
        "lm_heads.4.weight",
    ]
    assert f.fix == (
        "config.json declares no head count, so vLLM builds its default 5 heads: declare the 3 stored, "
        '"medusa_num_heads": 3, in config.json'
    )
    assert r.exit_code == 1

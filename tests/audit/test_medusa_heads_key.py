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

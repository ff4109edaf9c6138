"""Medusa heads in the Medusa repository's own names (FasterDecoding/Medusa ``medusa_model.py``: each head an
``nn.Sequential`` of ``medusa_num_layers`` ``ResBlock`` s and a ``Linear``, saved as ``{h}.{l}.linear.weight`` /
``.bias`` and ``{h}.{L}.weight``; FasterDecoding/medusa-vicuna-7b-v1.3 is published so).

vLLM's ``medusa.py`` (@01dbb081 ``load_weights``) reads ``blocks.{h}.layers.{l}.*`` and ``lm_heads.{h}.weight`` and
skips every other name without a word, so such a draft serves uninitialised heads. The audit said the tensors were
missing and told the user to download the draft again from FasterDecoding/medusa-vicuna-7b-v1.3, the very repository
that publishes these names (fresh-user check, 2026-12-05): the fix is the renaming.
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, write

V = 64
CONFIG = {"medusa_num_heads": 2, "medusa_num_layers": 1, "hidden_size": H, "vocab_size": V}


def test_original_medusa_names_are_told_the_renaming(tmp_path: Path) -> None:
    shapes: dict[str, list[int]] = {}
    for h in range(2):
        shapes |= {f"{h}.0.linear.weight": [H, H], f"{h}.0.linear.bias": [H], f"{h}.1.weight": [V, H]}
    target = write(tmp_path / "t", dense_model(2, V), dense_config(2, V))
    r = audit_checkpoint(target, draft=write(tmp_path / "heads", shapes, CONFIG))
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert "download the draft again" not in f.fix
    assert "0.0.linear.weight" in f.fix and "blocks.0.layers.0.weight" in f.fix and "lm_heads.0.weight" in f.fix
    assert r.exit_code == 1

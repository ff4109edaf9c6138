"""A separate draft whose own output head has more rows than the target's ``vocab_size``: it can propose ids the
target has no embedding row for.

vLLM builds each head at the draft's own size and drafts the argmax over its rows: Medusa ``lm_heads.{h}``
(``medusa.py`` @01dbb081, ``truncated_vocab_size`` else ``vocab_size`` rows, no ``token_map``), an MLP speculator's
``head.{i}`` (``mlp_speculator.py`` @0531c222, ``vocab_size`` rows), a full-vocabulary EAGLE-3 ``lm_head``
(``llama_eagle3.py`` @00bd1493, no ``d2t``); the target then embeds the drafted id at the verify step, out of range
past its ``vocab_size`` (the rule the docs give ``DRAFT_VOCAB_EXCEEDS_TARGET/rows``).

Before (issue 36 hunt, aud57): with no tokenizer files such a pair was only ``DRAFT_VOCAB_UNVERIFIED`` (warning, exit
0): a Medusa for a 128-token model on a 64-token target passed. Now ``DRAFT_VOCAB_EXCEEDS_TARGET/head`` (error, exit
1) names the head and its rows. A draft's own input embedding larger than the target's is fine (it only embeds ids
the target gave), and a reduced head mapped by ``d2t`` / ``token_map`` is judged by ``DRAFT_VOCAB_MAP``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, eagle3_first, layer, write
from .test_families import CASES

V = 64  # the target's vocab_size
BIG = 128  # the draft's head rows


def _target(tmp_path: Path) -> Path:
    return write(tmp_path / "target", dense_model(2, V), dense_config(2, V))


def _drafts() -> dict[str, tuple[dict[str, list[int]], dict, str]]:
    medusa = {f"blocks.{h}.layers.0.weight": [H, H] for h in range(2)} | {
        f"lm_heads.{h}.weight": [BIG, H] for h in (0, 1)
    }
    medusa_cfg = {"architectures": ["MedusaModel"], "model_type": "medusa", "hidden_size": H, "num_heads": 2}
    medusa_cfg |= {"num_hidden_layers": 1, "vocab_size": BIG, "truncated_vocab_size": BIG}
    mlp = CASES["mlp_speculator"]
    mlp_shapes = {n: ([BIG, s[1]] if n.startswith(("emb.", "head.")) else s) for n, s in mlp.shapes.items()}
    eagle3 = {
        "fc.weight": [H, 3 * H],
        "norm.weight": [H],
        "lm_head.weight": [BIG, H],
        **layer("midlayer.", eagle3_first()),
    }
    eagle3_cfg = {**dense_config(1, BIG), "architectures": ["LlamaForCausalLMEagle3"]}
    return {
        "medusa": (medusa, medusa_cfg, "lm_heads.0.weight"),
        "mlp_speculator": (mlp_shapes, {**mlp.config, "vocab_size": BIG}, "head.0.weight"),
        "eagle3": (eagle3, eagle3_cfg, "lm_head.weight"),
    }


@pytest.mark.parametrize("key", ["medusa", "mlp_speculator", "eagle3"])
def test_a_draft_head_past_the_target_vocab_is_an_error(tmp_path: Path, key: str) -> None:
    shapes, cfg, head = _drafts()[key]
    r = audit_checkpoint(_target(tmp_path), draft=write(tmp_path / key, shapes, cfg))
    (f,) = r.by_code("DRAFT_VOCAB_EXCEEDS_TARGET")
    assert (f.severity.value, r.exit_code) == ("error", 1)
    assert f.tensor == head and f"{BIG} rows" in f.message and f"vocab_size {V}" in f.message


def test_a_larger_input_embedding_with_the_target_head_is_fine(tmp_path: Path) -> None:
    eagle = {"fc.weight": [H, 2 * H], "embed_tokens.weight": [BIG, H], **layer("layers.0.")}
    del eagle["layers.0.input_layernorm.weight"]
    cfg = {**dense_config(1, BIG), "architectures": ["EagleLlamaForCausalLM"]}
    r = audit_checkpoint(_target(tmp_path), draft=write(tmp_path / "eagle", eagle, cfg))
    assert r.by_code("DRAFT_VOCAB_EXCEEDS_TARGET") == [] and r.exit_code == 0


@pytest.mark.parametrize("key", ["medusa", "mlp_speculator", "eagle3"])
def test_the_head_error_is_the_one_judgement_of_the_vocabulary(tmp_path: Path, key: str) -> None:
    """The head error already says the draft's vocabulary is not the target's: the ``DRAFT_VOCAB_UNVERIFIED`` warning
    (sizes differ, no tokenizer) would say the same fact again, and is left out beside it."""
    shapes, cfg, _ = _drafts()[key]
    r = audit_checkpoint(_target(tmp_path), draft=write(tmp_path / key, shapes, cfg))
    vocab = sorted(f.code for f in r.findings if "VOCAB" in f.code or "TOKENIZER" in f.code)
    assert vocab == ["DRAFT_TOKENIZER_UNVERIFIED", "DRAFT_VOCAB_EXCEEDS_TARGET"], vocab

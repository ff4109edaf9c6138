"""A checkpoint whose stored embedding / output-head rows are not its config's ``vocab_size`` (issue 36, aud66).

vLLM builds ``embed_tokens`` as ``VocabParallelEmbedding(config.vocab_size, ...)`` and ``lm_head`` (DeepSeek's MTP
``shared_head.head``) as ``ParallelLMHead(config.vocab_size, ...)``; the parameter is padded to a multiple of 64, but
``weight_loader`` asserts ``loaded_weight.shape[output_dim] == self.org_vocab_size`` (vLLM
``vllm/model_executor/layers/vocab_parallel_embedding.py`` @7f5d141a): fewer rows, more rows and rows padded to a
multiple of 64 past ``vocab_size`` all stop the load with an AssertionError. A tied head (``tie_word_embeddings``) is
skipped by the model's ``load_weights`` (``llama.py``: ``if self.config.tie_word_embeddings and "lm_head.weight" in
name: continue``), so its stored rows are not judged. An EAGLE-3 head over ``draft_vocab_size`` rows is judged by
``DRAFT_VOCAB_MAP/head-rows``.

Before: every one of these passed with exit 0 (no rule read the main embedding against the config).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write
from .test_families import CASES

V = 64


@pytest.mark.parametrize(("rows", "vocab"), [(V, 80), (128, 100), (V + 64, V)])
def test_a_target_whose_embedding_is_not_vocab_size_rows_fails_to_load(tmp_path: Path, rows: int, vocab: int) -> None:
    r = audit_checkpoint(write(tmp_path / "t", dense_model(2, rows), dense_config(2, vocab)))
    found = r.by_code("VOCAB_ROWS_DIFFER")
    assert sorted(f.tensor or "" for f in found) == ["lm_head.weight", "model.embed_tokens.weight"]
    assert (found[0].severity.value, r.exit_code) == ("error", 1)
    assert f"{rows} rows" in found[0].message and f"vocab_size {vocab}" in found[0].message


def test_only_the_head_differs(tmp_path: Path) -> None:
    shapes = dense_model(2, V) | {"lm_head.weight": [V + 8, H]}
    r = audit_checkpoint(write(tmp_path / "t", shapes, dense_config(2, V)))
    assert [f.tensor for f in r.by_code("VOCAB_ROWS_DIFFER")] == ["lm_head.weight"] and r.exit_code == 1


def test_a_tied_head_is_not_loaded_so_not_judged(tmp_path: Path) -> None:
    shapes = dense_model(2, V) | {"lm_head.weight": [V + 8, H]}
    r = audit_checkpoint(write(tmp_path / "t", shapes, dense_config(2, V, tie_word_embeddings=True)))
    assert r.by_code("VOCAB_ROWS_DIFFER") == []


def test_matching_rows_are_fine(tmp_path: Path) -> None:
    r = audit_checkpoint(write(tmp_path / "t", dense_model(2, V), dense_config(2, V)))
    assert r.by_code("VOCAB_ROWS_DIFFER") == [] and r.exit_code == 0


def test_an_mtp_target_with_another_vocab_size(tmp_path: Path) -> None:
    case = CASES["deepseek_mtp"]
    cfg = {**case.config, "vocab_size": V + 16}
    r = audit_checkpoint(write(tmp_path / "t", case.shapes | case.shareable, cfg))
    tensors = sorted(f.tensor or "" for f in r.by_code("VOCAB_ROWS_DIFFER"))
    assert "model.embed_tokens.weight" in tensors and "model.layers.2.shared_head.head.weight" in tensors
    assert r.exit_code == 1


def test_an_eagle_draft_embedding(tmp_path: Path) -> None:
    eagle = {"fc.weight": [H, 2 * H], "embed_tokens.weight": [V, H], **layer("layers.0.")}
    del eagle["layers.0.input_layernorm.weight"]
    cfg = {**dense_config(1, V + 16), "architectures": ["EagleLlamaForCausalLM"]}
    r = audit_checkpoint(write(tmp_path / "eagle", eagle, cfg))
    assert [f.tensor for f in r.by_code("VOCAB_ROWS_DIFFER")] == ["embed_tokens.weight"] and r.exit_code == 1


def test_a_multimodal_language_model_may_store_extra_rows(tmp_path: Path) -> None:
    # Llama-3.2 Vision (MllamaForConditionalGeneration): text_config vocab_size 128256, its language model's
    # embed_tokens built with vocab_size + 8 rows (transformers modeling_mllama.py MllamaTextModel, vLLM mllama.py);
    # fewer rows than vocab_size still stop the load
    for rows, code in ((V + 8, 0), (V - 8, 1)):
        cfg = dense_config(2, V) | {"vision_config": {"hidden_size": 8}}
        shapes = dense_model(2, V) | {"model.embed_tokens.weight": [rows, H]}
        r = audit_checkpoint(write(tmp_path / f"t{rows}", shapes, cfg))
        assert [f.tensor for f in r.by_code("VOCAB_ROWS_DIFFER")] == (["model.embed_tokens.weight"] if code else [])

"""Bytes per step as engines read them (issue 27 item 3), on checkpoints these tests write.

Rules (audit/census.py, sources there): an MTP step reads the head's own tensors; the embedding and head are the
target's (vLLM llm_base_proposer.load_model shares them for MTP), so a checkpoint's copies of them are not read; a
separate draft reads each layer, one embedding row and its own head at its stored size.
"""

from __future__ import annotations

from pathlib import Path

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, nbytes, write

V = 64


def _deepseek(root: Path, *, copies: bool) -> Path:
    shapes = dense_model(2, V)
    p = "model.layers.2."
    head = {**layer(p), p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    head[p + "shared_head.norm.weight"] = [H]
    shapes.update(head)
    if copies:  # what DeepSeek-V3 ships at layer 61: copies of the embedding and the head
        shapes |= {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    cfg = {**dense_config(2, V), "model_type": "deepseek_v3", "num_nextn_predict_layers": 1}
    return write(root, shapes, cfg)


def test_copies_of_shared_weights_do_not_change_bytes_per_step(tmp_path: Path) -> None:
    plain = audit_checkpoint(_deepseek(tmp_path / "plain", copies=False)).census
    copied = audit_checkpoint(_deepseek(tmp_path / "copies", copies=True)).census
    assert plain is not None and copied is not None
    own = nbytes({**layer("x."), "e": [H], "h": [H], "p": [H, 2 * H], "n": [H]})
    assert plain.draft_bytes_per_step == copied.draft_bytes_per_step == own
    assert plain.target_bytes_per_token == copied.target_bytes_per_token
    assert plain.draft_share == copied.draft_share
    assert copied.total_bytes - plain.total_bytes == 2 * V * H * 2
    assert copied.bytes_by_group["draft_shared_copies"] == 2 * V * H * 2
    # the step still reads the target's head and one embedding row: counted as shared, the same for both
    assert plain.draft_shared_bytes_per_step == copied.draft_shared_bytes_per_step == V * H * 2 + H * 2
    assert "2 copies of shared tensors in the checkpoint (4,096 bytes) not read" in (copied.draft_rule or "")
    assert (plain.draft_rule or "").startswith("DeepSeek-V3 / R1 / Kimi-K2 MTP: the head's 13 own tensors")


def test_dense_one_layer_draft_model_is_counted_layer_by_layer(tmp_path: Path) -> None:
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    draft_shapes = dense_model(1, V)
    draft = write(tmp_path / "draft", draft_shapes, dense_config(1, V))
    c = audit_checkpoint(target, draft=draft).census
    assert c is not None
    layer_bytes = nbytes(layer("model.layers.0."))
    expected = layer_bytes + H * 2 + V * H * 2 + H * 2  # the layer, model.norm, lm_head, one embedding row
    assert c.draft_bytes_per_step == expected
    assert c.draft_share == expected / c.target_bytes_per_token
    assert (c.draft_rule or "").startswith("separate draft model: every layer")


def test_reduced_vocabulary_head_is_counted_at_its_size(tmp_path: Path) -> None:
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V // 2, H], **layer("midlayer.")}
    shapes["midlayer.hidden_norm.weight"] = [H]
    cfg = {**dense_config(1, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": V // 2}
    draft = write(tmp_path / "draft", shapes, cfg)
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    c = audit_checkpoint(target, draft=draft).census
    assert c is not None
    assert c.draft_bytes_per_step == nbytes(shapes)  # the own, reduced head at [32, H]; no embedding stored
    assert c.draft_shared_bytes_per_step == H * 2  # one row of the target's embedding, which EAGLE-3 shares


def test_tied_embedding_is_read_whole_as_the_head(tmp_path: Path) -> None:
    shapes = dense_model(1, V, tied=True)
    c = audit_checkpoint(write(tmp_path / "tied", shapes, dense_config(1, V, tie_word_embeddings=True))).census
    assert c is not None
    assert c.target_bytes_per_token == nbytes(shapes)  # the whole table, once (it is the head)
    assert c.lm_head_bytes == V * H * 2

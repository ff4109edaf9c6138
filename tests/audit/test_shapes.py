"""Shapes the engine checks at load (issue 27 follow-up, defects 5 and 8), on checkpoints these tests write.

Rules from vLLM's loaders (module docstring of specscope/audit/rules_shapes.py): an MTP decoder layer is built from
the target's config, so its tensors have the main full-attention layer's shapes and its norms are [hidden]; EAGLE-3
``fc`` is ``ReplicatedLinear(3 * (target_hidden_size or hidden_size), hidden_size)`` (llama_eagle3.py @00bd1493);
DFlash ``fc`` is ``[hidden, len(target_layer_ids) * (target_hidden_size or hidden_size)]`` (qwen3_dflash.py
@036a00d1); EAGLE-1 ``fc`` is ``[hidden, 2*hidden]``; a draft that reads the target's hidden states has the target's
width. MiMo's Qwen2 layers carry q/k/v biases (mimo_mtp.py @0bb55d60): an MTP layer without them is incomplete.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, eagle3_first, layer, vocab, write

V = 64


def _qwen_mtp(root: Path, **override: list[int]) -> Path:
    shapes = dense_model(2, V)
    shapes |= {"mtp.fc.weight": [H, 2 * H], "mtp.norm.weight": [H]}
    shapes |= {"mtp.pre_fc_norm_hidden.weight": [H], "mtp.pre_fc_norm_embedding.weight": [H]}
    shapes |= layer("mtp.layers.0.")
    shapes |= override
    cfg = {**dense_config(2, V), "model_type": "qwen3_next", "mtp_num_hidden_layers": 1}
    return write(root, shapes, cfg)


def test_a_complete_mtp_head_of_the_right_shapes_is_clean(tmp_path: Path) -> None:
    assert audit_checkpoint(_qwen_mtp(tmp_path / "ok")).findings == []


def test_mtp_layer_tensors_shaped_unlike_the_main_layer_are_an_error(tmp_path: Path) -> None:
    bad = {"mtp.layers.0.mlp.up_proj.weight": [7, 7], "mtp.layers.0.self_attn.q_proj.weight": [3, 5]}
    r = audit_checkpoint(_qwen_mtp(tmp_path / "bad", **bad, **{"mtp.norm.weight": [99]}))
    (f,) = r.findings
    assert (f.severity.value, f.code, f.tensor) == ("error", "MTP_LAYER_SHAPE", "mtp.layers.0.mlp.up_proj.weight")
    assert [(t["name"], t["shape"], t["expected"]) for t in f.details["tensors"]] == [
        ("mtp.layers.0.mlp.up_proj.weight", [7, 7], "F16 [32, 16]"),
        ("mtp.layers.0.self_attn.q_proj.weight", [3, 5], "F16 [16, 16]"),
        ("mtp.norm.weight", [99], "[16]"),
    ]
    assert f.expected == "F16 [32, 16] (as model.layers.1.mlp.up_proj.weight)"
    assert "--prefix mtp." in (f.fix or "")


def test_an_mtp_head_from_a_wider_model_is_flagged_on_every_tensor(tmp_path: Path) -> None:
    """What `surgery graft --from` a hidden-32 source leaves: not only mtp.fc."""
    wide = {n: [2 * d if d == H else d for d in s] for n, s in layer("mtp.layers.0.").items()}
    r = audit_checkpoint(_qwen_mtp(tmp_path / "wide", **wide))
    (f,) = r.by_code("MTP_LAYER_SHAPE")
    assert f.details["tensors"][0]["name"] == "mtp.layers.0.input_layernorm.weight"
    assert len(f.details["tensors"]) == len(wide)


def _draft(root: Path, fam: str, fc: list[int], hidden: int = H, **cfg: object) -> Path:
    extra = {"self_attn.q_norm.weight": [8], "self_attn.k_norm.weight": [8]} if fam == "dflash" else {}
    extra |= eagle3_first(hidden) if fam == "eagle3" else {}
    shapes = {"fc.weight": fc, **layer("layers.0.", extra)}
    if fam == "eagle3":
        shapes |= {"norm.weight": [hidden], "layers.0.hidden_norm.weight": [hidden], "lm_head.weight": [V, hidden]}
        arch = "LlamaForCausalLMEagle3"
    elif fam == "dflash":
        shapes |= {"norm.weight": [hidden], "hidden_norm.weight": [hidden]}
        arch = "DFlashDraftModel"
    else:
        arch = "EagleLlamaForCausalLM"
    config = {**dense_config(1, V), "architectures": [arch], "hidden_size": hidden, **cfg}
    return write(root, shapes, config, tokens=vocab(V))


@pytest.mark.parametrize(
    "fam,fc,cfg,want",
    [
        ("eagle3", [H, 2 * H], {}, "[16, 48]: out hidden_size 16, in 3 x hidden_size 16 (vLLM llama_eagle3.py)"),
        (
            "eagle3",
            [H, 3 * H],
            {"target_hidden_size": 32},
            "[16, 96]: out hidden_size 16, in 3 x target_hidden_size 32",
        ),
        (
            "dflash",
            [H, 3 * H],
            {"dflash_config": {"target_layer_ids": [0, 1]}},
            "[16, 32]: out hidden_size 16, in len(target_layer_ids) 2 x hidden_size 16 (vLLM qwen3_dflash.py)",
        ),
        ("eagle", [H, H], {}, "[16, 32]: out hidden_size 16, in 2 x hidden_size 16 (vLLM llama_eagle.py)"),
    ],
)
def test_a_draft_fc_the_loader_cannot_take_is_an_error(tmp_path: Path, fam: str, fc, cfg, want: str) -> None:
    r = audit_checkpoint(_draft(tmp_path / fam, fam, fc, **cfg))
    (f,) = r.by_code("DRAFT_FC_SHAPE")
    assert f.severity.value == "error" and f.message.startswith(f"fc.weight has shape {fc}; its loader builds it as ")
    assert want in f.message


@pytest.mark.parametrize(
    "fam,fc,cfg",
    [
        ("eagle3", [H, 3 * H], {}),
        ("dflash", [H, 2 * H], {"dflash_config": {"target_layer_ids": [0, 1]}}),
        ("eagle", [H, 2 * H], {}),
    ],
)
def test_a_draft_fc_of_the_right_shape_is_clean(tmp_path: Path, fam: str, fc, cfg) -> None:
    assert audit_checkpoint(_draft(tmp_path / fam, fam, fc, **cfg)).by_code("DRAFT_FC_SHAPE") == []


def test_a_draft_built_for_a_wider_target_is_a_hidden_mismatch(tmp_path: Path) -> None:
    target = write(tmp_path / "t", dense_model(2, V), dense_config(2, V), tokens=vocab(V))
    eagle = _draft(tmp_path / "eagle32", "eagle", [32, 64], hidden=32)
    r = audit_checkpoint(target, draft=eagle)
    assert [f.code for f in r.errors] == ["DRAFT_HIDDEN_MISMATCH"]
    assert r.errors[0].message.startswith(
        "the draft reads target hidden states of width 32 (hidden_size) but the target's hidden_size is 16"
    )
    e3 = _draft(tmp_path / "e3", "eagle3", [H, 96], target_hidden_size=32)  # built for a 32-wide target
    assert [f.code for f in audit_checkpoint(target, draft=e3).errors] == ["DRAFT_HIDDEN_MISMATCH"]


def test_a_separate_draft_model_may_be_narrower_than_its_target(tmp_path: Path) -> None:
    """A plain draft LM reads token ids, not hidden states (Llama-3.2-1B, hidden 2048, for an 8B target)."""
    target = write(tmp_path / "t", dense_model(2, V), dense_config(2, V), tokens=vocab(V))
    small = {n: [d // 2 if d == H else d for d in s] for n, s in dense_model(1, V).items()}
    draft = write(tmp_path / "d", small, {**dense_config(1, V), "hidden_size": H // 2}, tokens=vocab(V))
    assert audit_checkpoint(target, draft=draft).findings == []


def _mimo(root: Path, *, mtp_bias: bool) -> Path:
    bias = {"self_attn.q_proj.bias": [H], "self_attn.k_proj.bias": [8], "self_attn.v_proj.bias": [8]}
    shapes = {**dense_model(0, V), **layer("model.layers.0.", bias), **layer("model.layers.1.", bias)}
    m = "model.mtp_layers.0."
    shapes |= layer(m, bias if mtp_bias else {})
    shapes |= {m + "token_layernorm.weight": [H], m + "hidden_layernorm.weight": [H]}
    shapes |= {m + "input_proj.weight": [H, 2 * H], m + "final_layernorm.weight": [H]}
    cfg = {**dense_config(2, V), "model_type": "mimo", "num_nextn_predict_layers": 1, "attention_bias": True}
    return write(root, shapes, cfg)


def test_a_mimo_mtp_layer_without_the_main_layers_biases_is_incomplete(tmp_path: Path) -> None:
    assert audit_checkpoint(_mimo(tmp_path / "ok", mtp_bias=True)).findings == []
    r = audit_checkpoint(_mimo(tmp_path / "nobias", mtp_bias=False))
    (f,) = r.findings
    assert f.code == "MTP_INCOMPLETE" and f.details["missing"] == [
        "model.mtp_layers.0.self_attn.k_proj.bias",
        "model.mtp_layers.0.self_attn.q_proj.bias",
        "model.mtp_layers.0.self_attn.v_proj.bias",
    ]

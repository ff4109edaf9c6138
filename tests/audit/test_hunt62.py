"""Round 62 of the new-user checkpoint hunt (issue 36): small draft models people pair with their targets, judged by
their architecture's decoder block as vLLM's registry (registry.py @0002bff0) and model files build it, audited the
way a user runs ``specscope audit TARGET --draft DRAFT`` (shapes shrunk to ``H``).

- StableLM (stablelm.py StablelmDecoderLayer), MiniCPM (minicpm.py MiniCPMDecoderLayer), SeedOss (seed_oss.py, the
  Llama block with biases): Llama's names; Qwen3-MoE (qwen3_moe.py Qwen3MoeDecoderLayer: Qwen3's attention with
  q_norm / k_norm); Granite-MoE (granitemoe.py: the Hugging Face block_sparse_moe.input_linear / output_linear /
  router.layer its load_weights splits into the experts and the gate). A draft missing one of them in every layer
  passed with exit 0 (judged from its own layers, DRAFT_FORMAT_UNKNOWN/own-layers); now DRAFT_TENSORS_MISSING.
- GPT-NeoX / Pythia, Phi (1.5 / 2), InternLM2, GPT-2 (either spelling): their own head and layer prefix
  (architectures.toml ``block_heads``); each was DRAFT_FORMAT_UNKNOWN/own-layout (exit 0) whatever it lacked.
- Hunted: Apertus, Arcee, GLM-4, ERNIE-4.5 dense, Granite-MoE-Shared (wrong, fixed here). Checked right and not kept
  as tests: Olmo3 (olmo2 block), LFM2 (own-layout warning, not judged), EAGLE-3 beside a Qwen3-VL target
  (model.language_model.*) and a Llama-4 target (language_model.model.*): layer ids judged against text_config;
  speculators EAGLE-3 with transformer_layer_config (test_draft_config_layouts.py).
- Left: a Qwen3-MoE draft's experts are not judged one by one (one expert missing in a layer passes); HunYuan dense
  (cross-layer attention may drop k / v in some layers), OPT (decoder.* / model.decoder.*), Falcon (norms by
  config) still own-layout; a Llama-4 target without video_preprocessor_config.json is VL_PROCESSOR_CONFIG_MISSING
  (warning) although Llama-4 has no video processor (fixed in round 63: test_hunt63.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, write
from .test_families import V

ATTN = ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.o_proj.weight")
NORMS = ("input_layernorm.weight", "post_attention_layernorm.weight")
GRANITE_MOE = (
    "block_sparse_moe.input_linear.weight",
    "block_sparse_moe.output_linear.weight",
    "block_sparse_moe.router.layer.weight",
)


def _draft(layers: int, arch: str, block: tuple[str, ...], drop: str = "") -> tuple[dict[str, list[int]], dict]:
    shapes: dict[str, list[int]] = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H]}
    for i in range(layers):
        shapes |= {f"model.layers.{i}.{n}": ([H] if "norm" in n else [H, H]) for n in block if n != drop}
    cfg = dense_config(layers, V, architectures=[arch], model_type=arch.lower())
    if arch == "Qwen3MoeForCausalLM":  # its dense MLP in every layer: each listed in mlp_only_layers (test_hunt64.py)
        cfg["mlp_only_layers"] = list(range(layers))
    return shapes, cfg | {"tie_word_embeddings": True}


CASES = [
    ("StableLmForCausalLM", "mlp.up_proj.weight", None),
    ("StableLMEpochForCausalLM", "mlp.gate_proj.weight", None),
    ("MiniCPMForCausalLM", "mlp.down_proj.weight", None),
    ("SeedOssForCausalLM", "input_layernorm.weight", None),
    ("Qwen3MoeForCausalLM", "self_attn.k_norm.weight", None),
    ("GraniteMoeForCausalLM", "block_sparse_moe.router.layer.weight", NORMS + ATTN + GRANITE_MOE),
    # granitemoeshared.py GraniteMoeSharedDecoderLayer: Granite-MoE's block, shared_mlp only when
    # shared_intermediate_size is not 0 (hunt 62)
    ("GraniteMoeSharedForCausalLM", "block_sparse_moe.input_linear.weight", NORMS + ATTN + GRANITE_MOE),
]


@pytest.mark.parametrize(("arch", "drop", "block"), CASES, ids=[c[0] for c in CASES])
def test_a_registered_draft_block_missing_a_tensor_in_every_layer(
    tmp_path: Path, arch: str, drop: str, block: tuple[str, ...] | None
) -> None:
    """Was exit 0 with DRAFT_FORMAT_UNKNOWN/own-layers: a name no layer holds was taken as the architecture's."""
    qk = ("self_attn.q_norm.weight", "self_attn.k_norm.weight") if arch == "Qwen3MoeForCausalLM" else ()
    block = block or (*NORMS, *ATTN, *qk, "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight")
    target = (dense_model(3, V), dense_config(3, V))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=write(tmp_path / "d", *_draft(2, arch, block)))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert [f.code for f in r.warnings if f.code.startswith("DRAFT_FORMAT")] == []
    r = audit_checkpoint(write(tmp_path / "t2", *target), draft=write(tmp_path / "d2", *_draft(2, arch, block, drop)))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and r.exit_code == 1, [(g.code, g.message) for g in r.errors]
    assert f"model.layers.0.{drop}" in f.message and f"model.layers.1.{drop}" in f.message


# Drafts whose model is not under model.layers (vLLM gpt_neox.py @002800f0 GPTNeoXForCausalLM: gpt_neox.embed_in,
# gpt_neox.layers.{i}, gpt_neox.final_layer_norm, embed_out; phi.py PhiForCausalLM: model.final_layernorm, mlp.fc1 /
# fc2, self_attn.dense, lm_head; internlm2.py InternLM2ForCausalLM: model.tok_embeddings, attention.wqkv / wo,
# feed_forward.w1 / w3 / w2, attention_norm / ffn_norm, output): each is its architecture's own head and block.
OWN = {
    "GPTNeoXForCausalLM": (
        ("gpt_neox.embed_in.weight", "gpt_neox.final_layer_norm.weight", "embed_out.weight"),
        "gpt_neox.layers.{i}.",
        ("input_layernorm.weight", "post_attention_layernorm.weight", "attention.query_key_value.weight")
        + ("attention.dense.weight", "mlp.dense_h_to_4h.weight", "mlp.dense_4h_to_h.weight"),
    ),
    "PhiForCausalLM": (
        ("model.embed_tokens.weight", "model.final_layernorm.weight", "lm_head.weight"),
        "model.layers.{i}.",
        ("input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight")
        + ("self_attn.dense.weight", "mlp.fc1.weight", "mlp.fc2.weight"),
    ),
    "InternLM2ForCausalLM": (
        ("model.tok_embeddings.weight", "model.norm.weight", "output.weight"),
        "model.layers.{i}.",
        ("attention_norm.weight", "ffn_norm.weight", "attention.wqkv.weight", "attention.wo.weight")
        + ("feed_forward.w1.weight", "feed_forward.w3.weight", "feed_forward.w2.weight"),
    ),
}


def _own(arch: str, layers: int, drop: str = "") -> tuple[dict[str, list[int]], dict]:
    head, prefix, block = OWN[arch]
    shapes = {n: ([H] if "norm" in n else [V, H]) for n in head if n != drop}
    for i in range(layers):
        shapes |= {prefix.format(i=i) + n: ([H] if "norm" in n else [H, H]) for n in block if n != drop}
    cfg = dense_config(layers, V, architectures=[arch], model_type=arch.lower())
    return shapes, cfg | {"tie_word_embeddings": False}


@pytest.mark.parametrize("arch", list(OWN))
def test_a_draft_of_its_own_layout_is_judged_by_its_block(tmp_path: Path, arch: str) -> None:
    """Was DRAFT_FORMAT_UNKNOWN/own-layout (a warning, exit 0) whatever the draft lacked."""
    target = (dense_model(3, V), dense_config(3, V))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=write(tmp_path / "d", *_own(arch, 2)))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    shown = [(f.code, f.message) for f in r.findings]
    assert [f for f in r.findings if f.code.startswith(("DRAFT_FORMAT", "DRAFT_TENSORS"))] == [], shown
    head, prefix, block = OWN[arch]
    for drop in (block[-1], head[1]):
        d = write(tmp_path / drop, *_own(arch, 2, drop))
        r = audit_checkpoint(write(tmp_path / f"t-{drop}", *target), draft=d)
        (f,) = r.errors
        assert f.code == "DRAFT_TENSORS_MISSING" and r.exit_code == 1, [(g.code, g.message) for g in r.errors]
        names = [head[1]] if drop == head[1] else [prefix.format(i=i) + drop for i in range(2)]
        assert all(n in f.message for n in names), f.message


# Found in the round's hunt (each passed with exit 0 when the block's first tensor was missing in every layer):
# apertus.py ApertusDecoderLayer (attention_layernorm / feedforward_layernorm, an ungated up / down MLP), arcee.py
# ArceeDecoderLayer (Llama's norms and attention, an ungated up / down MLP), glm4.py Glm4DecoderLayer (four norms:
# post_self_attn_layernorm and post_mlp_layernorm beside Llama's two), ernie45.py (Ernie4_5ForCausalLM is
# LlamaForCausalLM).
HUNT = {
    "ApertusForCausalLM": ("attention_layernorm.weight", "feedforward_layernorm.weight", *ATTN)
    + ("mlp.up_proj.weight", "mlp.down_proj.weight"),
    "ArceeForCausalLM": (*NORMS, *ATTN, "mlp.up_proj.weight", "mlp.down_proj.weight"),
    "Glm4ForCausalLM": (*NORMS, "post_self_attn_layernorm.weight", "post_mlp_layernorm.weight", *ATTN)
    + ("mlp.gate_up_proj.weight", "mlp.down_proj.weight"),
    "Ernie4_5ForCausalLM": (*NORMS, *ATTN, "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"),
}


@pytest.mark.parametrize("arch", list(HUNT))
def test_a_hunted_draft_block_is_judged(tmp_path: Path, arch: str) -> None:
    block = HUNT[arch]
    target = (dense_model(3, V), dense_config(3, V))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=write(tmp_path / "d", *_draft(2, arch, block)))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert [f.code for f in r.warnings if f.code.startswith("DRAFT_FORMAT")] == []
    for drop in (block[0], block[-1]):
        d = write(tmp_path / drop, *_draft(2, arch, block, drop))
        r = audit_checkpoint(write(tmp_path / f"t-{drop}", *target), draft=d)
        (f,) = r.errors
        assert f.code == "DRAFT_TENSORS_MISSING" and f"model.layers.1.{drop}" in f.message, f.message


GPT2_BLOCK = ("ln_1.weight", "attn.c_attn.weight", "attn.c_proj.weight", "ln_2.weight", "mlp.c_fc.weight")
GPT2_BLOCK += ("mlp.c_proj.weight",)


def _gpt2(layers: int, spelled: str, drop: str = "") -> tuple[dict[str, list[int]], dict]:
    """vLLM gpt2.py GPT2LMHeadModel: transformer.wte / wpe / h.{i} (ln_1, attn.c_attn / c_proj, ln_2, mlp.c_fc /
    c_proj) / ln_f, lm_head tied to wte; its load_weights puts ``transformer.`` before a name stored without it
    (openai-community/gpt2 stores h.0.ln_1.weight ...). GPT2Config names the layer count n_layer."""
    shapes: dict[str, list[int]] = {f"{spelled}wte.weight": [V, H], f"{spelled}wpe.weight": [64, H]}
    shapes[f"{spelled}ln_f.weight"] = [H]
    for i in range(layers):
        shapes |= {f"{spelled}h.{i}.{n}": ([H] if "ln_" in n else [H, H]) for n in GPT2_BLOCK if n != drop}
    cfg = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_layer": layers, "n_embd": H}
    return shapes, cfg | {"vocab_size": V, "n_head": 2}


@pytest.mark.parametrize("spelled", ["transformer.", ""])
def test_a_gpt2_draft_is_judged_in_either_spelling(tmp_path: Path, spelled: str) -> None:
    """Was DRAFT_FORMAT_UNKNOWN/own-layout (exit 0) whatever it lacked."""
    target = (dense_model(3, V), dense_config(3, V))
    r = audit_checkpoint(write(tmp_path / "t", *target), draft=write(tmp_path / "d", *_gpt2(2, spelled)))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert [f for f in r.findings if f.code.startswith(("DRAFT_FORMAT", "DRAFT_TENSORS"))] == [], r.findings
    r = audit_checkpoint(
        write(tmp_path / "t2", *target), draft=write(tmp_path / "s", *_gpt2(2, spelled, "mlp.c_fc.weight"))
    )
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "h.1.mlp.c_fc.weight" in f.message, f.message

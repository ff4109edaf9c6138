"""Every family of audit/architectures.toml on a checkpoint these tests write: complete -> clean; a missing required
tensor -> an ERROR whose fix names that tensor and the family's source (and no other family's tensors); an omitted
shareable tensor -> no finding.

The tensor names below are written from the engines' loaders, not from the table (sources: vLLM qwen3_5_mtp.py,
deepseek_mtp.py, glm4_moe_mtp.py, mimo_mtp.py @0bb55d60, ernie_mtp.py @028aedf6, llama_eagle.py, llama_eagle3.py
@00bd1493, qwen3_dflash.py @036a00d1, medusa.py @01dbb081, mlp_speculator.py @0531c222, draft_model.py; DeepSeek-V3's
index for layer 61).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint, families

from .ckmaker import H, I, dense_config, dense_model, eagle3_first, layer, write
from .qwen36 import build as build_qwen36

V = 64


@dataclass
class Case:
    """A family's minimal complete checkpoint: tensors, config, the tensor to drop, the shareable ones."""

    key: str
    shapes: dict[str, list[int]]
    config: dict
    drop: str
    source: str
    shareable: dict[str, list[int]] = field(default_factory=dict)
    as_draft: bool = False
    #: the family's own tensors (its "glue": what makes the layers a draft), named from the loader
    glue: tuple[str, ...] = ()


def _mtp_main(model_type: str, n_main: int = 2) -> tuple[dict[str, list[int]], dict]:
    shapes = dense_model(n_main, V)
    cfg = {**dense_config(n_main, V), "model_type": model_type, "num_nextn_predict_layers": 1}
    return shapes, cfg


def _deepseek_like(key: str, model_type: str, source: str, *, glue: tuple[str, ...], own_head: bool = False) -> Case:
    """DeepSeek's layout (deepseek_mtp.py, glm4_moe_mtp.py, openpangu_mtp.py, step3p5_mtp.py): model.layers.{N+i}."""
    shapes, cfg = _mtp_main(model_type)
    p = "model.layers.2."
    shapes.update(layer(p))
    shapes.update({p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]})
    shapes[p + "shared_head.norm.weight"] = [H]
    all_glue = ("enorm.weight", "hnorm.weight", "eh_proj.weight", "shared_head.norm.weight")
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    if own_head:  # Step-3.5: shared_head.head is the layer's own parameter and must load
        shapes[p + "shared_head.head.weight"] = shareable.pop(p + "shared_head.head.weight")
        all_glue += ("shared_head.head.weight",)
    return Case(key, shapes, cfg, p + glue[0], source, shareable, glue=tuple(p + g for g in all_glue))


def _longcat() -> Case:
    """LongCat-Flash (longcat_flash_mtp.py new_to_old_names_mapping): model.mtp.layers.0.{enorm.m, hnorm.m, eh_proj},
    model.mtp.norm, an MLA layer with a dense MLP under transformer_layer.mlp."""
    shapes, cfg = _mtp_main("longcat_flash")
    p = "model.mtp.layers.0."
    mla = {"q_a_proj": [8, H], "q_a_layernorm": [8], "q_b_proj": [H, 8], "kv_a_proj_with_mqa": [12, H]}
    mla |= {"kv_a_layernorm": [8], "kv_b_proj": [H, 8], "o_proj": [H, H]}
    shapes.update({f"{p}self_attn.{k}.weight": v for k, v in mla.items()})
    shapes.update({p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]})
    mlp = {"gate_proj": [I, H], "up_proj": [I, H], "down_proj": [H, I]}
    shapes.update({f"{p}transformer_layer.mlp.{k}.weight": v for k, v in mlp.items()})
    glue = {p + "enorm.m.weight": [H], p + "hnorm.m.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue["model.mtp.norm.weight"] = [H]
    shapes.update(glue)
    return Case(
        "longcat_flash_mtp",
        shapes,
        cfg,
        p + "eh_proj.weight",
        "meituan-longcat/LongCat-Flash-Chat",
        {"model.mtp.embed_tokens.weight": [V, H]},
        glue=tuple(glue),
    )


def _mimo_v2() -> Case:
    """MiMo-V2 / MiMo-V2-Flash (mimo_v2_mtp.py @037951aa): model.mtp.layers.0.{enorm, hnorm, eh_proj,
    final_layernorm} around a layer with its own SWA attention, pre_mlp_layernorm and a dense MLP; keyed on the
    target's architecture."""
    shapes, cfg = _mtp_main("mimo_v2_flash")
    cfg["architectures"] = ["MiMoV2FlashForCausalLM"]
    p = "model.mtp.layers.0."
    body = {k: v for k, v in layer(p).items() if not k.endswith("post_attention_layernorm.weight")}
    shapes.update(body | {p + "pre_mlp_layernorm.weight": [H]})
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue[p + "final_layernorm.weight"] = [H]
    shapes.update(glue)
    return Case(
        "mimo_v2_mtp", shapes, cfg, p + "pre_mlp_layernorm.weight", "XiaomiMiMo/MiMo-V2-Flash", glue=tuple(glue)
    )


def _bailing() -> Case:
    """Bailing / Ling (bailing_moe_mtp.py @01af9909, bailing_moe_v3_mtp.py @017ad415, SGLang bailing_moe.py
    @008d83eb): model.layers.{N}.{enorm, hnorm, eh_proj, final_layernorm} beside the layer's attention.* and MoE;
    shared_head.head comes from lm_head.weight."""
    shapes, cfg = _mtp_main("bailing_hybrid")
    cfg["architectures"] = ["BailingMoeV2_5ForCausalLM"]
    p = "model.layers.2."
    shapes |= {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
    mla = {"q_a_proj": [8, H], "q_a_layernorm": [8], "q_b_proj": [H, 8], "kv_a_proj_with_mqa": [12, H]}
    mla |= {"kv_a_layernorm": [8], "kv_b_proj": [H, 8], "dense": [H, H]}
    shapes |= {f"{p}attention.{k}.weight": v for k, v in mla.items()}
    shapes |= {f"{p}mlp.experts.{e}.{k}.weight": [I, H] for e in range(2) for k in ("gate_proj", "up_proj")}
    shapes |= {f"{p}mlp.experts.{e}.down_proj.weight": [H, I] for e in range(2)} | {p + "mlp.gate.weight": [2, H]}
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue[p + "final_layernorm.weight"] = [H]
    shapes.update(glue)
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    return Case(
        "bailing_mtp",
        shapes,
        cfg,
        p + "final_layernorm.weight",
        "the unquantized original",
        shareable,
        glue=tuple(glue),
    )


def _nemotron_h() -> Case:
    """Nemotron-H (nemotron_h_mtp.py @01ca2773): one step of len(mtp_hybrid_override_pattern) layers mtp.layers.{j}
    ("*E": attention then MoE, under mixer.*); enorm, hnorm, eh_proj on the first, final_layernorm on the last."""
    shapes, cfg = _mtp_main("nemotron_h")
    cfg["mtp_hybrid_override_pattern"] = "*E"
    attn = {"q_proj": [H, H], "k_proj": [8, H], "v_proj": [8, H], "o_proj": [H, H]}
    shapes |= {f"mtp.layers.0.mixer.{k}.weight": v for k, v in attn.items()} | {"mtp.layers.0.norm.weight": [H]}
    shapes |= {f"mtp.layers.1.mixer.experts.{e}.up_proj.weight": [I, H] for e in range(2)}
    shapes |= {f"mtp.layers.1.mixer.experts.{e}.down_proj.weight": [H, I] for e in range(2)}
    shapes |= {"mtp.layers.1.mixer.gate.weight": [2, H], "mtp.layers.1.norm.weight": [H]}
    glue = {
        "mtp.layers.0.enorm.weight": [H],
        "mtp.layers.0.hnorm.weight": [H],
        "mtp.layers.0.eh_proj.weight": [H, 2 * H],
    }
    glue["mtp.layers.1.final_layernorm.weight"] = [H]
    shapes.update(glue)
    return Case("nemotron_h_mtp", shapes, cfg, "mtp.layers.1.final_layernorm.weight", "the original", glue=tuple(glue))


def _exaone() -> Case:
    """EXAONE MoE / 4.5 (exaone_moe_mtp.py, exaone4_5_mtp.py): Qwen3.5's mtp.fc, mtp.pre_fc_norm_*, mtp.norm and
    mtp.layers.{i}, counted by num_nextn_predict_layers."""
    shapes, cfg = _mtp_main("exaone_moe")
    glue = {"mtp.fc.weight": [H, 2 * H], "mtp.pre_fc_norm_hidden.weight": [H]}
    glue |= {"mtp.pre_fc_norm_embedding.weight": [H], "mtp.norm.weight": [H]}
    shapes |= glue | layer("mtp.layers.0.")
    return Case("exaone_mtp", shapes, cfg, "mtp.pre_fc_norm_embedding.weight", "the original", glue=tuple(glue))


def _intern_s2() -> Case:
    """Intern-S2 Preview (speculative.py @002e77c1: Qwen3_5MTP's loader, mtp_num_hidden_layers)."""
    shapes, cfg = _mtp_main("intern_s2_preview")
    cfg = {k: v for k, v in cfg.items() if k != "num_nextn_predict_layers"} | {"mtp_num_hidden_layers": 1}
    glue = {"mtp.fc.weight": [H, 2 * H], "mtp.pre_fc_norm_hidden.weight": [H]}
    glue |= {"mtp.pre_fc_norm_embedding.weight": [H], "mtp.norm.weight": [H]}
    shapes |= glue | layer("mtp.layers.0.")
    return Case("intern_s2_mtp", shapes, cfg, "mtp.pre_fc_norm_hidden.weight", "the original", glue=tuple(glue))


def _qwen3_moe() -> Case:
    """Qwen3-MoE under SGLang (qwen3_moe_mtp.py, qwen3_moe.py load_weights is_mtp): Qwen3.5's mtp.* names."""
    shapes, cfg = _mtp_main("qwen3_moe")
    glue = {"mtp.fc.weight": [H, 2 * H], "mtp.pre_fc_norm_hidden.weight": [H]}
    glue |= {"mtp.pre_fc_norm_embedding.weight": [H], "mtp.norm.weight": [H]}
    shapes |= glue | layer("mtp.layers.0.")
    return Case("qwen3_moe_mtp", shapes, cfg, "mtp.norm.weight", "the original", glue=tuple(glue))


def _deepseek_v4() -> Case:
    """DeepSeek-V4 (deepseek_v4_mtp.py @023da1fc): mtp.{i}.{enorm, hnorm, e_proj, h_proj, norm, hc_head_*} beside
    the decoder block (attn.*, ffn.*); head and emb.tok_emb are the target's."""
    shapes, cfg = _mtp_main("deepseek_v4")
    cfg["hc_mult"] = 4
    p = "mtp.0."
    shapes |= {p + "attn.wq_a.weight": [8, H], p + "attn.wkv.weight": [8, H], p + "attn_norm.weight": [H]}
    shapes |= {p + "ffn.experts.0.w1.weight": [I, H], p + "ffn.experts.0.w2.weight": [H, I], p + "ffn_norm.weight": [H]}
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "e_proj.weight": [H, H], p + "h_proj.weight": [H, H]}
    glue |= {p + "norm.weight": [H], p + "hc_head_fn": [4, 4 * H], p + "hc_head_base": [4], p + "hc_head_scale": [1]}
    shapes |= glue
    shareable = {p + "emb.tok_emb.weight": [V, H], p + "head.weight": [V, H]}
    return Case(
        "deepseek_v4_mtp", shapes, cfg, p + "h_proj.weight", "the unquantized original", shareable, glue=tuple(glue)
    )


def _kimi_k3() -> Case:
    """Kimi-K3 (vLLM KimiK3MTP): DeepSeek's glue at language_model.model.layers.{N}, num_nextn_predict_layers
    under a kimi_linear text_config, model_type kimi_k3 at the top."""
    main = {"language_model." + k: v for k, v in dense_model(2, V).items()}
    p = "language_model.model.layers.2."
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue[p + "shared_head.norm.weight"] = [H]
    shapes = main | layer(p) | glue
    text = {k: v for k, v in dense_config(2, V).items() if k != "architectures"}
    text |= {"model_type": "kimi_linear", "num_nextn_predict_layers": 1}
    cfg = {"architectures": ["KimiK3ForConditionalGeneration"], "model_type": "kimi_k3", "text_config": text}
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    return Case(
        "kimi_k3_mtp", shapes, cfg, p + "eh_proj.weight", "the unquantized original", shareable, glue=tuple(glue)
    )


def _qwen4_exp() -> Case:
    """Qwen4-Exp (vLLM Qwen4ExpMTP): mtp.fc_embedding, mtp.fc_hidden, mtp.pre_fc_norm_embedding and
    mtp.pre_fc_norm_hidden over hc_count streams ([hc_count*hidden]) before mtp.layers.{i}."""
    shapes, cfg = _mtp_main("qwen4_exp")
    cfg = {k: v for k, v in cfg.items() if k != "num_nextn_predict_layers"} | {"mtp_num_hidden_layers": 1}
    cfg["hc_count"] = 4
    glue = {"mtp.fc_embedding.weight": [H, H], "mtp.fc_hidden.weight": [H, H]}
    glue |= {"mtp.pre_fc_norm_embedding.weight": [H], "mtp.pre_fc_norm_hidden.weight": [4 * H]}
    shapes |= glue | layer("mtp.layers.0.") | {"mtp.hyper_connection_mixer.input_mix_weight_up.weight": [H, 8]}
    return Case("qwen4_exp_mtp", shapes, cfg, "mtp.fc_hidden.weight", "the original", glue=tuple(glue))


def _intern_s2_mobius() -> Case:
    """Intern-S2 Mobius (InternS2MobiusMTP, a Qwen3_5MoeMTP): Qwen3.5's mtp.* glue; its MoE layer has
    mtp_num_experts experts (here 2 beside a dense main model), so the layer is not compared with a main one."""
    case = _intern_s2()
    shapes = {k: v for k, v in case.shapes.items() if not k.startswith("mtp.layers.0.mlp.")}
    shapes |= {f"mtp.layers.0.mlp.experts.{e}.{k}.weight": [I, H] for e in range(2) for k in ("gate_proj", "up_proj")}
    shapes |= {f"mtp.layers.0.mlp.experts.{e}.down_proj.weight": [H, I] for e in range(2)}
    cfg = {**case.config, "model_type": "interns2_mobius", "mtp_num_experts": 2}
    return Case("intern_s2_mobius_mtp", shapes, cfg, "mtp.norm.weight", "the original", glue=case.glue)


def _hy_v4() -> Case:
    """HY-V4 (vLLM HYV4MTP): model.mtp_layers.{i}.{enorm, hnorm, eh_proj, final_layernorm} beside an MLA block."""
    shapes, cfg = _mtp_main("hy_v4")
    p = "model.mtp_layers.0."
    mla = {"q_a_proj": [8, H], "q_b_proj": [H, 8], "kv_a_proj_with_mqa": [12, H], "kv_b_proj": [H, 8], "o_proj": [H, H]}
    shapes |= {f"{p}self_attn.{k}.weight": v for k, v in mla.items()}
    shapes |= {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue[p + "final_layernorm.weight"] = [H]
    shapes |= glue
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    return Case("hy_v4_mtp", shapes, cfg, p + "final_layernorm.weight", "the original", shareable, glue=tuple(glue))


def _inkling() -> Case:
    """Inkling (vLLM InklingMTP): model.mtp.layers.{i}.{embed_norm, hidden_norm, input_proj} before its
    transformer_block, counted by mtp_config.num_nextn_predict_layers."""
    shapes, cfg = _mtp_main("inkling_model")
    cfg = {k: v for k, v in cfg.items() if k != "num_nextn_predict_layers"}
    cfg["mtp_config"] = {"num_nextn_predict_layers": 1, "local_layer_ids": [], "chain_hidden_post_norm": False}
    p = "model.mtp.layers.0."
    shapes |= {k.replace(p, p + "transformer_block."): v for k, v in layer(p).items()}
    glue = {p + "embed_norm.weight": [H], p + "hidden_norm.weight": [H], p + "input_proj.weight": [H, 2 * H]}
    shapes |= glue
    return Case("inkling_mtp", shapes, cfg, p + "input_proj.weight", "the original", glue=tuple(glue))


def _hy_v3() -> Case:
    """HY-V3 (hy_v3_mtp.py _rewrite_spec_layer_name): model.layers.{N}.{enorm, hnorm, eh_proj, final_layernorm}, the
    rest of the layer as a main one; its embed_tokens and shared_head.* are skipped for the main model's."""
    shapes, cfg = _mtp_main("hy_v3")
    p = "model.layers.2."
    shapes |= layer(p)
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue[p + "final_layernorm.weight"] = [H]
    shapes |= glue
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    return Case("hy_v3_mtp", shapes, cfg, p + "hnorm.weight", "the unquantized original", shareable, glue=tuple(glue))


def _eagle_target_numbered(key: str, arch: str, glue: dict[str, list[int]], body: str) -> Case:
    """EAGLE drafts whose layers are numbered after the target's (llama4_eagle.py @06bfb261, deepseek_eagle.py
    @0c58615d): the draft's own tensors are judged, its layer (here layers.2, a
    two-layer target) is not."""
    shapes = dict(glue) | {k.replace("mlp.", body): v for k, v in layer("layers.2.").items()}
    cfg = {**dense_config(1, V), "architectures": [arch]}
    share = {"embed_tokens.weight": [V, H], "lm_head.weight": [V, H]}
    return Case(key, shapes, cfg, next(iter(glue)), "the draft's publisher", share, glue=tuple(glue))


def _eagle_minicpm() -> Case:
    """EAGLE for MiniCPM (minicpm_eagle.py @04028200): model.fc, model.input_norm1/2, model.norm; its layer at
    model.eagle_layers.{target layers} (here 2) is not judged."""
    glue = {"model.fc.weight": [H, 2 * H], "model.input_norm1.weight": [H], "model.input_norm2.weight": [H]}
    shapes = glue | {"model.norm.weight": [H], **layer("model.eagle_layers.2.")}
    cfg = {**dense_config(1, V), "architectures": ["EagleMiniCPMForCausalLM"], "model_type": "minicpm"}
    share = {"model.embed_tokens.weight": [V, H]}
    return Case(
        "eagle_minicpm", shapes, cfg, "model.input_norm2.weight", "the draft's publisher", share, glue=tuple(glue)
    )


def _glm_ocr() -> Case:
    """GLM-OCR (glm_ocr_mtp.py @043a3274): DeepSeek's glue at model.language_model.layers.{N}, N and
    num_nextn_predict_layers under text_config, keyed on the top-level architecture."""
    main = {k.replace("model.", "model.language_model.", 1): v for k, v in dense_model(2, V).items()}
    p = "model.language_model.layers.2."
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    glue[p + "shared_head.norm.weight"] = [H]
    shapes = main | layer(p) | glue
    text = {k: v for k, v in dense_config(2, V).items() if k != "architectures"}
    text |= {"model_type": "glm_ocr_text", "num_nextn_predict_layers": 1}
    cfg = {"architectures": ["GlmOcrForConditionalGeneration"], "model_type": "glm_ocr", "text_config": text}
    shareable = {p + "embed_tokens.weight": [V, H], p + "shared_head.head.weight": [V, H]}
    return Case("glm_ocr_mtp", shapes, cfg, p + "enorm.weight", "the unquantized original", shareable, glue=tuple(glue))


#: DeepSeek-V2 MLA attention of an EAGLE-3 layer 0 over [embedding; hidden] (vLLM deepseek_eagle3.py @03590193:
#: DeepseekV2MLAAttention with input_size 2 * hidden for layer 0; q_lora_rank 8, kv_lora_rank 8, rope 4, nope 4, v 4,
#: 2 heads), a dense MLP, the two norms and EAGLE-3's hidden_norm.
def _eagle3_mla_layer(prefix: str) -> dict[str, list[int]]:
    t = {
        "input_layernorm.weight": [H],
        "post_attention_layernorm.weight": [H],
        "hidden_norm.weight": [H],
        "self_attn.q_a_proj.weight": [8, 2 * H],
        "self_attn.q_a_layernorm.weight": [8],
        "self_attn.q_b_proj.weight": [2 * 8, 8],
        "self_attn.kv_a_proj_with_mqa.weight": [8 + 4, 2 * H],
        "self_attn.kv_a_layernorm.weight": [8],
        "self_attn.kv_b_proj.weight": [2 * 8, 8],
        "self_attn.o_proj.weight": [H, 2 * 4],
        "mlp.gate_proj.weight": [I, H],
        "mlp.up_proj.weight": [I, H],
        "mlp.down_proj.weight": [H, I],
    }
    return {prefix + k: v for k, v in t.items()}


def _eagle3_deepseek() -> Case:
    """EAGLE-3 over DeepSeek-V2 MLA (vLLM deepseek_eagle3.py @03590193 Eagle3DeepseekV2ForCausalLM; SGLang
    kimi_k25_eagle3.py @054a1cef, the kimi-k2.5-eagle3-mla checkpoints): fc [hidden, 3*target_hidden], norm, lm_head
    [draft_vocab_size, hidden], midlayer.* (renamed layers.0.)."""
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H]}
    shapes |= _eagle3_mla_layer("midlayer.")
    cfg = {**dense_config(1, V), "architectures": ["Eagle3DeepseekV3ForCausalLM"], "model_type": "deepseek_v3"}
    cfg |= {"draft_vocab_size": V, "q_lora_rank": 8, "kv_lora_rank": 8, "qk_rope_head_dim": 4}
    cfg |= {"qk_nope_head_dim": 4, "v_head_dim": 4, "num_attention_heads": 2}
    glue = ("fc.weight", "midlayer.hidden_norm.weight")
    return Case(
        "eagle3_deepseek",
        shapes,
        cfg,
        "midlayer.self_attn.kv_b_proj.weight",
        "the draft's publisher",
        {"embed_tokens.weight": [V, H]},
        glue=glue,
    )


def _eagle_mistral() -> Case:
    """SGLang's MistralForCausalLMEagle (mistral_eagle.py @03ba820e): Mistral-native names, eagle_linear the fc
    [hidden, 2*hidden], layers.{i} with attention_norm (layer 0 included), attention.wq/wk/wv/wo, ffn_norm,
    feed_forward.w1/w2/w3, norm; tok_embeddings and output are the target's."""
    shapes: dict[str, list[int]] = {"eagle_linear.weight": [H, 2 * H], "norm.weight": [H]}
    own = {"attention_norm.weight": [H], "ffn_norm.weight": [H], "attention.wq.weight": [H, H]}
    own |= {"attention.wk.weight": [8, H], "attention.wv.weight": [8, H], "attention.wo.weight": [H, H]}
    own |= {"feed_forward.w1.weight": [I, H], "feed_forward.w3.weight": [I, H], "feed_forward.w2.weight": [H, I]}
    shapes |= {"layers.0." + k: v for k, v in own.items()}
    cfg = {**dense_config(1, V), "architectures": ["MistralForCausalLMEagle"], "model_type": "mistral"}
    return Case(
        "eagle_mistral",
        shapes,
        cfg,
        "layers.0.attention.wk.weight",
        "the draft's publisher",
        glue=("eagle_linear.weight",),
    )


def _cases() -> list[Case]:
    mimo, mimo_cfg = _mtp_main("mimo")
    m = "model.mtp_layers.0."
    mimo.update(layer(m))
    mimo.update({m + "token_layernorm.weight": [H], m + "hidden_layernorm.weight": [H]})
    mimo.update({m + "input_proj.weight": [H, 2 * H], m + "final_layernorm.weight": [H]})
    ernie, ernie_cfg = _mtp_main("ernie4_5_moe")  # ERNIE-4.5 MoE: model.mtp_{emb_norm,hidden_norm,linear_proj}.0
    ernie.update(layer("model.mtp_block.0."))
    ernie.update({"model.mtp_emb_norm.0.weight": [H], "model.mtp_hidden_norm.0.weight": [H]})
    ernie["model.mtp_linear_proj.0.weight"] = [H, 2 * H]
    eagle = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    del eagle["layers.0.input_layernorm.weight"]  # EAGLE-1 runs its first layer without input_layernorm
    eagle_cfg = {**dense_config(1, V), "architectures": ["EagleLlamaForCausalLM"]}
    eagle3 = {
        "fc.weight": [H, 3 * H],
        "norm.weight": [H],
        "lm_head.weight": [V, H],
        **layer("midlayer.", eagle3_first()),
    }
    eagle3_cfg = {**dense_config(1, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": V}
    dflash = {"fc.weight": [H, 2 * H], "hidden_norm.weight": [H], "norm.weight": [H]}
    for i in range(2):
        dflash.update(layer(f"layers.{i}.", {"self_attn.q_norm.weight": [8], "self_attn.k_norm.weight": [8]}))
    dflash_cfg = {**dense_config(2, V), "architectures": ["DFlashDraftModel"], "model_type": "qwen3"}
    dflash_cfg["dflash_config"] = {"target_layer_ids": [0, 1], "block_size": 4}
    medusa = {f"blocks.{h}.layers.0.weight": [H, H] for h in range(2)} | {
        f"lm_heads.{h}.weight": [V, H] for h in (0, 1)
    }
    medusa_cfg = {"architectures": ["MedusaModel"], "model_type": "medusa", "hidden_size": H, "num_heads": 2}
    medusa_cfg |= {"num_hidden_layers": 1, "vocab_size": V, "truncated_vocab_size": V}
    mlp: dict[str, list[int]] = {}
    for i in range(2):
        mlp |= {f"emb.{i}.weight": [V, I], f"head.{i}.weight": [V, I], f"ln.{i}.weight": [I], f"ln.{i}.bias": [I]}
        mlp[f"proj.{i}.weight"] = [I, H if i == 0 else I]
    mlp_cfg = {"architectures": ["MLPSpeculatorPreTrainedModel"], "model_type": "mlp_speculator", "n_predict": 2}
    mlp_cfg |= {"emb_dim": H, "inner_dim": I, "vocab_size": V, "tie_weights": False}
    mimo_glue = tuple(m + g for g in ("token_layernorm.weight", "hidden_layernorm.weight", "input_proj.weight"))
    ernie_glue = ("model.mtp_emb_norm.0.weight", "model.mtp_hidden_norm.0.weight", "model.mtp_linear_proj.0.weight")
    return [
        _deepseek_like("deepseek_mtp", "deepseek_v3", "deepseek-ai/DeepSeek-V3", glue=("eh_proj.weight",)),
        _deepseek_like("glm4_moe_mtp", "glm4_moe", "zai-org/GLM-4.6", glue=("shared_head.norm.weight",)),
        _deepseek_like("openpangu_mtp", "pangu_ultra_moe", "the unquantized original", glue=("hnorm.weight",)),
        _deepseek_like(
            "step3p5_mtp", "step3p5", "the unquantized original", glue=("shared_head.head.weight",), own_head=True
        ),
        _longcat(),
        _mimo_v2(),
        _bailing(),
        _nemotron_h(),
        _exaone(),
        _hy_v3(),
        _hy_v4(),
        _inkling(),
        _intern_s2(),
        _intern_s2_mobius(),
        _glm_ocr(),
        _deepseek_like("dots3_note_mtp", "dots3_note", "the unquantized original", glue=("enorm.weight",)),
        _qwen3_moe(),
        _deepseek_v4(),
        _kimi_k3(),
        _qwen4_exp(),
        _eagle_target_numbered(
            "eagle_llama4", "EagleLlama4ForCausalLM", {"fc.weight": [H, 2 * H], "norm.weight": [H]}, "feed_forward."
        ),
        _eagle_minicpm(),
        _eagle3_deepseek(),
        _eagle_mistral(),
        _eagle_target_numbered(
            "eagle_deepseek",
            "EagleDeepSeekMTPModel",
            {"fc.weight": [H, 2 * H], "enorm.weight": [H], "hnorm.weight": [H], "norm.weight": [H]},
            "mlp.",
        ),
        Case("mimo_mtp", mimo, mimo_cfg, m + "input_proj.weight", "XiaomiMiMo/MiMo-7B-RL", glue=mimo_glue),
        Case(
            "ernie_mtp",
            ernie,
            ernie_cfg,
            "model.mtp_linear_proj.0.weight",
            "baidu/ERNIE-4.5-21B-A3B-PT",
            glue=ernie_glue,
        ),
        Case(
            "eagle",
            eagle,
            eagle_cfg,
            "fc.weight",
            "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
            {"embed_tokens.weight": [V, H], "lm_head.weight": [V, H]},
            glue=("fc.weight",),
        ),
        Case(
            "eagle3",
            eagle3,
            eagle3_cfg,
            "midlayer.hidden_norm.weight",
            "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
            {"embed_tokens.weight": [V, H]},
            glue=("fc.weight", "midlayer.hidden_norm.weight"),
        ),
        Case(
            "dflash",
            dflash,
            dflash_cfg,
            "layers.1.self_attn.k_norm.weight",
            "z-lab/Qwen3-8B-DFlash-b16",
            {"embed_tokens.weight": [V, H], "lm_head.weight": [V, H]},
            glue=("fc.weight", "hidden_norm.weight"),
        ),
        Case(
            "medusa",
            medusa,
            medusa_cfg,
            "blocks.1.layers.0.weight",
            "FasterDecoding/medusa-vicuna-7b-v1.3",
            glue=("lm_heads.0.weight", "lm_heads.1.weight"),
        ),
        Case(
            "mlp_speculator",
            mlp,
            mlp_cfg,
            "proj.1.weight",
            "ibm-fms/llama3-8b-accelerator",
            glue=("proj.0.weight", "proj.1.weight"),
        ),
        Case(
            "draft_model",
            dense_model(1, V),
            dense_config(1, V),
            "model.norm.weight",
            "meta-llama/Llama-3.2-1B-Instruct",
            as_draft=True,
            glue=("model.norm.weight",),
        ),
    ]


CASES = {c.key: c for c in _cases()}


def _audit(root: Path, case: Case, tmp_path: Path):
    if case.as_draft:
        target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
        return audit_checkpoint(target, draft=root)
    return audit_checkpoint(root)


def test_every_family_in_the_table_has_a_case() -> None:
    # Qwen3.6's case is built by tests/audit/qwen36.py, Qwen3-Next's by tests/audit/test_census_rows.py
    assert set(families()) == set(CASES) | {"qwen3_5_mtp", "qwen3_next_mtp"}


@pytest.mark.parametrize("key", sorted(CASES))
def test_complete_checkpoint_is_clean_and_named(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    r = _audit(write(tmp_path / key, case.shapes, case.config), case, tmp_path)
    assert r.errors == [], [(f.code, f.message) for f in r.errors]
    facts = r.facts["draft"]["draft_family"] if case.as_draft else r.facts.get("mtp") or r.facts["draft_family"]
    assert facts["family"] == key


@pytest.mark.parametrize("key", sorted(CASES))
def test_missing_required_tensor_is_an_error_naming_the_tensor_and_the_source(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    shapes = {n: s for n, s in case.shapes.items() if n != case.drop}
    r = _audit(write(tmp_path / key, shapes, case.config), case, tmp_path)
    (f,) = [f for f in r.errors if f.code in ("MTP_INCOMPLETE", "DRAFT_TENSORS_MISSING")]
    assert case.drop in f.message and case.drop in f.fix and case.source in f.fix, f.fix
    others = {n for k, c in CASES.items() if k != key for n in c.shapes if n not in case.shapes}
    assert not [n for n in others if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w.])", f.fix)], f.fix
    if families()[key].kind == "mtp":
        assert "specscope surgery graft" in f.fix and "Qwen" not in f.fix and "mtp.fc.weight" not in f.fix


@pytest.mark.parametrize("key", sorted(CASES))
def test_glue_removed_exits_1_naming_every_removed_tensor(tmp_path: Path, key: str) -> None:
    """The census's Done-when: a complete checkpoint exits 0 (above); without its glue, exit 1 naming each tensor."""
    case = CASES[key]
    assert case.glue and set(case.glue) <= set(case.shapes), key
    shapes = {n: s for n, s in case.shapes.items() if n not in case.glue}
    r = _audit(write(tmp_path / key, shapes, case.config), case, tmp_path)
    assert r.exit_code == 1
    (f,) = [f for f in r.errors if f.code in ("MTP_INCOMPLETE", "DRAFT_TENSORS_MISSING")]
    assert [g for g in case.glue if g not in f.message] == [], f.message


@pytest.mark.parametrize("key", sorted(k for k, c in CASES.items() if c.shareable))
def test_shareable_tensors_omitted_or_copied_give_no_finding(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    assert not set(case.shareable) & set(case.shapes)  # the complete case omits them
    r = _audit(write(tmp_path / key, {**case.shapes, **case.shareable}, case.config), case, tmp_path)
    assert r.errors == [] and r.warnings == []
    shared = (r.facts.get("mtp") or r.facts["draft_family"])["shared_with_target"]
    assert set(case.shareable) <= set(shared)


def test_dots3_full_head_sharing_requires_one_layer(tmp_path: Path) -> None:
    """dots3 note with mtp_head_sharing "full" (Dots3NoteMultiTokenPredictor builds only layer N): three declared
    steps, one stored layer: complete. Without the sharing, layers N+1 and N+2 are missing."""
    case = CASES["dots3_note_mtp"]
    cfg = {**case.config, "num_nextn_predict_layers": 3, "mtp_head_sharing": "full"}
    r = audit_checkpoint(write(tmp_path / "one-layer", case.shapes, cfg))
    assert r.findings == [] and r.facts["mtp"]["layers"] == 1, [(f.code, f.message) for f in r.findings]
    r = audit_checkpoint(write(tmp_path / "own", case.shapes, {**cfg, "mtp_head_sharing": "none"}))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and "model.layers.3.enorm.weight" in f.message
    assert "model.layers.4.enorm.weight" in f.message


def test_glm_layer_missing_its_glue_says_which_part_is_missing(tmp_path: Path) -> None:
    """The issue's GLM case: the decoder layer is there, the MTP-specific tensors are not."""
    case = CASES["glm4_moe_mtp"]
    glue = {"enorm.weight", "hnorm.weight", "eh_proj.weight"}
    shapes = {n: s for n, s in case.shapes.items() if n.removeprefix("model.layers.2.") not in glue}
    r = audit_checkpoint(write(tmp_path / "glm", shapes, case.config))
    (f,) = r.errors
    assert f.message == (
        "config declares 1 GLM-4.5 / GLM-4.6 / GLM-4.7 / GLM-5 MTP layer(s); 10 of 13 expected tensors present "
        "(MTP-specific: 1 of 4 (missing model.layers.2.enorm.weight, model.layers.2.hnorm.weight, "
        "model.layers.2.eh_proj.weight); decoder layer 0 (as main layer 1): 9 of 9); missing: "
        "model.layers.2.enorm.weight, model.layers.2.hnorm.weight, model.layers.2.eh_proj.weight"
    )
    assert f.fix.startswith("take model.layers.2.enorm.weight from the unquantized original release of this model")
    assert f"`specscope surgery graft {tmp_path / 'glm'} --from BF16_ORIGINAL --prefix model.layers.2. --out " in f.fix


def test_qwen36_missing_fc_fix_names_mtp_fc_and_the_qwen_source(tmp_path: Path) -> None:
    r = audit_checkpoint(build_qwen36(tmp_path / "ck", with_fc=False))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and "mtp.fc.weight" in f.fix and "Qwen/Qwen3.6-27B" in f.fix
    assert "--prefix mtp." in f.fix
    assert "MTP-specific: 3 of 4 (missing mtp.fc.weight); decoder layer 0 (as main layer 3): 11 of 11" in f.message


def test_docs_table_names_every_family_and_its_source() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "architectures.md").read_text()
    for key, fam in families().items():
        assert f"`{key}`" in doc, key
        assert fam.source_example.split(" (")[0].split(" for ")[0] in doc, key

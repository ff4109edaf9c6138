"""Round 61 of the new-user checkpoint hunt (issue 36): layouts the census judged wrongly, audited the way a user runs
``specscope audit TARGET --draft DRAFT``, with the loader's own tensor names (shapes shrunk to ``H``).

- SGLang's MistralForCausalLMEagle (mistral_eagle.py @03ba820e) stored under Hugging Face names (``model.fc``,
  ``model.layers.{i}.self_attn.q_proj`` ...): its loader passes a name under ``model.`` / ``lm_head.`` through as
  spelled to LlamaForCausalLM.load_weights, so both spellings load; the HF one was DRAFT_TENSORS_MISSING asking for
  ``eagle_linear.weight`` (exit 1).
- EAGLE-3 over MLA (eagle3_deepseek): SGLang's legacy ``use_aux_norm`` (read as ``fc_norm``), the query side by
  ``q_lora_rank``, layer 0's q_a / kv_a projections over 2 * hidden; EAGLE-3 layers after the first over hidden.
- Plain draft models judged by their architecture's known block (Llama / Qwen2 / Mistral / Gemma-3 / OLMo-2 ...), an
  unknown block from its own layers with DRAFT_FORMAT_UNKNOWN/own-layers; AWQ / GPTQ drafts with a BF16 lm_head.
- Checked right and not kept as tests (header-only, shapes shrunk): GLM-4.5-Air MoE MTP (complete, one expert or
  eh_proj removed), DeepSeek-V3 block-FP8 MTP, DeepSeek ModelOpt FP8 with the MTP layer excluded / not excluded,
  Qwen3-Next MoE MTP (complete, a shared-expert tensor removed), Qwen3.5-MoE compressed-tensors NVFP4 with
  ``re:.*mtp.*`` ignored, ERNIE-4.5 MoE MTP, Step-3.5 with 3 MTP layers, Kimi-K2 with 0 layers, GLM-4.6 with its MTP
  layer dropped, EAGLE-3 with draft_vocab_size == vocab_size (with / without lm_head), EAGLE-3 norm_before_fc,
  SGLang's Qwen2 EAGLE with fc.bias, Phi-3 drafts with fused qkv / gate_up (complete and stripped), a tied Llama
  draft, Medusa heads under medusa_heads.*, Qwen2.5-VL and Qwen3-MoE given as drafts.
- Left: vLLM's ``cross_vocab_method`` is not in vllm/config/speculative.py @002e77c1 (only
  ``use_heterogeneous_vocab``, which DRAFT_VOCAB_SIZE_DIFFERS's fix already names).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write
from .test_families import V


def _draft_pair(tmp_path: Path, d_shapes: dict, d_cfg: dict, t_shapes: dict | None = None, t_cfg: dict | None = None):
    target = write(tmp_path / "target", t_shapes or dense_model(2, V), t_cfg or dense_config(2, V))
    return audit_checkpoint(target, draft=write(tmp_path / "draft", d_shapes, d_cfg))


def _errors(r) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in r.errors]


MISTRAL_CFG = {**dense_config(1, V), "architectures": ["MistralForCausalLMEagle"], "model_type": "mistral"}


def _mistral_hf() -> dict[str, list[int]]:
    """The Mistral EAGLE draft in the names SGLang's remapping produces: model.fc, model.norm, Llama's layer."""
    return {"model.fc.weight": [H, 2 * H], "model.norm.weight": [H], **layer("model.layers.0.")}


def test_mistral_eagle_in_hugging_face_names_is_complete(tmp_path: Path) -> None:
    r = _draft_pair(tmp_path, _mistral_hf(), MISTRAL_CFG)
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    assert r.facts["draft"]["draft_family"]["family"] == "eagle_mistral"


def test_mistral_eagle_in_hugging_face_names_missing_names_are_spelled_so(tmp_path: Path) -> None:
    shapes = _mistral_hf()
    del shapes["model.layers.0.mlp.up_proj.weight"]
    del shapes["model.fc.weight"]
    r = _draft_pair(tmp_path, shapes, MISTRAL_CFG)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING", _errors(r)
    assert "missing: model.fc.weight, model.layers.0.mlp.up_proj.weight" in f.message, f.message


def test_mistral_eagle_in_hugging_face_names_fc_width(tmp_path: Path) -> None:
    r = _draft_pair(tmp_path, {**_mistral_hf(), "model.fc.weight": [H, H]}, MISTRAL_CFG)
    assert [f.code for f in r.errors] == ["DRAFT_FC_SHAPE"] and "model.fc.weight" in r.errors[0].message, _errors(r)


# EAGLE-3 over MLA (eagle3_deepseek): SGLang kimi_k25_eagle3.py @054a1cef builds fc_norm.{i} with ``fc_norm`` or its
# legacy ``use_aux_norm``; vLLM deepseek_eagle3.py @03590193 reads ``fc_norm`` alone (AutoWeightsLoader then raises on a
# stored fc_norm.{i} it built no parameter for).
def _mla():
    from .test_families import CASES

    return CASES["eagle3_deepseek"]


FC_NORMS = {f"fc_norm.{i}.weight": [H] for i in range(3)}


def test_eagle3_mla_use_aux_norm_declares_the_fc_norms(tmp_path: Path) -> None:
    case = _mla()
    r = _draft_pair(tmp_path, {**case.shapes, **FC_NORMS}, {**case.config, "use_aux_norm": True})
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    (w,) = [f for f in r.warnings if f.code == "EAGLE3_AUX_NORM_KEY"]
    assert "use_aux_norm" in w.message and "fc_norm" in (w.fix or ""), w.message
    r = _draft_pair(tmp_path / "absent", case.shapes, {**case.config, "use_aux_norm": True})
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "fc_norm.0.weight" in f.message, _errors(r)


def test_eagle3_mla_fc_norm_declared_needs_no_legacy_warning(tmp_path: Path) -> None:
    case = _mla()
    cfg = {**case.config, "use_aux_norm": True, "fc_norm": True}
    r = _draft_pair(tmp_path, {**case.shapes, **FC_NORMS}, cfg)
    assert r.errors == [] and [f for f in r.warnings if f.code == "EAGLE3_AUX_NORM_KEY"] == [], _errors(r)


# MLA's query side (vLLM deepseek_v2.py DeepseekV2MLAAttention, SGLang deepseek_v2.py): q_lora_rank set builds
# q_a_proj / q_a_layernorm / q_b_proj, unset (null) builds q_proj.
def test_eagle3_mla_query_projections_follow_q_lora_rank(tmp_path: Path) -> None:
    case = _mla()
    shapes = dict(case.shapes)
    del shapes["midlayer.self_attn.q_b_proj.weight"]
    r = _draft_pair(tmp_path, shapes, case.config)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "midlayer.self_attn.q_b_proj.weight" in f.message, _errors(r)
    plain = {k: v for k, v in case.shapes.items() if ".q_a_" not in k and ".q_b_" not in k}
    plain["midlayer.self_attn.q_proj.weight"] = [8, 2 * H]
    r = _draft_pair(tmp_path / "plain", plain, {**case.config, "q_lora_rank": None})
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    del plain["midlayer.self_attn.q_proj.weight"]
    r = _draft_pair(tmp_path / "none", plain, {**case.config, "q_lora_rank": None})
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "midlayer.self_attn.q_proj.weight" in f.message, _errors(r)


# A plain draft model (vLLM draft_model.py runs it whole with its registered architecture): an architecture whose
# block the census knows (architectures.toml draft_model block_layouts, from the vLLM registry @0002bff0 and each
# model file) is judged by that block; only an unknown one is judged from its own layers, with a named warning.
def _stripped(arch: str, model_type: str, name: str) -> tuple[dict, dict]:
    shapes = dense_model(2, V)
    for i in range(2):
        del shapes[f"model.layers.{i}.{name}"]
    return shapes, dense_config(2, V, architectures=[arch], model_type=model_type)


@pytest.mark.parametrize(
    ("arch", "model_type"),
    [("LlamaForCausalLM", "llama"), ("Qwen2ForCausalLM", "qwen2"), ("MistralForCausalLM", "mistral")],
)
def test_a_known_block_missing_a_tensor_in_every_layer_is_missing(tmp_path: Path, arch: str, model_type: str) -> None:
    """Was exit 0: the layers were checked against each other only, so a name every layer lacks passed."""
    shapes, cfg = _stripped(arch, model_type, "mlp.up_proj.weight")
    r = _draft_pair(tmp_path, shapes, cfg)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and r.exit_code == 1, _errors(r)
    assert "model.layers.0.mlp.up_proj.weight" in f.message and "model.layers.1.mlp.up_proj.weight" in f.message


def test_an_olmo2_draft_without_its_post_feedforward_norms_is_missing_them(tmp_path: Path) -> None:
    from .test_hunt60 import OWN_LAYER_DRAFTS

    shapes, cfg = OWN_LAYER_DRAFTS["olmo2"](2)
    t_shapes, t_cfg = OWN_LAYER_DRAFTS["olmo2"](3)
    for i in range(2):
        del shapes[f"model.layers.{i}.post_feedforward_layernorm.weight"]
    r = _draft_pair(tmp_path, shapes, cfg, t_shapes, t_cfg)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "model.layers.0.post_feedforward_layernorm.weight" in f.message


def test_an_unknown_block_judged_from_its_own_layers_is_named(tmp_path: Path) -> None:
    """OrionForCausalLM (orion.py) is registered but its block is not in the census (SeedOss was, until round 62): a
    Llama name no layer holds is taken as the architecture's, and the warning says so by name."""
    shapes, cfg = _stripped("OrionForCausalLM", "orion", "input_layernorm.weight")
    r = _draft_pair(tmp_path, shapes, cfg)
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    (w,) = [f for f in r.warnings if f.code == "DRAFT_FORMAT_UNKNOWN"]
    assert w.details["kind"] == "own-layers" and r.facts["draft"]["draft_family"]["family"] == "draft_model"
    assert "OrionForCausalLM" in w.message and "input_layernorm.weight" in w.message, w.message
    shapes, cfg = _stripped("LlamaForCausalLM", "llama", "input_layernorm.weight")
    r = _draft_pair(tmp_path / "llama", shapes, cfg)
    assert [f.code for f in r.errors] == ["DRAFT_TENSORS_MISSING"], _errors(r)


def _gemma3(layers: int, drop: str = "") -> tuple[dict[str, list[int]], dict]:
    """vLLM gemma3.py @004dc924 Gemma3DecoderLayer: four norms, q/k/v/o with q_norm / k_norm, gate/up/down; tied."""
    shapes: dict[str, list[int]] = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H]}
    for i in range(layers):
        p = f"model.layers.{i}."
        norms = ("pre_feedforward_layernorm.weight", "post_feedforward_layernorm.weight")
        shapes |= layer(p) | {p + n: [H] for n in norms}
        shapes |= {p + "self_attn.q_norm.weight": [8], p + "self_attn.k_norm.weight": [8]}
        shapes.pop(p + drop, None)
    cfg = dense_config(layers, V, architectures=["Gemma3ForCausalLM"], model_type="gemma3_text")
    return shapes, cfg | {"tie_word_embeddings": True}


def test_a_gemma3_draft_is_judged_by_its_block(tmp_path: Path) -> None:
    """A Gemma-3 draft without pre_feedforward_layernorm in any layer passed with exit 0 (not a Llama name, so the
    own-layers check could not see it)."""
    r = _draft_pair(tmp_path, *_gemma3(2), *_gemma3(3))
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    r = _draft_pair(tmp_path / "strip", *_gemma3(2, "pre_feedforward_layernorm.weight"), *_gemma3(3))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "model.layers.1.pre_feedforward_layernorm.weight" in f.message


def test_eagle3_mla_first_layer_attends_over_embedding_and_hidden(tmp_path: Path) -> None:
    """SGLang kimi_k25_eagle3.py @054a1cef rebuilds fused_qkv_a_proj_with_mqa (q_a_proj + kv_a_proj_with_mqa) over
    2 * hidden_size, as vLLM deepseek_eagle3.py @03590193 builds layer 0's MLA over [embedding; hidden]: a projection
    over hidden_size alone fails the load (it passed with exit 0)."""
    case = _mla()
    shapes = {**case.shapes, "midlayer.self_attn.q_a_proj.weight": [8, H]}
    shapes["midlayer.self_attn.kv_a_proj_with_mqa.weight"] = [12, H]
    r = _draft_pair(tmp_path, shapes, case.config)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSOR_SHAPE" and "midlayer.self_attn.q_a_proj.weight" in f.message, _errors(r)
    assert "midlayer.self_attn.kv_a_proj_with_mqa.weight" in f.message


def test_eagle3_later_layers_attend_over_hidden_only(tmp_path: Path) -> None:
    """vLLM llama_eagle3.py (``qkv_input_size = 2 * self.hidden_size if layer_idx == 0 else self.hidden_size``): a
    two-layer EAGLE-3 draft whose layer 1 q_proj takes 2 * hidden_size fails the load (it passed with exit 0)."""
    from .ckmaker import eagle3_first
    from .test_families import CASES

    cfg = {**CASES["eagle3"].config, "num_hidden_layers": 2}
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H]}
    shapes |= layer("layers.0.", eagle3_first()) | layer("layers.1.")
    target = (dense_model(4, V), dense_config(4, V))
    r = _draft_pair(tmp_path, shapes, cfg, *target)
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    r = _draft_pair(tmp_path / "wide", {**shapes, "layers.1.self_attn.q_proj.weight": [H, 2 * H]}, cfg, *target)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSOR_SHAPE" and "layers.1.self_attn.q_proj.weight" in f.message, _errors(r)


def _awq_draft(method: str, **qc: object) -> tuple[dict[str, list[int]], dict]:
    """A Llama draft in AutoAWQ / GPTQ's packed names (qweight, qzeros, scales), lm_head and norms in BF16."""
    shapes: dict[str, list[int]] = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H]}
    shapes["lm_head.weight"] = [V, H]
    modules = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj")
    modules += ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
    for i in range(2):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
        for m in modules:
            shapes |= {f"{p}{m}.qweight": [H, 2], f"{p}{m}.qzeros": [1, 2], f"{p}{m}.scales": [1, H]}
    config = {"quant_method": method, "bits": 4, "group_size": 128, **qc}
    return shapes, dense_config(2, V, quantization_config=config)


@pytest.mark.parametrize("method", ["awq", "gptq"])
def test_a_4bit_draft_keeps_its_lm_head_unquantized(tmp_path: Path, method: str) -> None:
    """vLLM awq_marlin.py @0322f292 / gptq_marlin.py @00161ce0 (what awq / gptq checkpoints run as on CUDA) quantize
    ParallelLMHead only with the config's ``lm_head`` true: a BF16 lm_head beside AWQ / GPTQ layers is what AutoAWQ and
    GPTQModel publish; it was MTP_UNQUANTIZED_NOT_EXCLUDED (exit 1)."""
    r = _draft_pair(tmp_path, *_awq_draft(method))
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    r = _draft_pair(tmp_path / "lm_head", *_awq_draft(method, lm_head=True))
    assert [f.code for f in r.errors] == ["MTP_UNQUANTIZED_NOT_EXCLUDED"], _errors(r)
    assert "lm_head" in r.errors[0].message


def _block_rows() -> list[tuple[str, tuple[str, ...]]]:
    from specscope.audit.architectures import family

    return list(family("draft_model").block_layouts)


@pytest.mark.parametrize(("arch", "block"), _block_rows(), ids=[a for a, _ in _block_rows()])
def test_every_known_block_row(tmp_path: Path, arch: str, block: tuple[str, ...]) -> None:
    """Each row of the draft_model block census: a draft holding the block in every layer (a MoE architecture's
    sparse layers their router and experts: block_moe, test_hunt64.py) exits 0; the layer's last name removed from
    every layer is DRAFT_TENSORS_MISSING naming it."""

    from specscope.audit.architectures import family, moe_layer_block, with_draft_head

    fam = with_draft_head(family("draft_model"), {"architectures": [arch]})  # its head (block_heads) or Llama's
    prefix = fam.layer_prefix.replace("{head}", fam.head_prefix)
    cfg = dense_config(2, V, architectures=[arch], model_type=arch.lower()) | {"tie_word_embeddings": True}
    last = (moe_layer_block(fam, cfg, 1, block) or block)[-1]

    def make(layers: int, drop: str = "") -> tuple[dict[str, list[int]], dict]:
        shapes: dict[str, list[int]] = {fam.head_prefix + n: ([H] if "norm" in n else [V, H]) for n in fam.head}
        c = cfg | {"num_hidden_layers": layers, fam.layers_key: layers}
        for i in range(layers):
            names = moe_layer_block(fam, c, i, block) or block
            shapes |= {prefix.format(i=i) + n: ([H] if "norm" in n else [H, H]) for n in names if n != drop}
        return shapes, c

    r = _draft_pair(tmp_path, *make(2), *make(3))
    assert r.errors == [] and r.exit_code == 0, _errors(r)
    assert [f for f in r.warnings if f.code == "DRAFT_FORMAT_UNKNOWN"] == []
    r = _draft_pair(tmp_path / "strip", *make(2, last), *make(3))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and prefix.format(i=1) + last in f.message, _errors(r)

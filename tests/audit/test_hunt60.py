"""Round 60 of the new-user checkpoint hunt (issue 36): draft layouts the census did not hold, audited the way a user
runs ``specscope audit TARGET --draft DRAFT``, with the loader's own tensor names (shapes shrunk to ``H``).

- EAGLE-3 over DeepSeek-V2 MLA (vLLM deepseek_eagle3.py @03590193, SGLang kimi_k25_eagle3.py @054a1cef) and SGLang's
  Mistral-native EAGLE (mistral_eagle.py @03ba820e): census rows ``eagle3_deepseek`` / ``eagle_mistral``; their
  complete / glue-removed cases live in tests/audit/test_families.py, the shape rules they share with EAGLE-3 here.
- Small causal LMs used as ``--draft`` (vLLM draft_model.py runs them whole with their own loader): Phi-2
  (phi.py: model.final_layernorm, mlp.fc1 / fc2, self_attn.dense), Phi-3 (phi3: fused qkv_proj / gate_up_proj),
  Gemma-2 (four norms a layer, tied embeddings), OPT (decoder.* and model.decoder.*), Qwen2.5 (q/k/v biases, tied),
  Granite-4.0-H (Mamba-2 / attention layers with shared_mlp.*: it was judged as Llama, asking for mlp.gate_proj),
  OLMo-2 / EXAONE-4 (no input_layernorm), Cohere2 (no post_attention_layernorm), Starcoder2 (mlp.c_fc / c_proj),
  Baichuan (self_attn.W_pack): all were DRAFT_TENSORS_MISSING for Llama names their loaders never build; InternLM2
  (attention.wqkv, feed_forward.*, model.tok_embeddings) asked for model.embed_tokens.
- Checked right and not kept as tests (header-only hunts at published shapes): NVIDIA's Llama-4-Maverick and
  gpt-oss-120b EAGLE-3 drafts, Eagle3Qwen3vl on Qwen3-VL, the granite-3.0 MLP speculator (tied and untied),
  Medusa-2 with 2 layers a head, Qwen3.5-MoE / Qwen3-Next / Ling-flash-2.0 / ERNIE-4.5-300B MTP heads, Qwen3-MoE,
  gpt-oss-20b and Mixtral drafts, and the vocab_size refusals (Qwen2.5-0.5B for 7B, gemma-3-1b for 4b).
  Each complete draft exits 0, or carries the named DRAFT_FORMAT_UNKNOWN/own-layout warning when no rule knows its
  layout; never another family's missing-tensor error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, I, dense_config, dense_model, write
from .test_families import CASES, V


def _draft_pair(tmp_path: Path, d_shapes: dict, d_cfg: dict, t_shapes: dict | None = None, t_cfg: dict | None = None):
    target = write(tmp_path / "target", t_shapes or dense_model(2, V), t_cfg or dense_config(2, V))
    return audit_checkpoint(target, draft=write(tmp_path / "draft", d_shapes, d_cfg))


def test_eagle3_deepseek_fc_width_is_n_aux_times_the_targets_hidden(tmp_path: Path) -> None:
    """vLLM deepseek_eagle3.py @03590193 builds fc [hidden, target_hidden * n_aux] (n_aux 3 when nothing declares
    it): an EAGLE-1-width fc [hidden, 2*hidden] fails the load."""
    case = CASES["eagle3_deepseek"]
    r = _draft_pair(tmp_path, {**case.shapes, "fc.weight": [H, 2 * H]}, case.config)
    (f,) = r.errors
    assert f.code == "DRAFT_FC_SHAPE" and "fc.weight" in f.message and str(3 * H) in f.message, f.message


def test_eagle3_deepseek_declared_fc_norm_is_required(tmp_path: Path) -> None:
    """``fc_norm`` true: one RMSNorm [target_hidden] per auxiliary state (deepseek_eagle3.py @03590193, SGLang
    kimi_k25_eagle3.py @054a1cef, the eagle3.1 layout); a draft without them is missing them."""
    case = CASES["eagle3_deepseek"]
    r = _draft_pair(tmp_path, case.shapes, {**case.config, "fc_norm": True})
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "missing: fc_norm.0.weight, fc_norm.1.weight, fc_norm.2.weight" in (
        f.message
    )
    norms = {f"fc_norm.{i}.weight": [H] for i in range(3)}
    r = _draft_pair(tmp_path / "with", {**case.shapes, **norms}, {**case.config, "fc_norm": True})
    assert r.errors == [], [(f.code, f.message) for f in r.errors]


def test_eagle_mistral_fusion_width(tmp_path: Path) -> None:
    """SGLang mistral_eagle.py @03ba820e: eagle_linear is fc [hidden, 2*hidden]."""
    case = CASES["eagle_mistral"]
    r = _draft_pair(tmp_path, {**case.shapes, "eagle_linear.weight": [H, H]}, case.config)
    assert [f.code for f in r.errors] == ["DRAFT_FC_SHAPE"], [(f.code, f.message) for f in r.errors]
    assert "eagle_linear.weight" in r.errors[0].message


def _phi2(layers: int) -> tuple[dict[str, list[int]], dict]:
    """microsoft/phi-2 as transformers / vLLM phi.py name it: model.final_layernorm (weight and bias), layers of
    input_layernorm, self_attn.{q,k,v}_proj and self_attn.dense with biases, mlp.fc1 / fc2; lm_head with a bias."""
    shapes = {"model.embed_tokens.weight": [V, H], "model.final_layernorm.weight": [H]}
    shapes |= {"model.final_layernorm.bias": [H], "lm_head.weight": [V, H], "lm_head.bias": [V]}
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": [H], p + "input_layernorm.bias": [H]}
        for x in ("q_proj", "k_proj", "v_proj", "dense"):
            shapes |= {f"{p}self_attn.{x}.weight": [H, H], f"{p}self_attn.{x}.bias": [H]}
        shapes |= {p + "mlp.fc1.weight": [I, H], p + "mlp.fc1.bias": [I], p + "mlp.fc2.weight": [H, I]}
        shapes[p + "mlp.fc2.bias"] = [H]
    cfg = {"architectures": ["PhiForCausalLM"], "model_type": "phi", "hidden_size": H, "vocab_size": V}
    return shapes, cfg | {"num_hidden_layers": layers, "intermediate_size": I, "tie_word_embeddings": False}


def _phi3(layers: int) -> tuple[dict[str, list[int]], dict]:
    """Phi-3 (vLLM phi3 over llama.py with fused spellings): model.norm, qkv_proj, o_proj, gate_up_proj, down_proj."""
    shapes = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H], "lm_head.weight": [V, H]}
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
        shapes |= {p + "self_attn.qkv_proj.weight": [3 * H, H], p + "self_attn.o_proj.weight": [H, H]}
        shapes |= {p + "mlp.gate_up_proj.weight": [2 * I, H], p + "mlp.down_proj.weight": [H, I]}
    cfg = {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": H, "vocab_size": V}
    return shapes, cfg | {"num_hidden_layers": layers, "intermediate_size": I, "tie_word_embeddings": False}


def _gemma2(layers: int) -> tuple[dict[str, list[int]], dict]:
    """google/gemma-2-2b: four norms a layer (input, post_attention, pre_feedforward, post_feedforward), tied."""
    shapes = dense_model(layers, V)
    del shapes["lm_head.weight"]
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes |= {p + "pre_feedforward_layernorm.weight": [H], p + "post_feedforward_layernorm.weight": [H]}
    cfg = dense_config(layers, V, architectures=["Gemma2ForCausalLM"], model_type="gemma2", tie_word_embeddings=True)
    return shapes, cfg


def _opt(layers: int, prefix: str = "") -> tuple[dict[str, list[int]], dict]:
    """facebook/opt-125m: decoder.* (as its checkpoint stores them; model.decoder.* in a re-export), learned
    positions, biased projections, fc1 / fc2, final_layer_norm; tied."""
    d = prefix + "decoder."
    shapes = {d + "embed_tokens.weight": [V, H], d + "embed_positions.weight": [66, H]}
    shapes |= {d + "final_layer_norm.weight": [H], d + "final_layer_norm.bias": [H]}
    for i in range(layers):
        p = f"{d}layers.{i}."
        for x in ("q_proj", "k_proj", "v_proj", "out_proj"):
            shapes |= {f"{p}self_attn.{x}.weight": [H, H], f"{p}self_attn.{x}.bias": [H]}
        for n in ("self_attn_layer_norm", "final_layer_norm"):
            shapes |= {f"{p}{n}.weight": [H], f"{p}{n}.bias": [H]}
        shapes |= {p + "fc1.weight": [I, H], p + "fc1.bias": [I], p + "fc2.weight": [H, I], p + "fc2.bias": [H]}
    cfg = {"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": H, "vocab_size": V}
    return shapes, cfg | {"num_hidden_layers": layers, "ffn_dim": I, "tie_word_embeddings": True}


def _qwen25(layers: int) -> tuple[dict[str, list[int]], dict]:
    """Qwen/Qwen2.5-0.5B: the Llama layout with q/k/v biases and tied embeddings."""
    shapes = dense_model(layers, V)
    del shapes["lm_head.weight"]
    for i in range(layers):
        shapes |= {f"model.layers.{i}.self_attn.{x}_proj.bias": [H if x == "q" else 8] for x in "qkv"}
    cfg = dense_config(layers, V, architectures=["Qwen2ForCausalLM"], model_type="qwen2", tie_word_embeddings=True)
    return shapes, cfg


def _granite4h(layers: int) -> tuple[dict[str, list[int]], dict]:
    """ibm-granite/granite-4.0-h-micro (GraniteMoeHybridForCausalLM, dense): Mamba-2 layers (mamba.*) and attention
    layers, each with shared_mlp.input_linear [2*shared_intermediate, hidden] / output_linear (vLLM
    granitemoehybrid.py GraniteMoeSharedMLP), model.norm, tied embeddings."""
    shapes = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H]}
    kinds = ["mamba"] * (layers - 1) + ["attention"]
    for i, kind in enumerate(kinds):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
        shapes |= {p + "shared_mlp.input_linear.weight": [2 * I, H], p + "shared_mlp.output_linear.weight": [H, I]}
        if kind == "mamba":
            shapes |= {p + "mamba.in_proj.weight": [4 * H, H], p + "mamba.out_proj.weight": [H, 2 * H]}
            shapes |= {p + "mamba.A_log": [4], p + "mamba.D": [4], p + "mamba.dt_bias": [4]}
        else:
            shapes |= {f"{p}self_attn.{x}_proj.weight": [H, H] for x in "qkvo"}
    cfg = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": H}
    cfg |= {"vocab_size": V, "num_hidden_layers": layers, "layer_types": kinds}
    return shapes, cfg | {"tie_word_embeddings": True}


def _attn(p: str, bias: bool = False) -> dict[str, list[int]]:
    out = {f"{p}self_attn.{x}_proj.weight": [H if x in "qo" else 8, H] for x in "qkvo"}
    return out | ({f"{p}self_attn.{x}_proj.bias": [H if x in "qo" else 8] for x in "qkvo"} if bias else {})


def _gated_mlp(p: str) -> dict[str, list[int]]:
    return {p + "mlp.gate_proj.weight": [I, H], p + "mlp.up_proj.weight": [I, H], p + "mlp.down_proj.weight": [H, I]}


def _own_layers(arch: str, model_type: str, layer, head: dict | None = None):
    """A causal LM of ``layers`` layers built by ``layer(prefix)``, model.embed_tokens / model.norm (or ``head``)."""

    def make(layers: int) -> tuple[dict[str, list[int]], dict]:
        shapes = dict(head or {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H]})
        for i in range(layers):
            shapes |= layer(f"model.layers.{i}.")
        cfg = {"architectures": [arch], "model_type": model_type, "hidden_size": H, "vocab_size": V}
        return shapes, cfg | {"num_hidden_layers": layers, "tie_word_embeddings": True}

    return make


#: Layers whose norms or projections are not Llama's, from each loader's names (vLLM olmo2.py: no input_layernorm,
#: post_attention_layernorm and post_feedforward_layernorm after the blocks; exaone4.py likewise; commandr.py: one
#: input_layernorm, attention and MLP in parallel; starcoder2.py: mlp.c_fc / c_proj; baichuan.py: self_attn.W_pack;
#: internlm2.py: model.tok_embeddings, attention.wqkv / wo, feed_forward.w1-3, attention_norm / ffn_norm, output).
def _post_norms(p: str) -> dict[str, list[int]]:
    norms = {p + "post_attention_layernorm.weight": [H], p + "post_feedforward_layernorm.weight": [H]}
    return _attn(p) | _gated_mlp(p) | norms | {p + "self_attn.q_norm.weight": [H], p + "self_attn.k_norm.weight": [8]}


def _starcoder2(p: str) -> dict[str, list[int]]:
    norms = {p + f"{n}.{x}": [H] for n in ("input_layernorm", "post_attention_layernorm") for x in ("weight", "bias")}
    mlp = {p + "mlp.c_fc.weight": [I, H], p + "mlp.c_fc.bias": [I], p + "mlp.c_proj.weight": [H, I]}
    return _attn(p, bias=True) | norms | mlp | {p + "mlp.c_proj.bias": [H]}


def _internlm2(p: str) -> dict[str, list[int]]:
    out = {p + "attention_norm.weight": [H], p + "ffn_norm.weight": [H], p + "attention.wqkv.weight": [H + 16, H]}
    out |= {
        p + "attention.wo.weight": [H, H],
        p + "feed_forward.w1.weight": [I, H],
        p + "feed_forward.w3.weight": [I, H],
    }
    return out | {p + "feed_forward.w2.weight": [H, I]}


def _baichuan(p: str) -> dict[str, list[int]]:
    norms = {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
    return norms | _gated_mlp(p) | {p + "self_attn.W_pack.weight": [3 * H, H], p + "self_attn.o_proj.weight": [H, H]}


OWN_LAYER_DRAFTS = {
    "olmo2": _own_layers("Olmo2ForCausalLM", "olmo2", _post_norms),
    "exaone4": _own_layers("Exaone4ForCausalLM", "exaone4", _post_norms),
    "cohere2": _own_layers(
        "Cohere2ForCausalLM", "cohere2", lambda p: _attn(p) | _gated_mlp(p) | {p + "input_layernorm.weight": [H]}
    ),
    "starcoder2": _own_layers("Starcoder2ForCausalLM", "starcoder2", _starcoder2),
    "baichuan": _own_layers("BaichuanForCausalLM", "baichuan", _baichuan),
    "internlm2": _own_layers(
        "InternLM2ForCausalLM",
        "internlm2",
        _internlm2,
        {"model.tok_embeddings.weight": [V, H], "model.norm.weight": [H], "output.weight": [V, H]},
    ),
}


SMALL_DRAFTS = {
    **{k: (v, "") for k, v in OWN_LAYER_DRAFTS.items()},  # InternLM2 by its block since round 62 (test_hunt62.py)
    "granite4_h": (_granite4h, ""),
    "phi2": (_phi2, ""),  # by its block (phi.py) since round 62
    "phi3": (_phi3, ""),
    "gemma2": (_gemma2, ""),
    "opt": (_opt, ""),  # by its block and head (opt.py) since round 63 (test_hunt63.py)
    "opt_model_prefix": (lambda n: _opt(n, "model."), ""),
    "qwen2_5": (_qwen25, ""),
}


@pytest.mark.parametrize("name", sorted(SMALL_DRAFTS))
def test_a_small_causal_lm_draft_is_never_judged_by_another_layout(tmp_path: Path, name: str) -> None:
    """A complete draft paired with a target of its own family: exit 0 and no error; a layout no rule knows is the
    named DRAFT_FORMAT_UNKNOWN/own-layout warning. phi-2 (mlp.fc1 under model.layers.{i}.mlp.) was judged as Llama:
    DRAFT_TENSORS_MISSING asking for model.norm.weight, post_attention_layernorm and mlp.gate_proj (exit 1)."""
    make, unknown = SMALL_DRAFTS[name]
    t_shapes, t_cfg = make(3)
    d_shapes, d_cfg = make(2)
    r = _draft_pair(tmp_path, d_shapes, d_cfg, t_shapes, t_cfg)
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    found = [f for f in r.warnings if f.code == "DRAFT_FORMAT_UNKNOWN"]
    if unknown:
        (f,) = found
        assert f.details.get("kind", unknown) == unknown and d_cfg["architectures"][0] in f.message
        assert "model.norm.weight" not in (f.fix or "")
    else:
        assert found == [] and r.facts["draft"]["draft_family"]["family"] == "draft_model"


@pytest.mark.parametrize("model_type", ["kimi_k2", "deepseek_v3"])
def test_eagle3_mla_draft_with_its_targets_model_type_is_the_draft_family(tmp_path: Path, model_type: str) -> None:
    """kimi-k2.5-eagle3-mla carries the target's model type: still judged by its architecture as eagle3_deepseek
    (complete: exit 0), never as DeepSeek's MTP."""
    case = CASES["eagle3_deepseek"]
    r = _draft_pair(tmp_path, case.shapes, {**case.config, "model_type": model_type})
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    assert r.facts["draft"]["draft_family"]["family"] == "eagle3_deepseek"


def test_eagle3_mla_fc_norm_stored_but_not_declared_does_not_load(tmp_path: Path) -> None:
    """vLLM deepseek_eagle3.py @03590193 builds fc_norm only with ``fc_norm`` true; AutoWeightsLoader raises on a
    stored fc_norm.{i} it has no parameter for."""
    case = CASES["eagle3_deepseek"]
    norms = {f"fc_norm.{i}.weight": [H] for i in range(3)}
    r = _draft_pair(tmp_path, {**case.shapes, **norms}, case.config)
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_UNREAD" and "fc_norm.0.weight" in f.message


def test_eagle3_mla_reduced_vocabulary_without_d2t(tmp_path: Path) -> None:
    """draft_vocab_size < vocab_size and no d2t: vLLM deepseek_eagle3.py @03590193 leaves draft_id_to_target_id at
    zeros (draft id i drafts target id i): DRAFT_VOCAB_MAP/missing."""
    case = CASES["eagle3_deepseek"]
    shapes = {**case.shapes, "lm_head.weight": [32, H]}
    r = _draft_pair(tmp_path, shapes, {**case.config, "draft_vocab_size": 32})
    assert [f.code for f in r.errors] == ["DRAFT_VOCAB_MAP"] and "d2t" in r.errors[0].message


def test_a_llama_draft_missing_a_tensor_in_one_layer_is_still_judged(tmp_path: Path) -> None:
    """The Llama layout judged from the draft's own layers: a name its other layers hold, missing in one, is
    DRAFT_TENSORS_MISSING; a name no layer holds (OLMo-2's input_layernorm) is the architecture's, not missing."""
    shapes = dense_model(3, V)
    del shapes["model.layers.1.mlp.up_proj.weight"]
    r = _draft_pair(tmp_path, shapes, dense_config(3, V))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "missing: model.layers.1.mlp.up_proj.weight" in f.message


def test_eagle3_mla_aux_layers_past_the_target_are_out_of_range(tmp_path: Path) -> None:
    """kimi-k2.5-eagle3-mla lists the target layers it fuses (eagle_aux_hidden_state_layer_ids, for Kimi-K2's 61):
    on a 2-layer target they do not exist, as for a Llama-layer EAGLE-3 draft."""
    case = CASES["eagle3_deepseek"]
    r = _draft_pair(tmp_path, case.shapes, {**case.config, "eagle_aux_hidden_state_layer_ids": [1, 29, 57]})
    assert "DRAFT_TARGET_LAYER_OUT_OF_RANGE" in [f.code for f in r.errors]

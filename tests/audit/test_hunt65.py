"""Round 65 of the new-user checkpoint hunt (issue 36): the census of the census, and public configs audited the way a
user runs ``specscope audit DIR``, with the loader's own tensor names (shapes shrunk to ``H``).

- Nemotron-H vision-language targets (vLLM speculative.py @002e77c1: for architecture
  NemotronH_Super_Omni_Reasoning_V3 / NemotronH_Omni_Reasoning_V3 ``hf_config = hf_config.text_config`` before the
  ``nemotron_h`` MTP switch). Their config.json nests the language model under ``llm_config`` (``{"architectures":
  ["NemotronH_Nano_Omni_Reasoning_V3"], "llm_config": {"model_type": "nemotron_h"}, ...}``: the config class maps it
  to ``text_config``), and the head is stored under ``language_model.``: nemotron_h_mtp.py @01ca2773 load_weights
  ``name.removeprefix("language_model.")`` ("MTP weights are nested in language_model. in Multimodal Nemotron-H
  checkpoints"). A complete checkpoint was ``MTP_WEIGHTS_MISSING`` asking for ``mtp.layers.0.enorm.weight`` (exit 1)
  when the LM config was text_config, and not judged at all under llm_config.
- Public configs of census rows no test built from a published config (``tests/data/hunt65``; SOURCES.md), shrunk
  only in widths and layer counts: Qwen3-Next-80B-A3B-Thinking (no MTP key at all: vLLM qwen3_next_mtp.py builds
  ``getattr(config, "num_nextn_predict_layers", 1)``), Qwen3.5-397B-A17B (``text_config.mtp_num_hidden_layers``),
  MiMo (``num_nextn_predict_layers: 2``, ``attention_bias: true``), DeepSeek-V4-Pro-NVFP4 (``deepseek_v4``). Each
  was right: complete exits 0 named as its family, glue removed exits 1 naming it, a changed key the right finding.
- The same llm_config read for an InternVL target: an EAGLE-3 draft trained for a wider target passed (exit 0).
- A MistralLarge3ForCausalLM draft (speculative.py renames a draft config's architecture
  EagleMistralLarge3ForCausalLM) was judged as a plain draft model; now the census row not judged.
- GLM-5 / DeepSeek-V3 style heads (model.layers.{N}) with ``num_nextn_predict_layers`` 0 or absent: the target's
  own loader raises on them (MTP_UNDECLARED/target, error); they were a warning, exit 0.
- dots3 note ``mtp_layer_types`` of another length than the MTP layers: vLLM refuses it (DRAFT_CONFIG_INVALID/mtp);
  it passed.
- Head norms not spelled ``...norm.weight`` (Qwen's ``pre_fc_norm_hidden``, ERNIE's ``mtp_emb_norm.0``) were never
  shape-checked.
- Left: BailingMoeV3VLForConditionalGeneration (speculative.py promotes its text_config; the VL checkpoint's names
  through BailingMoeV3ForCausalLM's hf_to_vllm_mapper were not read); a target whose embedding rows differ from
  vocab_size is not checked against the config (no MTP rule reads the main embedding).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paths import DATA
from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write
from .test_census_rows import _qwen_case
from .test_families import CASES
from .test_hunt59 import _nemotron_head

V = 64
HUNT59 = DATA / "hunt59"
HUNT = DATA / "hunt65"


def _nemotron_llm() -> dict:
    """nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8's config as published (``num_nextn_predict_layers: 1``,
    ``mtp_hybrid_override_pattern: "*E"``), shrunk to 2 main layers."""
    cfg = json.loads((HUNT59 / "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8_config.json").read_text())
    cfg.pop("quantization_config", None)
    return {**cfg, "hidden_size": H, "vocab_size": V, "num_hidden_layers": 2, "hybrid_override_pattern": "M*"}


def _omni(arch: str, nest: str) -> tuple[dict[str, list[int]], dict]:
    """A Nemotron-H Omni checkpoint: the language model under ``language_model.`` (backbone.*, lm_head), its MTP
    step under ``language_model.mtp.``, a vision tower and projector beside it."""
    lm = {"backbone.embeddings.weight": [V, H], "backbone.norm_f.weight": [H], "lm_head.weight": [V, H]}
    lm |= {"backbone.layers.0.norm.weight": [H], "backbone.layers.0.mixer.in_proj.weight": [H, H]}
    lm |= {"backbone.layers.1.norm.weight": [H], "backbone.layers.1.mixer.q_proj.weight": [H, H]}
    lm |= _nemotron_head("*E")
    shapes = {"language_model." + k: v for k, v in lm.items()}
    shapes |= {"vision_model.radio_model.model.patch_generator.embedder.weight": [H, H], "mlp1.1.weight": [H, H]}
    cfg = {"architectures": [arch], "model_type": "NemotronH_Nano_Omni_Reasoning_V3", nest: _nemotron_llm()}
    return shapes, cfg | {"vision_config": {}, "sound_config": {}}


def _write_vl(root: Path, shapes: dict[str, list[int]], cfg: dict) -> Path:
    write(root, shapes, cfg)
    (root / "preprocessor_config.json").write_text("{}")
    return root


OMNI = [(a, n) for a in ("NemotronH_Super_Omni_Reasoning_V3", "NemotronH_Omni_Reasoning_V3") for n in ("llm_config",)]
OMNI += [("NemotronH_Super_Omni_Reasoning_V3", "text_config")]


@pytest.mark.parametrize(("arch", "nest"), OMNI)
def test_a_nemotron_omni_head_under_language_model(tmp_path: Path, arch: str, nest: str) -> None:
    shapes, cfg = _omni(arch, nest)
    r = audit_checkpoint(_write_vl(tmp_path / "complete", shapes, cfg))
    assert r.exit_code == 0 and r.errors == [], [(f.code, f.message) for f in r.findings]
    assert r.facts["mtp"]["family"] == "nemotron_h_mtp"
    for name in ("mtp.layers.0.eh_proj.weight", "mtp.layers.1.final_layernorm.weight"):
        del shapes["language_model." + name]
    r = audit_checkpoint(_write_vl(tmp_path / "glue-removed", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and r.exit_code == 1, [(g.code, g.message) for g in r.findings]
    missing = "language_model.mtp.layers.0.eh_proj.weight, language_model.mtp.layers.1.final_layernorm.weight"
    assert f.message.endswith("missing: " + missing), f.message


def test_a_nemotron_omni_without_its_head_is_asked_for_it_where_the_loader_reads_it(tmp_path: Path) -> None:
    """No MTP tensor stored: the names asked for are the ones the loader reads, under ``language_model.``."""
    shapes, cfg = _omni("NemotronH_Super_Omni_Reasoning_V3", "llm_config")
    shapes = {k: v for k, v in shapes.items() if ".mtp." not in k}
    r = audit_checkpoint(_write_vl(tmp_path / "no-head", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_WEIGHTS_MISSING" and "language_model.mtp.layers.0.enorm.weight" in f.message, f.message
    assert "--prefix language_model.mtp." in (f.fix or ""), f.fix


def _published(name: str, n_main: int = 2) -> dict:
    """``tests/data/hunt65/{name}_config.json`` with its language model's widths and layer count shrunk."""
    cfg = json.loads((HUNT / f"{name}_config.json").read_text())
    cfg.pop("quantization_config", None)
    lm = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else cfg
    lm |= {"hidden_size": H, "vocab_size": V, "num_hidden_layers": n_main}
    if isinstance(lm.get("layer_types"), list):
        lm["layer_types"] = lm["layer_types"][-n_main:]
    return cfg


def _judged(root: Path, shapes: dict[str, list[int]], cfg: dict, family: str, glue: tuple[str, ...]) -> None:
    """Complete: exit 0 named as ``family``; ``glue`` removed: exit 1, one finding naming each removed tensor."""
    if "vision_config" in cfg:
        write(root / "complete", shapes, cfg)
        (root / "complete" / "preprocessor_config.json").write_text("{}")
        (root / "complete" / "video_preprocessor_config.json").write_text("{}")
        (root / "complete" / "processor_config.json").write_text("{}")
        r = audit_checkpoint(root / "complete")
    else:
        r = audit_checkpoint(write(root / "complete", shapes, cfg))
    assert r.exit_code == 0 and r.errors == [] and r.warnings == [], [(f.code, f.message) for f in r.findings]
    assert r.facts["mtp"]["family"] == family
    r = audit_checkpoint(write(root / "glue-removed", {k: v for k, v in shapes.items() if k not in glue}, cfg))
    errors = [f for f in r.errors if f.code != "VL_PROCESSOR_CONFIG_MISSING"]
    assert [f.code for f in errors] == ["MTP_INCOMPLETE"] and r.exit_code == 1, [(f.code, f.message) for f in errors]
    assert all(g in errors[0].message for g in glue), errors[0].message


def test_qwen3_next_thinking_as_published_declares_no_head_key(tmp_path: Path) -> None:
    cfg = _published("Qwen--Qwen3-Next-80B-A3B-Thinking")
    assert "num_nextn_predict_layers" not in cfg and "mtp_num_hidden_layers" not in cfg
    case = _qwen_case("qwen3_next")
    _judged(tmp_path, case.shapes, cfg, "qwen3_next_mtp", case.glue)
    r = audit_checkpoint(write(tmp_path / "two", case.shapes, cfg | {"num_nextn_predict_layers": 2}))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and "mtp.layers.1.self_attn.q_proj.weight" in f.message, f.message


def test_qwen3_5_397b_as_published(tmp_path: Path) -> None:
    cfg = _published("Qwen--Qwen3.5-397B-A17B")
    assert cfg["text_config"]["mtp_num_hidden_layers"] == 1
    case = _qwen_case("qwen3_5")
    shapes = {k.replace("model.", "model.language_model.", 1): v for k, v in case.shapes.items()}
    _judged(tmp_path, shapes, cfg, "qwen3_5_mtp", case.glue)
    wide = shapes | {"mtp.fc.weight": [H, 3 * H]}
    (f,) = audit_checkpoint(write(tmp_path / "fc", wide, cfg)).by_code("MTP_FC_SHAPE")
    assert "[16, 48]" in f.message and "[16, 32]" in f.message, f.message


def _mimo(layers: int) -> dict[str, list[int]]:
    """MiMo (vLLM mimo_mtp.py): model.mtp_layers.{i} = a Qwen2 layer with q/k/v biases (attention_bias) and
    token_layernorm, hidden_layernorm, input_proj, final_layernorm; main layers with the same biases."""
    bias = {f"self_attn.{x}_proj.bias": [H if x == "q" else 8] for x in "qkv"}
    shapes = dense_model(2, V)
    shapes |= {f"model.layers.{i}.{k}": v for i in range(2) for k, v in bias.items()}
    for i in range(layers):
        m = f"model.mtp_layers.{i}."
        shapes |= layer(m, bias) | {m + "token_layernorm.weight": [H], m + "hidden_layernorm.weight": [H]}
        shapes |= {m + "input_proj.weight": [H, 2 * H], m + "final_layernorm.weight": [H]}
    return shapes


def test_mimo_as_published_declares_two_layers(tmp_path: Path) -> None:
    cfg = _published("XiaomiMiMo--MiMo")
    assert (cfg["num_nextn_predict_layers"], cfg["attention_bias"]) == (2, True)
    glue = ("model.mtp_layers.1.input_proj.weight", "model.mtp_layers.0.hidden_layernorm.weight")
    _judged(tmp_path, _mimo(2), cfg, "mimo_mtp", glue)
    r = audit_checkpoint(write(tmp_path / "one", _mimo(1), cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and "model.mtp_layers.1.input_proj.weight" in f.message, f.message
    unbiased = {k: v for k, v in _mimo(2).items() if not k.startswith("model.mtp_layers.0.self_attn.k_proj.b")}
    (f,) = audit_checkpoint(write(tmp_path / "bias", unbiased, cfg)).errors
    assert "model.mtp_layers.0.self_attn.k_proj.bias" in f.message, f.message


def test_deepseek_v4_pro_as_published(tmp_path: Path) -> None:
    cfg = _published("nvidia--DeepSeek-V4-Pro-NVFP4")
    assert (cfg["model_type"], cfg["num_nextn_predict_layers"], cfg["hc_mult"]) == ("deepseek_v4", 1, 4)
    case = CASES["deepseek_v4_mtp"]
    _judged(tmp_path, case.shapes, cfg, "deepseek_v4_mtp", case.glue)


def _mistral_large_3(root: Path, shapes: dict[str, list[int]]) -> Path:
    cfg = {"architectures": ["MistralLarge3ForCausalLM"], "model_type": "mistral_large_3", "hidden_size": H}
    return write(root, shapes, cfg | {"num_hidden_layers": 2, "vocab_size": V})


def test_a_mistral_large_3_draft_is_the_eagle_row_not_a_draft_model(tmp_path: Path) -> None:
    """vLLM speculative.py @002e77c1 hf_config_override: a draft config whose architecture is
    MistralLarge3ForCausalLM is renamed EagleMistralLarge3ForCausalLM (the census row not judged: only eagle_linear ->
    fc is named in mistral_large_3_eagle.py). It was DRAFT_FORMAT_UNKNOWN/own-layout, "a causal LM the engine runs
    whole with that architecture's own loader"; the same architecture audited as a target gets no draft finding."""
    target = _mistral_large_3(tmp_path / "t", dense_model(2, V))
    eagle = {"eagle_linear.weight": [H, 2 * H], "layers.0.attention.wq.weight": [H, H], "norm.weight": [H]}
    r = audit_checkpoint(target, draft=_mistral_large_3(tmp_path / "d", eagle))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    (f,) = [f for f in r.warnings if f.code.startswith("DRAFT_FORMAT_UNKNOWN")]
    assert f.code == "DRAFT_FORMAT_UNKNOWN" and "EagleMistralLarge3ForCausalLM" in f.message, f.message
    assert "runs whole" not in f.message, f.message
    alone = audit_checkpoint(target)
    assert [g.code for g in alone.findings if g.code.startswith("DRAFT")] == [], [g.code for g in alone.findings]


def _glm5(n_nextn: int | None) -> tuple[dict[str, list[int]], dict]:
    """A GLM-5.1-shaped checkpoint (``glm_moe_dsa``, GlmMoeDsaForCausalLM; names as its published weight list
    gives them, a model report in the code index whose repository it did not give): dense layers 0 .. 2 then MoE
    (``first_k_dense_replace: 3``), MLA attention with the DSA indexer, and the MTP layer ``model.layers.{N}`` with
    enorm, hnorm, eh_proj [hidden, 2*hidden], shared_head.norm and a MoE decoder body (no embed_tokens or
    shared_head.head: the target's). Shrunk to 4 main layers, 2 routed experts."""

    def attn(p: str) -> dict[str, list[int]]:
        out = {p + "input_layernorm.weight": [H], p + "post_attention_layernorm.weight": [H]}
        out |= {p + "self_attn.q_a_proj.weight": [8, H], p + "self_attn.q_a_layernorm.weight": [8]}
        out |= {p + "self_attn.q_b_proj.weight": [16, 8], p + "self_attn.kv_a_proj_with_mqa.weight": [12, H]}
        out |= {p + "self_attn.kv_a_layernorm.weight": [8], p + "self_attn.kv_b_proj.weight": [24, 8]}
        out |= {p + "self_attn.o_proj.weight": [H, 16], p + "self_attn.indexer.wk.weight": [8, H]}
        out |= {p + "self_attn.indexer.wq_b.weight": [16, 8], p + "self_attn.indexer.weights_proj.weight": [2, H]}
        return out | {p + "self_attn.indexer.k_norm.weight": [8], p + "self_attn.indexer.k_norm.bias": [8]}

    def mlp(p: str, moe: bool) -> dict[str, list[int]]:
        parts = [f"experts.{e}." for e in range(2)] + ["shared_experts."] if moe else [""]
        out = {f"{p}mlp.{x}{w}.weight": ([H, 8] if w == "down_proj" else [8, H]) for x in parts for w in PROJ}
        return out | ({p + "mlp.gate.weight": [2, H], p + "mlp.gate.e_score_correction_bias": [2]} if moe else {})

    shapes = {"model.embed_tokens.weight": [V, H], "model.norm.weight": [H], "lm_head.weight": [V, H]}
    for i in range(5):
        shapes |= attn(f"model.layers.{i}.") | mlp(f"model.layers.{i}.", moe=i >= 3)
    p = "model.layers.4."
    shapes |= {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
    shapes[p + "shared_head.norm.weight"] = [H]
    cfg = {"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "hidden_size": H, "vocab_size": V}
    cfg |= {"num_hidden_layers": 4, "first_k_dense_replace": 3, "n_routed_experts": 2, "q_lora_rank": 8}
    cfg |= {"kv_lora_rank": 8, "num_attention_heads": 2, "tie_word_embeddings": False}
    if n_nextn is not None:
        cfg["num_nextn_predict_layers"] = n_nextn
    return shapes, cfg


PROJ = ("gate_proj", "up_proj", "down_proj")


def test_glm5_head_as_published_is_judged(tmp_path: Path) -> None:
    shapes, cfg = _glm5(1)
    glue = ("model.layers.4.eh_proj.weight", "model.layers.4.shared_head.norm.weight")
    _judged(tmp_path, shapes, cfg, "glm4_moe_mtp", glue)
    del shapes["model.layers.4.mlp.experts.1.up_proj.weight"]
    (f,) = audit_checkpoint(write(tmp_path / "expert", shapes, cfg)).errors
    assert f.message.endswith("missing: model.layers.4.mlp.experts.1.up_proj.weight"), f.message


@pytest.mark.parametrize("n_nextn", [0, None], ids=["zero", "absent"])
def test_an_undeclared_head_the_target_loader_raises_on_is_an_error(tmp_path: Path, n_nextn: int | None) -> None:
    """``num_nextn_predict_layers`` 0 or absent (a user turning MTP off in config.json) with model.layers.{N} still
    stored. vLLM's target loader for these model types (deepseek_v2.py @002d6073 DeepseekV2Model.load_weights, which
    GLM-5's GlmMoeDsaForCausalLM uses; glm4_moe.py) skips only the layers the picker
    (``get_spec_layer_idx_from_weight_name``: None unless ``num_nextn_predict_layers > 0``) matches and looks every
    other name up in ``params_dict[name]``: a KeyError on ``model.layers.{N}.*``, and the server does not start with
    or without speculation (the KeyError of vllm-project/vllm issue #16450; PR #39480, open, would skip such layers).
    It was MTP_UNDECLARED (warning, "engines never load them"), exit 0."""
    shapes, cfg = _glm5(n_nextn)
    r = audit_checkpoint(write(tmp_path / "ck", shapes, cfg))
    (f,) = r.errors
    assert (f.code, r.exit_code) == ("MTP_UNDECLARED", 1), [(g.code, g.message) for g in r.findings]  # /target
    assert "model.layers.4." in f.message and "num_nextn_predict_layers" in f.message, f.message
    assert "KeyError" in (f.consequence or ""), f.consequence


@pytest.mark.parametrize(
    ("declared", "types", "ok"),
    [
        (1, None, True),  # absent: ["sliding_attention"] * num_nextn_predict_layers
        (1, ["full_attention"], True),
        (1, ["sliding_attention", "sliding_attention"], False),
        (2, ["sliding_attention"], False),
        (None, ["sliding_attention"], True),  # the key absent: vLLM reads num_nextn_predict_layers with default 1
        (1, "sliding_attention", False),
    ],
)
def test_dots3_mtp_layer_types_one_entry_per_layer(
    tmp_path: Path, declared: int | None, types: object, ok: bool
) -> None:
    """vLLM speculative.py @002e77c1 hf_config_override, dots3_note: ``n_predict = getattr(hf_config,
    "num_nextn_predict_layers", 1)``; ``mtp_layer_types`` (default ``["sliding_attention"] * n_predict``) must have one
    entry per MTP layer, else ValueError "mtp_layer_types must have one entry per MTP layer" before the head is
    built. It passed with exit 0."""
    case = CASES["dots3_note_mtp"]
    cfg = {k: v for k, v in case.config.items() if k != "num_nextn_predict_layers"}
    cfg |= {"num_nextn_predict_layers": declared} if declared is not None else {}
    cfg |= {"mtp_layer_types": types} if types is not None else {}
    shapes = dict(case.shapes)
    if declared == 2:
        shapes |= {k.replace("model.layers.2.", "model.layers.3."): v for k, v in shapes.items() if ".2." in k}
    r = audit_checkpoint(write(tmp_path / "ck", shapes, cfg))
    if ok:
        assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
        return
    (f,) = r.errors
    assert (f.code, r.exit_code) == ("DRAFT_CONFIG_INVALID", 1), [(g.code, g.message) for g in r.findings]
    assert "mtp_layer_types" in f.message and "one entry per MTP layer" in f.message, f.message


def test_qwen_head_norms_are_shape_checked(tmp_path: Path) -> None:
    """vLLM qwen3_5_mtp.py builds ``pre_fc_norm_hidden`` / ``pre_fc_norm_embedding`` as RMSNorm(hidden_size): a
    stored norm of another width fails its weight loader. The shape rule took a norm to be a name ending in
    ``norm.weight``, so these two (and ERNIE's ``mtp_emb_norm.0``) were never compared: exit 0."""
    cfg = _published("Qwen--Qwen3.5-397B-A17B")
    case = _qwen_case("qwen3_5")
    shapes = {k.replace("model.", "model.language_model.", 1): v for k, v in case.shapes.items()}
    shapes["mtp.pre_fc_norm_hidden.weight"] = [2 * H]
    (f,) = audit_checkpoint(write(tmp_path / "qwen", shapes, cfg)).by_code("MTP_LAYER_SHAPE")
    assert "mtp.pre_fc_norm_hidden.weight [32] (expected [16]" in f.message, f.message
    ernie = CASES["ernie_mtp"]
    shapes = ernie.shapes | {"model.mtp_emb_norm.0.weight": [2 * H]}
    (f,) = audit_checkpoint(write(tmp_path / "ernie", shapes, ernie.config)).by_code("MTP_LAYER_SHAPE")
    assert "model.mtp_emb_norm.0.weight [32] (expected [16]" in f.message, f.message


def test_qwen4_exp_norm_over_streams(tmp_path: Path) -> None:
    """Qwen4-Exp (vLLM Qwen4ExpMTP): pre_fc_norm_embedding is [hidden], pre_fc_norm_hidden [hc_count * hidden]; a
    config whose hidden_size is not the stored one was exit 0 with no finding."""
    case = CASES["qwen4_exp_mtp"]
    r = audit_checkpoint(write(tmp_path / "ok", case.shapes, case.config))
    assert r.errors == [], [(f.code, f.message) for f in r.errors]
    (f,) = audit_checkpoint(write(tmp_path / "wide", case.shapes, case.config | {"hidden_size": 2 * H})).errors
    assert f.code == "MTP_LAYER_SHAPE" and "mtp.pre_fc_norm_embedding.weight [16]" in f.message, f.message


def test_an_eagle3_draft_for_an_internvl_target_is_checked_against_llm_config(tmp_path: Path) -> None:
    """An InternVL target nests its language model under ``llm_config`` (InternVLChatModel; the config class maps it
    to the text config engines read). An EAGLE-3 draft trained for a 32-wide target, consistent in itself
    (``target_hidden_size: 32``, fc [16, 3 * 32]), beside a 16-wide target was exit 0: the target's width was read
    from the top level, which has none."""
    llm = {**dense_config(2, V), "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}
    cfg = {"architectures": ["InternVLChatModel"], "model_type": "internvl_chat", "llm_config": llm}
    shapes = {"language_model." + k: v for k, v in dense_model(2, V).items()}
    target = _write_vl(tmp_path / "t", shapes | {"vision_model.embeddings.patch_embedding.weight": [8, 8]}, cfg)
    eagle3 = CASES["eagle3"]
    draft_cfg = eagle3.config | {"target_hidden_size": 2 * H}
    draft = write(tmp_path / "d", eagle3.shapes | {"fc.weight": [H, 6 * H]}, draft_cfg)
    r = audit_checkpoint(target, draft=draft)
    assert [f.code for f in r.errors] == ["DRAFT_HIDDEN_MISMATCH"] and r.exit_code == 1, [
        (f.code, f.message) for f in r.findings
    ]
    assert "width 32" in r.errors[0].message and "hidden_size is 16" in r.errors[0].message, r.errors[0].message

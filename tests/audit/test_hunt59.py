"""Round 59 of the new-user checkpoint hunt (issue 36): public configs this repository did not hold, audited the way a
user runs ``specscope audit DIR``, with the loader's own tensor names.

Configs: ``tests/data/hunt59/*_config.json``, copied unchanged from ai-dynamo/aiconfigurator @095f58a5 (its model
database keeps the hub configs; tests/data/SOURCES.md). The checkpoints keep every key of the published config and
shrink only ``hidden_size`` / ``vocab_size`` / ``num_hidden_layers`` so the weights stay small (the keys under test
are the MTP ones, copied as published).

Nemotron-H MTP step (vLLM nemotron_h_mtp.py @01ca2773: one step of ``len(config.mtp_hybrid_override_pattern)``
physical layers ``mtp.layers.{j}``, enorm / hnorm / eh_proj on the first, final_layernorm on the last). That attribute
is a property of the config class over the canonical list ``mtp_layers_block_type`` (default
``["attention", "moe"]``); the legacy string is read only when the list is absent or the default
(sgl-project/sglang python/sglang/srt/configs/nemotron_h.py @2409eacc ``_resolve_mtp_layers_block_type``, adapted
from vLLM's transformers_utils/configs/nemotron_h.py). Nemotron-3.5-Lightning and Nemotron-3-Ultra publish only the
list: their complete heads (``*E``: mtp.layers.0 attention, mtp.layers.1 MoE ending in final_layernorm) were
``MTP_INCOMPLETE`` asking for ``mtp.layers.0.final_layernorm.weight`` (a one-layer step), exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paths import DATA
from specscope.audit import audit_checkpoint

from .ckmaker import H, I, dense_config, dense_model, eagle3_first, layer, write

V = 64
HUNT = DATA / "hunt59"


def _published(name: str, **small: object) -> dict:
    cfg = json.loads((HUNT / f"{name}_config.json").read_text())
    cfg.pop("quantization_config", None)  # the NVFP4 export's: the weights written here are plain F16
    return {**cfg, "hidden_size": H, "vocab_size": V, **small}


def _nemotron_head(pattern: str) -> dict[str, list[int]]:
    """One MTP step of ``pattern`` (``*`` attention, ``E`` MoE) at mtp.layers.{j}, as nemotron_h_mtp.py names it."""
    shapes: dict[str, list[int]] = {}
    for j, char in enumerate(pattern):
        p = f"mtp.layers.{j}."
        shapes[p + "norm.weight"] = [H]
        if char == "*":
            shapes |= {f"{p}mixer.{x}_proj.weight": [H, H] for x in "qkvo"}
        else:
            shapes |= {f"{p}mixer.experts.{e}.{w}.weight": [H, H] for e in range(2) for w in ("up_proj", "down_proj")}
            shapes[p + "mixer.gate.weight"] = [2, H]
        if j == 0:
            shapes |= {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
        if j == len(pattern) - 1:
            shapes[p + "final_layernorm.weight"] = [H]
    return shapes


LIST_ONLY = [
    ("nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", {"num_hidden_layers": 2}),
    ("nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", {}),  # no num_hidden_layers: layers_block_type only
]


@pytest.mark.parametrize(("name", "small"), LIST_ONLY, ids=["lightning", "ultra"])
def test_nemotron_mtp_step_from_mtp_layers_block_type(tmp_path: Path, name: str, small: dict) -> None:
    cfg = _published(name, **small)
    assert cfg["mtp_layers_block_type"] == ["attention", "moe"] and "mtp_hybrid_override_pattern" not in cfg
    shapes = dense_model(2, V) | _nemotron_head("*E")
    r = audit_checkpoint(write(tmp_path / "complete", shapes, cfg))
    assert r.exit_code == 0 and r.errors == [], [(f.code, f.message) for f in r.findings]
    assert r.facts["mtp"]["family"] == "nemotron_h_mtp"
    del shapes["mtp.layers.1.final_layernorm.weight"], shapes["mtp.layers.0.eh_proj.weight"]
    r = audit_checkpoint(write(tmp_path / "glue-removed", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and r.exit_code == 1
    assert f.message.endswith("missing: mtp.layers.0.eh_proj.weight, mtp.layers.1.final_layernorm.weight")


def test_nemotron_mtp_list_wins_over_a_legacy_string(tmp_path: Path) -> None:
    """The list is canonical: a non-default ``mtp_layers_block_type`` beside a legacy string is the step."""
    cfg = _published("nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", num_hidden_layers=2)
    cfg |= {"mtp_layers_block_type": ["attention", "moe", "moe"], "mtp_hybrid_override_pattern": "*E"}
    r = audit_checkpoint(write(tmp_path / "three", dense_model(2, V) | _nemotron_head("*EE"), cfg))
    assert r.exit_code == 0 and r.errors == [], [(f.code, f.message) for f in r.findings]


def test_nemotron_super_legacy_string_still_read(tmp_path: Path) -> None:
    """Nemotron-3-Super publishes the legacy ``mtp_hybrid_override_pattern: "*E"`` (no list): the same step."""
    cfg = _published("nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8", num_hidden_layers=2)
    assert cfg["mtp_hybrid_override_pattern"] == "*E" and "mtp_layers_block_type" not in cfg
    r = audit_checkpoint(write(tmp_path / "super", dense_model(2, V) | _nemotron_head("*E"), cfg))
    assert r.exit_code == 0 and r.errors == [], [(f.code, f.message) for f in r.findings]


def _minimax_m3() -> dict:
    """MiniMaxAI/MiniMax-M3 as published (``minimax_m3``, ``MiniMaxM3ForCausalLM``, ``num_nextn_predict_layers: 1``,
    ``num_mtp_modules: 7``), shrunk to 2 main layers."""
    cfg = _published("MiniMaxAI--MiniMax-M3", num_hidden_layers=2)
    assert (cfg["model_type"], cfg["num_nextn_predict_layers"], cfg["num_mtp_modules"]) == ("minimax_m3", 1, 7)
    return cfg


def test_minimax_m3_declared_head_no_engine_loads_is_not_judged_as_deepseek(tmp_path: Path) -> None:
    """The census: vLLM speculative.py @002e77c1 maps model_type minimax_m3_vl / minimax_m3_mtp (and
    MiniMaxM3SparseForConditionalGeneration) to MiniMaxM3MTP, and a plain minimax_m3 / MiniMaxM3ForCausalLM config to
    no MTP model; SGLang's model_config.py @001adf56 names no MiniMax draft class. The published config (no MTP
    tensor) was ERROR MTP_WEIGHTS_MISSING asking for DeepSeek's model.layers.2.enorm / hnorm / eh_proj (exit 1); it is
    MTP_NO_ENGINE (info, exit 0), as MiniMax-M2's use_mtp / num_mtp_modules are, naming the declaring keys."""
    r = audit_checkpoint(write(tmp_path / "m3", dense_model(2, V), _minimax_m3()))
    assert [f.code for f in r.findings] == ["MTP_NO_ENGINE"] and r.exit_code == 0, [
        (f.code, f.message) for f in r.findings
    ]
    f = r.findings[0]
    assert "num_mtp_modules: 7" in f.message and "num_nextn_predict_layers: 1" in f.message
    assert "enorm" not in f.message + (f.fix or "") and "DeepSeek" not in f.message + (f.fix or "")


def test_minimax_m3_stored_head_is_named_never_read(tmp_path: Path) -> None:
    """The same config with a head stored at model.layers.2 (a DeepSeek-style export): MTP_NO_ENGINE/stored
    (warning) naming the tensors, no family's error or graft fix."""
    shapes = dense_model(2, V) | {"model.layers.2.eh_proj.weight": [H, 2 * H], "model.layers.2.enorm.weight": [H]}
    r = audit_checkpoint(write(tmp_path / "m3-stored", shapes, _minimax_m3()))
    (f,) = r.findings
    assert (f.code, f.severity.value, r.exit_code) == ("MTP_NO_ENGINE", "warning", 0)  # /stored: the variant's severity
    assert "2 tensors" in f.message and "never read" in f.message and "num_mtp_modules: 7" in f.message
    assert f.details["prefixes"] == ["model.layers.2."] and "graft" not in (f.fix or "")


def _deepseek_v4_head(p: str = "mtp.0.") -> dict[str, list[int]]:
    """DeepSeek-V4's head (vLLM deepseek_v4_mtp.py @023da1fc): mtp.{i}.{enorm, hnorm, e_proj, h_proj, norm,
    hc_head_*} beside its decoder block (attn.*, ffn.*); emb.tok_emb and head are the target's."""
    glue = {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "e_proj.weight": [H, H], p + "h_proj.weight": [H, H]}
    glue |= {p + "norm.weight": [H], p + "hc_head_fn": [4, 4 * H], p + "hc_head_base": [4], p + "hc_head_scale": [1]}
    body = {p + "attn.wq_a.weight": [8, H], p + "attn_norm.weight": [H], p + "ffn_norm.weight": [H]}
    return glue | body


def test_sglang_deepseek_v4_release_is_judged_by_its_architecture(tmp_path: Path) -> None:
    """sgl-project/DeepSeek-V4-Flash-FP8 publishes ``model_type: deepseek_ref`` with ``DeepseekV4ForCausalLM``:
    SGLang keys its NextN draft on that architecture (model_config.py @001adf56, the census row judged by
    deepseek_v4_mtp). Its complete mtp.0.* head was MTP_LAYOUT_UNKNOWN "read with the Qwen3.5 layout", and with
    e_proj removed still exit 0; it is DeepSeek-V4's head: exit 0, and exit 1 naming e_proj when it is removed."""
    cfg = _published("sgl-project--DeepSeek-V4-Flash-FP8", num_hidden_layers=2)
    assert (cfg["model_type"], cfg["architectures"]) == ("deepseek_ref", ["DeepseekV4ForCausalLM"])
    shapes = dense_model(2, V) | _deepseek_v4_head()
    r = audit_checkpoint(write(tmp_path / "complete", shapes, cfg))
    assert r.findings == [] and r.exit_code == 0, [(f.code, f.message) for f in r.findings]
    assert r.facts["mtp"]["family"] == "deepseek_v4_mtp"
    del shapes["mtp.0.e_proj.weight"]
    r = audit_checkpoint(write(tmp_path / "glue-removed", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and f.message.endswith("missing: mtp.0.e_proj.weight") and r.exit_code == 1


def _minimax_m3_vl() -> dict:
    """nvidia/MiniMax-M3-NVFP4 as published (``minimax_m3_vl``, MiniMaxM3SparseForConditionalGeneration,
    ``text_config.num_mtp_modules: 1``), shrunk to 2 main layers."""
    cfg = json.loads((HUNT / "nvidia--MiniMax-M3-NVFP4_config.json").read_text())
    cfg.pop("quantization_config", None)
    cfg["text_config"] |= {"hidden_size": H, "vocab_size": V, "num_hidden_layers": 2}
    assert (cfg["model_type"], cfg["text_config"]["num_mtp_modules"]) == ("minimax_m3_vl", 1)
    return cfg


def _vl(root: Path) -> Path:
    """The processor configs a full vision-language download carries (their absence is a finding of its own)."""
    for name in ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json"):
        (root / name).write_text("{}")
    return root


@pytest.mark.parametrize("prefix", ["mtp.layers.0.", "language_model.model.mtp.layers.0."])
def test_minimax_m3_vl_head_is_the_census_rows_named_warning(tmp_path: Path, prefix: str) -> None:
    """The census row (vLLM speculative.py @002e77c1: minimax_m3_vl -> MiniMaxM3MTP, n_predict = num_mtp_modules;
    its loader not read) is not judged: a named warning. A head stored under mtp.* was MTP_UNDECLARED/unknown saying
    the config does not declare it and the model type is outside the census with no engine loading it (both false);
    under language_model.model.mtp.* it was not mentioned at all. Now MTP_LAYOUT_UNKNOWN naming the declaring key,
    the row's loader and the stored tensors; no family's rule or fix."""
    shapes = {"language_model." + k: v for k, v in dense_model(2, V).items()}
    shapes |= {prefix + "eh_proj.weight": [H, 2 * H], prefix + "enorm.weight": [H]}
    r = audit_checkpoint(_vl(write(tmp_path / "m3vl", shapes, _minimax_m3_vl())))
    (f,) = [f for f in r.findings if f.code.startswith("MTP")]
    assert (f.code, f.severity.value, r.exit_code) == ("MTP_LAYOUT_UNKNOWN", "warning", 0), f.message
    assert (
        "num_mtp_modules: 1" in f.message
        and "MiniMaxM3MTP" in f.message
        and f"2 tensors under {prefix.split('layers.')[0]} " in f.message
    )
    assert "does not declare" not in f.message and "graft" not in (f.fix or "")


def test_minimax_m3_vl_declared_head_with_nothing_stored_is_named(tmp_path: Path) -> None:
    """The same config with no MTP tensor (as the MiniMax-M3 exports are published): was silent; now the row's
    named warning says the declared head holds nothing for its loader to read."""
    shapes = {"language_model." + k: v for k, v in dense_model(2, V).items()}
    r = audit_checkpoint(_vl(write(tmp_path / "m3vl-none", shapes, _minimax_m3_vl())))
    (f,) = [f for f in r.findings if f.code.startswith("MTP")]
    assert (f.code, f.severity.value, r.exit_code) == ("MTP_LAYOUT_UNKNOWN", "warning", 0), f.message
    assert "num_mtp_modules: 1" in f.message and "no MTP-named tensor" in f.message


# Regression rows: public layouts this round found answered right.


def test_step_3_7_flash_three_mtp_layers(tmp_path: Path) -> None:
    """stepfun-ai/Step-3.7-Flash (step3p7, num_nextn_predict_layers 3): model.layers.{N+i} with enorm, hnorm,
    eh_proj, shared_head.norm and its own shared_head.head (vLLM step3p5_mtp.py @12c9ac28); exit 0 complete, exit 1
    naming the glue removed from the second and third layers."""
    cfg = _published("stepfun-ai--Step-3.7-Flash", num_hidden_layers=2)
    assert (cfg["model_type"], cfg["num_nextn_predict_layers"]) == ("step3p7", 3)
    shapes = dense_model(2, V)
    for i in (2, 3, 4):
        p = f"model.layers.{i}."
        shapes |= layer(p) | {p + "enorm.weight": [H], p + "hnorm.weight": [H], p + "eh_proj.weight": [H, 2 * H]}
        shapes |= {p + "shared_head.norm.weight": [H], p + "shared_head.head.weight": [V, H]}
    r = audit_checkpoint(write(tmp_path / "complete", shapes, cfg))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.findings]
    assert r.facts["mtp"]["family"] == "step3p5_mtp"
    del shapes["model.layers.3.eh_proj.weight"], shapes["model.layers.4.shared_head.head.weight"]
    r = audit_checkpoint(write(tmp_path / "glue-removed", shapes, cfg))
    (f,) = r.errors
    assert f.code == "MTP_INCOMPLETE" and r.exit_code == 1
    assert f.message.endswith("missing: model.layers.3.eh_proj.weight, model.layers.4.shared_head.head.weight")


def test_specforge_eagle3_1_fc_norm_declared(tmp_path: Path) -> None:
    """SpecForge's qwen3-30B-A3B-eagle3.1 config declares ``fc_norm: true``: its draft stores fc_norm.{0,1,2} (SpecForge
    llama3_eagle.py builds one RMSNorm per target state; vLLM llama_eagle3.py with PR #42143 builds and reads them).
    Complete: exit 0; without them: DRAFT_TENSORS_MISSING naming the three."""
    cfg = json.loads((HUNT / "specforge--qwen3-30B-A3B-eagle3.1_config.json").read_text())
    assert cfg["fc_norm"] is True and cfg["architectures"] == ["LlamaForCausalLMEagle3"]
    cfg |= {"hidden_size": H, "intermediate_size": I, "num_attention_heads": 2, "num_key_value_heads": 1}
    cfg |= {"head_dim": H // 2, "vocab_size": V, "draft_vocab_size": 32}
    shapes = layer("midlayer.", eagle3_first()) | {"fc.weight": [H, 3 * H], "norm.weight": [H]}
    shapes["lm_head.weight"] = [32, H]
    shapes |= {f"fc_norm.{i}.weight": [H] for i in range(3)}
    t2d = np.zeros(V, dtype=np.bool_)
    t2d[:32] = True
    maps = {"d2t": np.zeros(32, dtype=np.int64), "t2d": t2d}
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V, hidden_size=H))
    r = audit_checkpoint(target, draft=write(tmp_path / "draft", shapes, cfg, arrays=maps))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.findings]
    for i in range(3):
        del shapes[f"fc_norm.{i}.weight"]
    r = audit_checkpoint(target, draft=write(tmp_path / "no-fc-norm", shapes, cfg, arrays=maps))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING"
    assert "missing: fc_norm.0.weight, fc_norm.1.weight, fc_norm.2.weight" in f.message


def _falcon_h1(layers: int, vocab: int = V) -> tuple[dict[str, list[int]], dict]:
    """A Falcon-H1 causal LM as vLLM falcon_h1.py @0189427 builds it: model.embed_tokens, model.final_layernorm (not
    model.norm), layers of input_layernorm / pre_ff_layernorm / self_attn.* / mamba.* / feed_forward.*, lm_head."""
    shapes = {
        "model.embed_tokens.weight": [vocab, H],
        "model.final_layernorm.weight": [H],
        "lm_head.weight": [vocab, H],
    }
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": [H], p + "pre_ff_layernorm.weight": [H]}
        shapes |= {f"{p}self_attn.{x}_proj.weight": [H, H] for x in "qkvo"}
        shapes |= {p + "mamba.in_proj.weight": [4 * H, H], p + "mamba.out_proj.weight": [H, 2 * H]}
        shapes |= {f"{p}feed_forward.{x}_proj.weight": [I, H] for x in ("gate", "up")}
        shapes[p + "feed_forward.down_proj.weight"] = [H, I]
    cfg = {"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "hidden_size": H, "vocab_size": vocab}
    return shapes, cfg | {"num_hidden_layers": layers, "tie_word_embeddings": False}


def _nemotron_h_lm(layers: int) -> tuple[dict[str, list[int]], dict]:
    """A Nemotron-H causal LM (backbone.embeddings, backbone.layers.{i}.mixer.*, backbone.norm_f, lm_head)."""
    shapes = {"backbone.embeddings.weight": [V, H], "backbone.norm_f.weight": [H], "lm_head.weight": [V, H]}
    for i in range(layers):
        shapes |= {f"backbone.layers.{i}.norm.weight": [H], f"backbone.layers.{i}.mixer.in_proj.weight": [2 * H, H]}
    cfg = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": H, "vocab_size": V}
    return shapes, cfg | {
        "num_hidden_layers": layers,
        "hybrid_override_pattern": "M*"[:layers],
        "tie_word_embeddings": False,
    }


@pytest.mark.parametrize("make", [_falcon_h1, _nemotron_h_lm], ids=["falcon_h1", "nemotron_h"])
def test_a_draft_model_in_its_own_layout_is_not_judged_as_llama(tmp_path: Path, make) -> None:
    """vLLM's draft_model method runs the draft whole with its own architecture's loader (draft_model.py). A complete
    Falcon-H1 (model.final_layernorm, feed_forward / mamba layers) or Nemotron-H (backbone.*) draft for a target of
    its family was DRAFT_TENSORS_MISSING (exit 1) asking for Llama's model.norm / model.layers.{i}.mlp.*; it holds
    none of the names that mark that layout, so it is DRAFT_FORMAT_UNKNOWN (warning, exit 0): not judged."""
    t_shapes, t_cfg = make(4)
    d_shapes, d_cfg = make(2)
    target = write(tmp_path / "target", t_shapes, t_cfg)
    r = audit_checkpoint(target, draft=write(tmp_path / "draft", d_shapes, d_cfg))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    (f,) = r.by_code("DRAFT_FORMAT_UNKNOWN")
    assert d_cfg["architectures"][0] in f.message and "not judged" in f.message
    assert "model.norm.weight" not in (f.fix or "")


def test_a_llama_draft_without_its_norm_is_still_judged(tmp_path: Path) -> None:
    """The Llama layout is still judged when its layers are there: model.norm removed is DRAFT_TENSORS_MISSING."""
    shapes = dense_model(1, V)
    del shapes["model.norm.weight"]
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    r = audit_checkpoint(target, draft=write(tmp_path / "draft", shapes, dense_config(1, V)))
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "model.norm.weight" in f.message

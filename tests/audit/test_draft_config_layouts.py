"""Draft configs whose shapes are nested, read where the engines read them: the speculators format's
``transformer_layer_config`` (vLLM ``vllm/transformers_utils/configs/speculators/base.py``: the draft's network is built
from it, top-level algorithm keys such as ``draft_vocab_size`` added) and EAGLE's ``model`` (vLLM
``vllm/transformers_utils/configs/eagle.py`` ``EAGLEConfig(model=...)``). A mismatch held there was read by no rule and
passed with exit 0."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from specscope.audit import audit_checkpoint

from .ckmaker import H, I, dense_config, dense_model, vocab, write

V = 64
W = 2 * H  # the width of the target these drafts were trained for


def _layer(prefix: str, w: int) -> dict[str, list[int]]:
    names = {"input_layernorm": [w], "post_attention_layernorm": [w], "self_attn.q_proj": [w, w]}
    names |= {"self_attn.k_proj": [8, w], "self_attn.v_proj": [8, w], "self_attn.o_proj": [w, w]}
    names |= {"mlp.gate_proj": [I, w], "mlp.up_proj": [I, w], "mlp.down_proj": [w, I]}
    return {f"{prefix}{k}.weight": v for k, v in names.items()}


def _target(tmp_path: Path) -> Path:
    return write(tmp_path / "target", dense_model(2, V), dense_config(2, V), tokens=vocab(V))


def _speculators_eagle3(root: Path, width: int, *, verifier: dict | None = None) -> Path:
    shapes = {"fc.weight": [width, 3 * width], "norm.weight": [width], "lm_head.weight": [V, width]}
    shapes |= _layer("layers.0.", width) | {"layers.0.hidden_norm.weight": [width]}
    shapes |= {
        f"layers.0.self_attn.{p}.weight": [s, 2 * width] for p, s in (("q_proj", width), ("k_proj", 8), ("v_proj", 8))
    }
    cfg = {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "transformer_layer_config": {**dense_config(1, V), "hidden_size": width},
        "draft_vocab_size": V,
        "speculators_config": {
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3}],
            "verifier": {"name_or_path": "org/target-8b", "architectures": ["LlamaForCausalLM"]}
            if verifier is None
            else verifier,
        },
    }
    d2t = {"d2t": np.zeros(V, dtype=np.int64)}
    return write(root, shapes, cfg, arrays=d2t, tokens=vocab(V))


def test_speculators_eagle3_for_another_width_is_an_error(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path), draft=_speculators_eagle3(tmp_path / "d", W))
    (f,) = [f for f in r.errors if f.code == "DRAFT_HIDDEN_MISMATCH"]
    assert f.details == {"draft_width": W, "from": "hidden_size", "target_hidden_size": H}
    assert r.exit_code == 1


def test_speculators_eagle3_of_the_right_width_is_clean(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path), draft=_speculators_eagle3(tmp_path / "d", H))
    assert [f.code for f in r.findings] == [] and r.exit_code == 0
    assert r.facts["draft"]["draft_family"]["family"] == "eagle3"
    assert r.facts["draft"]["draft_format"] == {
        "format": "speculators",
        "method": "eagle3",
        "num_speculative_tokens": 3,
        "verifier": "org/target-8b",
        "verifier_architectures": ["LlamaForCausalLM"],
    }


def test_speculators_config_without_a_verifier_is_refused_as_vllm_refuses_it(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path), draft=_speculators_eagle3(tmp_path / "d", H, verifier={}))
    (f,) = r.errors
    assert f.code == "DRAFT_SPECULATORS_CONFIG_INVALID" and f.details == {
        "missing": ["speculators_config.verifier.name_or_path"]
    }
    assert "Invalid speculators config structure" in f.message and r.exit_code == 1


def test_speculators_draft_trained_for_another_verifier_is_a_warning(tmp_path: Path) -> None:
    other = {"name_or_path": "org/qwen3-8b", "architectures": ["Qwen3ForCausalLM"]}
    r = audit_checkpoint(_target(tmp_path), draft=_speculators_eagle3(tmp_path / "d", H, verifier=other))
    (f,) = r.warnings
    assert f.code == "DRAFT_VERIFIER_DIFFERS" and r.exit_code == 0
    assert f.message == (
        "the draft was trained for verifier org/qwen3-8b (architectures Qwen3ForCausalLM) but the target is "
        "LlamaForCausalLM: it reads another model's hidden states"
    )


def test_eagle_config_with_the_model_nested_for_another_width_is_an_error(tmp_path: Path) -> None:
    shapes = {"fc.weight": [W, 2 * W], **_layer("layers.0.", W)}
    del shapes["layers.0.input_layernorm.weight"]
    cfg = {"architectures": ["EAGLEModel"], "model": {**dense_config(1, V), "hidden_size": W}}
    r = audit_checkpoint(_target(tmp_path), draft=write(tmp_path / "d", shapes, cfg))
    (f,) = [f for f in r.errors if f.code == "DRAFT_HIDDEN_MISMATCH"]
    assert (f.details["draft_width"], f.details["target_hidden_size"]) == (W, H)


def test_eagle3_aux_layer_ids_past_the_target_are_an_error_wherever_the_config_keeps_them(tmp_path: Path) -> None:
    """vLLM reads ``eagle_aux_hidden_state_layer_ids`` from the draft's config top level; SpecForge / SGLang keep it
    under ``eagle_config``. The target here has 2 layers: id 5 is captured by no layer."""
    target = _target(tmp_path)
    for key, where in (
        ("eagle_aux_hidden_state_layer_ids", "top"),
        ("eagle_config.eagle_aux_hidden_state_layer_ids", "nested"),
    ):
        root = _speculators_eagle3(tmp_path / where, H)
        cfg = json.loads((root / "config.json").read_text())
        if where == "top":
            cfg["eagle_aux_hidden_state_layer_ids"] = [0, 1, 5]
        else:
            cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [0, 1, 5]}
        (root / "config.json").write_text(json.dumps(cfg))
        r = audit_checkpoint(target, draft=root)
        (f,) = [f for f in r.errors if f.code == "DRAFT_TARGET_LAYER_OUT_OF_RANGE"]
        assert (
            f.message.startswith(
                f"{key} [5] outside the target's 2 layers"
                if where == "top"
                else f"{key} [1, 5] outside [0, 1) for the "
            )
            and r.exit_code == 1
        )


def test_a_nested_eagle3_aux_id_of_the_last_layer_is_past_what_its_engine_taps(tmp_path: Path) -> None:
    """The nested list is read by SGLang alone, which captures the input of layer id + 1 (models/llama.py @00239548
    set_eagle3_layers_to_capture; LlamaModel.forward captures inside range(start_layer, end_layer)): against a
    2-layer target, nested id 1 names layer 2, captured by no layer. It passed (checked against [0, 2)); the
    top-level list, whose ids vLLM taps as given, keeps [0, N)."""
    target = _target(tmp_path)
    for where in ("top", "nested"):
        root = _speculators_eagle3(tmp_path / where, H)
        cfg = json.loads((root / "config.json").read_text())
        if where == "top":
            cfg["eagle_aux_hidden_state_layer_ids"] = [0, 1]
        else:
            cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [0, 1]}
        (root / "config.json").write_text(json.dumps(cfg))
        r = audit_checkpoint(target, draft=root)
        found = [f for f in r.errors if f.code == "DRAFT_TARGET_LAYER_OUT_OF_RANGE"]
        if where == "top":
            assert found == []
            continue
        (f,) = found
        assert f.message == (
            "eagle_config.eagle_aux_hidden_state_layer_ids [1] outside [0, 1) for the target's 2 layers: SGLang taps "
            "the input of layer id + 1, and layer 2 does not exist"
        )
        assert f.expected == "nested ids in [0, 1): id + 1 a layer of the target's 2"
        assert f.details == {"key": "eagle_config.eagle_aux_hidden_state_layer_ids", "ids": [0, 1], "out_of_range": [1]}
        assert r.exit_code == 1


def _speculators_dflash(root: Path, aux: list[int]) -> Path:
    """A DFlash draft as vllm-project/speculators writes it (``src/speculators/models/dflash/config.py`` and
    ``core.py`` @c05b95b3): architectures DFlashSpeculator, the target layers in the top-level
    ``aux_hidden_state_layer_ids`` (no ``dflash_config``), ``fc`` = ``Linear(len(aux_hidden_state_layer_ids) *
    hidden, hidden)``; vLLM's speculators ``algos.py`` ``update_dflash`` copies that list into
    ``dflash_config.target_layer_ids``."""
    qk = {"self_attn.q_norm.weight": [8], "self_attn.k_norm.weight": [8]}
    shapes = {"fc.weight": [H, len(aux) * H], "hidden_norm.weight": [H], "norm.weight": [H]}
    shapes |= {f"layers.0.{k}": v for k, v in (_layer("", H) | qk).items()}
    tlc = {**dense_config(1, V), "model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"]}
    cfg = {
        "architectures": ["DFlashSpeculator"],
        "speculators_model_type": "dflash",
        "transformer_layer_config": {**tlc, "head_dim": 8},
        "draft_vocab_size": V,
        "block_size": 16,
        "aux_hidden_state_layer_ids": aux,
        "mask_token_id": V - 1,
        "speculators_config": {
            "algorithm": "dflash",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 15}],
            "default_proposal_method": "greedy",
            "verifier": {"name_or_path": "org/target", "architectures": ["LlamaForCausalLM"]},
        },
    }
    return write(root, shapes, cfg, tokens=vocab(V))


def test_speculators_dflash_fc_is_sized_by_its_aux_hidden_state_layer_ids(tmp_path: Path) -> None:
    """Two target layers read by one draft layer: fc [H, 2H] is right (it was ERROR DRAFT_FC_SHAPE, sized from
    num_hidden_layers 1 because aux_hidden_state_layer_ids was not read)."""
    r = audit_checkpoint(_target(tmp_path), draft=_speculators_dflash(tmp_path / "d", [0, 1]))
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]


def test_speculators_dflash_aux_layer_past_the_target_is_named(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path), draft=_speculators_dflash(tmp_path / "d", [0, 7]))
    (f,) = r.by_code("DRAFT_TARGET_LAYER_OUT_OF_RANGE")
    assert f.details == {"key": "aux_hidden_state_layer_ids", "ids": [0, 7], "out_of_range": [7]}
    assert r.exit_code == 1


def test_a_speculators_method_outside_the_census_is_not_judged_as_eagle3(tmp_path: Path) -> None:
    """A P-EAGLE draft as vllm-project/speculators writes it (``src/speculators/models/peagle/config.py`` and
    ``core.py`` @c05b95b3: architectures PEagleSpeculator, speculators_model_type peagle, EAGLE-3's tensors plus the
    learned ``mask_hidden`` [1, 1, 3*hidden]; vLLM's speculators ``algos.py`` loads it as PeagleLlamaForCausalLM, a
    loader the census does not read). It was judged by EAGLE-3's rules (its ``draft_vocab_size`` key) and passed with
    ``mask_hidden`` removed; outside the census it is the named warning and no family's rule."""
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H], "embed_tokens.weight": [V, H]}
    shapes |= _layer("layers.0.", H) | {"layers.0.hidden_norm.weight": [H]}
    cfg = {
        "architectures": ["PEagleSpeculator"],
        "speculators_model_type": "peagle",
        "model_type": "speculators",
        "transformer_layer_config": dense_config(1, V),
        "draft_vocab_size": V,
        "mask_token_id": V - 1,
        "speculators_config": {
            "algorithm": "peagle",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 7}],
            "verifier": {"name_or_path": "org/target-8b", "architectures": ["LlamaForCausalLM"]},
        },
    }
    draft = write(tmp_path / "d", shapes, cfg, arrays={"d2t": np.zeros(V, dtype=np.int64)}, tokens=vocab(V))
    r = audit_checkpoint(_target(tmp_path), draft=draft)
    assert r.errors == [] and r.exit_code == 0, [(f.code, f.message) for f in r.errors]
    (f,) = r.by_code("DRAFT_FORMAT_UNKNOWN")
    assert "PEagleSpeculator" in f.message and "speculators_model_type peagle" in f.message
    assert "draft_family" not in r.facts.get("draft", {})


def _speculators_eagle(root: Path, *, layernorms: bool, drop: tuple[str, ...] = ()) -> Path:
    """A speculators-format EAGLE-1 (HASS with ``layernorms``) draft in the speculators library's own names
    (vllm-project/speculators convert/eagle/eagle_converter.py @792b9e6c^: fc. -> fusion_fc., layers.0. ->
    transformer., HASS's lm_head_layernorm -> pre_lm_head_layernorm; models/eagle.py: the decoder layer's
    input_layernorm only with layernorms, embed_tokens and lm_head never saved)."""
    shapes = {"fusion_fc.weight": [H, 2 * H]} | _layer("transformer.", H)
    if layernorms:
        shapes |= {"fusion_fc.bias": [H], "embedding_layernorm.weight": [H], "pre_lm_head_layernorm.weight": [H]}
    else:
        del shapes["transformer.input_layernorm.weight"]
    cfg = {
        "architectures": ["EagleSpeculator", "LlamaDecoderLayer"],
        "speculators_model_type": "eagle",
        "transformer_layer_architecture": "LlamaDecoderLayer",
        "transformer_layer_config": dense_config(1, V),
        "layernorms": layernorms,
        "fusion_bias": layernorms,
        "speculators_config": {
            "algorithm": "eagle",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 5}],
            "default_proposal_method": "greedy",
            "verifier": {"name_or_path": "org/target-8b", "architectures": ["LlamaForCausalLM"]},
        },
    }
    return write(root, {k: v for k, v in shapes.items() if k not in drop}, cfg, tokens=vocab(V))


def test_speculators_eagle1_names_are_read_and_vllm_refusing_the_method_is_named(tmp_path: Path) -> None:
    """The speculators names were read by no rule: a complete draft was "0 of 9 required tensors present" with a
    download fix. They are the EAGLE family's names; the one error is that vLLM's speculators registry (algos.py)
    has no ``eagle`` method and refuses the config."""
    for layernorms in (False, True):
        r = audit_checkpoint(
            _target(tmp_path), draft=_speculators_eagle(tmp_path / f"d{layernorms}", layernorms=layernorms)
        )
        (f,) = r.errors
        assert f.code == "DRAFT_SPECULATORS_CONFIG_INVALID" and f.details == {
            "speculators_model_type": "eagle",
            "registered_methods": ["eagle3", "peagle", "dflash", "medusa", "dspark"],
        }
        assert "fusion_fc.* to fc.*" in (f.fix or "") and r.exit_code == 1
        assert r.facts["draft"]["draft_family"]["family"] == "eagle"
        assert r.facts["draft"]["draft_format"]["num_speculative_tokens"] == 5


def test_speculators_eagle1_missing_tensors_are_named_in_its_own_names(tmp_path: Path) -> None:
    r = audit_checkpoint(
        _target(tmp_path), draft=_speculators_eagle(tmp_path / "a", layernorms=False, drop=("fusion_fc.weight",))
    )
    (f,) = [f for f in r.errors if f.code == "DRAFT_TENSORS_MISSING"]
    assert f.details["missing"] == ["fusion_fc.weight"]
    hass = _speculators_eagle(tmp_path / "b", layernorms=True, drop=("pre_lm_head_layernorm.weight",))
    (f,) = [f for f in audit_checkpoint(_target(tmp_path), draft=hass).errors if f.code == "DRAFT_TENSORS_MISSING"]
    assert f.details["missing"] == ["pre_lm_head_layernorm.weight"]

"""Round 61 of the new-user checkpoint hunt (issue 36): layouts the census judged wrongly, audited the way a user runs
``specscope audit TARGET --draft DRAFT``, with the loader's own tensor names (shapes shrunk to ``H``).

- SGLang's MistralForCausalLMEagle (mistral_eagle.py @03ba820e) stored under Hugging Face names (``model.fc``,
  ``model.layers.{i}.self_attn.q_proj`` ...): its loader passes a name under ``model.`` / ``lm_head.`` through as
  spelled to LlamaForCausalLM.load_weights, so both spellings load; the HF one was DRAFT_TENSORS_MISSING asking for
  ``eagle_linear.weight`` (exit 1).
"""

from __future__ import annotations

from pathlib import Path

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

"""An EAGLE-1 draft exported under a plain causal-LM architecture (``LlamaForCausalLM``), judged by vLLM's eagle loader.

vLLM runs a ``method: eagle`` draft through ``EAGLEConfig`` (vllm/transformers_utils/configs/eagle.py: a plain
``LlamaForCausalLM`` becomes ``EagleLlamaForCausalLM``) and ``llama_eagle.py`` @00da9231, which prefixes every name
but ``lm_head`` with ``model.``: its tensors are ``fc.weight`` and ``layers.{i}.*`` with no ``model.`` prefix, layer 0
without ``input_layernorm``. Its AutoWeightsLoader leaves a parameter the checkpoint lacks at its initial value (no
check that every parameter loaded), so a missing ``fc.weight`` serves garbage drafts. The same names cannot load as a
separate draft model: vLLM's ``LlamaForCausalLM`` has no top-level ``layers`` module.

Before (issue 36 leftover, aud57): with ``fc.weight`` stored the draft was EAGLE (tensor names); without it, it fell
to the plain draft-model family and was ``DRAFT_FORMAT_UNKNOWN/unmatched`` (warning, exit 0) naming "Separate draft
model" as the nearest family. Now it is EAGLE by its ``layers.{i}.*`` names and the missing ``fc.weight`` is
``DRAFT_TENSORS_MISSING`` (error, exit 1) with EAGLE's fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write

V = 64


def _eagle1(tmp_path: Path, *, fc: bool, arch: str = "LlamaForCausalLM") -> tuple[Path, Path]:
    shapes = layer("layers.0.")
    del shapes["layers.0.input_layernorm.weight"]  # llama_eagle.py: layer 0 runs without input_layernorm
    if fc:
        shapes["fc.weight"] = [H, 2 * H]
        if arch.endswith("Eagle"):  # SGLang's EAGLE-1 fc has a bias it reads (llama_eagle.py @034b3be8)
            shapes["fc.bias"] = [H]
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    draft = write(tmp_path / f"draft-{fc}", shapes, {**dense_config(1, V), "architectures": [arch]})
    return target, draft


def test_exported_eagle1_with_fc_is_a_clean_eagle_draft(tmp_path: Path) -> None:
    target, draft = _eagle1(tmp_path, fc=True)
    r = audit_checkpoint(target, draft=draft)
    assert r.exit_code == 0 and r.errors == []
    assert r.facts["draft"]["draft_family"]["family"] == "eagle"


def test_exported_eagle1_without_fc_is_eagle_missing_fc_not_an_unknown_draft_model(tmp_path: Path) -> None:
    target, draft = _eagle1(tmp_path, fc=False)
    r = audit_checkpoint(target, draft=draft)
    assert r.by_code("DRAFT_FORMAT_UNKNOWN") == []
    (f,) = r.errors
    assert f.code == "DRAFT_TENSORS_MISSING" and "fc.weight" in f.message and r.exit_code == 1
    assert "EAGLE" in f.message and "Separate draft model" not in f.message
    assert r.facts["draft"]["draft_family"]["family"] == "eagle"


def test_a_plain_draft_model_is_still_a_draft_model(tmp_path: Path) -> None:
    """``model.layers.{i}.*`` (the causal LM's own prefix) is no EAGLE-1 layout: still judged as a draft model."""
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    draft = write(tmp_path / "draft", dense_model(1, V), dense_config(1, V))
    r = audit_checkpoint(target, draft=draft)
    assert r.exit_code == 0 and r.facts["draft"]["draft_family"]["family"] == "draft_model"


@pytest.mark.parametrize("arch", ["LlamaForCausalLMEagle", "Qwen2ForCausalLMEagle"])
def test_sglang_eagle1_architectures_are_judged_as_eagle(tmp_path: Path, arch: str) -> None:
    """SGLang loads EAGLE-1 drafts as ``LlamaForCausalLMEagle`` (python/sglang/srt/models/llama_eagle.py @034b3be8)
    and ``Qwen2ForCausalLMEagle`` (qwen2_eagle.py @005da006): ``fc`` [hidden, 2*hidden] and ``layers.{i}`` prefixed
    with ``model.`` by load_weights, layer 0 without ``input_layernorm``, ``lm_head.*`` never loaded (the target's is
    set). Before (aud57) the architecture was outside the census: DRAFT_FORMAT_UNKNOWN/unlisted (warning, exit 0) with
    or without ``fc.weight``; now the complete draft is a clean EAGLE draft and one without ``fc.weight`` exits 1."""
    target, draft = _eagle1(tmp_path, fc=True, arch=arch)
    r = audit_checkpoint(target, draft=draft)
    assert r.exit_code == 0 and r.errors == [] and r.by_code("DRAFT_FORMAT_UNKNOWN") == []
    assert r.facts["draft"]["draft_family"]["family"] == "eagle"
    target, draft = _eagle1(tmp_path / "bare", fc=False, arch=arch)
    r = audit_checkpoint(target, draft=draft)
    (f,) = r.errors
    assert (f.code, r.exit_code) == ("DRAFT_TENSORS_MISSING", 1) and "fc.weight" in f.message

"""HASS drafts (EAGLE-2 drafts trained with HASS): an EAGLE draft with two more norms, ``embedding_layernorm`` over the
token embedding and ``hidden_states_layernorm`` over the target's hidden state, built only with ``add_para_norm: true``
(a speculators-format config's ``layernorms: true`` maps to it).

Sources (vllm-project/vllm): llama_eagle.py @00da9231 LlamaModel builds both norms only when the config's
``add_para_norm`` is true and skips a stored name it has no parameter for; transformers_utils/configs/speculators
eagle config ``update_defualts`` sets ``add_para_norm`` from ``layernorms``. A HASS draft is judged as the EAGLE family
(the loader it runs with): with its flag, clean; without it, its norms are never read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli
from specscope.audit import AuditReport, audit_checkpoint

from .ckmaker import H, dense_config, dense_model, layer, write

V = 64
NORMS = {"embedding_layernorm.weight": [H], "hidden_states_layernorm.weight": [H]}


def _audit(tmp_path: Path, config_extra: dict, capsys, monkeypatch, extra: dict | None = None) -> tuple[int, dict]:
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0."), **NORMS, **(extra or {})}
    del shapes["layers.0.input_layernorm.weight"]
    cfg = {**dense_config(1, V), "architectures": ["EagleLlamaForCausalLM"], **config_extra}
    draft = write(tmp_path / "hass", shapes, cfg)
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    code, out, _ = cli(["audit", target, "--draft", draft, "--format", "json"], capsys, monkeypatch, tmp_path)
    return code, json.loads(out)


def test_a_hass_draft_with_its_flag_is_a_clean_eagle_draft(tmp_path: Path, capsys, monkeypatch) -> None:
    code, report = _audit(tmp_path, {"add_para_norm": True}, capsys, monkeypatch)
    assert code == 0
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == ["DRAFT_TOKENIZER_UNVERIFIED"]
    assert report["facts"]["draft"]["draft_family"]["family"] == "eagle"


def test_hass_norms_without_add_para_norm_are_not_read(tmp_path: Path, capsys, monkeypatch) -> None:
    """Stored norms, add_para_norm absent: the loader builds no such parameter and skips them; the draft runs without
    the norms it was trained with (it passed with exit 0)."""
    code, report = _audit(tmp_path, {}, capsys, monkeypatch)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSOR_NOT_READ"]
    assert f["details"] == {
        "key": "add_para_norm",
        "value": False,
        "tensors": ["embedding_layernorm.weight", "hidden_states_layernorm.weight"],
    }
    assert f["severity"] == "error" and code == 1
    assert "add_para_norm: true" in f["message"]


def test_speculators_layernorms_declares_the_norms(tmp_path: Path, capsys, monkeypatch) -> None:
    code, report = _audit(tmp_path, {"layernorms": True}, capsys, monkeypatch)
    assert "DRAFT_TENSOR_NOT_READ" not in [f["code"] for f in report["findings"]] and code == 0


def test_declared_hass_norms_missing_are_named(tmp_path: Path, capsys, monkeypatch) -> None:
    """add_para_norm true builds both norms (llama_eagle.py @00da9231), and the EAGLE loader skips a parameter no
    stored tensor fills: without the tensors the draft ran with untrained unit norms and passed with exit 0."""
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    del shapes["layers.0.input_layernorm.weight"]
    cfg = {**dense_config(1, V), "architectures": ["EagleLlamaForCausalLM"], "add_para_norm": True}
    draft = write(tmp_path / "hass", shapes, cfg)
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    code, out, _ = cli(["audit", target, "--draft", draft, "--format", "json"], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in json.loads(out)["findings"] if f["code"] == "DRAFT_TENSORS_MISSING"]
    assert f["details"]["missing"] == ["embedding_layernorm.weight", "hidden_states_layernorm.weight"]
    assert f["severity"] == "error" and code == 1


def test_an_eagle_fc_bias_is_named_as_not_read_by_vllm(tmp_path: Path, capsys, monkeypatch) -> None:
    """EAGLE-1 trains fc with a bias (HASS too: speculators fusion_bias); vLLM llama_eagle.py @00da9231 builds fc with
    bias=False and skips fc.bias, so the draft ran without it and passed with no finding. A WARNING: SGLang reads it."""
    code, report = _audit(tmp_path, {"add_para_norm": True}, capsys, monkeypatch, extra={"fc.bias": [H]})
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSOR_NOT_READ"]
    assert f["severity"] == "warning" and f["details"] == {"tensors": ["fc.bias"]} and code == 0
    assert f["message"].startswith("the draft stores fc.bias, the bias of its fc")


def _sglang_eagle1(tmp_path: Path, arch: str, bias: bool) -> AuditReport:
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0."), **({"fc.bias": [H]} if bias else {})}
    del shapes["layers.0.input_layernorm.weight"]
    draft = write(tmp_path / "sgl", shapes, {**dense_config(1, V), "architectures": [arch]})
    return audit_checkpoint(write(tmp_path / "target", dense_model(2, V), dense_config(2, V)), draft=draft)


@pytest.mark.parametrize("arch", ["LlamaForCausalLMEagle", "Qwen2ForCausalLMEagle"])
def test_an_sglang_eagle1_draft_without_fc_bias_is_missing_it(tmp_path: Path, arch: str) -> None:
    """SGLang llama_eagle.py @034b3be8 / qwen2_eagle.py @005da006 build fc as nn.Linear with its default bias and read
    fc.bias by name; a checkpoint without it leaves the bias at its random initial value (no check that every
    parameter loaded). Before (aud58) this passed with no finding."""
    r = _sglang_eagle1(tmp_path, arch, bias=False)
    (f,) = r.by_code("DRAFT_TENSORS_MISSING")
    assert (f.severity.value, r.exit_code, f.details) == ("error", 1, {"missing": ["fc.bias"], "engine": "SGLang"})
    assert "SGLang" in f.message and arch in f.message and r.by_code("DRAFT_TENSOR_NOT_READ") == []


@pytest.mark.parametrize("arch", ["LlamaForCausalLMEagle", "Qwen2ForCausalLMEagle"])
def test_an_sglang_eagle1_draft_with_fc_bias_is_clean(tmp_path: Path, arch: str) -> None:
    """Under an SGLang architecture fc.bias is read: no vLLM-worded "not read" warning (before aud58 it had one)."""
    r = _sglang_eagle1(tmp_path, arch, bias=True)
    assert r.by_code("DRAFT_TENSOR_NOT_READ") == [] and r.by_code("DRAFT_TENSORS_MISSING") == [] and r.exit_code == 0


def test_a_vllm_eagle1_draft_without_fc_bias_is_fine(tmp_path: Path) -> None:
    """vLLM's EAGLE loader builds fc without a bias: no fc.bias is what it reads."""
    r = _sglang_eagle1(tmp_path, "EagleLlamaForCausalLM", bias=False)
    assert r.by_code("DRAFT_TENSORS_MISSING") == [] and r.by_code("DRAFT_TENSOR_NOT_READ") == [] and r.exit_code == 0

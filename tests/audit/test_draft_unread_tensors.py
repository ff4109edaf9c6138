"""A separate draft that stores tensors its family's loader has no place for (census: architectures.toml
``unread_tensors`` / ``loader_names``), run through ``specscope audit`` as a user would.

Sources (vllm-project/vllm, the commits the families' ``engines`` name): qwen3_dflash.py @036a00d1 and
llama_eagle3.py @00bd1493 raise on a name they have no parameter for (AutoWeightsLoader with no skip prefix;
``params_dict[name]``); llama_eagle.py @00da9231, medusa.py @01dbb081 and mlp_speculator.py @0531c222 skip it. Case:
a DSpark export saved as ``DFlashDraftModel`` with ``markov_head.weight`` / ``confidence_head.weight`` passed as DFlash
with exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli

from .ckmaker import H, dense_config, dense_model, write
from .test_families import CASES, V

EXTRA = {"markov_head.weight": [V, H], "confidence_head.weight": [1, H]}


def _audit(tmp_path: Path, key: str, extra: dict[str, list[int]], capsys, monkeypatch) -> tuple[int, dict]:
    case = CASES[key]
    root = write(tmp_path / key, {**case.shapes, **extra}, case.config)
    code, out, _ = cli(["audit", root, "--format", "json"], capsys, monkeypatch, tmp_path)
    return code, json.loads(out)


def _codes(report: dict, severity: str) -> list[str]:
    return [f["code"] for f in report["findings"] if f["severity"] == severity]


def test_dspark_heads_in_a_dflash_draft_are_an_error_listing_them(tmp_path: Path, capsys, monkeypatch) -> None:
    code, report = _audit(tmp_path, "dflash", EXTRA, capsys, monkeypatch)
    assert code == 1
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_UNREAD"]
    assert f["severity"] == "error"
    assert f["details"]["tensors"] == ["confidence_head.weight", "markov_head.weight"]
    assert f["details"]["family"] == "dflash" and f["details"]["loader"] == "raises"
    assert "markov_head.weight" in f["message"] and f["fix"]


@pytest.mark.parametrize(("key", "severity"), [("eagle3", "error"), ("eagle", "warning"), ("medusa", "warning")])
def test_unread_tensors_per_family(tmp_path: Path, capsys, monkeypatch, key: str, severity: str) -> None:
    code, report = _audit(tmp_path, key, EXTRA, capsys, monkeypatch)
    assert _codes(report, severity).count("DRAFT_TENSORS_UNREAD") == 1
    assert code == (1 if severity == "error" else 0)


def test_mlp_speculator_extra_stage_is_a_warning(tmp_path: Path, capsys, monkeypatch) -> None:
    """n_predict 2: a third stage's tensors have no parameter; the loader skips them (params_dict.get)."""
    code, report = _audit(tmp_path, "mlp_speculator", {"emb.2.weight": [V, 32]}, capsys, monkeypatch)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_UNREAD"]
    assert f["severity"] == "warning" and f["details"]["tensors"] == ["emb.2.weight"] and code == 0


@pytest.mark.parametrize(
    ("key", "extra"),
    [
        ("eagle3", {"d2t": [V], "t2d": [V]}),
        ("dflash", {"d2t": [V], "t2d": [V]}),
        ("medusa", {"token_map": [V]}),
        ("medusa", {"medusa_heads.blocks.0.layers.0.bias": [H]}),
        ("eagle", {"embed_tokens.weight": [V, H], "lm_head.weight": [V, H]}),
        ("dflash", {"layers.0.self_attn.q_proj.weight_scale": [H, 1]}),
    ],
)
def test_names_the_loader_reads_are_not_flagged(tmp_path: Path, capsys, monkeypatch, key: str, extra) -> None:
    _, report = _audit(tmp_path, key, extra, capsys, monkeypatch)
    assert "DRAFT_TENSORS_UNREAD" not in [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("key", ["eagle_llama4", "eagle_deepseek", "eagle_minicpm"])
def test_target_numbered_eagle_loaders_raise_on_unread_tensors(tmp_path: Path, capsys, monkeypatch, key: str) -> None:
    """llama4_eagle.py @06bfb261 (EagleLlama4Model.load_weights ``params_dict[name]``), deepseek_eagle.py @0c58615d
    (DeepseekV2Model.load_weights ``params_dict[name]``) and minicpm_eagle.py @04028200 (AutoWeightsLoader, then
    ``params_dict[name]``) raise on a name they have no parameter for: the DSpark heads stop the draft loading."""
    code, report = _audit(tmp_path, key, EXTRA, capsys, monkeypatch)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_UNREAD"]
    assert f["severity"] == "error" and code == 1
    assert f["details"] == {
        "family": key,
        "loader": "raises",
        "tensors": ["confidence_head.weight", "markov_head.weight"],
    }


@pytest.mark.parametrize("key", ["eagle_deepseek", "eagle_minicpm"])
def test_a_stray_bias_is_skipped_where_the_loader_skips_it(tmp_path: Path, capsys, monkeypatch, key: str) -> None:
    """deepseek_eagle.py and minicpm_eagle.py skip a ``.bias`` they have no parameter for ("Skip loading extra bias
    for GPTQ models"): a WARNING, not the error; llama4_eagle.py @06bfb261 has no such skip and raises."""
    code, report = _audit(tmp_path, key, {"markov_head.bias": [H]}, capsys, monkeypatch)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_UNREAD"]
    assert f["severity"] == "warning" and f["details"]["tensors"] == ["markov_head.bias"] and code == 0
    code, report = _audit(tmp_path / "l4", "eagle_llama4", {"markov_head.bias": [H]}, capsys, monkeypatch)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_UNREAD"]
    assert f["severity"] == "error" and code == 1


@pytest.mark.parametrize("key", ["eagle_llama4", "eagle_deepseek", "eagle_minicpm"])
def test_target_numbered_layers_are_read(tmp_path: Path, capsys, monkeypatch, key: str) -> None:
    """A layer at any index (the target's layer count, unknown without the target) is the loader's own."""
    extra = {"layers.7.self_attn.o_proj.weight": [H, H]}
    if key == "eagle_minicpm":
        extra = {"model.eagle_layers.7.self_attn.o_proj.weight": [H, H]}
    _, report = _audit(tmp_path, key, extra, capsys, monkeypatch)
    assert "DRAFT_TENSORS_UNREAD" not in [f["code"] for f in report["findings"]]


def _audit_draft_model(tmp_path: Path, extra: dict[str, list[int]], capsys, monkeypatch) -> tuple[int, dict]:
    case = CASES["draft_model"]
    draft = write(tmp_path / "draft", {**case.shapes, **extra}, case.config)
    target = write(tmp_path / "target", dense_model(2, V), dense_config(2, V))
    code, out, _ = cli(["audit", target, "--draft", draft, "--format", "json"], capsys, monkeypatch, tmp_path)
    return code, json.loads(out)


def test_draft_model_tensors_outside_a_causal_lm_are_named_not_judged(tmp_path: Path, capsys, monkeypatch) -> None:
    """A plain draft model loads with its own architecture's causal-LM loader, whose parameters the census does not
    list: names outside ``model.*`` / ``lm_head.*`` are named (WARNING, exit 0), never passed silently."""
    code, report = _audit_draft_model(tmp_path, EXTRA, capsys, monkeypatch)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_UNREAD"]
    assert f["severity"] == "warning" and code == 0
    assert f["details"] == {
        "family": "draft_model",
        "loader": "not judged",
        "tensors": ["confidence_head.weight", "markov_head.weight"],
    }
    assert "LlamaForCausalLM" in f["message"] and f["file"] == "draft:model.safetensors"


def test_draft_model_names_under_model_are_not_flagged(tmp_path: Path, capsys, monkeypatch) -> None:
    _, report = _audit_draft_model(tmp_path, {"model.layers.0.self_attn.q_norm.weight": [8]}, capsys, monkeypatch)
    assert "DRAFT_TENSORS_UNREAD" not in [f["code"] for f in report["findings"]]

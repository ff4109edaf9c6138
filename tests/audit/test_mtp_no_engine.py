"""An MTP head a config declares for a model type no engine of the census loads an MTP head for (MiniMax-M2).

MiniMax-M2's config.json declares ``use_mtp: true``, ``num_mtp_modules: 3``, ``mtp_transformer_layers: 1``. vLLM
reads ``num_mtp_modules`` only in the target loader's skip of ``model.layers.{N+i}`` (i < num_mtp_modules)
(vllm/model_executor/models/minimax_m2.py @01d99586 ``get_spec_layer_idx_from_weight_name``), a skip that never
matches (AutoWeightsLoader strips ``model.`` first), and builds no MTP layer (minimax_m2.py does not read ``use_mtp``);
vllm/config/speculative.py @002e77c1 ``hf_config_override`` maps no ``minimax_m2`` model type to an MTP model (its MTP
list has ``minimax_m3_mtp`` only); SGLang's ``model_config.py`` @001adf56 names no MiniMax-M2 draft class.

Before (issue 36 leftover, aud57): such a checkpoint with no MTP tensor gave no finding at all (a user reading
``use_mtp: true`` expects ``--speculative-config method mtp`` to work), and with the head's tensors stored the warning
said "an MTP head the config does not declare". Now: ``MTP_NO_ENGINE`` (info, exit 0) says no engine loads it, and
``MTP_NO_ENGINE/stored`` (warning, exit 0) names the stored tensors as declared and never read; no family's rule or
fix either way.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint

from .ckmaker import dense_config, dense_model, layer, write

V = 64


def _minimax_m2(**extra: object) -> dict:
    cfg = {**dense_config(2, V), "architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2"}
    return cfg | {"use_mtp": True, "num_mtp_modules": 3, "mtp_transformer_layers": 1} | extra


def test_declared_mtp_with_no_engine_and_no_tensors_is_named(tmp_path: Path) -> None:
    r = audit_checkpoint(write(tmp_path / "ck", dense_model(2, V), _minimax_m2()))
    assert r.exit_code == 0 and r.errors == [] and r.warnings == []
    (f,) = r.findings
    assert (f.code, f.severity.value) == ("MTP_NO_ENGINE", "info")
    assert "use_mtp: True, num_mtp_modules: 3" in f.message and "'minimax_m2'" in f.message
    assert "no engine" in f.message and "stores no MTP tensor" in f.message
    assert f.fix is not None and "graft" not in f.fix and not re.search(r"deepseek-ai|Qwen/", f.fix)
    # vLLM minimax_m2.py @01d99586: num_mtp_modules is read only by the target's skip of model.layers.N+i names,
    # which AutoWeightsLoader has stripped of model. first: the skip never matches, and no MTP layer is built
    assert f.consequence is not None and "only to skip" not in f.consequence
    assert "never matches" in f.consequence and "builds no MTP layer" in f.consequence


@pytest.mark.parametrize("stored", [2, 5])  # within num_mtp_modules (3), and past it
def test_minimax_m2_layers_stored_past_the_main_ones_stop_vllms_target_loader(tmp_path: Path, stored: int) -> None:
    """vLLM minimax_m2.py @01d99586: MiniMaxM2ForCausalLM loads through AutoWeightsLoader, which hands the ``model``
    child's weights to MiniMaxM2Model.load_weights with ``model.`` stripped, so its skip (names starting
    ``model.layers.{N+i}.``) never matches: ``layers.{N+i}.*`` reaches ``params_dict[name]`` with no such parameter
    (a KeyError) whether i is below ``num_mtp_modules`` or not. Before (aud58): MTP_NO_ENGINE/stored, a warning, exit
    0, saying the tensors are never read."""
    shapes = dense_model(2, V) | layer(f"model.layers.{stored}.")
    r = audit_checkpoint(write(tmp_path / "ck", shapes, _minimax_m2()))
    (f,) = r.findings
    assert (f.code, f.severity.value, r.exit_code) == ("MTP_NO_ENGINE", "error", 1)
    assert "9 tensors" in f.message and f"model.layers.{stored}." in f.message and "KeyError" in f.consequence
    assert f.details["prefixes"] == [f"model.layers.{stored}."] and f.details["model_type"] == "minimax_m2"


def test_use_mtp_false_declares_nothing(tmp_path: Path) -> None:
    r = audit_checkpoint(write(tmp_path / "ck", dense_model(2, V), _minimax_m2(use_mtp=False)))
    assert r.findings == [] and r.exit_code == 0

"""Drafts judged by the census as written, run through ``specscope audit`` as a user would.

- An architecture name is the census's only when it is one of the names a row lists: ``PeagleLlamaForCausalLM``
  (P-EAGLE, which vLLM's speculators ``algos.py`` ``update_peagle`` writes) holds ``EagleLlamaForCausalLM`` as a
  substring and was judged by EAGLE-1's rules (ERROR DRAFT_FC_SHAPE with EAGLE-1's fix). A draft architecture no
  family names is the named warning, listing what is stored, and no family's rule.
- The MLP speculator (vLLM ``mlp_speculator.py`` @0531c222): ``proj.0`` is ``nn.Linear(emb_dim, inner_dim)`` over the
  target's last hidden state (``MLPSpeculatorConfig.attribute_map`` reads ``hidden_size`` as ``emb_dim``), so
  ``emb_dim`` must be the target's ``hidden_size``; a speculator for another width passed with exit 0.
- EAGLE-3's ``norm_before_fc`` / ``fc_norm`` (vLLM ``llama_eagle3.py``, the release that reads them): ``input_norm``
  [n_aux * target_hidden] exists only with ``norm_before_fc`` (else ``input_norm.*`` is skipped), ``fc_norm.{i}``
  [target_hidden] per auxiliary state only with ``fc_norm``. A draft whose tensors disagree passed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from clirun import cli

from .ckmaker import H, dense_config, dense_model, layer, vocab, write

V = 64


def _target(tmp_path: Path) -> Path:
    return write(tmp_path / "target", dense_model(2, V), dense_config(2, V), tokens=vocab(V))


def _audit(argv: list[object], capsys, monkeypatch, tmp_path: Path) -> tuple[int, dict]:
    code, out, _err = cli(["audit", *argv, "-f", "json"], capsys, monkeypatch, tmp_path)
    return code, json.loads(out)


def _codes(report: dict, severity: str | None = None) -> list[str]:
    return [f["code"] for f in report["findings"] if severity is None or f["severity"] == severity]


@pytest.mark.parametrize("arch", ["PeagleLlamaForCausalLM", "PEagleDraftModel", "EagleCohereForCausalLM"])
def test_an_architecture_holding_a_census_name_is_not_that_family(
    tmp_path: Path, capsys, monkeypatch, arch: str
) -> None:
    """EAGLE-3-shaped tensors (fc [H, 3H]) under an architecture the census does not list: exit 0, the named warning
    (DRAFT_FORMAT_UNKNOWN, found "architectures: <arch>", the stored names), no DRAFT_FC_SHAPE and no EAGLE fix."""
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H], **layer("layers.0.")}
    shapes["layers.0.hidden_norm.weight"] = [H]
    cfg = {**dense_config(1, V), "architectures": [arch], "draft_vocab_size": V}
    draft = write(tmp_path / "d", shapes, cfg, arrays={"d2t": np.zeros(V, dtype=np.int64)}, tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_FORMAT_UNKNOWN"]
    assert f["found"] == f"architectures: {arch}"
    assert "14 tensors" in f["message"] and "d2t" in f["message"]
    assert "EAGLE" not in (f["fix"] or "") and "draft_family" not in report["facts"].get("draft", {})


def test_an_unlisted_draft_architecture_alone_is_named(tmp_path: Path, capsys, monkeypatch) -> None:
    """The same draft audited on its own (no --draft): it was "no findings"; now the named warning, exit 0."""
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    cfg = {**dense_config(1, V), "architectures": ["PeagleLlamaForCausalLM"]}
    code, report = _audit([write(tmp_path / "d", shapes, cfg)], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report) == ["DRAFT_FORMAT_UNKNOWN"]


def test_an_eagle1_draft_exported_as_a_plain_llama_is_still_eagle(tmp_path: Path, capsys, monkeypatch) -> None:
    """EAGLE-1 drafts published with architectures LlamaForCausalLM (yuhuili/EAGLE-llama2-chat-7B) are recognised by
    their names: an ordinary architecture is no speculative format the census lacks."""
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    draft = write(tmp_path / "d", shapes, dense_config(1, V), tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and report["facts"]["draft"]["draft_family"]["family"] == "eagle"

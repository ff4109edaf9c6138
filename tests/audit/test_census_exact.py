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

from .ckmaker import H, I, dense_config, dense_model, eagle3_first, layer, vocab, write

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


def test_an_unknown_draft_format_has_unknown_bytes_never_target_bytes_or_zero(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """A draft of a format outside the census was counted as a target: alone, "target 3,200 bytes (no draft in this
    checkpoint)" beside the warning that it is a draft; with --draft, draft_bytes_per_step 0 and draft_share 0.0 (an
    absent figure written as 0; fresh-user check, 2026-12-06). Its bytes per step are unknown and the rule says why."""
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    cfg = {**dense_config(1, V), "architectures": ["PeagleLlamaForCausalLM"]}
    draft = write(tmp_path / "d", shapes, cfg, tokens=vocab(V))
    rule = "a draft format outside the census (PeagleLlamaForCausalLM): its bytes per step are unknown"
    code, report = _audit([draft], capsys, monkeypatch, tmp_path)
    c = report["census"]
    assert code == 0 and (c["target_bytes_per_token"], c["draft_bytes_per_step"], c["draft_rule"]) == (None, None, rule)
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    c = report["census"]
    assert (c["draft_bytes_per_step"], c["draft_share"], c["draft_rule"]) == (None, None, rule)
    assert c["target_bytes_per_token"] == 11456  # the target's own, as without --draft


def test_an_eagle1_draft_exported_as_a_plain_llama_is_still_eagle(tmp_path: Path, capsys, monkeypatch) -> None:
    """EAGLE-1 drafts published with architectures LlamaForCausalLM (yuhuili/EAGLE-llama2-chat-7B) are recognised by
    their names: an ordinary architecture is no speculative format the census lacks."""
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    draft = write(tmp_path / "d", shapes, dense_config(1, V), tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and report["facts"]["draft"]["draft_family"]["family"] == "eagle"


def _mlp(root: Path, emb_dim: int, *, proj0: int | None = None, **extra: object) -> Path:
    shapes: dict[str, list[int]] = {}
    for i in range(2):
        shapes |= {f"emb.{i}.weight": [V, I], f"head.{i}.weight": [V, I], f"ln.{i}.weight": [I], f"ln.{i}.bias": [I]}
        shapes[f"proj.{i}.weight"] = [I, (proj0 or emb_dim) if i == 0 else I]
    cfg = {"architectures": ["MLPSpeculatorPreTrainedModel"], "model_type": "mlp_speculator", "n_predict": 2}
    cfg |= {"emb_dim": emb_dim, "inner_dim": I, "vocab_size": V, "n_candidates": 2, "top_k_tokens_per_head": [2, 2]}
    return write(root, shapes, cfg | extra, tokens=vocab(V))


def test_mlp_speculator_for_another_width_is_an_error(tmp_path: Path, capsys, monkeypatch) -> None:
    code, report = _audit([_target(tmp_path), "--draft", _mlp(tmp_path / "d", 2 * H)], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_HIDDEN_MISMATCH"]
    assert f["details"] == {"draft_width": 2 * H, "from": "emb_dim", "target_hidden_size": H}
    assert code == 1


def test_mlp_speculator_of_the_target_width_is_clean(tmp_path: Path, capsys, monkeypatch) -> None:
    code, report = _audit([_target(tmp_path), "--draft", _mlp(tmp_path / "d", H)], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []


def test_mlp_speculator_proj0_unlike_emb_dim_is_an_error(tmp_path: Path, capsys, monkeypatch) -> None:
    """emb_dim says H, proj.0 is stored [I, 2H]: the loader builds proj.0 as [inner_dim, emb_dim] and its
    default_weight_loader asserts the shape."""
    draft = _mlp(tmp_path / "d", H, proj0=2 * H)
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSOR_SHAPE"]
    assert f["details"]["tensors"] == [{"name": "proj.0.weight", "shape": [I, 2 * H], "expected": [I, H]}]
    assert code == 1


def test_mlp_speculator_top_k_per_head_of_another_length_is_an_error(tmp_path: Path, capsys, monkeypatch) -> None:
    """MLPSpeculatorConfig asserts len(top_k_tokens_per_head) == n_predict: the config does not load."""
    draft = _mlp(tmp_path / "d", H, top_k_tokens_per_head=[4, 3, 2])
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_CONFIG_INVALID"]
    assert f["details"] == {"key": "top_k_tokens_per_head", "value": [4, 3, 2], "expected": "2 entries (n_predict)"}
    assert code == 1


def _eagle3(root: Path, extra: dict[str, list[int]], **cfg_extra: object) -> Path:
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H]}
    shapes |= {**layer("midlayer.", eagle3_first()), **extra}
    cfg = {**dense_config(1, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": V, **cfg_extra}
    return write(root, shapes, cfg, arrays={"d2t": np.zeros(V, dtype=np.int64)}, tokens=vocab(V))


def test_eagle3_norm_before_fc_without_input_norm_is_missing(tmp_path: Path, capsys, monkeypatch) -> None:
    draft = _eagle3(tmp_path / "d", {}, norm_before_fc=True)
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_MISSING"]
    assert "input_norm.weight" in f["message"] and code == 1


def test_eagle3_norm_before_fc_in_eagle_config_is_read(tmp_path: Path, capsys, monkeypatch) -> None:
    draft = _eagle3(tmp_path / "d", {"input_norm.weight": [3 * H]}, eagle_config={"norm_before_fc": True})
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []


def test_eagle3_input_norm_stored_without_norm_before_fc_is_not_read(tmp_path: Path, capsys, monkeypatch) -> None:
    """input_norm stored, norm_before_fc absent (false): the loader skips input_norm.*, the trained norm is not
    applied."""
    draft = _eagle3(tmp_path / "d", {"input_norm.weight": [3 * H]})
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSOR_NOT_READ"]
    assert f["details"] == {"key": "norm_before_fc", "value": False, "tensors": ["input_norm.weight"]}
    assert code == 1


def test_eagle3_fc_norm_needs_one_norm_per_aux_state(tmp_path: Path, capsys, monkeypatch) -> None:
    draft = _eagle3(tmp_path / "d", {"fc_norm.0.weight": [H], "fc_norm.1.weight": [H]}, fc_norm=True)
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_MISSING"]
    assert "fc_norm.2.weight" in f["message"] and code == 1


def test_eagle3_fc_norm_stored_without_the_key_is_not_read(tmp_path: Path, capsys, monkeypatch) -> None:
    norms = {f"fc_norm.{i}.weight": [H] for i in range(3)}
    code, report = _audit([_target(tmp_path), "--draft", _eagle3(tmp_path / "d", norms)], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSOR_NOT_READ"]
    assert f["details"]["key"] == "fc_norm" and len(f["details"]["tensors"]) == 3
    assert code == 1


def test_eagle3_with_both_norms_as_declared_is_clean(tmp_path: Path, capsys, monkeypatch) -> None:
    extra = {"input_norm.weight": [3 * H], **{f"fc_norm.{i}.weight": [H] for i in range(3)}}
    draft = _eagle3(tmp_path / "d", extra, norm_before_fc=True, fc_norm=True)
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []


def test_eagle3_without_aux_hidden_states_has_no_fc(tmp_path: Path, capsys, monkeypatch) -> None:
    """eagle_config.use_aux_hidden_state false (the key ModelOpt exports write): the loader builds no fc and skips a
    stored fc.*; a draft without fc.weight is complete (it was ERROR DRAFT_TENSORS_MISSING fc.weight)."""
    shapes = {"norm.weight": [H], "lm_head.weight": [V, H], **layer("midlayer.", eagle3_first())}
    cfg = {**dense_config(1, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": V}
    cfg["eagle_config"] = {"use_aux_hidden_state": False}
    draft = write(tmp_path / "d", shapes, cfg, arrays={"d2t": np.zeros(V, dtype=np.int64)}, tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []


def test_eagle3_fc_is_sized_by_the_aux_states_it_fuses(tmp_path: Path, capsys, monkeypatch) -> None:
    """Four auxiliary layers in eagle_config (TorchSpec / ModelOpt drafts): fc is [H, 4H] (the loader sizes fc by
    n_aux * target width); it was ERROR DRAFT_FC_SHAPE expecting [H, 3H]. [H, 3H] is now the error."""
    aux = {"eagle_aux_hidden_state_layer_ids": [0, 1, 2, 3]}
    # 5 target layers: the nested ids are tapped at id + 1 (SGLang), so id 3 needs a layer 4 (issue 36 item 3)
    target = write(tmp_path / "target5", dense_model(5, V), dense_config(5, V), tokens=vocab(V))
    ok = _eagle3(tmp_path / "ok", {"fc.weight": [H, 4 * H]}, eagle_config=aux)
    code, report = _audit([target, "--draft", ok], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []
    bad = _eagle3(tmp_path / "bad", {}, eagle_config=aux)
    code, report = _audit([target, "--draft", bad], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_FC_SHAPE"]
    assert f["details"] == {"shape": [H, 3 * H], "expected": [H, 4 * H]} and code == 1


def test_eagle3_aux_ids_only_under_eagle_config_are_not_what_vllm_taps(tmp_path: Path, capsys, monkeypatch) -> None:
    """vLLM eagle3_utils.py @0cfdd2e1 get_eagle3_aux_layers_from_config never reads
    eagle_config.eagle_aux_hidden_state_layer_ids (SGLang does, tapping the input of id + 1) and taps the target's
    default (2, N // 2, N - 3): four nested ids beside fc [H, 4H] passed with no finding. A WARNING naming the
    top-level list to add; nested ids whose + 1 is vLLM's default, or the list at the top level, are clean."""
    target = write(tmp_path / "target8", dense_model(8, V), dense_config(8, V), tokens=vocab(V))
    four = {"eagle_aux_hidden_state_layer_ids": [0, 2, 4, 6]}
    nested = _eagle3(tmp_path / "n", {"fc.weight": [H, 4 * H]}, eagle_config=four)
    code, report = _audit([target, "--draft", nested], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "EAGLE3_AUX_IDS_NOT_READ"]
    assert f["severity"] == "warning" and code == 0
    assert f["details"] == {
        "key": "eagle_config.eagle_aux_hidden_state_layer_ids",
        "ids": [0, 2, 4, 6],
        "nested_taps": [1, 3, 5, 7],
        "default_taps": [2, 4, 5],
    }
    assert (
        f["fix"] == 'add "eagle_aux_hidden_state_layer_ids": [1, 3, 5, 7] at the top level of the draft\'s config.json'
    )
    code, report = _audit([nested], capsys, monkeypatch, tmp_path)  # the draft alone: four ids are never the default
    assert "EAGLE3_AUX_IDS_NOT_READ" in _codes(report)
    same = _eagle3(tmp_path / "s", {}, eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 3, 4]})
    top = _eagle3(
        tmp_path / "t", {"fc.weight": [H, 4 * H]}, eagle_config=four, eagle_aux_hidden_state_layer_ids=[1, 3, 5, 7]
    )
    for ok in (same, top):
        code, report = _audit([target, "--draft", ok], capsys, monkeypatch, tmp_path)
        assert "EAGLE3_AUX_IDS_NOT_READ" not in _codes(report) and code == 0


def test_eagle3_tapped_layers_not_what_fc_fuses_is_an_error(tmp_path: Path, capsys, monkeypatch) -> None:
    """A top-level eagle_aux_hidden_state_layer_ids is the list vLLM taps on the target (eagle3_utils
    get_eagle3_aux_layers_from_config reads the draft config's top-level key) and concatenates into fc: four (or two)
    ids beside an fc sized for three fails at the first draft step ("mat1 and mat2 shapes cannot be multiplied").
    It passed, exit 0. Three ids beside fc [H, 3H] stay clean."""
    target = write(tmp_path / "target4", dense_model(4, V), dense_config(4, V), tokens=vocab(V))
    ok = _eagle3(tmp_path / "ok", {}, eagle_aux_hidden_state_layer_ids=[0, 1, 2])
    code, report = _audit([target, "--draft", ok], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []
    for ids in ([0, 1, 2, 3], [0, 2]):
        bad = _eagle3(tmp_path / f"bad{len(ids)}", {}, eagle_aux_hidden_state_layer_ids=ids)
        code, report = _audit([target, "--draft", bad], capsys, monkeypatch, tmp_path)
        (f,) = [f for f in report["findings"] if f["code"] == "EAGLE3_AUX_COUNT_MISMATCH"]
        assert code == 1 and f["severity"] == "error" and f["tensor"] == "fc.weight"
        assert f["message"] == (
            f"eagle_aux_hidden_state_layer_ids lists {len(ids)} target layers ({len(ids) * H} values per token) "
            f"but fc.weight fuses 3 x {H} = {3 * H}"
        )
        assert f["details"] == {"ids": ids, "taps": len(ids), "fc_in": 3 * H, "width": H}
        code, report = _audit([bad], capsys, monkeypatch, tmp_path)  # the draft alone: the same fault
        assert code == 1 and "EAGLE3_AUX_COUNT_MISMATCH" in _codes(report, "error")


def test_eagle3_layer_ids_written_as_a_string_are_an_error(tmp_path: Path, capsys, monkeypatch) -> None:
    """``eagle_aux_hidden_state_layer_ids: "0,1,2"`` (or under eagle_config) is no list of layers; it passed, exit 0."""
    target = write(tmp_path / "target4", dense_model(4, V), dense_config(4, V), tokens=vocab(V))
    for name, extra, key in (
        ("top", {"eagle_aux_hidden_state_layer_ids": "0,1,2"}, "eagle_aux_hidden_state_layer_ids"),
        (
            "nested",
            {"eagle_config": {"eagle_aux_hidden_state_layer_ids": "0,1,2"}},
            "eagle_config.eagle_aux_hidden_state_layer_ids",
        ),
    ):
        draft = _eagle3(tmp_path / name, {}, **extra)
        code, report = _audit([target, "--draft", draft], capsys, monkeypatch, tmp_path)
        (f,) = [f for f in report["findings"] if f["code"] == "EAGLE3_AUX_IDS_INVALID"]
        assert code == 1 and f["severity"] == "error"
        assert f["message"] == f"{key} is a str ('0,1,2'), not a list of layer indices"


def test_eagle3_hidden_norm_is_the_first_layer_s_only(tmp_path: Path, capsys, monkeypatch) -> None:
    """A two-layer EAGLE-3 draft: only layer 0 normalises the target's hidden state (hidden_norm); layer 1 runs on
    the residual stream and its hidden_norm is never used. It was ERROR DRAFT_TENSORS_MISSING layers.1.hidden_norm."""
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H]}
    shapes |= {**layer("layers.0.", eagle3_first()), **layer("layers.1.")}
    cfg = {**dense_config(2, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": V}
    draft = write(tmp_path / "d", shapes, cfg, arrays={"d2t": np.zeros(V, dtype=np.int64)}, tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []
    del shapes["layers.1.input_layernorm.weight"]  # layer 1's own norm is read
    draft = write(tmp_path / "d2", shapes, cfg, arrays={"d2t": np.zeros(V, dtype=np.int64)}, tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_MISSING"]
    assert "layers.1.input_layernorm.weight" in f["message"] and code == 1


def test_a_draft_naming_its_target_depth_apart_is_read_by_that_key(tmp_path: Path, capsys, monkeypatch) -> None:
    """TorchSpec's DSpark/DFlash export (lightseekorg/TorchSpec ``torchspec/config/dspark_draft_config.json``
    @0db7eac0) writes ``num_target_layers`` as the count of target layers it reads (5) and the target's depth as
    ``target_num_hidden_layers`` (36); z-lab's configs write the depth as ``num_target_layers``. Audited alone, ids
    [1, 9, 17, 25, 33] were ERROR DRAFT_TARGET_LAYER_OUT_OF_RANGE against 5 layers."""
    shapes = {"fc.weight": [H, 5 * H], "hidden_norm.weight": [H], "norm.weight": [H]}
    shapes |= layer("layers.0.", {"self_attn.q_norm.weight": [8], "self_attn.k_norm.weight": [8]})
    cfg = {**dense_config(1, V), "architectures": ["DFlashDraftModel"], "model_type": "dflash"}
    cfg |= {"num_target_layers": 5, "target_num_hidden_layers": 36, "target_layer_ids": [1, 9, 17, 25, 33]}
    code, report = _audit([write(tmp_path / "d", shapes, cfg)], capsys, monkeypatch, tmp_path)
    assert "DRAFT_TARGET_LAYER_OUT_OF_RANGE" not in _codes(report) and code == 0
    cfg["target_num_hidden_layers"] = 30  # a depth the ids do not fit is still the error
    code, report = _audit([write(tmp_path / "d2", shapes, cfg)], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TARGET_LAYER_OUT_OF_RANGE"]
    assert f["details"]["out_of_range"] == [33] and code == 1


def _minicpm_eagle(root: Path, drop: str | None = None) -> Path:
    """An EAGLE draft for MiniCPM with vLLM ``minicpm_eagle.py``'s names (@04028200, loaded whole by
    AutoWeightsLoader): model.fc [H, 2H] over [input_norm1(embedding); input_norm2(hidden)], model.norm, and
    model.eagle_layers.{target layers + i} (here 2: a two-layer target)."""
    shapes = {"model.fc.weight": [H, 2 * H], "model.input_norm1.weight": [H], "model.input_norm2.weight": [H]}
    shapes |= {"model.norm.weight": [H], **layer("model.eagle_layers.2.")}
    shapes.pop(drop or "", None)
    cfg = {**dense_config(1, V), "architectures": ["EagleMiniCPMForCausalLM"], "model_type": "minicpm"}
    return write(root, shapes, cfg, tokens=vocab(V))


def test_minicpm_eagle_is_judged_by_its_own_loader_s_names(tmp_path: Path, capsys, monkeypatch) -> None:
    """It was judged by llama_eagle.py's names: ERROR DRAFT_TENSORS_MISSING fc.weight and layers.0.* on a complete
    draft. Now complete exits 0; without model.input_norm2 it exits 1 naming it."""
    code, report = _audit([_target(tmp_path), "--draft", _minicpm_eagle(tmp_path / "d")], capsys, monkeypatch, tmp_path)
    assert code == 0 and _codes(report, "error") == []
    assert report["facts"]["draft"]["draft_family"]["family"] == "eagle_minicpm"
    draft = _minicpm_eagle(tmp_path / "d2", drop="model.input_norm2.weight")
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSORS_MISSING"]
    assert "model.input_norm2.weight" in f["message"] and code == 1


def test_eagle3_first_layer_attends_over_embedding_and_hidden(tmp_path: Path, capsys, monkeypatch) -> None:
    """vLLM llama_eagle3.py @00bd1493 builds layer 0's qkv_proj over 2 * hidden_size inputs ([embedding; hidden]): a
    midlayer q/k/v_proj stored [*, hidden] (a plain Llama layer) fails the loader's shape assertion; it passed."""
    plain = {f"midlayer.self_attn.{p}.weight": [s, H] for p, s in (("q_proj", H), ("k_proj", 8), ("v_proj", 8))}
    code, report = _audit([_target(tmp_path), "--draft", _eagle3(tmp_path / "d", plain)], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_TENSOR_SHAPE"]
    assert [t["name"] for t in f["details"]["tensors"]] == [
        "midlayer.self_attn.k_proj.weight",
        "midlayer.self_attn.q_proj.weight",
        "midlayer.self_attn.v_proj.weight",
    ]
    assert f["details"]["tensors"][1]["expected"] == [H, 2 * H] and code == 1


def test_a_gemma4_assistant_draft_is_named_not_judged(tmp_path: Path, capsys, monkeypatch) -> None:
    """vLLM speculative.py @002e77c1 loads model_type gemma4_assistant as Gemma4MTPModel, a loader the census does not
    read. The config shape of the public Gemma 4 assistant drafts (architectures Gemma4AssistantForCausalLM,
    backbone_hidden_size, text_config gemma4_text) with fc-like names was judged as an EAGLE-1 draft by its tensor
    names; now DRAFT_FORMAT_UNKNOWN naming the census row, exit 0, and no EAGLE rule or fix."""
    cfg = {
        "architectures": ["Gemma4AssistantForCausalLM"],
        "model_type": "gemma4_assistant",
        "backbone_hidden_size": H,
        "num_centroids": 8,
        "text_config": {**dense_config(1, V), "model_type": "gemma4_text"},
    }
    draft = write(tmp_path / "d", {"fc.weight": [H, 2 * H], **layer("layers.0.")}, cfg, tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    (f,) = [f for f in report["findings"] if f["code"] == "DRAFT_FORMAT_UNKNOWN"]
    assert code == 0 and _codes(report, "error") == [] and "Gemma4MTPModel" in f["message"]
    assert "draft_family" not in report["facts"].get("draft", {}) and "EAGLE" not in (f["fix"] or "")


def test_mlp_speculator_reads_one_row_of_each_stage_embedding(tmp_path: Path, capsys, monkeypatch) -> None:
    """Each stage's ``emb.{i}`` is a VocabParallelEmbedding looked up by the last token (vLLM ``mlp_speculator.py``
    @0531c222 ``self.emb[i](last_tokens)``): a step reads one row of it, as the census's own rule says ("one embedding
    row"). The census counted every stage's whole table: a public-shaped speculator for Llama-3.1-8B (3 stages,
    inner_dim 4096, vocab 128,256, BF16: Snowflake ArcticTraining's MLPSpeculatorConfig) read 6.40 GB per step where
    3.25 GB is right. Here: per stage head 64x32 + proj.0 32x16 / proj.1 32x32 + ln weight and bias + one emb row of
    32, F16: 5,312 + 6,336 = 11,648 bytes (19,712 counted before)."""
    code, report = _audit([_target(tmp_path), "--draft", _mlp(tmp_path / "d", H)], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert report["census"]["draft_bytes_per_step"] == 11_648


def test_eagle3_vocabulary_maps_are_not_read_whole_per_step(tmp_path: Path, capsys, monkeypatch) -> None:
    """An EAGLE-3 draft's ``d2t`` is an index the proposer looks each drafted id up in, and ``t2d`` is not loaded at
    all (vLLM ``llama_eagle3.py`` @00bd1493: d2t loaded as draft_id_to_target_id, t2d skipped): neither is read whole
    per step. The census counted both at their stored size (SafeAILab/EAGLE ``eagle/traineagle3/config.json``'s
    draft, 32,000 of 128,256 ids: 384,256 bytes a step too many). Here (F16, hidden 16, 32 of 64 ids): fc 1,536 +
    norm 32 + lm_head 1,024 + the layer 5,728 = 8,320 bytes; d2t (256) and t2d (64) not counted."""
    d = 32
    shapes = {
        "fc.weight": [H, 3 * H],
        "norm.weight": [H],
        "lm_head.weight": [d, H],
        **layer("midlayer.", eagle3_first()),
    }
    cfg = {**dense_config(1, V), "architectures": ["LlamaForCausalLMEagle3"], "draft_vocab_size": d}
    t2d = np.zeros(V, dtype=bool)
    t2d[:d] = True
    arrays = {"d2t": np.zeros(d, dtype=np.int64), "t2d": t2d}
    draft = write(tmp_path / "d", shapes, cfg, arrays=arrays, tokens=vocab(V))
    code, report = _audit([_target(tmp_path), "--draft", draft], capsys, monkeypatch, tmp_path)
    assert code == 0, report["findings"]
    assert report["census"]["draft_bytes_per_step"] == 8_320

"""A draft that runs at the target's positions, audited next to its target as a user would (``specscope audit TARGET
--draft DRAFT``), on configs from public bug reports (tests/data/draft_positions/README.md names each source).

- vllm-project/vllm issue #48894 / PR #49343, sgl-project/sglang issue #6783: an EAGLE-3 draft whose
  ``max_position_embeddings`` (2048) is below the target's (131072): WARNING ``DRAFT_CONTEXT_SHORTER``.
- vllm-project/speculators PR #574: the converter dropped ``rope_scaling`` (llama3 x8) from the draft: no finding
  (published drafts are trained without the target's scaling; see ``specscope.audit.rules_position``); the values in
  transformers 5's ``rope_parameters`` layout: no finding.
- sgl-project/sglang PR #27908 (issue #27829): a full-vocabulary EAGLE-3 draft with no ``lm_head`` that declares
  ``draft_vocab_size``: WARNING ``DRAFT_VOCAB_MAP`` naming SGLang's uninitialised head; the census counts the
  target's head the draft step reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from paths import DATA
from specscope.audit import audit_checkpoint
from specscope.cli import app

from .ckmaker import H, dense_model, eagle3_first, layer, vocab, write

POS = DATA / "draft_positions"
TV, DV = 1000, 100  # target vocabulary, reduced draft vocabulary (the configs' vocab_size / draft_vocab_size)


def _config(name: str) -> dict:
    return json.loads((POS / name).read_text())


def _target(root: Path) -> Path:
    return write(root, dense_model(2, TV), _config("llama31_target_config.json"), tokens=vocab(TV), eos="<eos>")


def _draft(root: Path, config: str) -> Path:
    """An EAGLE-3 draft (vLLM ``llama_eagle3.py`` names: midlayer.*, fc, norm, lm_head, d2t, t2d) with ``config``;
    no ``lm_head`` and no maps when the config's draft vocabulary is the full one."""
    cfg = _config(config)
    shapes = {
        "fc.weight": [H, 3 * H],
        "norm.weight": [H],
        **layer("midlayer.", eagle3_first()),
    }
    arrays = {}
    if cfg["draft_vocab_size"] < TV:
        kept = np.arange(0, TV, TV // DV)[:DV]
        t2d = np.zeros(TV, dtype=bool)
        t2d[kept] = True
        arrays = {"d2t": (kept - np.arange(DV)).astype(np.int64), "t2d": t2d}
        shapes["lm_head.weight"] = [DV, H]
    return write(root, shapes, cfg, arrays=arrays, tokens=vocab(TV), eos="<eos>")


def _codes(report) -> list[tuple[str, str]]:
    return [(f.severity.value, f.code) for f in report.findings]


def test_eagle3_draft_with_a_2048_context_beside_a_131072_target_is_a_warning(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    draft = _draft(tmp_path / "draft", "eagle3_llama31_draft_config.json")
    r = audit_checkpoint(target, draft=draft)
    assert _codes(r) == [("warning", "DRAFT_CONTEXT_SHORTER")]
    (f,) = r.findings
    assert f.file == "draft:config.json"
    assert f.message == (
        "the draft's max_position_embeddings is 2,048 but the target's is 131,072: the EAGLE-3 draft (fused "
        "low/mid/high target states, optional reduced vocabulary) runs at the target's positions"
    )
    assert f.found == "max_position_embeddings 2048"
    assert f.expected == "131072 or more (the target's max_position_embeddings)"
    assert f.details == {"draft_max_position_embeddings": 2048, "target_max_position_embeddings": 131072}
    assert "past 2,048 tokens" in (f.consequence or "") and "PR #49343" in (f.consequence or "")
    assert r.exit_code == 0
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), "--width", "200"])
    assert out.exit_code == 0, out.stdout
    assert "WARNING DRAFT_CONTEXT_SHORTER" in out.stdout


def test_draft_without_the_targets_rope_scaling_is_no_finding(tmp_path: Path) -> None:
    """speculators PR #574's converted draft (rope_scaling dropped) reads like a draft trained with default RoPE,
    as published drafts are (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, tests/data/corpus/llama3-8b-eagle3): no finding."""
    target = _target(tmp_path / "target")
    draft = _draft(tmp_path / "draft", "eagle3_converted_no_rope_config.json")
    r = audit_checkpoint(target, draft=draft)
    assert r.findings == []


def test_rope_in_transformers5_rope_parameters_equal_to_the_target_is_no_finding(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    draft = _draft(tmp_path / "draft", "eagle3_rope_parameters_config.json")
    r = audit_checkpoint(target, draft=draft)
    assert r.findings == []
    assert r.exit_code == 0


def test_full_vocabulary_draft_without_lm_head_declaring_draft_vocab_size_warns_for_sglang(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    draft = _draft(tmp_path / "draft", "eagle3_full_vocab_no_head_config.json")
    r = audit_checkpoint(target, draft=draft)
    assert _codes(r) == [("warning", "DRAFT_VOCAB_MAP")]
    (f,) = r.findings
    assert f.file == "draft:config.json" and f.tensor == "lm_head.weight"
    assert f.message == (
        "the draft has no lm_head and covers the full vocabulary (1,000 ids), but its config declares "
        "draft_vocab_size and does not tie embeddings: SGLang builds a head of its own and loads nothing into it"
    )
    assert r.exit_code == 0
    # the draft step reads the target's whole head (1000 x 16 F16 = 32,000 bytes) and one embedding row (32 bytes)
    assert r.census is not None and r.census.draft_shared_bytes_per_step == 32_032


def test_without_draft_vocab_size_the_shared_head_is_no_finding(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    cfg = _config("eagle3_full_vocab_no_head_config.json")
    del cfg["draft_vocab_size"]
    root = _draft(tmp_path / "draft", "eagle3_full_vocab_no_head_config.json")
    (root / "config.json").write_text(json.dumps(cfg))
    r = audit_checkpoint(target, draft=root)
    assert r.findings == []


def test_a_draft_audited_alone_has_no_target_figure_never_zero(tmp_path: Path) -> None:
    """``specscope audit DRAFT`` (no target): the target's bytes per token and the draft's share of a target pass are
    absent, not 0 bytes and 0.0 % (house rule: an absent figure is absent)."""
    draft = _draft(tmp_path / "draft", "eagle3_llama31_draft_config.json")
    r = audit_checkpoint(draft)
    assert r.census is not None
    assert r.census.target_bytes_per_token is None and r.census.draft_share is None
    # the draft's own weights (layer 0 k/v_proj take 2*hidden inputs); d2t (800) and t2d (1,000) not read whole
    assert r.census.draft_bytes_per_step == 10_496
    assert r.to_dict()["census"]["target_bytes_per_token"] is None
    out = CliRunner().invoke(app, ["audit", str(draft), "--width", "200"])
    assert out.exit_code == 0, out.stdout
    assert "per decode step: target unknown (a draft alone: audit it as `specscope audit TARGET --draft " in out.stdout
    assert "0.0% of a target pass" not in out.stdout and "target 0 bytes" not in out.stdout
    bw = audit_checkpoint(draft, bandwidth="273GB/s").census
    assert bw is not None and bw.roofline_tokens_per_s is None


def test_reduced_draft_with_its_own_head_and_tie_word_embeddings_warns_for_sglang(tmp_path: Path) -> None:
    """SpecForge PR #140 / NeMo-Automodel PR #2319: a draft config copied from a tied target keeps
    ``tie_word_embeddings: true``. vLLM ``llama_eagle3.py`` @00bd1493 builds ``lm_head`` [draft_vocab_size, hidden]
    whatever the flag and loads it; SGLang ``llama_eagle3.py`` @03d5a777 makes ``lm_head`` the embedding table and
    never loads the stored head: WARNING naming the fix (set the flag false)."""
    target = _target(tmp_path / "target")
    draft = _draft(tmp_path / "draft", "eagle3_tied_reduced_head_config.json")
    r = audit_checkpoint(target, draft=draft)
    assert _codes(r) == [("warning", "DRAFT_VOCAB_MAP")]
    (f,) = r.findings
    assert f.file == "draft:model.safetensors" and f.tensor == "lm_head.weight"
    assert f.message == (
        "the draft stores its own lm_head (100 rows) but its config sets tie_word_embeddings: SGLang ties the head "
        "to the embedding table and never loads lm_head.weight"
    )
    assert (
        f.fix == 'set "tie_word_embeddings": false in the draft\'s config.json (vLLM reads the stored head either way)'
    )
    assert r.exit_code == 0

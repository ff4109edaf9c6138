"""A draft against its target (issue 27 item 1), on checkpoints these tests write (tests/audit/ckmaker.py).

Sources of the expected answers: vLLM pads ``VocabParallelEmbedding`` to a multiple of 64 and ships drafts padded to
a multiple of 128 (a padded draft with the target's tokenizer serves fine: no finding); a draft whose ids mean other
tokens is rejected by the target (ERROR naming the id and both tokens); EAGLE-3 maps: vLLM ``llama_eagle3.py``
@00bd1493 and SGLang ``llama_eagle3.py`` @03d5a777 (d2t offsets of length draft_vocab_size, zeros / no map when
absent; t2d skipped by both).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from specscope.audit import audit_checkpoint
from specscope.cli import app

from .ckmaker import H, dense_config, dense_model, eagle3_first, layer, vocab, write, write_tokenizer

V = 1000  # the target's tokenizer size


def _target(root: Path) -> Path:
    return write(root, dense_model(2, V), dense_config(2, V), tokens=vocab(V), eos="<eos>")


def _vocab_codes(report) -> list[tuple[str, str]]:
    return sorted((f.severity.value, f.code) for f in report.findings if "VOCAB" in f.code or "TOKEN" in f.code)


def test_padded_draft_with_the_targets_tokenizer_has_no_vocabulary_finding(tmp_path: Path) -> None:
    rows = 1024  # V padded to a multiple of 128, on both sides (vLLM compares the two configs' vocab_size)
    target = write(tmp_path / "target", dense_model(2, rows), dense_config(2, rows), tokens=vocab(V), eos="<eos>")
    draft = write(tmp_path / "draft", dense_model(1, rows), dense_config(1, rows), tokens=vocab(V), eos="<eos>")
    r = audit_checkpoint(target, draft=draft)
    assert r.findings == []
    assert r.exit_code == 0
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft)])
    assert out.exit_code == 0, out.stdout


def test_a_draft_model_padded_otherwise_than_its_target_is_refused_as_vllm_refuses_it(tmp_path: Path) -> None:
    """Qwen2.5-0.5B-Instruct (vocab_size 151,936) as the draft of Qwen2.5-72B-Instruct (152,064): one tokenizer, two
    paddings (QwenLM/Qwen3 issues #292 and #466). vLLM refuses the pair at startup: vllm-project/vllm
    ``vllm/config/speculative.py`` @f19b16d9 ``verify_equal_vocab_size_if_draft_model`` compares the two
    ``hf_text_config.vocab_size`` for method draft_model (vLLM issue #5203: the V0 worker asserted the same). The
    tokenizers agreeing does not make it pass (it passed with no finding)."""
    target = write(tmp_path / "target", dense_model(2, 1024), dense_config(2, 1024), tokens=vocab(V), eos="<eos>")
    draft = write(tmp_path / "draft", dense_model(1, V), dense_config(1, V), tokens=vocab(V), eos="<eos>")
    r = audit_checkpoint(target, draft=draft)
    assert _vocab_codes(r) == [("error", "DRAFT_VOCAB_SIZE_DIFFERS")]
    (f,) = r.by_code("DRAFT_VOCAB_SIZE_DIFFERS")
    assert f.file == "draft:config.json" and f.details == {"draft_vocab_size": 1000, "target_vocab_size": 1024}
    assert f.message == (
        "the draft model's vocab_size 1000 differs from the target's 1024: vLLM refuses a draft model (method "
        "draft_model) whose vocab_size is not the target's"
    )
    assert "Target model vocab_size=1024. Draft model vocab_size=1000." in (f.consequence or "")
    assert r.exit_code == 1


def test_an_eagle_draft_is_not_held_to_the_draft_model_vocab_size_rule(tmp_path: Path) -> None:
    """The check is method draft_model's: an EAGLE draft of another vocab_size is judged by its rows and map only."""
    target = write(tmp_path / "target", dense_model(2, 1024), dense_config(2, 1024), tokens=vocab(V), eos="<eos>")
    shapes = {"fc.weight": [H, 2 * H], **layer("layers.0.")}
    cfg = dense_config(1, V, architectures=["EagleLlamaForCausalLM"], model_type="llama")
    r = audit_checkpoint(target, draft=write(tmp_path / "draft", shapes, cfg, tokens=vocab(V), eos="<eos>"))
    assert r.by_code("DRAFT_VOCAB_SIZE_DIFFERS") == [] and r.exit_code == 0, [f.code for f in r.findings]


def test_same_size_different_tokenizer_is_an_error_naming_the_first_id_and_both_tokens(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    other = vocab(V)
    other[500], other[501] = "t501", "t500"  # two ids swapped: same size, same token set, different meaning
    draft = write(tmp_path / "draft", dense_model(1, V), dense_config(1, V), tokens=other, eos="<eos>")
    r = audit_checkpoint(target, draft=draft)
    (f,) = r.by_code("DRAFT_TOKENIZER_DIFFERS")
    assert f.severity.value == "error" and f.file == "draft:tokenizer.json"
    assert f.message == (
        "draft and target tokenizers map 2 of 1000 shared ids to different tokens; first at id 500: draft 't501', "
        "target 't500'"
    )
    assert f.details["first"] == [
        {"id": 500, "draft": "t501", "target": "t500"},
        {"id": 501, "draft": "t500", "target": "t501"},
    ]
    assert r.exit_code == 1
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft)])
    assert out.exit_code == 1 and "first at id 500: draft 't501', target 't500'" in out.stdout


def test_a_draft_smaller_than_the_targets_tokenizer_cannot_embed_its_ids(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    draft = write(tmp_path / "draft", dense_model(1, 900), dense_config(1, 900), tokens=vocab(900), eos="<eos>")
    r = audit_checkpoint(target, draft=draft)
    # and vLLM refuses the pair before that (vocab_size 900 against 1000: DRAFT_VOCAB_SIZE_DIFFERS)
    assert _vocab_codes(r) == [("error", "DRAFT_VOCAB_MISMATCH"), ("error", "DRAFT_VOCAB_SIZE_DIFFERS")]
    (f,) = r.by_code("DRAFT_VOCAB_MISMATCH")
    assert f.details == {"draft_rows": 900, "target_ids": 1000, "draft_rows_from": "model.embed_tokens.weight"}


def test_special_tokens_that_differ_are_a_warning(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    toks = vocab(V)
    draft = write(tmp_path / "draft", dense_model(1, V), dense_config(1, V, eos_token_id=7), tokens=toks)
    (tmp_path / "target" / "generation_config.json").write_text('{"eos_token_id": 0}')
    r = audit_checkpoint(target, draft=draft)
    assert _vocab_codes(r) == [("warning", "DRAFT_SPECIAL_TOKENS_DIFFER")]
    assert r.by_code("DRAFT_SPECIAL_TOKENS_DIFFER")[0].details["differences"] == ["eos id: draft (7,), target (0,)"]


# EAGLE-3 draft (SpecForge configs/llama3-8B-eagle3.json layout, shrunk): vocab 64 target ids, 32 draft ids.
TV, DV = 64, 32


def _eagle3(root: Path, *, d2t: np.ndarray | None, t2d: np.ndarray | None, head_rows: int = DV) -> Path:
    shapes = {
        "fc.weight": [H, 3 * H],
        "norm.weight": [H],
        "lm_head.weight": [head_rows, H],
        **layer("midlayer.", eagle3_first()),
    }
    arrays = {}
    if d2t is not None:
        arrays["d2t"] = d2t
    if t2d is not None:
        arrays["t2d"] = t2d
    cfg = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": H,
        "num_hidden_layers": 1,
        "vocab_size": TV,
        "draft_vocab_size": DV,
        "tie_word_embeddings": False,
    }
    return write(root, shapes, cfg, arrays=arrays, tokens=vocab(TV))


def _maps(kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d2t and t2d as EAGLE's exporter writes them for the kept target ids (sorted)."""
    d2t = (kept - np.arange(len(kept))).astype(np.int64)
    t2d = np.zeros(TV, dtype=bool)
    t2d[kept] = True
    return d2t, t2d


KEPT = np.sort(np.random.default_rng(27).choice(TV, DV, replace=False))


def test_eagle3_with_correct_maps_is_clean(tmp_path: Path) -> None:
    d2t, t2d = _maps(KEPT)
    r = audit_checkpoint(_eagle3(tmp_path / "draft", d2t=d2t, t2d=t2d))
    assert r.findings == []
    assert r.facts["draft_family"]["family"] == "eagle3"
    assert r.facts["draft_family"]["shared_with_target"] == {"embed_tokens.weight": "absent: the target's"}
    target = write(tmp_path / "target", dense_model(2, TV), dense_config(2, TV), tokens=vocab(TV))
    assert audit_checkpoint(target, draft=tmp_path / "draft").findings == []


def _variant(r) -> list[tuple[str, str, str | None]]:
    return [(f.severity.value, f.code, f.found) for f in r.findings]


def test_eagle3_reduced_vocabulary_without_d2t_is_an_error(tmp_path: Path) -> None:
    r = audit_checkpoint(_eagle3(tmp_path / "draft", d2t=None, t2d=None))
    assert _variant(r) == [("error", "DRAFT_VOCAB_MAP", "no d2t")]
    assert r.findings[0].message == "reduced vocabulary (32 of 64 ids) but no d2t tensor maps draft ids to target ids"
    assert r.exit_code == 1 and r.findings[0].file == "config.json"  # absent: the config's vocab sizes ask for it


def test_eagle3_d2t_of_the_wrong_length_is_an_error(tmp_path: Path) -> None:
    d2t, t2d = _maps(KEPT)
    r = audit_checkpoint(_eagle3(tmp_path / "draft", d2t=d2t[:-4], t2d=t2d))
    assert _variant(r)[0] == ("error", "DRAFT_VOCAB_MAP", "28 entries")
    assert r.findings[0].message == "d2t has 28 entries (int64), draft_vocab_size is 32"
    assert r.findings[0].file == "model.safetensors"  # the file that stores d2t (it said config.json, 2026-12-05)


def test_eagle3_maps_that_disagree_are_an_error(tmp_path: Path) -> None:
    d2t, _ = _maps(KEPT)
    _, t2d_other = _maps(np.arange(DV))  # t2d of another head: the first 32 ids
    r = audit_checkpoint(_eagle3(tmp_path / "draft", d2t=d2t, t2d=t2d_other))
    (f,) = r.findings
    assert (f.severity.value, f.code, f.tensor) == ("error", "DRAFT_VOCAB_MAP", "t2d")
    assert f.message.startswith("t2d disagrees with the draft vocabulary: d2t maps to ")


@pytest.mark.parametrize(
    "mutate,variant_message",
    [
        (lambda d: np.concatenate([d[:-1], [TV]]), "d2t maps 1 draft ids outside the target vocabulary"),
        (lambda d: np.concatenate([d[:1], d[:1] - 1, d[2:]]), "d2t maps 1 draft ids onto target ids already taken"),
        (lambda d: KEPT[::-1] - np.arange(DV), "d2t target ids are not increasing"),
    ],
)
def test_eagle3_d2t_out_of_range_repeated_or_unsorted_is_an_error(tmp_path: Path, mutate, variant_message) -> None:
    d2t, _ = _maps(KEPT)
    r = audit_checkpoint(_eagle3(tmp_path / "draft", d2t=mutate(d2t).astype(np.int64), t2d=None))
    (f,) = r.findings
    assert f.code == "DRAFT_VOCAB_MAP" and f.severity.value == "error"
    assert f.message.startswith(variant_message), f.message


def test_eagle3_head_rows_must_match_draft_vocab_size(tmp_path: Path) -> None:
    d2t, t2d = _maps(KEPT)
    r = audit_checkpoint(_eagle3(tmp_path / "draft", d2t=d2t, t2d=t2d, head_rows=TV))
    assert [(f.code, f.message) for f in r.findings] == [
        ("DRAFT_VOCAB_MAP", "lm_head has 64 rows, draft_vocab_size is 32")
    ]


def test_a_draft_without_tokenizer_files_is_unverified_not_clean(tmp_path: Path) -> None:
    target = _target(tmp_path / "target")
    draft = write(tmp_path / "draft", dense_model(1, 1024), dense_config(1, 1024))
    (tmp_path / "target" / "tokenizer.json").unlink()
    r = audit_checkpoint(target, draft=draft)
    assert _vocab_codes(r) == [("error", "DRAFT_VOCAB_SIZE_DIFFERS"), ("warning", "DRAFT_VOCAB_UNVERIFIED")]
    write_tokenizer(draft, vocab(V))
    write_tokenizer(target, vocab(V))  # the vocabulary verified; vLLM still refuses 1024 against 1000
    assert _vocab_codes(audit_checkpoint(target, draft=draft)) == [("error", "DRAFT_VOCAB_SIZE_DIFFERS")]


def test_a_draft_of_no_known_format_is_draft_format_unknown_not_a_llama_download(tmp_path: Path) -> None:
    """A ``--draft`` whose architecture no census family or engine registry row names and whose tensors match no
    layout was judged as a Llama draft model: ERROR DRAFT_TENSORS_MISSING 0 of 11 with a Llama download fix (fresh-user
    check, 2026-12-05). docs/architectures.md promises DRAFT_FORMAT_UNKNOWN (warning) and no family's rule."""
    target = write(tmp_path / "t", dense_model(1, 64), dense_config(1, 64))
    shapes = {"proj_in.weight": [H, 2 * H], "block.0.attn.weight": [H, H], "block.0.ffn.weight": [H, H]}
    shapes["head.weight"] = [64, H]
    cfg = {"architectures": ["AcmeSpecDraftForCausalLM"], "model_type": "acme_spec", "hidden_size": H, "vocab_size": 64}
    r = audit_checkpoint(target, draft=write(tmp_path / "d", shapes, cfg))
    assert [f.code for f in r.findings if f.severity == "error"] == []
    (f,) = r.by_code("DRAFT_FORMAT_UNKNOWN")
    assert f.severity == "warning" and f.found == "architectures: AcmeSpecDraftForCausalLM"
    assert "4 tensors" in f.message and "Llama" not in (f.fix or "")
    assert r.exit_code == 0

"""Vocabulary checks a new user found silent (issue 27 follow-up, defects 1 and 6): a side without a tokenizer, an
unusable tokenizer file, a draft tokenizer past the target's ids, on checkpoints and GGUF files these tests write.

A check that could not run is a named warning, never a clean pass: a draft with no tokenizer, or one whose
``tokenizer.json`` is not a vocabulary, is ``DRAFT_TOKENIZER_UNVERIFIED``; a draft padded past the target with no
tokenizer is ``DRAFT_VOCAB_UNVERIFIED`` (docs/architectures.md). Tokenizer format: huggingface/tokenizers
``Tokenizer`` serialisation (``model.vocab`` ``{token: id}`` with non-negative integer ids).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from specscope.audit import audit_checkpoint
from specscope.cli import app

from .ckmaker import dense_config, dense_model, vocab, write, write_tokenizer

V = 64


def _target(root: Path, *, vocab_size: int = V) -> Path:
    return write(root, dense_model(2, vocab_size), dense_config(2, vocab_size), tokens=vocab(V), eos="<eos>")


def _draft(root: Path, rows: int = V, tokens: list[str] | None = None) -> Path:
    return write(root, dense_model(1, rows), dense_config(1, rows), tokens=tokens, eos="<eos>" if tokens else None)


def _vocab(report) -> list[tuple[str, str]]:
    return [(f.severity.value, f.code) for f in report.findings if "VOCAB" in f.code or "TOKEN" in f.code]


def test_a_padded_draft_without_a_tokenizer_is_unverified_even_when_the_target_has_one(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path / "t"), draft=_draft(tmp_path / "d", rows=128))
    assert _vocab(r) == [("warning", "DRAFT_VOCAB_UNVERIFIED")]
    assert "draft 128 from model.embed_tokens.weight, target 64" in r.findings[0].message


def test_a_same_size_draft_without_a_tokenizer_says_its_tokenizer_was_not_checked(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path / "t"), draft=_draft(tmp_path / "d"))
    assert _vocab(r) == [("warning", "DRAFT_TOKENIZER_UNVERIFIED")]
    (f,) = r.findings
    assert f.message == (
        "the draft's tokenizer could not be checked against the target's: the draft carries no vocabulary "
        "(tokenizer.json, vocab.json or tokenizer.model)"
    )
    assert f.found == "draft: no tokenizer.json, vocab.json or tokenizer.model; target: tokenizer.json"
    assert f.details == {"missing": ["draft"]} and r.exit_code == 0


@pytest.mark.parametrize(
    "doc,why",
    [
        ([1, 2, 3], "tokenizer.json is a JSON list, not a tokenizers serialisation (an object)"),
        ({"model": {"type": "BPE", "vocab": None}}, "model.vocab is null, not a vocabulary"),
        ({"model": {"vocab": {"a": "x", "b": -1, "c": 1.5}}}, "3 entries of model.vocab are not token -> non-"),
        ({"model": {"vocab": {"a": 0, "b": 10**12}}}, "ids run to 1,000,000,000,000 but only 2 tokens are defined"),
        ('{"model": {"vocab": ', "tokenizer.json is not valid JSON"),
    ],
)
def test_an_unusable_draft_tokenizer_is_named_not_skipped(tmp_path: Path, doc: object, why: str) -> None:
    draft = _draft(tmp_path / "d")
    (draft / "tokenizer.json").write_text(doc if isinstance(doc, str) else json.dumps(doc))
    r = audit_checkpoint(_target(tmp_path / "t"), draft=draft)
    (f,) = r.findings
    assert (f.severity.value, f.code, f.file) == ("warning", "DRAFT_TOKENIZER_UNVERIFIED", "draft:tokenizer.json")
    assert f.message.startswith("the tokenizers could not be compared by content: draft tokenizer.json: " + why)
    assert f.fix == "re-download the draft's tokenizer.json from its publisher, then audit again"


def test_draft_tokens_past_the_targets_vocab_size_are_an_error(tmp_path: Path) -> None:
    target = _target(tmp_path / "t")
    r = audit_checkpoint(target, draft=_draft(tmp_path / "d", rows=80, tokens=vocab(V) + [f"x{i}" for i in range(16)]))
    (f,) = r.findings
    assert (f.severity.value, f.code) == ("error", "DRAFT_VOCAB_EXCEEDS_TARGET")
    assert f.message == (
        "the draft's tokenizer defines 16 ids the target's does not (the target's tokenizer.json defines ids 0..63): "
        "ids 64..79"
    )
    assert f.expected == "draft ids below the target's vocab_size 64" and r.exit_code == 1


def test_draft_tokens_inside_the_targets_padding_are_a_warning(tmp_path: Path) -> None:
    target = _target(tmp_path / "t", vocab_size=128)  # the target's embedding is padded to 128 rows
    r = audit_checkpoint(target, draft=_draft(tmp_path / "d", rows=128, tokens=vocab(V) + ["x0", "x1"]))
    (f,) = r.findings
    assert (f.severity.value, f.code, f.found) == (
        "warning",
        "DRAFT_VOCAB_EXCEEDS_TARGET",
        "draft-only ids: 64 'x0', 65 'x1'",
    )
    assert r.exit_code == 0


def test_the_same_tokenizer_on_both_sides_stays_clean(tmp_path: Path) -> None:
    draft = _draft(tmp_path / "d")
    write_tokenizer(draft, vocab(V), eos="<eos>")
    assert audit_checkpoint(_target(tmp_path / "t"), draft=draft).findings == []


gguf = pytest.importorskip("gguf")


def _gguf(path: Path, tokens: list[str] | None) -> Path:
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    w.add_embedding_length(8)
    if tokens is not None:
        w.add_tokenizer_model("gpt2")
        w.add_token_list(tokens)
        w.add_token_types([1] * len(tokens))
    w.add_tensor("token_embd.weight", np.zeros((V, 8), dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((8, 8), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize("side", ["draft", "target"])
def test_a_gguf_without_tokenizer_metadata_prints_vocab_unknown_and_warns(tmp_path: Path, side: str) -> None:
    with_tok, without = _gguf(tmp_path / "a.gguf", vocab(V)), _gguf(tmp_path / "b.gguf", None)
    target, draft = (with_tok, without) if side == "draft" else (without, with_tok)
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft)])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())  # rich wraps at the terminal's width
    assert "llama, vocab unknown (no tokenizer.ggml.* metadata), file type not stated, 2 tensors" in text
    assert "None" not in text
    assert "DRAFT_TOKENIZER_UNVERIFIED" in text
    data = json.loads(CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), "-f", "json"]).stdout)
    (f,) = data["findings"]
    assert (f["code"], f["severity"], f["details"]) == ("DRAFT_TOKENIZER_UNVERIFIED", "warning", {"missing": [side]})
    assert f["fix"] == (
        f"re-convert the {side} with llama.cpp's convert_hf_to_gguf.py (it writes tokenizer.ggml.*), then audit again"
    )

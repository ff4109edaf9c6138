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

from .ckmaker import dense_config, dense_model, layer, vocab, write, write_tokenizer

V = 64


def _target(root: Path, *, vocab_size: int = V) -> Path:
    return write(root, dense_model(2, vocab_size), dense_config(2, vocab_size), tokens=vocab(V), eos="<eos>")


def _draft(root: Path, rows: int = V, tokens: list[str] | None = None) -> Path:
    return write(root, dense_model(1, rows), dense_config(1, rows), tokens=tokens, eos="<eos>" if tokens else None)


def _vocab(report) -> list[tuple[str, str]]:
    return [(f.severity.value, f.code) for f in report.findings if "VOCAB" in f.code or "TOKEN" in f.code]


def test_a_padded_draft_without_a_tokenizer_is_unverified_even_when_the_target_has_one(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path / "t"), draft=_draft(tmp_path / "d", rows=128))
    # vLLM refuses a draft model of vocab_size 128 against 64 whatever the tokenizers (DRAFT_VOCAB_SIZE_DIFFERS)
    assert sorted(_vocab(r)) == [("error", "DRAFT_VOCAB_SIZE_DIFFERS"), ("warning", "DRAFT_VOCAB_UNVERIFIED")]
    (f,) = r.by_code("DRAFT_VOCAB_UNVERIFIED")
    assert "draft 128 from model.embed_tokens.weight, target 64" in f.message


def test_a_same_size_draft_without_a_tokenizer_says_its_tokenizer_was_not_checked(tmp_path: Path) -> None:
    r = audit_checkpoint(_target(tmp_path / "t"), draft=_draft(tmp_path / "d"))
    assert _vocab(r) == [("warning", "DRAFT_TOKENIZER_UNVERIFIED")]
    (f,) = r.findings
    assert f.message == (
        "the draft's tokenizer could not be checked against the target's: the draft carries no vocabulary "
        "(tokenizer.json, vocab.json, tokenizer.model or tiktoken.model)"
    )
    assert f.found == "draft: no tokenizer.json, vocab.json, tokenizer.model or tiktoken.model; target: tokenizer.json"
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
    assert sorted(_vocab(r)) == [("error", "DRAFT_VOCAB_EXCEEDS_TARGET"), ("error", "DRAFT_VOCAB_SIZE_DIFFERS")]
    (f,) = r.by_code("DRAFT_VOCAB_EXCEEDS_TARGET")
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


def _gguf(path: Path, tokens: list[str] | None) -> Path:
    gguf = pytest.importorskip("gguf")
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    w.add_embedding_length(8)
    if tokens is not None:
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2")  # without one llama.cpp loads 'default' and warns (LLAMACPP_PRE_TOKENIZER_UNKNOWN)
        w.add_token_merges(["a b"])  # a BPE vocabulary the engine loads needs merges
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
    # llama-vocab.cpp requires tokenizer.ggml.model: the engine cannot load that side at all (exit 1, named)
    assert out.exit_code == 1, out.output
    text = " ".join(out.stdout.split())  # rich wraps at the terminal's width
    assert "llama, vocab unknown (no tokenizer.ggml.* metadata), file type not stated, 2 tensors" in text
    assert "None" not in text
    assert "DRAFT_TOKENIZER_UNVERIFIED" in text
    data = json.loads(CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), "-f", "json"]).stdout)
    (load,) = [f for f in data["findings"] if f["severity"] == "error"]
    assert (load["code"], load["file"]) == ("LLAMACPP_GGUF_UNLOADABLE", side)
    assert "key not found in model: tokenizer.ggml.model" in load["message"]
    (f,) = [f for f in data["findings"] if f["severity"] != "error"]
    assert (f["code"], f["severity"], f["details"]) == ("DRAFT_TOKENIZER_UNVERIFIED", "warning", {"missing": [side]})
    assert f["fix"] == (
        f"re-convert the {side} with llama.cpp's convert_hf_to_gguf.py (it writes tokenizer.ggml.*), then audit again"
    )


# Medusa (vLLM medusa.py @01dbb081): heads of truncated_vocab_size rows, token_map of that many target ids in
# [0, vocab_size), required when truncated_vocab_size < vocab_size.
def _medusa(root: Path, *, rows: int, trunc: int, token_map: np.ndarray | None = None) -> Path:
    shapes = {f"blocks.{h}.layers.0.weight": [16, 16] for h in range(2)} | {
        f"lm_heads.{h}.weight": [rows, 16] for h in range(2)
    }
    cfg = {"architectures": ["MedusaModel"], "model_type": "medusa", "hidden_size": 16, "num_heads": 2}
    cfg |= {"num_hidden_layers": 1, "vocab_size": V, "truncated_vocab_size": trunc}
    return write(root, shapes, cfg, arrays={"token_map": token_map} if token_map is not None else None)


def _map_findings(report) -> list[tuple[str | None, str]]:
    return [(f.tensor, f.message) for f in report.by_code("DRAFT_VOCAB_MAP")]


def test_medusa_heads_and_token_map_are_checked_against_the_loader(tmp_path: Path) -> None:
    good = np.arange(0, V, 2, dtype=np.int64)
    assert _map_findings(audit_checkpoint(_medusa(tmp_path / "ok", rows=32, trunc=32, token_map=good))) == []
    assert _map_findings(audit_checkpoint(_medusa(tmp_path / "full", rows=V, trunc=32, token_map=good))) == []
    rows = audit_checkpoint(_medusa(tmp_path / "rows", rows=32, trunc=V))
    assert _map_findings(rows) == [
        ("lm_heads.0.weight", "2 Medusa heads have 32 rows; vLLM builds each with 64 (truncated_vocab_size 64)")
    ]
    oor = audit_checkpoint(_medusa(tmp_path / "oor", rows=32, trunc=32, token_map=np.full(32, 999, dtype=np.int64)))
    assert _map_findings(oor) == [
        ("token_map", "Medusa token_map does not fit: 32 ids outside [0, 64); first token_map[0] = 999")
    ]
    (missing,) = audit_checkpoint(_medusa(tmp_path / "nomap", rows=32, trunc=32)).by_code("DRAFT_VOCAB_MAP")
    assert missing.consequence is not None and missing.consequence.startswith(
        "vLLM's Medusa loader asserts a token_map when truncated_vocab_size < vocab_size"
    )
    assert "d2t" not in missing.consequence and "SGLang" not in missing.consequence


def _dflash(root: Path, dflash_config: dict) -> Path:
    shapes = {"fc.weight": [16, 32], "hidden_norm.weight": [16], "norm.weight": [16]}
    for i in range(2):
        shapes |= layer(f"layers.{i}.", {"self_attn.q_norm.weight": [8], "self_attn.k_norm.weight": [8]})
    cfg = {**dense_config(2, V), "architectures": ["DFlashDraftModel"], "dflash_config": dflash_config}
    return write(root, shapes, cfg, tokens=vocab(V))


def test_dflash_mask_token_and_target_layer_ids_are_checked(tmp_path: Path) -> None:
    ok = audit_checkpoint(_dflash(tmp_path / "ok", {"mask_token_id": 5, "target_layer_ids": [0, 1]}))
    assert ok.findings == []
    oor = audit_checkpoint(_dflash(tmp_path / "oor", {"mask_token_id": 500, "target_layer_ids": [0, 1]}))
    assert [(f.code, f.message) for f in oor.errors] == [
        ("DFLASH_MASK_TOKEN_OUT_OF_RANGE", "mask_token_id 500 is not an id of the draft's 64-row embedding")
    ]
    text = audit_checkpoint(_dflash(tmp_path / "str", {"mask_token_id": 5, "target_layer_ids": "0,1"}))
    assert [(f.code, f.message) for f in text.errors] == [
        ("DFLASH_TARGET_LAYER_IDS_INVALID", "target_layer_ids is a str ('0,1'), not a list of layer indices")
    ]

"""Drafts and targets whose vocabulary is a ``tokenizer.model`` (SentencePiece ``ModelProto``: Llama-2, Mistral,
Gemma, many EAGLE drafts; or tiktoken ranks: Llama-3 ``original/``) or a Kimi-K2 ``tiktoken.model``, compared by
content with each other and with ``tokenizer.json`` (inputs written by the tests: :mod:`.tokfiles`).

Sources: transformers ``convert_slow_tokenizer.py`` @00111b31 (``SpmConverter.vocab`` keeps every piece as
SentencePiece spells it; ``GemmaConverter`` / ``HeliumConverter`` rename a byte-fallback piece ``<0x09>`` /
``<0x0A>`` to the character itself; ``TikTokenConverter`` spells token bytes with GPT-2's byte-to-unicode table);
tiktoken ``load.py`` (``load_tiktoken_bpe``: ``base64 rank`` per non-empty line); Kimi-K2 ``tokenization_kimi.py``
(``tiktoken.model`` ranks, then the special ids from ``tokenizer_config.json``'s ``added_tokens_decoder``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.audit import audit_checkpoint
from specscope.cli import app

from .ckmaker import dense_config, dense_model, write
from .tokfiles import (
    OTHER_TEXT,
    TEXT,
    byte_tokens,
    pieces,
    sentencepiece_model,
    tiktoken_lines,
    write_spm_as_tokenizer_json,
)

pytest.importorskip("sentencepiece", reason="the 'tokenizers' extra (sentencepiece) is not installed")

V = 60  # SentencePiece pieces of the test models


def _model(root: Path, rows: int = V, *, layers: int = 1) -> Path:
    return write(root, dense_model(layers, rows), dense_config(layers, rows))


def _spm_side(root: Path, proto: bytes, rows: int = V, *, layers: int = 1) -> Path:
    _model(root, rows, layers=layers)
    (root / "tokenizer.model").write_bytes(proto)
    return root


def _tok(report) -> list[tuple[str, str]]:
    return [(f.severity.value, f.code) for f in report.findings if "VOCAB" in f.code or "TOKEN" in f.code]


def _audit_cli(target: Path, draft: Path, *extra: str):
    return CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), *extra])


@pytest.fixture(scope="module")
def spm() -> bytes:
    return sentencepiece_model()


def test_a_tokenizer_model_draft_against_the_same_pieces_as_tokenizer_json_is_clean(tmp_path: Path, spm) -> None:
    target = _model(tmp_path / "t", layers=2)
    write_spm_as_tokenizer_json(target, spm)
    draft = _spm_side(tmp_path / "d", spm)
    assert _tok(audit_checkpoint(target, draft=draft)) == []
    out = _audit_cli(target, draft)
    assert out.exit_code == 0, out.output
    assert "TOKEN" not in out.output


def test_unigram_pieces_as_tokenizer_json_list_are_the_same_tokenizer(tmp_path: Path) -> None:
    proto = sentencepiece_model(model_type="unigram", vocab_size=40)
    target = _model(tmp_path / "t", 40, layers=2)
    write_spm_as_tokenizer_json(target, proto, model_type="Unigram")
    assert _tok(audit_checkpoint(target, draft=_spm_side(tmp_path / "d", proto, 40))) == []


def test_a_different_sentencepiece_model_of_the_same_size_is_an_error_naming_the_first_id(tmp_path: Path, spm) -> None:
    other = sentencepiece_model(OTHER_TEXT)
    a, b = pieces(spm), pieces(other)
    assert len(a) == len(b) == V
    first = next(i for i in range(V) if a[i][0] != b[i][0])
    target = _model(tmp_path / "t", layers=2)
    write_spm_as_tokenizer_json(target, spm)
    draft = _spm_side(tmp_path / "d", other)
    n = sum(a[i][0] != b[i][0] for i in range(V))
    (f,) = [f for f in audit_checkpoint(target, draft=draft).findings if "TOKEN" in f.code]
    assert (f.severity.value, f.code, f.file) == ("error", "DRAFT_TOKENIZER_DIFFERS", "draft:tokenizer.model")
    assert f.message == (
        f"draft and target tokenizers map {n} of {V} shared ids to different tokens; first at id {first}: "
        f"draft {b[first][0]!r}, target {a[first][0]!r}"
    )
    out = _audit_cli(target, draft, "-f", "json")
    assert out.exit_code == 1
    (j,) = [x for x in json.loads(out.stdout)["findings"] if x["code"] == "DRAFT_TOKENIZER_DIFFERS"]
    assert j["details"]["first"][0] == {"id": first, "draft": b[first][0], "target": a[first][0]}


def test_both_sides_tokenizer_model_are_compared_by_content(tmp_path: Path, spm) -> None:
    target = _spm_side(tmp_path / "t", spm, layers=2)
    assert _tok(audit_checkpoint(target, draft=_spm_side(tmp_path / "same", spm))) == []
    differs = audit_checkpoint(target, draft=_spm_side(tmp_path / "other", sentencepiece_model(OTHER_TEXT)))
    assert _tok(differs) == [("error", "DRAFT_TOKENIZER_DIFFERS")]
    assert differs.exit_code == 1


def test_a_padded_tokenizer_model_draft_with_the_same_tokenizer_is_clean(tmp_path: Path, spm) -> None:
    # both embeddings padded past the tokenizer to a multiple of 128 (vLLM refuses a draft model whose vocab_size is
    # not the target's: DRAFT_VOCAB_SIZE_DIFFERS, test_draft_target.py)
    target = _spm_side(tmp_path / "t", spm, rows=128, layers=2)
    draft = _spm_side(tmp_path / "d", spm, rows=128)
    r = audit_checkpoint(target, draft=draft)
    assert _tok(r) == [] and r.exit_code == 0


def test_byte_fallback_pieces_are_spelled_alike_in_both_formats(tmp_path: Path) -> None:
    proto = sentencepiece_model(vocab_size=300, byte_fallback=True)
    ps = [p for p, _ in pieces(proto)]
    assert ps[3 + 0x0A] == "<0x0A>" and any(p.startswith("\u2581") for p in ps)
    target = _model(tmp_path / "t", 300, layers=2)
    write_spm_as_tokenizer_json(target, proto)
    assert _tok(audit_checkpoint(target, draft=_spm_side(tmp_path / "d", proto, 300))) == []


def test_a_byte_piece_renamed_to_its_character_is_the_same_token(tmp_path: Path) -> None:
    """GemmaConverter writes ``"\\t"`` where the SentencePiece model has ``<0x09>`` (no tab piece of its own)."""
    proto = sentencepiece_model([t.replace("\t", " ") for t in TEXT], vocab_size=300, byte_fallback=True)
    assert "\t" not in [p for p, _ in pieces(proto)]
    target = _model(tmp_path / "t", 300, layers=2)
    write_spm_as_tokenizer_json(target, proto)
    doc = json.loads((target / "tokenizer.json").read_text())
    vocab = doc["model"]["vocab"]
    vocab["\t"] = vocab.pop("<0x09>")
    (target / "tokenizer.json").write_text(json.dumps(doc))
    assert _tok(audit_checkpoint(target, draft=_spm_side(tmp_path / "d", proto, 300))) == []


def test_without_sentencepiece_a_tokenizer_model_side_stays_a_warning(
    tmp_path: Path, spm, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _model(tmp_path / "t", layers=2)
    write_spm_as_tokenizer_json(target, spm)
    draft = _spm_side(tmp_path / "d", spm)
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # the optional import fails as when not installed
    r = audit_checkpoint(target, draft=draft)
    (f,) = [f for f in r.findings if "TOKEN" in f.code]
    assert (f.severity.value, f.code) == ("warning", "DRAFT_TOKENIZER_UNVERIFIED")
    assert f.message == (
        "the tokenizers could not be compared by content: draft tokenizer.model: tokenizer.model needs the "
        "sentencepiece package to be read"
    )
    assert f.fix == "pip install 'specscope[tokenizers]' (it installs sentencepiece), then audit again"
    # two byte-identical files are the same tokenizer even unread
    assert (
        _tok(audit_checkpoint(_spm_side(tmp_path / "t2", spm, layers=2), draft=_spm_side(tmp_path / "d2", spm))) == []
    )


def test_a_tokenizer_model_that_is_neither_format_is_named(tmp_path: Path, spm) -> None:
    target = _spm_side(tmp_path / "t", spm, layers=2)
    draft = _spm_side(tmp_path / "d", b"\x0a\x05oops" + bytes(range(40)))
    (f,) = [f for f in audit_checkpoint(target, draft=draft).findings if "TOKEN" in f.code]
    assert (f.severity.value, f.code) == ("warning", "DRAFT_TOKENIZER_UNVERIFIED")
    assert "draft tokenizer.model: tokenizer.model is neither a SentencePiece ModelProto nor tiktoken ranks" in (
        f.message
    )
    assert f.fix == "re-download the draft's tokenizer.model from its publisher, then audit again"


# --- tiktoken ranks: Kimi-K2 tiktoken.model, Llama-3 original/tokenizer.model -----------------------------------

KIMI_SPECIAL = {"262": "[BOS]", "263": "[EOS]", "264": "<|im_end|>", "265": "<|im_user|>"}
MERGED = [b" the", b"\n\n", "你".encode(), "你".encode()[:2], b"er"]


def _kimi_side(root: Path, tokens: list[bytes], rows: int, *, layers: int = 1, special=KIMI_SPECIAL) -> Path:
    _model(root, rows, layers=layers)
    (root / "tiktoken.model").write_bytes(tiktoken_lines(tokens))
    decoder = {i: {"content": c, "special": True} for i, c in special.items()}
    cfg = {"added_tokens_decoder": decoder, "bos_token": "[BOS]", "eos_token": "[EOS]", "chat_template": "<|im_user|>"}
    (root / "tokenizer_config.json").write_text(json.dumps(cfg))
    return root


def test_kimi_tiktoken_model_sides_with_the_same_ranks_are_clean(tmp_path: Path) -> None:
    toks = byte_tokens(MERGED + [b"ing"])  # ranks 0..261, specials from 262
    target = _kimi_side(tmp_path / "t", toks, 384, layers=2)  # rows padded past the ranks, alike on both sides
    draft = _kimi_side(tmp_path / "d", toks, 384)  # (vLLM refuses a draft model of another vocab_size)
    r = audit_checkpoint(target, draft=draft)
    assert _tok(r) == [] and r.exit_code == 0
    out = _audit_cli(target, draft)
    assert out.exit_code == 0 and "TOKEN" not in out.output


def test_kimi_tiktoken_model_with_another_token_names_it_readably(tmp_path: Path) -> None:
    target = _kimi_side(tmp_path / "t", byte_tokens(MERGED + [b"ing"]), 270, layers=2)
    other = MERGED[:3] + ["好".encode()[:2], b"er", b"ing"]  # id 259: another non-UTF-8 prefix
    draft = _kimi_side(tmp_path / "d", byte_tokens(other), 270)
    (f,) = [f for f in audit_checkpoint(target, draft=draft).findings if "TOKEN" in f.code]
    assert (f.severity.value, f.code, f.file) == ("error", "DRAFT_TOKENIZER_DIFFERS", "draft:tiktoken.model")
    assert f.message == (
        "draft and target tokenizers map 1 of 266 shared ids to different tokens; first at id 259: "
        f"draft {'好'.encode()[:2]!r}, target {'你'.encode()[:2]!r}"
    )
    out = _audit_cli(target, draft, "-f", "json")
    assert out.exit_code == 1
    (j,) = [x for x in json.loads(out.stdout)["findings"] if x["code"] == "DRAFT_TOKENIZER_DIFFERS"]
    assert j["details"]["first"] == [{"id": 259, "draft": "å¥", "target": "ä½"}]  # tokenizers' byte-level spelling


def test_kimi_special_tokens_come_from_added_tokens_decoder(tmp_path: Path) -> None:
    toks = byte_tokens(MERGED + [b"ing"])
    target = _kimi_side(tmp_path / "t", toks, 270, layers=2)
    renamed = {**KIMI_SPECIAL, "264": "<|im_stop|>"}
    draft = _kimi_side(tmp_path / "d", toks, 270, special=renamed)
    (f,) = [f for f in audit_checkpoint(target, draft=draft).findings if "TOKEN" in f.code]
    assert f.code == "DRAFT_TOKENIZER_DIFFERS"
    assert f.message.endswith("first at id 264: draft '<|im_stop|>', target '<|im_end|>'")


def test_tiktoken_ranks_are_the_same_tokens_as_a_byte_level_tokenizer_json(tmp_path: Path) -> None:
    """A Llama-3 ``original/tokenizer.model`` (tiktoken ranks) against a ``tokenizer.json`` of the same vocabulary
    spelled as tokenizers' ByteLevel does (GPT-2's table: space -> U+0120 'Ġ', newline -> U+010A 'Ċ', byte 0xE4 ->
    'ä', 0xBD -> '½')."""
    tokens = [b"!", b" the", b"\n\n", "你".encode()]
    target = _model(tmp_path / "t", 8, layers=2)
    spelled = {"!": 0, "\u0120the": 1, "\u010a\u010a": 2, "\u00e4\u00bd\u0142": 3}
    doc = {"model": {"type": "BPE", "vocab": spelled}, "added_tokens": [], "decoder": {"type": "ByteLevel"}}
    (target / "tokenizer.json").write_text(json.dumps(doc))
    draft = _model(tmp_path / "d", 8)
    (draft / "tokenizer.model").write_bytes(tiktoken_lines(tokens))
    assert _tok(audit_checkpoint(target, draft=draft)) == []
    (draft / "tokenizer.model").write_bytes(tiktoken_lines([b"!", b" thy", b"\n\n", "你".encode()]))
    (f,) = [f for f in audit_checkpoint(target, draft=draft).findings if "TOKEN" in f.code]
    assert f.message.endswith("first at id 1: draft ' thy', target ' the'")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"IQ== 0\nIg== x\n", "tiktoken.model line 2 is not 'base64 rank': b'Ig== x'"),
        (b"IQ== 0\n!!!! 1\n", "tiktoken.model line 2 is not 'base64 rank': b'!!!! 1'"),
        (b"IQ== 0\nIg== 0\n", "tiktoken.model gives rank 0 to two tokens (line 2)"),
        (b"", "tiktoken.model defines no tokens"),
    ],
)
def test_a_broken_tiktoken_model_is_named(tmp_path: Path, body: bytes, why: str) -> None:
    target = _kimi_side(tmp_path / "t", byte_tokens([]), 266, layers=2)
    draft = _model(tmp_path / "d", 266)
    (draft / "tiktoken.model").write_bytes(body)
    (f,) = [f for f in audit_checkpoint(target, draft=draft).findings if "TOKEN" in f.code]
    assert (f.severity.value, f.code) == ("warning", "DRAFT_TOKENIZER_UNVERIFIED")
    assert f.message == f"the tokenizers could not be compared by content: draft tiktoken.model: {why}"

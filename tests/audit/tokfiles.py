"""Tokenizer files written by the tests, in the formats their publishers ship.

- SentencePiece ``tokenizer.model``: a ``ModelProto`` trained here with ``sentencepiece.SentencePieceTrainer`` on a
  few sentences (``model_writer`` a ``BytesIO``; ``normalization_rule_name="identity"`` keeps the file small).
- The same pieces as a huggingface/tokenizers ``tokenizer.json`` the way transformers'
  ``convert_slow_tokenizer.py`` @00111b31 (``SpmConverter`` / ``LlamaConverter``) writes them: BPE ``model.vocab``
  ``{piece: id}``, Unigram ``[[piece, score]]``, the pieces unchanged (U+2581 for a space, ``<0x0A>`` byte-fallback
  pieces).
- tiktoken BPE ranks (``tiktoken.model`` of Kimi-K2, ``original/tokenizer.model`` of Llama-3): one
  ``base64(token bytes) rank`` line per token, as tiktoken ``load.py`` ``dump_tiktoken_bpe`` writes and
  ``load_tiktoken_bpe`` reads.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

TEXT = [
    "the quick brown fox jumps over the lazy dog",
    "speculative decoding drafts tokens the target verifies",
    "a draft model proposes, the target accepts or rejects",
    "hello world\nnew line\ttab",
]
OTHER_TEXT = [
    "zebras quietly vex jumping wizards near the harbour",
    "lorem ipsum dolor sit amet consectetur adipiscing elit",
    "pack my box with five dozen liquor jugs",
]


def sentencepiece_model(
    text: list[str] = TEXT, *, vocab_size: int = 60, model_type: str = "bpe", byte_fallback: bool = False
) -> bytes:
    """A serialized SentencePiece ``ModelProto`` of exactly ``vocab_size`` pieces."""
    import sentencepiece

    buf = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text * 10),
        model_writer=buf,
        vocab_size=vocab_size,
        model_type=model_type,
        byte_fallback=byte_fallback,
        normalization_rule_name="identity",
        minloglevel=2,
    )
    return buf.getvalue()


def pieces(proto: bytes) -> list[tuple[str, float]]:
    """``[(piece, score)]`` in id order, read with the reference library."""
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_proto=proto)
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def write_spm_as_tokenizer_json(root: Path, proto: bytes, *, model_type: str = "BPE") -> None:
    """``tokenizer.json`` holding ``proto``'s pieces as ``SpmConverter`` writes them (control pieces also as added
    special tokens), plus a ``tokenizer_config.json``."""
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_proto=proto)
    ps = pieces(proto)
    vocab: object = {p: i for i, (p, _) in enumerate(ps)} if model_type == "BPE" else [[p, s] for p, s in ps]
    added = [
        {"id": i, "content": p, "special": True} for i, (p, _) in enumerate(ps) if sp.is_control(i) or sp.is_unknown(i)
    ]
    doc = {"version": "1.0", "added_tokens": added, "model": {"type": model_type, "vocab": vocab}}
    root.mkdir(parents=True, exist_ok=True)
    (root / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False))
    (root / "tokenizer_config.json").write_text(json.dumps({"eos_token": "</s>", "bos_token": "<s>"}))


def tiktoken_lines(tokens: list[bytes]) -> bytes:
    """A tiktoken BPE file: token ``i`` has rank ``i``."""
    return b"".join(base64.b64encode(t) + b" " + str(i).encode() + b"\n" for i, t in enumerate(tokens))


def byte_tokens(extra: list[bytes]) -> list[bytes]:
    """The 256 single bytes (ranks 0..255: a byte-level BPE needs every byte as a token) then ``extra``."""
    return [bytes([b]) for b in range(256)] + extra

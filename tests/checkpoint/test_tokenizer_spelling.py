"""The byte-level spelling of token bytes (GPT-2 ``encoder.py`` ``bytes_to_unicode``, huggingface/tokenizers
``ByteLevel``) and how tokens are shown in messages; values checked against characters seen in public
``tokenizer.json`` files (``Ġ`` for a leading space, ``Ċ`` for a newline)."""

from __future__ import annotations

from specscope.checkpoint.tokenizer import BYTE_LEVEL, TokenizerView, same_token


def test_the_byte_level_table_is_gpt2s() -> None:
    assert len(set(BYTE_LEVEL)) == 256
    assert (BYTE_LEVEL[0x21], BYTE_LEVEL[0x7E], BYTE_LEVEL[0xA1], BYTE_LEVEL[0xFF]) == ("!", "~", "¡", "ÿ")
    assert (BYTE_LEVEL[0x00], BYTE_LEVEL[0x0A], BYTE_LEVEL[0x20]) == ("Ā", "Ċ", "Ġ")
    assert (BYTE_LEVEL[0x7F], BYTE_LEVEL[0xA0], BYTE_LEVEL[0xAD]) == ("ġ", "ł", "Ń")


def test_tokens_are_shown_as_text_or_bytes() -> None:
    view = TokenizerView("tiktoken.model", "tiktoken", {0: "Ġthe", 1: "ä½", 2: "[BOS]"}, {2: ("[BOS]", True)})
    bl = TokenizerView("tiktoken.model", "tiktoken", view.tokens, view.added, byte_level=True)
    assert [view.shown(i) for i in range(4)] == ["'Ġthe'", "'ä½'", "'[BOS]'", "(no token)"]
    assert [bl.shown(i) for i in range(4)] == ["' the'", "b'\\xe4\\xbd'", "'[BOS]'", "(no token)"]


def test_an_ascii_byte_piece_is_its_character() -> None:
    assert same_token("<0x09>", "\t") and same_token("\n", "<0x0A>") and same_token("a", "a")
    assert not same_token("<0xE4>", "ä") and not same_token("<0x09>", "<0x0A>") and not same_token(None, "a")

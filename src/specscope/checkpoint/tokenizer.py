"""A checkpoint's tokenizer as data: id -> token, added and special tokens, bos / eos / pad ids, chat-template markers.

Read from the files a checkpoint ships (never by running a tokenizer), so a draft and its target can be compared by
content: two tokenizers agree when they map the same ids to the same token strings.

Formats (field by field; anything else in these files is ignored, as it does not change which id means which token):

- ``tokenizer.json`` (huggingface/tokenizers ``Tokenizer`` serialisation): ``model.vocab`` is ``{token: id}`` for
  BPE / WordPiece / WordLevel models and ``[[token, score], ...]`` (id = position) for Unigram; ``added_tokens`` is
  ``[{"id", "content", "special"}, ...]``; ``decoder`` (``{"type": "ByteLevel"}``, possibly inside a ``Sequence``'s
  ``decoders``) says the tokens are byte-level spelled. Read: ``model.type``, ``model.vocab``, ``added_tokens``,
  ``decoder``.
- ``vocab.json`` (GPT-2 style slow tokenizers): ``{token: id}``; ``added_tokens.json``: ``{token: id}``.
- ``tokenizer.model``: a SentencePiece ``ModelProto`` (Llama-2, Mistral, Gemma, many EAGLE drafts), read with the
  ``sentencepiece`` package (the ``tokenizers`` extra): pieces in id order (``id_to_piece``), control and unknown
  pieces as added special tokens; without the package the file is only fingerprinted (sha256) and the view says it
  could not be read. Pieces are compared as SentencePiece spells them (U+2581 for a space, ``<0x0A>`` byte-fallback
  pieces): transformers ``convert_slow_tokenizer.py`` @00111b31 (``SpmConverter`` / ``LlamaConverter``) writes them
  unchanged into ``tokenizer.json`` (BPE ``{piece: id}``, Unigram ``[[piece, score]]``); ``GemmaConverter`` and
  ``HeliumConverter`` rename a byte piece (``<0x09>``, ``<0x0A>``) to its character, so :func:`same_token` counts
  an ASCII byte piece and its character as one token. Fairseq-offset converters (CamemBERT, mBART, NLLB, XLM-R)
  renumber pieces and are not draft/target families. A ``tokenizer.model`` whose first line is ``base64 rank`` is
  tiktoken ranks (Llama-3's ``original/tokenizer.model``), read as ``tiktoken.model`` below.
- ``tiktoken.model`` (Kimi-K2 ``tokenization_kimi.py``, read by tiktoken ``load.py`` ``load_tiktoken_bpe``): one
  ``BASE64TOKEN RANK`` per non-empty line (split on whitespace); the rank is the id, the token is bytes. Read here
  without tiktoken (stricter: a line that is not valid base64 and a decimal rank, or a rank given twice, makes the
  file unreadable). Tokens are kept in the byte-level spelling of huggingface/tokenizers ``ByteLevel`` (GPT-2's
  byte -> character table, :data:`BYTE_LEVEL`; transformers ``TikTokenConverter`` and Kimi's ``_convert_id_to_token``
  spell them so), which compares them byte for byte with a byte-level ``tokenizer.json``. Kimi's special ids
  (``len(ranks)`` onwards) are the ``added_tokens_decoder`` entries of ``tokenizer_config.json``; the
  ``<|reserved_token_{id}|>`` names Kimi's tokenizer gives the undeclared ones of its 258 reserved ids are not
  made up here (Kimi-K2: 163,584 ranks, ``vocab_size`` 163,840: the last two reserved ids lie past the model).
- ``tokenizer_config.json`` (transformers): ``added_tokens_decoder`` ``{"id": {"content", "special"}}``,
  ``bos_token`` / ``eos_token`` / ``pad_token`` (a string or ``{"content": ...}``), ``chat_template`` (a string, or
  ``[{"name", "template"}]``).
- ``config.json`` / ``generation_config.json``: ``bos_token_id``, ``eos_token_id`` (int or list), ``pad_token_id``:
  the ids engines stop on (vLLM reads ``generation_config.json``'s ``eos_token_id``).
- GGUF (llama.cpp ``gguf-py`` constants): ``tokenizer.ggml.model``, ``tokenizer.ggml.tokens`` (id = position),
  ``tokenizer.ggml.token_type`` (3 = control, 4 = user-defined), ``tokenizer.ggml.bos_token_id`` /
  ``eos_token_id`` / ``padding_token_id``, ``tokenizer.chat_template`` (built by :func:`from_gguf_fields`).

Chat-template markers are the added / special tokens whose text appears in the chat template.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from specscope.errors import CheckpointError

__all__ = ["TokenizerView", "read_tokenizer", "from_gguf_fields", "same_token", "TOKENIZER_FILES", "BYTE_LEVEL"]

#: files that carry a vocabulary, in the order they are preferred.
TOKENIZER_FILES = ("tokenizer.json", "vocab.json", "tokenizer.model", "tiktoken.model")


def _byte_level_table() -> tuple[str, ...]:
    """GPT-2's byte -> character table (openai/gpt-2 ``encoder.py`` ``bytes_to_unicode``, the spelling of
    huggingface/tokenizers ``ByteLevel``): the printable bytes ``!``..``~``, ``¡``..``¬``, ``®``..``ÿ`` stand for
    themselves; the other 68 bytes, in byte order, for U+0100, U+0101, ... (space -> U+0120 'Ġ')."""
    kept = {*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)}
    out: list[str] = []
    for b in range(256):
        out.append(chr(b) if b in kept else chr(0x100 + b - sum(1 for k in kept if k < b)))
    return tuple(out)


#: byte value -> its character in byte-level spelling.
BYTE_LEVEL = _byte_level_table()
_FROM_BYTE_LEVEL = {c: b for b, c in enumerate(BYTE_LEVEL)}
#: a SentencePiece byte-fallback piece (``<0x0A>``: ``ModelProto`` piece type BYTE).
_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def _plain(token: str) -> str:
    m = _BYTE_PIECE.fullmatch(token)
    value = int(m.group(1), 16) if m else 0x80
    return chr(value) if value < 0x80 else token


def same_token(a: str | None, b: str | None) -> bool:
    """Two tokens at one id mean the same: equal, or an ASCII byte-fallback piece (``<0x09>``) and the character a
    converter renamed it to (``"\\t"``, transformers ``GemmaConverter`` / ``HeliumConverter``)."""
    return a == b or (a is not None and b is not None and _plain(a) == _plain(b))


_GGUF_CONTROL, _GGUF_USER_DEFINED = 3, 4


class _Source(Protocol):
    label: str

    def files(self) -> dict[str, int]: ...

    def read_json(self, name: str) -> object | None: ...

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes: ...


@dataclass(frozen=True)
class TokenizerView:
    """A tokenizer as data.

    Attributes:
        source: the file the vocabulary was read from (``tokenizer.json``, ``vocab.json``, ``tokenizer.model``,
            ``GGUF``).
        model_type: the tokenizer model (``BPE``, ``Unigram``, ``gpt2``, ``llama`` ...), None when not stated.
        tokens: id -> token string, base vocabulary and added tokens (empty when the file could not be read).
        added: id -> (content, special) of added tokens.
        bos_id / eos_ids / pad_id: special ids (None / empty when not declared).
        template_markers: added or special tokens that the chat template uses.
        fingerprint: sha256 of the vocabulary file (set when only the bytes could be read).
        unreadable: why the vocabulary could not be read (None when it was).
        byte_level: base-vocabulary tokens are byte-level spelled (:data:`BYTE_LEVEL`): tiktoken ranks, or a
            ``tokenizer.json`` with a ``ByteLevel`` decoder.
    """

    source: str
    model_type: str | None
    tokens: dict[int, str]
    added: dict[int, tuple[str, bool]] = field(default_factory=dict)
    bos_id: int | None = None
    eos_ids: tuple[int, ...] = ()
    pad_id: int | None = None
    template_markers: tuple[str, ...] = ()
    fingerprint: str | None = None
    unreadable: str | None = None
    byte_level: bool = False

    @property
    def size(self) -> int:
        """Ids the tokenizer defines: the largest id + 1 (0 when unread)."""
        return max(self.tokens) + 1 if self.tokens else 0

    def shown(self, i: int) -> str:
        """Token ``i`` for a message: quoted; a byte-level token as its text when its bytes are UTF-8, else as bytes
        (``b'\\xe4\\xbd'``); ``(no token)`` for an id the tokenizer leaves undefined (a hole)."""
        text = self.tokens.get(i)
        if text is None:
            return "(no token)"
        if not self.byte_level or i in self.added or any(c not in _FROM_BYTE_LEVEL for c in text):
            return repr(text)
        raw = bytes(_FROM_BYTE_LEVEL[c] for c in text)
        try:
            return repr(raw.decode("utf-8"))
        except UnicodeDecodeError:
            return repr(raw)

    def id_of(self, token: str) -> int | None:
        for i, t in self.tokens.items():
            if t == token:
                return i
        return None


def _ids(value: object) -> tuple[int, ...]:
    if isinstance(value, bool):
        return ()
    if isinstance(value, int):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return ()


def _token_text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    content = value.get("content") if isinstance(value, dict) else None
    return content if isinstance(content, str) else None


def _template_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(t.get("template", "")) for t in value if isinstance(t, dict))
    return ""


def _token_id(value: object) -> int | None:
    """A token id as tokenizers writes it: a non-negative integer (not a bool, not a float)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _vocab_entries(vocab: object, where: str, problems: list[str]) -> dict[int, str]:
    """``{id: token}`` from a ``{token: id}`` map or a Unigram ``[[piece, score], ...]`` list; each entry that is
    neither (an id that is not a non-negative integer, a piece that is not a string) is a problem."""
    tokens: dict[int, str] = {}
    bad: list[str] = []
    if isinstance(vocab, dict):
        for t, i in vocab.items():
            tid = _token_id(i)
            if tid is None:
                bad.append(f"{t!r}: {i!r}")
            else:
                tokens[tid] = t
    elif isinstance(vocab, list):  # Unigram: [[piece, score], ...]
        for i, entry in enumerate(vocab):
            if isinstance(entry, list) and entry and isinstance(entry[0], str):
                tokens[i] = entry[0]
            else:
                bad.append(f"[{i}]: {str(entry)[:40]}")
    else:
        problems.append(f"{where} is {type(vocab).__name__ if vocab is not None else 'null'}, not a vocabulary")
    if bad:
        problems.append(f"{len(bad)} entries of {where} are not token -> non-negative integer id (first {bad[0]})")
    return tokens


def _vocab_from_tokenizer_json(
    obj: object, problems: list[str]
) -> tuple[str | None, dict[int, str], dict[int, tuple[str, bool]]]:
    if not isinstance(obj, dict):
        problems.append(f"tokenizer.json is a JSON {type(obj).__name__}, not a tokenizers serialisation (an object)")
        return None, {}, {}
    model = obj.get("model")
    if not isinstance(model, dict):
        problems.append("tokenizer.json has no model object")
        model = {}
    tokens = _vocab_entries(model.get("vocab"), "model.vocab", problems)
    added: dict[int, tuple[str, bool]] = {}
    for entry in obj.get("added_tokens") or []:
        tid = _token_id(entry.get("id")) if isinstance(entry, dict) else None
        if tid is not None and isinstance(entry.get("content"), str):
            added[tid] = (entry["content"], bool(entry.get("special")))
        else:
            problems.append(f"an added_tokens entry is not {{id, content}}: {str(entry)[:60]}")
            break
    mt = model.get("type")
    return (mt if isinstance(mt, str) else None), tokens, added


#: ids may have holes (a removed token), but a vocabulary whose largest id is past this many times its token count
#: (plus this slack) is not one: ``size`` would be a number no engine embeds.
_SPARSE_FACTOR, _SPARSE_SLACK = 2, 1024


def _sparse(tokens: dict[int, str]) -> str | None:
    if tokens and max(tokens) + 1 > _SPARSE_FACTOR * len(tokens) + _SPARSE_SLACK:
        return f"ids run to {max(tokens):,} but only {len(tokens):,} tokens are defined"
    return None


def _tiktoken_ranks(raw: bytes, name: str, problems: list[str]) -> dict[int, str]:
    """``{rank: token}`` of tiktoken BPE ranks (``base64 rank`` lines), tokens byte-level spelled; a malformed line or
    a repeated rank is a problem (and no tokens)."""
    tokens: dict[int, str] = {}
    for n, line in enumerate(raw.splitlines(), 1):
        if not line:
            continue
        parts = line.split()
        try:
            token = base64.b64decode(parts[0], validate=True) if len(parts) == 2 and parts[1].isdigit() else None
        except binascii.Error:
            token = None
        if token is None:
            problems.append(f"{name} line {n} is not 'base64 rank': {line[:40]!r}")
            return {}
        rank = int(parts[1])
        if rank in tokens:
            problems.append(f"{name} gives rank {rank} to two tokens (line {n})")
            return {}
        tokens[rank] = "".join(BYTE_LEVEL[b] for b in token)
    return tokens


def _looks_like_tiktoken(raw: bytes) -> bool:
    first = next((line for line in raw[:4096].splitlines() if line), b"").split()
    return len(first) == 2 and first[1].isdigit() and re.fullmatch(rb"[A-Za-z0-9+/]+={0,2}", first[0]) is not None


@dataclass
class _Vocab:
    """What a vocabulary file gave (before ``tokenizer_config.json`` is added)."""

    model_type: str | None = None
    tokens: dict[int, str] = field(default_factory=dict)
    added: dict[int, tuple[str, bool]] = field(default_factory=dict)
    fingerprint: str | None = None
    byte_level: bool = False


def _model_file(name: str, raw: bytes, problems: list[str]) -> _Vocab:
    """A ``tokenizer.model`` (SentencePiece, or tiktoken ranks) or ``tiktoken.model`` (see the module's formats)."""
    if name == "tiktoken.model" or _looks_like_tiktoken(raw):
        return _Vocab("tiktoken", _tiktoken_ranks(raw, name, problems), byte_level=True)
    try:
        import sentencepiece  # optional (the `tokenizers` extra): only tokenizer.model-only checkpoints need it
    except ImportError:
        problems.append(f"{name} needs the sentencepiece package to be read")
        return _Vocab(fingerprint=hashlib.sha256(raw).hexdigest())
    try:
        proc = sentencepiece.SentencePieceProcessor(model_proto=raw)
    except RuntimeError:
        problems.append(
            f"{name} is neither a SentencePiece ModelProto nor tiktoken ranks (sentencepiece cannot parse it)"
        )
        return _Vocab()
    tokens = {i: proc.id_to_piece(i) for i in range(proc.get_piece_size())}
    added = {i: (t, True) for i, t in tokens.items() if proc.is_control(i) or proc.is_unknown(i)}
    return _Vocab("SentencePiece", tokens, added)


def _is_byte_level(decoder: object) -> bool:
    """A ``tokenizer.json`` ``decoder`` that is, or contains (``Sequence``), ``ByteLevel``."""
    if not isinstance(decoder, dict):
        return False
    parts = decoder.get("decoders")
    return decoder.get("type") == "ByteLevel" or (isinstance(parts, list) and any(_is_byte_level(d) for d in parts))


def _as_dict(obj: object) -> dict[str, Any]:
    return obj if isinstance(obj, dict) else {}


def _read_json(source: _Source, name: str, problems: list[str]) -> object | None:
    """A tokenizer-side JSON file, or None with the reason in ``problems`` when it cannot be parsed."""
    try:
        return source.read_json(name)
    except CheckpointError as exc:
        problems.append(exc.message)
        return None


def read_tokenizer(source: _Source) -> TokenizerView | None:
    """The tokenizer a checkpoint ships, or None when it has no vocabulary file.

    A vocabulary file that cannot be used (not JSON, not a vocabulary, ids that are not non-negative integers, ids
    far past the token count) gives a view with ``unreadable`` set: it is never silently skipped.
    """
    files = source.files()
    name = next((n for n in TOKENIZER_FILES if n in files), None)
    if name is None:
        return None
    problems: list[str] = []
    if name == "tokenizer.json":
        doc = _read_json(source, name, problems)
        got = _Vocab()
        if not problems:
            got = _Vocab(
                *_vocab_from_tokenizer_json(doc, problems), byte_level=_is_byte_level(_as_dict(doc).get("decoder"))
            )
    elif name == "vocab.json":
        doc = _read_json(source, name, problems)
        tokens = _vocab_entries(doc, "vocab.json", problems) if not problems else {}
        extra = _read_json(source, "added_tokens.json", problems) if "added_tokens.json" in files else {}
        added = {i: (t, True) for i, t in _vocab_entries(extra, "added_tokens.json", problems).items()}
        got = _Vocab("BPE", tokens, added)
    else:
        got = _model_file(name, source.read_range(name, 0, files[name]), problems)
    model_type, tokens, added, fingerprint = got.model_type, got.tokens, got.added, got.fingerprint
    if not tokens and not problems:
        problems.append(f"{name} defines no tokens")
    tok_cfg = (
        _as_dict(_read_json(source, "tokenizer_config.json", problems)) if "tokenizer_config.json" in files else {}
    )
    for key, entry in _as_dict(tok_cfg.get("added_tokens_decoder")).items():
        content = _token_text(entry)
        if str(key).isdigit() and content is not None:
            added.setdefault(int(key), (content, bool(_as_dict(entry).get("special"))))
    for i, (content, _special) in added.items():
        tokens.setdefault(i, content)
    sparse = _sparse(tokens)
    if sparse:
        problems.append(sparse)
    unreadable = "; ".join(problems) or None
    if unreadable and fingerprint is None:
        tokens, added = {}, {}  # a partly read vocabulary is not compared: its ids may not mean what they seem
    cfg = _as_dict(source.read_json("config.json")) if "config.json" in files else {}
    gen = _as_dict(_read_json(source, "generation_config.json", [])) if "generation_config.json" in files else {}
    view = TokenizerView(name, model_type, tokens, added, fingerprint=fingerprint, unreadable=unreadable)

    def special(key: str) -> tuple[int, ...]:
        text = _token_text(tok_cfg.get(f"{key}_token"))
        by_text = view.id_of(text) if text is not None and tokens else None
        from_cfg = _ids(gen.get(f"{key}_token_id")) or _ids(cfg.get(f"{key}_token_id"))
        return from_cfg or ((by_text,) if by_text is not None else ())

    template = _template_text(tok_cfg.get("chat_template"))
    if not template and "chat_template.jinja" in files:
        template = source.read_range("chat_template.jinja", 0, files["chat_template.jinja"]).decode("utf-8", "replace")
    markers = tuple(sorted({c for c, _ in added.values() if c and c in template}))
    bos, eos, pad = special("bos"), special("eos"), special("pad")
    return TokenizerView(
        name,
        model_type,
        tokens,
        added,
        bos[0] if bos else None,
        eos,
        pad[0] if pad else None,
        markers,
        fingerprint,
        unreadable,
        got.byte_level,
    )


def from_gguf_fields(fields: dict[str, Any]) -> TokenizerView | None:
    """The tokenizer of a GGUF file from its metadata values (``{key: value}``, arrays as lists), or None."""
    tokens = fields.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, list):
        return None
    types = fields.get("tokenizer.ggml.token_type")
    types = types if isinstance(types, list) else []
    added = {
        i: (str(tokens[i]), t == _GGUF_CONTROL)
        for i, t in enumerate(types)
        if t in (_GGUF_CONTROL, _GGUF_USER_DEFINED) and i < len(tokens)
    }
    template = _template_text(fields.get("tokenizer.chat_template"))
    markers = tuple(sorted({c for c, _ in added.values() if c and c in template}))

    def one(key: str) -> int | None:
        v = fields.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    eos = one("tokenizer.ggml.eos_token_id")
    model = fields.get("tokenizer.ggml.model")
    if not all(isinstance(t, str) for t in tokens):
        raise CheckpointError(
            "GGUF tokenizer.ggml.tokens holds values that are not strings",
            found=f"{len(tokens)} entries",
            expected="one string per token id",
            fix="re-convert the model with llama.cpp's convert_hf_to_gguf.py",
        )
    return TokenizerView(
        "GGUF",
        model if isinstance(model, str) else None,
        dict(enumerate(tokens)),
        added,
        one("tokenizer.ggml.bos_token_id"),
        (eos,) if eos is not None else (),
        one("tokenizer.ggml.padding_token_id"),
        markers,
    )

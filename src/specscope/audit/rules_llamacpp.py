"""llama.cpp's draft/target compatibility rule for a GGUF pair (``--model`` + ``--model-draft``), checked as the
embedded engine checks it.

Source: ggml-org/llama.cpp ``common/speculative.cpp`` ``common_speculative_are_compatible`` (stored copy @001d906a;
its five log lines are, byte for byte, in the binary of the embedded engine, xllamacpp 2026.10.11549) and
``src/llama-vocab.cpp`` ``llama_vocab::impl::load`` (stored copy @00ad355e) for what each value is when the GGUF does
not state it. The rule, in llama.cpp's order (the first failure refuses the draft):

1. the vocabulary types are equal (``tokenizer.ggml.model``: ``llama`` SPM, ``gpt2`` / ``hybriddna`` / ``whitespace``
   / ``gemma4`` BPE, ``bert`` WPM, ``t5`` UGM, ``rwkv`` RWKV, ``plamo2`` PLaMo-2, ``no_vocab`` / ``none`` NONE);
2. ``add_bos`` is equal, and when set the BOS ids are equal;
3. ``add_eos`` is equal, and when set the EOS ids are equal;
4. the token counts differ by at most ``SPEC_VOCAB_MAX_SIZE_DIFFERENCE`` = 128;
5. every token text from ``SPEC_VOCAB_CHECK_START_TOKEN_ID`` = 5 to the smaller count is equal.

Only ``draft-simple`` runs the rule; a draft llama-server runs as ``draft-dflash`` / ``draft-dspark`` / ``draft-mtp``
(typed from the file with no ``--spec-type``) or ``draft-eagle3`` is not judged by it
(:func:`specscope.audit.rules_llamacpp_types.auto_spec_type`).

``add_bos`` / ``add_eos`` default by vocabulary type (SPM and WPM add BOS; UGM adds EOS; BPE adds BOS only for the
Llama-3 pre-tokenizers, tekken and chameleon), then ``tokenizer.ggml.add_bos_token`` / ``add_eos_token`` override;
last, the Gemma-4 pre-tokenizers (``gemma4``, ``granite-embed-multi-311m``, and every ``tokenizer.ggml.model``
``gemma4``) add BOS whatever the GGUF says. BOS / EOS ids
default by type (SPM 1 / 2, WPM 101 / none, BPE 11 / 11, UGM none / 1, PLaMo-2 1 / 2, others none; a default past the
vocabulary is none), then ``tokenizer.ggml.bos_token_id`` / ``eos_token_id`` override when inside the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

from specscope.audit.archdoc import known_architectures
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.rules_llamacpp_types import auto_spec_type
from specscope.checkpoint.gguf_file import GgufFile

__all__ = [
    "LlamaVocab",
    "llama_vocab",
    "load_failure",
    "unloadable",
    "unknown_pre",
    "unknown_architecture",
    "KNOWN_BPE_PRE",
    "are_compatible",
    "compares",
    "SPEC_VOCAB_MAX_SIZE_DIFFERENCE",
]

SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128
SPEC_VOCAB_CHECK_START_TOKEN_ID = 5

#: tokenizer.ggml.model -> (llama_vocab_type name, default BOS id, default EOS id)
_TYPES: dict[str, tuple[str, int | None, int | None]] = {
    "no_vocab": ("NONE", None, None),
    "none": ("NONE", None, None),
    "llama": ("SPM", 1, 2),
    "bert": ("WPM", 101, None),
    "gpt2": ("BPE", 11, 11),
    "hybriddna": ("BPE", 11, 11),
    "whitespace": ("BPE", 11, 11),
    "gemma4": ("BPE", None, None),
    "t5": ("UGM", None, 1),
    "rwkv": ("RWKV", None, None),
    "plamo2": ("PLAMO2", 1, 2),
}
#: BPE pre-tokenizers for which llama-vocab.cpp sets add_bos = true (the LLAMA3 group, tekken, chameleon)
_BPE_ADD_BOS_PRE = (
    "llama3",
    "llama-v3",
    "llama-bpe",
    "falcon3",
    "falcon-h1",
    "pixtral",
    "midm-2.0",
    "lfm2",
    "jina-v5-nano",
    "tekken",
    "chameleon",
)
#: BPE pre-tokenizers of pre_type GEMMA4, whose add_bos llama-vocab.cpp forces to true after reading
#: tokenizer.ggml.add_bos_token ("workaround for Gemma 4", ggml-org/llama.cpp PR #21500)
_GEMMA4_PRE = ("gemma4", "granite-embed-multi-311m")
#: every tokenizer.ggml.pre that llama_vocab::impl::load (src/llama-vocab.cpp @00ad355e) takes for a BPE vocabulary
#: (tokenizer.ggml.model gpt2 / hybriddna / whitespace); any other non-empty name throws "unknown pre-tokenizer type"
KNOWN_BPE_PRE = frozenset(
    (
        "default", "minicpm5", "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
        "lfm2", "jina-v5-nano", "deepseek-llm", "deepseek-coder", "deepseek-v3", "spark2_5", "youtu", "falcon", "mpt",
        "starcoder", "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
        "mellum", "modern-bert", "jais-2", "gemma4", "granite-embed-multi-311m", "sarvam-moe", "jina-v1-en",
        "jina-v2-code", "roberta-bpe", "whitespace", "refact", "command-r", "qwen2", "deepseek-r1-qwen", "kormo",
        "f2llmv2", "qwen35", "stablelm2", "olmo", "dbrx", "smaug-bpe", "poro-chat", "glm4", "chatglm-bpe", "viking",
        "jais", "tekken", "smollm", "codeshell", "bloom", "gpt3-finnish", "exaone", "exaone4", "exaone-moe",
        "chameleon", "minerva-7b", "megrez", "gpt-4o", "llama4", "kanana2", "talkie", "granite-embed-multi-97m",
        "tiny_aya", "cohere2moe", "superbpe", "trillion", "granite-docling", "bailingmoe", "bailingmoe2", "llada-moe",
        "seed-coder", "hunyuan", "hunyuan-dense", "hy_v4", "joyai-llm", "kimi-k2", "ufakzeka", "grok-2", "afmoe",
        "laguna", "minimax-m2", "solar-open", "mellum2",
        # in the embedded engine's (xllamacpp 2026.10.11549) pool of these names, not at @00ad355e
        "mmbert", "glm5",
    )
)  # fmt: skip
_RULE = (
    "llama.cpp common_speculative_are_compatible (common/speculative.cpp): vocab type, add_bos/add_eos and their "
    "ids equal, token counts within SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128, token texts equal from id 5"
)


@dataclass(frozen=True)
class LlamaVocab:
    """What llama.cpp's vocabulary loader makes of a GGUF's tokenizer keys.

    Attributes:
        model: ``tokenizer.ggml.model`` as stored (None when absent).
        vocab_type: ``SPM``, ``BPE``, ... (``unknown 'x'`` for a model llama.cpp refuses to load).
        add_bos / add_eos: whether a BOS / EOS is added to a prompt.
        bos_id / eos_id: the BOS / EOS ids (None: LLAMA_TOKEN_NULL).
        texts: token id -> token text.
    """

    model: str | None
    vocab_type: str
    add_bos: bool
    add_eos: bool
    bos_id: int | None
    eos_id: int | None
    texts: dict[int, str]

    @property
    def n_tokens(self) -> int:
        return len(self.texts)


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def llama_vocab(g: GgufFile) -> LlamaVocab:
    """The vocabulary of ``g`` as ``llama_vocab::impl::load`` reads it (see the module docstring)."""
    md = g.metadata
    model = md.get("tokenizer.ggml.model")
    model = model if isinstance(model, str) else None
    pre = "gemma4" if model == "gemma4" else md.get("tokenizer.ggml.pre")  # llama-vocab.cpp sets it for gemma4
    vtype, bos, eos = _TYPES.get(model or "", (f"unknown {model!r}", None, None))
    add_bos = vtype in ("SPM", "WPM") or (vtype == "BPE" and pre in _BPE_ADD_BOS_PRE)
    add_eos = vtype == "UGM"
    if pre in ("glm4", "chatglm-bpe"):
        bos = None
    texts = {i: t or f"[EMPTY_{i}]" for i, t in g.tokenizer.tokens.items()} if g.tokenizer else {}
    n = len(texts)
    bos = bos if bos is not None and bos < n else None
    eos = eos if eos is not None and eos < n else None
    b, e = _int(md.get("tokenizer.ggml.bos_token_id")), _int(md.get("tokenizer.ggml.eos_token_id"))
    bos = b if b is not None and 0 <= b < n else bos
    eos = e if e is not None and 0 <= e < n else eos
    if isinstance(md.get("tokenizer.ggml.add_bos_token"), bool):
        add_bos = md["tokenizer.ggml.add_bos_token"]
    if isinstance(md.get("tokenizer.ggml.add_eos_token"), bool):
        add_eos = md["tokenizer.ggml.add_eos_token"]
    if vtype == "BPE" and pre in _GEMMA4_PRE:
        add_bos = True
    return LlamaVocab(model, vtype, bool(add_bos), bool(add_eos), bos, eos, texts)


def _special(which: str, tgt: LlamaVocab, dft: LlamaVocab) -> Finding | None:
    add_t, add_d = (tgt.add_bos, dft.add_bos) if which == "bos" else (tgt.add_eos, dft.add_eos)
    id_t, id_d = (tgt.bos_id, dft.bos_id) if which == "bos" else (tgt.eos_id, dft.eos_id)
    if add_t == add_d and (not add_t or id_t == id_d):
        return None
    return finding(
        "LLAMACPP_DRAFT_INCOMPATIBLE/special",
        file="draft",
        which=which,
        add_target=int(add_t),
        add_draft=int(add_d),
        id_target=-1 if id_t is None else id_t,
        id_draft=-1 if id_d is None else id_d,
        rule=_RULE,
        details={"rule": which, "add": [add_t, add_d], "id": [id_t, id_d]},
    )


def load_failure(g: GgufFile) -> str | None:
    """What ``llama_vocab::impl::load`` throws for ``g`` (its words), or None when it loads the vocabulary: no
    ``tokenizer.ggml.model``; a model it does not know; a BPE vocabulary without ``tokenizer.ggml.merges`` (kimi-k2
    excepted); no ``tokenizer.ggml.tokens``; a token text twice (an empty text counts as ``[EMPTY_<id>]``)."""
    md = g.metadata
    model = md.get("tokenizer.ggml.model")
    if not isinstance(model, str):
        return "key not found in model: tokenizer.ggml.model"
    if model not in _TYPES:
        return f"unknown tokenizer: '{model}'"
    if _TYPES[model][0] == "NONE":
        return None
    kimi = model != "gemma4" and md.get("tokenizer.ggml.pre") == "kimi-k2"
    if _TYPES[model][0] == "BPE" and "tokenizer.ggml.merges" not in md and not kimi:
        return "cannot find tokenizer merges in model file"
    if g.tokenizer is None:
        return "cannot find tokenizer vocab in model file"
    seen: dict[str, int] = {}
    for i, text in sorted(g.tokenizer.tokens.items()):
        word = text or f"[EMPTY_{i}]"
        if word in seen:
            return f"duplicate token in vocabulary: '{word}' has ids {seen[word]} and {i}"
        seen[word] = i
    return None


def unloadable(*sides: tuple[str, GgufFile]) -> list[Finding]:
    """``LLAMACPP_GGUF_UNLOADABLE`` for each ``(side, gguf)`` whose vocabulary the engine cannot load
    (:func:`load_failure`): llama-server refuses such a file as ``--model`` alone as much as in a pair."""
    return [
        finding("LLAMACPP_GGUF_UNLOADABLE", file=side, why=why, details={"side": side, "error": why})
        for side, g in sides
        if (why := load_failure(g)) is not None
    ]


def unknown_pre(*sides: tuple[str, GgufFile]) -> list[Finding]:
    """``LLAMACPP_PRE_TOKENIZER_UNKNOWN`` (WARNING) for each ``(side, gguf)`` whose vocabulary otherwise loads, is
    BPE (``tokenizer.ggml.model`` gpt2 / hybriddna / whitespace; gemma4 sets its own) and names a
    ``tokenizer.ggml.pre`` outside :data:`KNOWN_BPE_PRE`: llama.cpp at @00ad355e throws "unknown pre-tokenizer type"
    for it. A warning, not an error: a newer llama.cpp may know the name. ``/missing``: no ``tokenizer.ggml.pre`` (or
    an empty one): loaded with the 'default' pre-tokenizer, the loader logging "GENERATION QUALITY WILL BE
    DEGRADED!"."""
    out, code = [], "LLAMACPP_PRE_TOKENIZER_UNKNOWN"
    for side, g in sides:
        md = g.metadata
        pre = md.get("tokenizer.ggml.pre")
        model = md.get("tokenizer.ggml.model")
        bpe = model in _TYPES and _TYPES[str(model)][0] == "BPE" and model != "gemma4"
        if not bpe or load_failure(g) is not None:
            continue
        if pre is None or pre == "":  # loaded as 'default', with "GENERATION QUALITY WILL BE DEGRADED!"
            out.append(finding(f"{code}/missing", file=side, details={"side": side, "pre": None}))
        elif isinstance(pre, str) and pre not in KNOWN_BPE_PRE:
            out.append(finding(code, file=side, pre=pre, details={"side": side, "pre": pre}))
    return out


def unknown_architecture(*sides: tuple[str, GgufFile]) -> list[Finding]:
    """``GGUF_ARCH_UNKNOWN`` (WARNING) for each ``(side, gguf)`` whose ``general.architecture`` is absent or outside
    :func:`known_architectures`: the model loader maps the name with ``llm_arch_from_string`` and throws "unknown model
    architecture" for one its table lacks, before any tensor or vocabulary is read. A warning, not an error: the list
    is the embedded engine's, and another build (a newer release, a fork) may know the name."""
    names, source = known_architectures()
    out = []
    for side, g in sides:
        arch = g.metadata.get("general.architecture")
        if isinstance(arch, str) and arch in names:
            continue
        shown = arch if isinstance(arch, str) else "(absent)"
        out.append(
            finding(
                "GGUF_ARCH_UNKNOWN",
                file=side,
                arch=shown,
                engine=source["engine"],
                known=len(names),
                details={
                    "side": side,
                    "architecture": arch if isinstance(arch, str) else None,
                    "list": source["engine"],
                    "known": len(names),
                },
            )
        )
    return out


def compares(target: GgufFile, draft: GgufFile) -> bool:
    """True when llama.cpp runs ``common_speculative_are_compatible`` on the pair (a draft-simple draft:
    :func:`auto_spec_type` None) and both sides carry what it compares (``tokenizer.ggml.model`` and a token list):
    only then is an empty :func:`are_compatible` llama.cpp accepting the pair."""
    if auto_spec_type(draft) is not None:
        return False
    return all(isinstance(g.metadata.get("tokenizer.ggml.model"), str) and g.tokenizer for g in (target, draft))


def are_compatible(target: GgufFile, draft: GgufFile) -> list[Finding]:
    """The first rule of ``common_speculative_are_compatible`` that ``draft`` fails against ``target`` (one ERROR,
    worded as llama.cpp logs it), or ``[]`` when llama.cpp accepts the pair or does not judge it (a draft it loads as
    another type than draft-simple, :func:`auto_spec_type`). A side whose vocabulary the engine cannot load at all
    (:func:`load_failure`) is ``LLAMACPP_GGUF_UNLOADABLE`` instead: the pair rule never runs."""
    refused = unloadable(("target", target), ("draft", draft))
    if refused:
        return refused
    if not compares(target, draft):
        return []
    tgt, dft = llama_vocab(target), llama_vocab(draft)
    if tgt.vocab_type != dft.vocab_type:
        return [
            finding(
                "LLAMACPP_DRAFT_INCOMPATIBLE/type",
                file="draft",
                type_target=f"{tgt.vocab_type} ({tgt.model})",
                type_draft=f"{dft.vocab_type} ({dft.model})",
                rule=_RULE,
                details={"rule": "vocab_type", "target": tgt.vocab_type, "draft": dft.vocab_type},
            )
        ]
    for which in ("bos", "eos"):
        f = _special(which, tgt, dft)
        if f is not None:
            return [f]
    diff = abs(tgt.n_tokens - dft.n_tokens)
    if diff > SPEC_VOCAB_MAX_SIZE_DIFFERENCE:
        return [
            finding(
                "LLAMACPP_DRAFT_INCOMPATIBLE/size",
                file="draft",
                n_target=tgt.n_tokens,
                n_draft=dft.n_tokens,
                diff=diff,
                limit=SPEC_VOCAB_MAX_SIZE_DIFFERENCE,
                rule=_RULE,
                details={"rule": "size", "target": tgt.n_tokens, "draft": dft.n_tokens, "difference": diff},
            )
        ]
    for i in range(SPEC_VOCAB_CHECK_START_TOKEN_ID, min(tgt.n_tokens, dft.n_tokens)):
        if tgt.texts.get(i) != dft.texts.get(i):
            return [
                finding(
                    "LLAMACPP_DRAFT_INCOMPATIBLE/text",
                    file="draft",
                    token_id=i,
                    text_target=tgt.texts.get(i),
                    text_draft=dft.texts.get(i),
                    rule=_RULE,
                    details={"rule": "text", "token_id": i},
                )
            ]
    return []

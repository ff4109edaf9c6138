"""Tensor-name layout: decoder layers, linear modules, quantization side tensors, vision towers.

What each speculative family's draft holds is in :mod:`specscope.audit.architectures` (``architectures.toml``).
"""

from __future__ import annotations

import re

__all__ = [
    "QUANT_AUX_SUFFIXES",
    "KV_SCALE_SUFFIXES",
    "module_of",
    "layer_of",
    "weight_modules",
    "is_vision",
    "is_embedding",
    "EMBEDDING_MODULES",
]

#: tensor-name suffixes that carry quantization parameters rather than weights (ModelOpt, compressed-tensors, Quark,
#: GPTQ/AWQ packs). A module with any of these next to its weight is quantized.
QUANT_AUX_SUFFIXES = (
    "weight_scale",
    "weight_scale_2",
    "weight_global_scale",
    "input_scale",
    "input_global_scale",
    "weight_zero_point",
    "weight_shape",
    "output_scale",
    "scales",
    "qzeros",
    "g_idx",
)
KV_SCALE_SUFFIXES = ("k_scale", "v_scale", "q_scale", "prob_scale")
_WEIGHT_SUFFIXES = ("weight", "weight_packed", "qweight")

_LAYER_RE = re.compile(r"^(?P<prefix>(?:.*\.)?)layers\.(?P<idx>\d{1,9})\.(?P<rest>.+)$")
_VISION_RE = re.compile(
    r"(^|\.)(visual|vision_tower|vision_model|vision_encoder|multi_modal_projector|mm_projector|"
    r"image_newline|merger)(\.|$)"
)


def is_vision(name: str) -> bool:
    """True for vision-tower / projector tensors (not read in text decode)."""
    return bool(_VISION_RE.search(name))


#: the last name of a token-embedding module (HF ``embed_tokens``, GPT-2 ``wte``, BERT / BLOOM ``word_embeddings``,
#: GPT-NeoX ``embed_in``, InternLM ``tok_embeddings``, GGUF ``token_embd``).
EMBEDDING_MODULES = ("embed_tokens", "wte", "word_embeddings", "embed_in", "tok_embeddings", "token_embd")


def is_embedding(name: str) -> bool:
    """Whether tensor or module ``name`` is (a part of) a token embedding table, e.g. DeepSeek's MTP copy
    ``model.layers.61.embed_tokens.weight``: engines build it as an embedding, never as a linear. The one rule, used by
    the byte census, the quantization rules and the quantizer. ``mtp.fc_embedding`` (a linear over the embedding) is
    not one."""
    parts = name.split(".")
    if len(parts) > 1 and parts[-1] in (*_WEIGHT_SUFFIXES, *QUANT_AUX_SUFFIXES):
        parts = parts[:-1]
    return parts[-1] in EMBEDDING_MODULES


def module_of(tensor: str) -> tuple[str, str]:
    """Split ``a.b.c.weight_scale`` into module ``a.b.c`` and suffix ``weight_scale``."""
    module, _, suffix = tensor.rpartition(".")
    return module, suffix


def layer_of(tensor: str) -> tuple[str, int, str] | None:
    """``(prefix, index, rest)`` for a tensor under ``{prefix}layers.{index}.{rest}`` (index <= 9 digits), else None."""
    m = _LAYER_RE.match(tensor)
    if not m:
        return None
    return m.group("prefix"), int(m.group("idx")), m.group("rest")


def weight_modules(names: list[str] | set[str]) -> dict[str, str]:
    """Module -> its weight tensor name, for every tensor whose suffix is a weight (``weight_packed`` counts)."""
    out: dict[str, str] = {}
    for n in names:
        module, suffix = module_of(n)
        if suffix in _WEIGHT_SUFFIXES and module and module not in out:
            out[module] = n
    return out

"""Stored vocabulary rows against the config's ``vocab_size``: the input embedding and the output head of a target or
a draft.

vLLM builds ``embed_tokens`` as ``VocabParallelEmbedding(config.vocab_size, hidden)`` and ``lm_head`` (DeepSeek-style
MTP ``shared_head.head``) as ``ParallelLMHead(config.vocab_size, hidden)``. The parameter is padded to a multiple of
64 rows (``DEFAULT_VOCAB_PADDING_SIZE``), but ``weight_loader`` asserts ``loaded_weight.shape[output_dim] ==
self.org_vocab_size`` (``vllm/model_executor/layers/vocab_parallel_embedding.py`` @7f5d141a): a stored table of any
other row count (fewer, more, or padded to a multiple of 64 past ``vocab_size``) stops the load with an
AssertionError. A tied head is never loaded (``llama.py`` / ``qwen2.py`` ``load_weights`` skip ``lm_head.weight``
when ``tie_word_embeddings``); an EAGLE-3 head has ``draft_vocab_size`` rows (judged by ``DRAFT_VOCAB_MAP``); Medusa
and MLP-speculator heads are named otherwise and judged by their own rules. In a multimodal checkpoint (a
``vision_config`` or ``audio_config`` beside the language model's) more rows than ``vocab_size`` are not judged: a
model may build its table with extra rows for image tokens (transformers' and vLLM's ``mllama.py`` build Llama-3.2
Vision's language model with ``vocab_size + 8`` rows); fewer rows still fail the load.

Code: ``VOCAB_ROWS_DIFFER`` (ERROR).
"""

from __future__ import annotations

import re
from typing import Any

from specscope.audit.architectures import DraftLayout, alias_name, config_int
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.checkpoint import Checkpoint
from specscope.checkpoint.dtypes import PACKED_INT_DTYPES
from specscope.checkpoint.index import network_config

__all__ = ["check_vocab_rows"]

#: vocabulary tables built with ``config.vocab_size`` rows, by their (family-aliased) name
_TABLE = re.compile(r"^(?:.*\.)?embed_tokens\.weight$|^lm_head\.weight$|^(?:.*\.)?shared_head\.head\.weight$")


def check_vocab_rows(ck: Checkpoint, draft: DraftLayout | None) -> list[Finding]:
    """``VOCAB_ROWS_DIFFER``: one finding per stored vocabulary table (shape ``[rows, hidden]``) whose ``rows`` is not
    the config's ``vocab_size`` (the language model's config; a draft's network config); nothing when the config
    gives no ``vocab_size``."""
    cfg = network_config(ck.config) if draft is not None else ck.text_config
    vocab = config_int(cfg, "vocab_size")
    if vocab is None:
        return []
    tied = cfg.get("tie_word_embeddings") is True
    media = any(isinstance((ck.config or {}).get(k), dict) for k in ("vision_config", "audio_config"))
    own_head_sized = draft is not None and draft.family.vocab_map == "eagle3"
    out: list[Finding] = []
    for name, info in sorted(ck.tensors().items()):
        plain = alias_name(draft.family, name) if draft is not None else name
        if not _TABLE.match(plain) or len(info.shape) != 2 or info.dtype in PACKED_INT_DTYPES:
            continue
        if plain == "lm_head.weight" and (tied or own_head_sized):
            continue
        rows = info.shape[0]
        if rows != vocab and not (media and rows > vocab):
            facts: dict[str, Any] = {"rows": rows, "vocab": vocab}
            out.append(finding("VOCAB_ROWS_DIFFER", file=name, tensor=name, **facts, details=dict(facts)))
    return out

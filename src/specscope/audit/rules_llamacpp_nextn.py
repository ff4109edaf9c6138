"""A GGUF target that stores its NextN (MTP) head in the same file, judged as llama.cpp's model loader judges it.

Sources: ggml-org/llama.cpp ``convert_hf_to_gguf.py`` ``Glm4MoeModel`` (``block_count`` = ``num_hidden_layers +
num_nextn_predict_layers``; ``{arch}.nextn_predict_layers`` written from ``num_nextn_predict_layers``) and
``src/models/glm4-moe.cpp`` ``load_arch_tensors`` (the last ``nextn_predict_layers`` blocks are the head:
``blk.N.nextn.{eh_proj,enorm,hnorm}.weight`` required, ``nextn.{embed_tokens,shared_head_head,shared_head_norm}``
optional). Which of them the embedded engine (xllamacpp 2026.10.11549) requires was measured on the engine itself,
``llama_model_load_from_file`` on files written like tests/audit/test_gguf_nextn.py's (that module quotes each answer):

- blocks ``[n - k, n)`` (``n`` = ``block_count``, ``k`` = ``nextn_predict_layers``, absent = 0) are the head and are
  not run; the loader reads the head only when the first of them stores ``nextn.eh_proj.weight``; it then requires
  ``eh_proj``, ``enorm`` and ``hnorm`` in every head block ("check_tensor_dims: tensor '...' not found"); without
  it, every head block's tensors are "unused -- ignoring" and the model loads with no head;
- a ``nextn.*`` tensor in a block below ``n - k`` is created by nobody: "done_getting_tensors: wrong number of
  tensors; expected N, got M" (the file is refused);
- a head block that stores no ``nextn.*`` tensor is a trunk block the loader skips: the model loads and runs short.

Only the architectures in :data:`NEXTN_ARCHITECTURES` (measured) are judged; another family's head is not judged by
this one's rule.
"""

from __future__ import annotations

import re
from typing import Any

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.checkpoint.gguf_file import GgufFile

__all__ = ["NEXTN_ARCHITECTURES", "nextn_head"]

#: ``general.architecture`` values whose NextN rules were measured on the embedded engine (GLM-4.5 / 4.6 / 4.7)
NEXTN_ARCHITECTURES = frozenset({"glm4moe"})

#: the NextN tensors a head block must store once the loader reads the head (glm4-moe.cpp: no TENSOR_NOT_REQUIRED)
REQUIRED = ("eh_proj", "enorm", "hnorm")

_NEXTN = re.compile(r"^blk\.(?P<bid>\d+)\.nextn\.")


def _key_fix(g: GgufFile, key: str, value: int) -> str:
    """How to set ``key`` to ``value``: gguf-py's ``gguf-set-metadata`` when the key is in the file (it changes a
    value in place and cannot add a key), else a re-conversion."""
    if key in g.metadata:
        return (
            f"set it on a copy of the file: gguf-set-metadata --force {g.path} {key} {value} (llama.cpp's gguf-py "
            "script: `pip install gguf`)"
        )
    return (
        f"re-convert the checkpoint with llama.cpp's convert_hf_to_gguf.py, which writes {key} = {value} from "
        "config.json's num_nextn_predict_layers (gguf-set-metadata changes a key in place but cannot add one)"
    )


def _layers(g: GgufFile, variant: str, rule: str, blocks: list[int], facts: dict[str, Any]) -> Finding:
    """``LLAMACPP_NEXTN_LAYERS/{variant}``: the key does not count the blocks that store the head; ``blocks`` are the
    trunk blocks that store one (``/undeclared``, ``/unwritten``) or the head blocks that store none (``/trunk``)."""
    n, k, heads = facts["block_count"], facts["nextn_predict_layers"] or 0, facts["nextn_blocks"]
    key = f"{g.architecture}.nextn_predict_layers"
    right = n - heads[0] if heads else 0  # the trailing blocks that store a head, as the converter counts them
    details = {"rule": rule, **facts, f"trunk_blocks_{'dropped' if rule == 'trunk' else 'with_nextn'}": blocks}
    fix = _key_fix(g, key, right)
    return finding(
        f"LLAMACPP_NEXTN_LAYERS/{variant}",
        kname=key,
        k=k,
        n=n,
        run=n - k,
        blocks=blocks,
        right=right,
        how=fix,
        details=details,
    )


def nextn_head(g: GgufFile) -> list[Finding]:
    """``LLAMACPP_NEXTN_LAYERS`` / ``LLAMACPP_NEXTN_TENSORS`` for a target in :data:`NEXTN_ARCHITECTURES` (see the
    module docstring): ``/undeclared`` or ``/unwritten`` (ERROR: ``nextn.*`` tensors in a trunk block, the file is
    refused), ``/trunk`` (ERROR: a block the key counts as head stores no head, the model runs without it),
    ``/missing`` (ERROR: a required head tensor absent, the file is refused), ``/no-head`` (WARNING: the first head
    block has no ``eh_proj``, the model loads with no head)."""
    n = g.arch_int("block_count")
    if g.architecture not in NEXTN_ARCHITECTURES or not n:
        return []
    key = f"{g.architecture}.nextn_predict_layers"
    k = g.arch_int("nextn_predict_layers") or 0
    names = {t.name for t in g.tensors}
    heads = sorted({int(m["bid"]) for name in names if (m := _NEXTN.match(name))})
    facts: dict[str, Any] = {"block_count": n, "nextn_predict_layers": g.arch_int("nextn_predict_layers")}
    facts["nextn_blocks"] = heads
    trunk = n - k
    if below := [b for b in heads if b < trunk]:
        return [_layers(g, "undeclared" if key in g.metadata else "unwritten", "undeclared", below, facts)]
    probe = f"blk.{trunk}.nextn.eh_proj.weight"
    if not k or probe not in names:
        if dropped := [b for b in range(trunk, n) if b not in heads]:
            return [_layers(g, "trunk", "trunk", dropped, facts)]
        details: dict[str, Any] = {"rule": "no-head", "missing": [probe], "nextn_predict_layers": k}
        return [finding("LLAMACPP_NEXTN_TENSORS/no-head", tensor=probe, kname=key, k=k, details=details)] if k else []
    missing = [f"blk.{b}.nextn.{t}.weight" for b in range(trunk, n) for t in REQUIRED]
    if not (missing := [m for m in missing if m not in names]):
        return []
    details = {"rule": "missing", "missing": missing, "nextn_predict_layers": k}
    others = len(missing) - 1
    return [finding("LLAMACPP_NEXTN_TENSORS/missing", tensor=missing[0], probe=probe, others=others, details=details)]

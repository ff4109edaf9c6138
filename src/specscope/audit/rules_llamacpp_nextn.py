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
- a head block that stores tensors but no ``nextn.*`` one is a trunk block the loader skips: the model loads and runs
  short; a head block that stores nothing (a head the converter was given no weights for, llama.cpp issue #21172)
  costs no trunk block: the model loads with no head;
- ``nextn_predict_layers`` above ``block_count``: "GGML_ASSERT(hparams.n_layer_nextn <= hparams.n_layer_all) failed"
  (src/llama-model.cpp: the process aborts);
- the head under the names the converter wrote before llama.cpp PR #14939 renamed them (``blk.N.eh_proj.weight``, no
  ``nextn.``) is created by nobody: "wrong number of tensors" (the file is refused).

Only the architectures in :data:`NEXTN_ARCHITECTURES` (measured) are judged; another family's head is not judged by
this one's rule.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.checkpoint.gguf_file import GgufFile

__all__ = ["HEAD_RULE", "NEXTN_ARCHITECTURES", "head_blocks", "nextn_head"]

#: ``general.architecture`` values whose NextN rules were measured on the embedded engine (GLM-4.5 / 4.6 / 4.7)
NEXTN_ARCHITECTURES = frozenset({"glm4moe"})

#: the draft bytes rule of a target that stores a NextN head (:func:`head_blocks`), in its byte census
HEAD_RULE = (
    "llama.cpp --spec-type draft-mtp runs the target's own NextN head blocks (stored under mtp_draft); the bytes "
    "of its step are not modelled here: unknown, not 0"
)

#: the NextN tensors a head block must store once the loader reads the head (glm4-moe.cpp: no TENSOR_NOT_REQUIRED)
REQUIRED = ("eh_proj", "enorm", "hnorm")

_NEXTN = re.compile(r"^blk\.(?P<bid>\d+)\.nextn\.")
_BLOCK = re.compile(r"^blk\.(?P<bid>\d+)\.")
#: the head's names before llama.cpp PR #14939 (GLM-4.5 support, 2025-08) moved them under ``nextn.``: old -> new
_OLD_NAMES = {
    "eh_proj": "nextn.eh_proj",
    "embed_tokens": "nextn.embed_tokens",
    "enorm": "nextn.enorm",
    "hnorm": "nextn.hnorm",
    "shared_head.head": "nextn.shared_head_head",
    "shared_head.norm": "nextn.shared_head_norm",
}
_OLD = re.compile(rf"^blk\.(?P<bid>\d+)\.(?P<part>{'|'.join(re.escape(k) for k in _OLD_NAMES)})\.weight$")


def head_blocks(g: GgufFile) -> range:
    """The blocks llama.cpp counts as the NextN head of ``g`` (the last ``nextn_predict_layers`` of ``block_count``),
    which a target step does not run (``n_layer = n_layer_all - n_layer_nextn``); empty outside
    :data:`NEXTN_ARCHITECTURES`."""
    n, k = g.arch_int("block_count"), g.arch_int("nextn_predict_layers")
    if g.architecture not in NEXTN_ARCHITECTURES or not n or not k or not 0 < k < n:
        return range(0)
    return range(n - k, n)


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
    details = {"rule": rule, **facts}
    if rule != "count":
        details[f"trunk_blocks_{'dropped' if rule == 'trunk' else 'with_nextn'}"] = blocks
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


def _old_names(names: set[str], declared: int | None) -> list[Finding]:
    """``LLAMACPP_NEXTN_TENSORS/old-names`` when the head is stored under its names from before llama.cpp PR #14939
    (no loader creates them: the file is refused)."""
    old = sorted(name for name in names if _OLD.match(name))
    m = _OLD.match(old[0]) if old else None
    if m is None:
        return []
    renamed = f"blk.{m['bid']}.{_OLD_NAMES[m['part']]}.weight"
    details = {"rule": "old-names", "old_names": old, "nextn_predict_layers": declared}
    return [
        finding("LLAMACPP_NEXTN_TENSORS/old-names", tensor=old[0], renamed=renamed, count=len(old), details=details)
    ]


def nextn_head(g: GgufFile, side: str = "target") -> list[Finding]:
    """``LLAMACPP_NEXTN_LAYERS`` / ``LLAMACPP_NEXTN_TENSORS`` for a file in :data:`NEXTN_ARCHITECTURES` (see the
    module docstring): ``/undeclared`` or ``/unwritten`` (ERROR: ``nextn.*`` tensors in a trunk block, the file is
    refused), ``/count`` (ERROR: the key past ``block_count``, the loader aborts), ``/trunk`` (ERROR: a block the
    key counts as head stores no head, the model runs without it), ``/missing`` (ERROR: a required head tensor
    absent, the file is refused), ``/no-head`` (WARNING: the first head block has no ``eh_proj``, the model loads
    with no head), ``/old-names`` (ERROR). ``side`` (``target`` or ``draft``: llama-server loads a ``--model-draft``
    file with the same loader) is the findings' ``file``."""
    return [replace(f, file=side) for f in _judge(g)]


def _judge(g: GgufFile) -> list[Finding]:
    """:func:`nextn_head`'s findings, with no side."""
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
    if old := _old_names(names, facts["nextn_predict_layers"]):
        return old
    if k > n:
        return [_layers(g, "count", "count", [], facts)]
    if below := [b for b in heads if b < trunk]:
        return [_layers(g, "undeclared" if key in g.metadata else "unwritten", "undeclared", below, facts)]
    probe = f"blk.{trunk}.nextn.eh_proj.weight"
    if not k or probe not in names:
        stored = {int(m["bid"]) for name in names if (m := _BLOCK.match(name))}
        if dropped := [b for b in range(trunk, n) if b in stored and b not in heads]:
            return [_layers(g, "trunk", "trunk", dropped, facts)]
        nohead = {"rule": "no-head", "missing": [probe], "nextn_predict_layers": k}
        return [finding("LLAMACPP_NEXTN_TENSORS/no-head", tensor=probe, kname=key, k=k, details=nohead)] if k else []
    missing = [f"blk.{b}.nextn.{t}.weight" for b in range(trunk, n) for t in REQUIRED]
    if not (missing := [m for m in missing if m not in names]):
        return []
    details = {"rule": "missing", "missing": missing, "nextn_predict_layers": k}
    others = len(missing) - 1
    return [finding("LLAMACPP_NEXTN_TENSORS/missing", tensor=missing[0], probe=probe, others=others, details=details)]

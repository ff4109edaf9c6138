"""``audit`` of GGUF files (llama.cpp, and specscope's own embedded engine): architecture, quantization types, sizes,
vocabulary and bytes per step from the header (:mod:`specscope.checkpoint.gguf_file`); with a GGUF draft, the same
tokenizer / vocabulary compatibility check as for safetensors drafts (:mod:`.rules_vocab`) and llama.cpp's own
draft/target rule, ``common_speculative_are_compatible`` (:mod:`.rules_llamacpp`).

Bytes per step (llama.cpp ``llama-model.cpp``: ``token_embd`` is a row lookup; a model with no ``output.weight`` uses
``token_embd`` as its output matrix, read whole each step; MoE ``ffn_*_exps`` tensors are read at
``expert_used_count / expert_count``). A llama.cpp draft (``--model-draft``) is a whole model: its bytes per step
are its own per-token bytes.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from specscope.audit.catalog import finding, finding_texts
from specscope.audit.census import GROUPS, ByteCensus
from specscope.audit.findings import AuditReport, Finding, Severity, by_severity
from specscope.audit.rules_llamacpp import (
    are_compatible,
    compares,
    unknown_architecture,
    unknown_pre,
    unloadable,
)
from specscope.audit.rules_llamacpp_nextn import HEAD_RULE, head_blocks, nextn_head
from specscope.audit.rules_llamacpp_types import auto_type, dflash_layers, eagle3_layers, split_mtp_hint
from specscope.audit.rules_vocab import compare_tokenizers
from specscope.checkpoint.gguf_file import GgufFile, is_gguf_path, read_gguf
from specscope.errors import ConfigError

__all__ = ["is_gguf_target", "gguf_census", "gguf_facts", "audit_gguf"]

_BLOCK = re.compile(r"^blk\.\d+\.(?P<rest>.+)$")


def is_gguf_target(target: object) -> bool:
    """True for a local path to a GGUF file (by its magic bytes)."""
    return isinstance(target, str | os.PathLike) and is_gguf_path(target)


def _group(name: str) -> str:
    if name == "token_embd.weight":
        return "embeddings"
    if name == "output.weight":
        return "lm_head"
    m = _BLOCK.match(name)
    rest = m["rest"] if m else name
    if "norm" in rest:
        return "norms"
    if rest.startswith("attn_"):
        return "full_attention"
    if rest.startswith(("ssm_", "time_mix")):
        return "linear_attention"
    if rest.startswith("ffn_"):
        return "mlp"
    return "other"


def gguf_census(g: GgufFile, *, as_draft: bool = False) -> ByteCensus:
    """Bytes by group and ggml type, and bytes one decode step reads (see the module docstring)."""
    used, count = g.arch_int("expert_used_count"), g.arch_int("expert_count")
    moe = used / count if used and count else 1.0
    tied = not any(t.name == "output.weight" for t in g.tensors)
    by_group = {k: 0 for k in GROUPS}
    by_type: dict[str, int] = {}
    step = 0.0
    embed_bytes, embed_rows, head_bytes = 0, 1, 0
    head = {f"blk.{b}." for b in ([] if as_draft else head_blocks(g))}
    for t in g.tensors:
        in_head = bool(head) and t.name.startswith(tuple(head))
        grp = "mtp_draft" if in_head else _group(t.name)
        by_group[grp] += t.nbytes
        by_type[t.type] = by_type.get(t.type, 0) + t.nbytes
        if in_head:
            continue
        if grp == "embeddings":
            embed_bytes, embed_rows = t.nbytes, (t.shape[1] if len(t.shape) > 1 else 1)
            step += t.nbytes if tied else t.nbytes / embed_rows
        else:
            head_bytes += t.nbytes if grp == "lm_head" else 0
            step += t.nbytes * (moe if "_exps" in t.name else 1.0)
    total = sum(t.nbytes for t in g.tensors)
    notes = ["tied embeddings: token_embd is read whole as the output matrix each step"] if tied else []
    if moe != 1.0:
        notes.append(f"MoE experts counted at {used}/{count} of their bytes")
    if head:
        blocks = head_blocks(g)
        notes.append(
            f"NextN head blocks {blocks[0]}..{blocks[-1]} ({g.architecture}.nextn_predict_layers = {len(blocks)}): "
            "not run by a target step; a draft-mtp step's bytes are not counted"
        )
    per = int(round(step))
    return ByteCensus(
        total_bytes=total,
        bytes_by_group=by_group,
        bytes_by_dtype=dict(sorted(by_type.items())),
        target_bytes_per_token=None if as_draft else per,
        draft_bytes_per_step=per if as_draft else None if head else 0,
        draft_share=None if as_draft or head else 0.0,
        notes=notes,
        draft_rule="llama.cpp draft model (--model-draft): every layer once per step, one token_embd row, the output "
        "matrix (token_embd when tied)"
        if as_draft
        else HEAD_RULE
        if head
        else None,
        lm_head_bytes=embed_bytes if tied else head_bytes,
        embedding_row_bytes=int(round(embed_bytes / embed_rows)) if embed_bytes else 0,
    )


def gguf_facts(g: GgufFile) -> dict[str, Any]:
    """What the header says, for ``report.facts["gguf"]``."""
    embd = next((t for t in g.tensors if t.name == "token_embd.weight"), None)
    tok = g.tokenizer
    return {
        "file": str(g.path),
        "architecture": g.architecture,
        "name": g.name,
        "file_type": g.file_type,
        "tensors": len(g.tensors),
        "tensor_types": dict(sorted(Counter(t.type for t in g.tensors).items())),
        "file_bytes": g.size_bytes,
        "block_count": g.arch_int("block_count"),
        "embedding_length": g.arch_int("embedding_length"),
        "vocab_size": tok.size if tok else g.arch_int("vocab_size"),
        "embedding_rows": embd.shape[1] if embd is not None and len(embd.shape) > 1 else None,
        "tokenizer_model": tok.model_type if tok else None,
        "bos_token_id": tok.bos_id if tok else None,
        "eos_token_ids": list(tok.eos_ids) if tok else [],
        "tied_embeddings": not any(t.name == "output.weight" for t in g.tensors),
    }


def _bounds(draft: GgufFile, target: GgufFile) -> list[Finding]:
    rows = gguf_facts(draft)["embedding_rows"]
    needed = target.tokenizer.size if target.tokenizer else None
    if not isinstance(rows, int) or needed is None or rows >= needed:
        return []
    basis = f"the target's GGUF vocabulary defines ids 0..{needed - 1}"
    return [
        finding(
            "DRAFT_VOCAB_MISMATCH",
            file="token_embd.weight",
            draft=rows,
            target=needed,
            where="token_embd rows",
            basis=basis,
            details={"draft_rows": rows, "target_ids": needed},
        )
    ]


def _engine_accepts(f: Finding) -> Finding:
    """``f`` as a warning when the engine's own pair rule (:func:`are_compatible`) accepts the pair and the table
    words ``f`` for that case (``CODE/engine-accepts``): the engine loads the draft and speculates, so what the
    generic check saw is a cost, not a refusal."""
    text = finding_texts().get(f"{f.code}/engine-accepts")
    if text is None or f.severity is not Severity.ERROR:
        return f
    return replace(f, severity=Severity(text["severity"]), consequence=text.get("consequence", f.consequence))


def audit_gguf(target: str | os.PathLike[str] | object, *, draft: str | os.PathLike[str] | None = None) -> AuditReport:
    """Audit a GGUF target (and a GGUF draft against it) from their headers.

    Raises:
        ConfigError: one side is GGUF and the other is not (llama.cpp needs both as GGUF; safetensors engines read
            no GGUF draft).
        CheckpointError: a file that is not a readable GGUF.
    """
    if not is_gguf_target(target) or (draft is not None and not is_gguf_target(draft)):
        raise ConfigError(
            "a GGUF target needs a GGUF draft (and a GGUF draft a GGUF target)",
            found=f"target {target}, draft {draft}",
            expected="both .gguf files (llama.cpp --model / --model-draft), or both safetensors checkpoints",
            fix="convert the other one with llama.cpp's convert_hf_to_gguf.py, or audit the safetensors pair",
        )
    assert isinstance(target, str | os.PathLike)
    g = read_gguf(target)
    findings: list[Finding] = []
    facts: dict[str, Any] = {"gguf": gguf_facts(g)}
    census = gguf_census(g)
    if draft is not None:
        d = read_gguf(draft)
        facts["draft"] = {"gguf": gguf_facts(d)}
        dfind = compare_tokenizers(d.tokenizer, g.tokenizer, kind="gguf") + _bounds(d, g)
        llama = split_mtp_hint(are_compatible(g, d), d)
        if not llama and compares(g, d):
            dfind = [_engine_accepts(f) for f in dfind]
        findings += [replace(f, file=f"draft:{f.file}" if f.file else "draft") for f in dfind]
        findings += (
            llama + auto_type(d) + eagle3_layers(g, d) + dflash_layers(d) + unknown_pre(("target", g), ("draft", d))
        )
        findings += unknown_architecture(("target", g), ("draft", d)) + nextn_head(g) + nextn_head(d, "draft")
        dc = gguf_census(d, as_draft=True)
        tb = census.target_bytes_per_token
        census = replace(
            census,
            draft_bytes_per_step=dc.draft_bytes_per_step,
            draft_share=dc.draft_bytes_per_step / tb if tb and dc.draft_bytes_per_step is not None else None,
            draft_shared_bytes_per_step=0,
            draft_rule=dc.draft_rule,
        )
    else:
        findings += unloadable(("target", g)) + unknown_pre(("target", g)) + unknown_architecture(("target", g))
        findings += nextn_head(g)
    return AuditReport(str(target), by_severity(findings), census, facts)

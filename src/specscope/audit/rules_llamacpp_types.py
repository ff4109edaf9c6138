"""Which llama.cpp speculative implementation runs a GGUF draft, and the draft rules of those that are not
``draft-simple`` (whose pair rule, ``common_speculative_are_compatible``, is :mod:`.rules_llamacpp`).

Sources (ggml-org/llama.cpp, stored copies; each symbol or log line quoted is also in the embedded engine's binary,
xllamacpp 2026.10.11549): ``common/speculative.cpp`` @001d906a ``common_speculative_types_from_gguf`` and the
``draft-eagle3`` implementation's constructor; ``common/arg.cpp`` (the types are inferred from the draft file only
while none is requested); ``src/models/eagle3.cpp`` ``llama_model_eagle3::load_arch_hparams`` (the key
``eagle3.target_layers``: the binary's LLM_KV name ``%s.target_layers``); ``src/models/dflash.cpp``
``llama_model_dflash::load_arch_hparams`` (the same key, ``dflash.target_layers``, for DFlash and DSpark files).
"""

from __future__ import annotations

from dataclasses import replace

from specscope.audit.catalog import finding, finding_texts
from specscope.audit.findings import Finding
from specscope.checkpoint.gguf_file import GgufFile, read_gguf_file

__all__ = ["auto_spec_type", "auto_type", "dflash_layers", "eagle3_layers", "split_mtp_hint"]

#: the number of target layers an EAGLE-3 draft taps (llama_model_eagle3::load_arch_hparams)
EAGLE3_N_LAYERS = 3


def auto_spec_type(draft: GgufFile) -> str | None:
    """The speculative type llama-server runs ``draft`` as, or None for a plain draft model (``--spec-type
    draft-simple``, the only type that calls ``common_speculative_are_compatible``).

    With no ``--spec-type``, ``common_speculative_types_from_gguf`` types the file: ``general.architecture`` ``dflash``
    is ``draft-dflash``, or ``draft-dspark`` when it stores ``markov_w1.weight``; any other architecture is
    ``draft-mtp`` when ``blk.{block_count-1}.nextn.eh_proj.weight`` is stored. A split draft is typed from its first
    shard alone ("reads only the first split - sharded drafts need an explicit --spec-type", common/arg.cpp).
    ``general.architecture`` ``eagle3`` is not inferred at @001d906a (common/preset.cpp: a TODO), but such a file runs
    only as ``--spec-type draft-eagle3``: ``draft-eagle3``."""
    arch = draft.metadata.get("general.architecture")
    if arch == "eagle3":
        return "draft-eagle3"
    split = draft.metadata.get("split.count")
    first = read_gguf_file(draft.path) if isinstance(split, int) and split > 1 else draft
    names = {t.name for t in first.tensors}
    if arch == "dflash":
        return "draft-dspark" if "markov_w1.weight" in names else "draft-dflash"
    n = draft.arch_int("block_count")
    return "draft-mtp" if n and f"blk.{n - 1}.nextn.eh_proj.weight" in names else None


def auto_type(draft: GgufFile) -> list[Finding]:
    """``LLAMACPP_DRAFT_TYPE_AUTO`` (INFO; ``/eagle3`` for an EAGLE-3 file) when llama-server runs ``draft`` as a
    type other than draft-simple (:func:`auto_spec_type`): the pair rule is not run for it."""
    spec = auto_spec_type(draft)
    if spec is None:
        return []
    arch = draft.metadata.get("general.architecture")
    key = "LLAMACPP_DRAFT_TYPE_AUTO/eagle3" if spec == "draft-eagle3" else "LLAMACPP_DRAFT_TYPE_AUTO"
    return [finding(key, file="draft", spec_type=spec, arch=arch, details={"spec_type": spec, "architecture": arch})]


def eagle3_layers(target: GgufFile, draft: GgufFile) -> list[Finding]:
    """``LLAMACPP_EAGLE3_LAYERS`` (ERROR) for an EAGLE-3 draft whose target layer ids llama.cpp refuses: no
    ``eagle3.target_layers`` (``/missing``) or not exactly 3 ids (``/count``): the draft does not load; an id past
    the target's ``block_count`` (``/range``): draft-eagle3's constructor aborts the server (an id below it taps that
    layer's input, one equal to it the final hidden state)."""
    if auto_spec_type(draft) != "draft-eagle3":
        return []
    ids = draft.metadata.get("eagle3.target_layers")
    if not isinstance(ids, list):
        return [finding("LLAMACPP_EAGLE3_LAYERS/missing", file="draft", details={"rule": "missing"})]
    if len(ids) != EAGLE3_N_LAYERS:
        return [
            finding("LLAMACPP_EAGLE3_LAYERS/count", file="draft", ids=ids, details={"rule": "count", "ids": list(ids)})
        ]
    n_layer = target.arch_int("block_count")
    past = [i for i in ids if isinstance(i, int) and n_layer is not None and i > n_layer]
    if not past:
        return []
    details = {"rule": "range", "ids": list(ids), "target_n_layer": n_layer}
    return [finding("LLAMACPP_EAGLE3_LAYERS/range", file="draft", id=past[0], n_layer=n_layer, details=details)]


def dflash_layers(draft: GgufFile) -> list[Finding]:
    """``LLAMACPP_DFLASH_LAYERS/missing`` (ERROR) for a DFlash / DSpark draft (``general.architecture`` dflash)
    without ``dflash.target_layers``: ``llama_model_dflash::load_arch_hparams`` throws "DFlash model requires
    'target_layers' in GGUF metadata" and the draft does not load (the loader takes any number of ids)."""
    if draft.metadata.get("general.architecture") != "dflash":
        return []
    if isinstance(draft.metadata.get("dflash.target_layers"), list):
        return []
    return [finding("LLAMACPP_DFLASH_LAYERS/missing", file="draft", details={"rule": "missing"})]


def _split_mtp_head(draft: GgufFile) -> str | None:
    """The MTP head ``blk.{block_count-1}.nextn.eh_proj.weight`` of a split draft that :func:`auto_spec_type` does
    not see (stored in a later shard than the first), or None."""
    split = draft.metadata.get("split.count")
    n = draft.arch_int("block_count")
    if not (isinstance(split, int) and split > 1 and n) or auto_spec_type(draft) is not None:
        return None
    head = f"blk.{n - 1}.nextn.eh_proj.weight"
    return head if head in {t.name for t in draft.tensors} else None


def split_mtp_hint(findings: list[Finding], draft: GgufFile) -> list[Finding]:
    """The pair rule's ``findings`` with the fix ``--spec-type draft-mtp`` (``CODE/split-mtp``) when ``draft`` is a
    split MTP draft whose head is past its first shard: llama-server typed it draft-simple from that shard alone."""
    head = _split_mtp_head(draft) if findings else None
    if head is None:
        return findings
    out = []
    for f in findings:
        text = finding_texts().get(f"{f.code}/split-mtp")
        if text is None or "fix" not in text:
            out.append(f)
            continue
        details = {**(f.details or {}), "spec_type": "draft-mtp", "mtp_head": head}
        out.append(replace(f, fix=text["fix"].format(head=head), details=details))
    return out

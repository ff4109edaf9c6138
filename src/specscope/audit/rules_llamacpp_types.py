"""Which llama.cpp speculative implementation runs a GGUF draft, and the draft rules of those that are not
``draft-simple`` (whose pair rule, ``common_speculative_are_compatible``, is :mod:`.rules_llamacpp`).

Sources (ggml-org/llama.cpp, stored copies; each symbol or log line quoted is also in the embedded engine's binary,
xllamacpp 2026.10.11549): ``common/speculative.cpp`` @001d906a ``common_speculative_types_from_gguf`` and the
``draft-eagle3`` implementation's constructor; ``common/arg.cpp`` (the types are inferred from the draft file only
while none is requested); ``src/models/eagle3.cpp`` ``llama_model_eagle3::load_arch_hparams`` (the key
``eagle3.target_layers``: the binary's LLM_KV name ``%s.target_layers``).
"""

from __future__ import annotations

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.checkpoint.gguf_file import GgufFile, read_gguf_file

__all__ = ["auto_spec_type", "auto_type", "eagle3_layers"]

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

"""Rule 3b: MTP heads no engine loads: tensors the config does not declare, and a head declared for a model type the
census has no MTP loader for.

Sources: the families' loaders (:mod:`specscope.audit.architectures`, ``architectures.toml``), which build only the
layers their key declares; MiniMax-M2 (config.json ``use_mtp: true``, ``num_mtp_modules: 3``): vLLM
vllm/model_executor/models/minimax_m2.py @01d99586 reads ``num_mtp_modules`` only in
``get_spec_layer_idx_from_weight_name``, the target loader's skip of ``model.layers.{N+i}`` (i < num_mtp_modules),
which never matches (AutoWeightsLoader hands the loader names without ``model.``), and builds no MTP layer; and
vllm/config/speculative.py @002e77c1 ``hf_config_override`` maps no ``minimax_m2`` model type to an MTP model;
SGLang's python/sglang/srt/configs/model_config.py @001adf56 names no draft class for it (docs/architectures.md census).
MiniMax-M3 (``minimax_m3``, ``MiniMaxM3ForCausalLM``: ``num_nextn_predict_layers: 1`` beside ``num_mtp_modules: 7``):
speculative.py @002e77c1 maps only ``minimax_m3_vl`` / ``minimax_m3_mtp`` and MiniMaxM3SparseForConditionalGeneration
to MiniMaxM3MTP, so the same keys on a plain ``minimax_m3`` declare a head no census engine loads.
"""

from __future__ import annotations

import re
from typing import Any

from specscope.audit.archdoc import unjudged_mtp_model_types, unjudged_mtp_row
from specscope.audit.architectures import MTP_HEAD_PREFIXES, census_mtp_family, config_int, main_layer_prefix
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.layout import is_vision, layer_of
from specscope.checkpoint import Checkpoint

__all__ = ["MTP_SEGMENT", "declared_mtp_keys", "undeclared_head"]

#: an ``mtp`` / ``nextn`` segment anywhere in a tensor name (``mtp.``, ``language_model.model.mtp.layers.0.``)
MTP_SEGMENT = re.compile(r"(?:^|[._])(?:mtp|nextn)[._]")
#: stored names shown in a finding
_SHOWN = 3

#: config keys that declare an MTP head in a model type whose engines read them for no MTP loader (MiniMax-M2's,
#: vLLM minimax_m2.py @01d99586): ``use_mtp`` (bool) and ``num_mtp_modules`` (the layer count the target's skip
#: names; the skip never matches, :data:`_TARGET_RAISES`)
_NO_LOADER_KEYS = ("use_mtp", "num_mtp_modules")

#: model types whose target loader raises on a main layer stored past ``num_hidden_layers``, with its source: vLLM
#: minimax_m2.py @01d99586 MiniMaxM2ForCausalLM.load_weights goes through AutoWeightsLoader, which strips ``model.``
#: before MiniMaxM2Model.load_weights, whose MTP skip compares ``model.layers.{N+i}.``: it never matches, and
#: ``params_dict[name]`` raises a KeyError. SGLang minimax_m2.py @01b5f572 (top-level loader) skips a layer id at or
#: past its end layer, so only vLLM fails.
_TARGET_RAISES = frozenset({"minimax_m2"})


def declared_mtp_keys(tc: dict[str, Any]) -> str:
    """``"use_mtp: True, num_mtp_modules: 3"`` when the text config declares an MTP head by the keys of
    :data:`_NO_LOADER_KEYS` (``use_mtp`` true, or absent with ``num_mtp_modules`` > 0), else ``""``; a
    ``num_nextn_predict_layers`` beside them is named too (MiniMax-M3's config carries both)."""
    use = tc.get("use_mtp")
    count = config_int(tc, "num_mtp_modules")
    if use is False or (use is not True and not count):
        return ""
    return ", ".join(f"{k}: {tc[k]!r}" for k in (*_NO_LOADER_KEYS, "num_nextn_predict_layers") if k in tc)


def _head_prefixes(ck: Checkpoint, names: list[str]) -> tuple[str, set[str]]:
    """(the key of the layout the stored names resemble, their prefixes): Qwen-style ``mtp.*``, ``model.mtp.*``,
    MiMo / ERNIE ``model.mtp_*``, else DeepSeek-style layers at ``num_hidden_layers`` and above."""
    if any(n.startswith("mtp.") for n in names):  # Qwen3.5 / Qwen3-Next mtp.*, DeepSeek-V4 mtp.{i}.*
        return "mtp_num_hidden_layers", {"mtp."}
    if any(n.startswith("model.mtp.") for n in names):  # LongCat-Flash model.mtp.*, MiMo-V2 / Inkling layers
        return "num_nextn_predict_layers", {"model.mtp."}
    if any(n.startswith(MTP_HEAD_PREFIXES[1]) for n in names):  # MiMo model.mtp_layers.*, ERNIE model.mtp_block.*
        return "num_nextn_predict_layers", {MTP_HEAD_PREFIXES[1]}
    n_main = config_int(ck.text_config, "num_hidden_layers")
    main = main_layer_prefix(names)
    prefixes = set()
    for n in names:
        lo = layer_of(n)
        if n_main is not None and lo and lo[0] == main and lo[1] >= n_main and not is_vision(n):
            prefixes.add(f"{main}layers.{lo[1]}.")
    return "num_nextn_predict_layers", prefixes


def undeclared_head(ck: Checkpoint) -> tuple[Finding, tuple[str, ...]] | None:
    """``MTP_UNDECLARED`` (WARNING) and the head's prefixes, for MTP tensors a config that declares no MTP head holds:
    Qwen-style ``mtp.*`` without ``mtp_num_hidden_layers``, MiMo ``model.mtp_layers.*``, or DeepSeek-style layers at
    index ``num_hidden_layers`` and above with ``num_nextn_predict_layers`` 0 or absent. Engines build only the layers
    the config declares, so these tensors are never loaded (nor read per step: the census leaves them out). Where the
    family's target loader raises on main layers past the ones its MTP picker matches (architectures.toml
    ``target_past_layers``: DeepSeek-V3, GLM-4.5 .. GLM-5, Kimi-K3, GLM-OCR), layers stored at ``num_hidden_layers`` and
    above are ``MTP_UNDECLARED/target`` (ERROR): the picker matches none when the key is 0 or absent.

    A model type no engine of the census loads an MTP head for, whose config declares one by :data:`_NO_LOADER_KEYS`
    (MiniMax-M2): ``MTP_NO_ENGINE`` (INFO) with no such tensor stored, ``MTP_NO_ENGINE/stored`` (WARNING) with them,
    ``MTP_NO_ENGINE/target`` (ERROR) where the target's own loader raises on them (:data:`_TARGET_RAISES`); never
    another family's rule or fix."""
    if ck.config is None:
        return None  # no config to declare anything (an extracted head, a bare file): nothing is undeclared
    names = sorted(set(ck.locations) | set(ck.weight_map))
    tc = ck.text_config
    unjudged = _unjudged_row_head(ck, names)
    if unjudged is not None:
        return unjudged
    key, prefixes = _head_prefixes(ck, names)
    fam = census_mtp_family(ck.config)  # the key its own loader reads: DeepSeek-V4's mtp.* is not Qwen's
    model_type = str(tc.get("model_type") or (ck.config or {}).get("model_type") or "(none)")
    declared = "" if fam is not None or model_type in unjudged_mtp_model_types() else declared_mtp_keys(tc)
    if not prefixes:
        if not declared:
            return None
        said: dict[str, Any] = {"model_type": model_type, "declared": declared}
        return finding("MTP_NO_ENGINE", file="config.json", **said, details=dict(said)), ()
    held = [n for n in names if n.startswith(tuple(prefixes))]
    nbytes = sum(i.nbytes for n in held if (i := ck.tensor(n)) is not None)
    layers = len({lo[1] for n in held if (lo := layer_of(n))}) or 1
    facts: dict[str, Any] = {"file": "config.json", "tensor": held[0], "n": len(held), "nbytes": nbytes}
    facts |= {"prefixes": ", ".join(sorted(prefixes)), "layers": layers}
    details: dict[str, Any] = {"prefixes": sorted(prefixes), "tensors": len(held), "bytes": nbytes}
    if fam is None:  # no family's key or fix: the census has no loader for this model type (issue 36)
        details |= {"model_type": model_type}
        code = "MTP_NO_ENGINE/stored" if declared else "MTP_UNDECLARED/unknown"
        if model_type in _TARGET_RAISES and not any(p.startswith(("mtp.", "model.mtp")) for p in prefixes):
            code = "MTP_NO_ENGINE/target"
        found = finding(code, model_type=model_type, declared=declared, **facts, details=details)
        return found, tuple(sorted(prefixes))
    key = fam.layers_key
    value = tc.get(key)
    shown = "absent" if value is None else f"{value!r}"
    code = "MTP_UNDECLARED"
    if fam.target_past_layers == "raises" and not any(p.startswith(("mtp.", "model.mtp")) for p in prefixes):
        code = "MTP_UNDECLARED/target"  # main layers past num_hidden_layers: the target's own loader raises first
    return (
        finding(code, config_key=key, declared=shown, **facts, details=details | {"config_key": key}),
        tuple(sorted(prefixes)),
    )


def _unjudged_row_head(ck: Checkpoint, names: list[str]) -> tuple[Finding, tuple[str, ...]] | None:
    """``MTP_LAYOUT_UNKNOWN/unjudged`` (WARNING) for a head declared by the count key of a census row no family judges
    (engine_registry.toml ``layers_key``: MiniMax-M3's ``num_mtp_modules``, vLLM speculative.py @002e77c1 n_predict
    for minimax_m3_vl / minimax_m3_mtp), naming the row's loader and what is stored (any ``mtp`` / ``nextn``
    segment, or nothing): the row is in the census, so the head is neither "undeclared" nor "outside the census"."""
    tc, top = ck.text_config, ck.config or {}
    model_type = str(tc.get("model_type") or top.get("model_type") or "")
    row = unjudged_mtp_row(model_type) if model_type else None
    if row is None or not row.layers_key:
        return None
    count = config_int(tc, row.layers_key)
    if count is None:
        count = config_int(top, row.layers_key)
    if not count:
        return None
    held = [n for n in names if MTP_SEGMENT.search(n)]
    prefixes = sorted({n[: m.end()] for n in held if (m := MTP_SEGMENT.search(n))})
    if held:
        said = f"the checkpoint holds {len(held)} tensors under {', '.join(prefixes)} (e.g. {', '.join(held[:_SHOWN])})"
    else:
        said = "the checkpoint holds no MTP-named tensor (no mtp / nextn segment in any name)"
    source = f"{row.repository} {row.file} @{row.commit}"
    facts: dict[str, Any] = {"declared": f"{row.layers_key}: {count}", "model_type": model_type, "held": said}
    facts |= {"loads": row.loads.split(" (")[0], "source": source}
    details: dict[str, Any] = {"model_type": model_type, "tensors": len(held), "prefixes": prefixes}
    tensor = held[0] if held else None
    found = finding("MTP_LAYOUT_UNKNOWN/unjudged", file="config.json", tensor=tensor, details=details, **facts)
    return found, tuple(prefixes)

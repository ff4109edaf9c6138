"""Rule 4b: exclusion lists against the fused modules engines build; the MTP head's quantization profile.

Sources: vLLM ``packed_modules_mapping`` (``qkv_proj`` = ``q_proj`` + ``k_proj`` + ``v_proj``, ``gate_up_proj`` =
``gate_proj`` + ``up_proj``) and ``quantization/utils/quant_utils.py`` ``is_layer_skipped`` (a fused layer is skipped
when all its shards are; "Detected some but not all shards of ... are quantized. All shards of fused layers to have
the same precision" otherwise), seed 004 (an MTP head quantized on purpose only in its experts, with the rest
excluded). Exclusion matching: :mod:`specscope.audit.quantcfg`.

Codes: ``FUSED_GROUP_PARTIALLY_EXCLUDED`` (ERROR: "k of n children" excluded, the others listed; the experts of a
MoE layer are one fused module, packed 3-D expert tensors included), ``MTP_QUANT_PROFILE`` (INFO: full / partial /
none; the audit emits it for ``partial`` and records every profile in ``facts["mtp_quantization"]``),
``MTP_IGNORE_PER_SHARD`` (WARNING: fused MTP modules excluded only by their shards' names, see
:func:`check_fused_ignore_spelling`).
"""

from __future__ import annotations

import re
from typing import Any

from specscope.audit.architectures import DraftLayout
from specscope.audit.catalog import arg, finding
from specscope.audit.findings import Finding
from specscope.audit.quantcfg import QuantView, effective_view, entry_covers, is_excluded, prefix_pattern, quant_views
from specscope.audit.rules_quant import is_quantized, linear_modules
from specscope.checkpoint import Checkpoint

__all__ = ["FUSED_GROUPS", "fused_groups", "check_fused", "check_fused_ignore_spelling", "mtp_quant_profile"]

FUSED_GROUPS = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}
#: a per-expert module ``...experts.{e}.{leaf}``: every expert of a layer is one fused MoE module in the engine
#: (vLLM ``FusedMoE`` builds one quantization method for ``{layer}.mlp.experts``).
_EXPERT_CHILD = re.compile(r"^(?P<parent>.+\.experts)\.(?P<e>\d{1,6})\.(?P<leaf>[A-Za-z0-9_]+)$")
#: packed expert tensors (one 3-D tensor for all experts: Qwen3.5 / gpt-oss HF layout) and their per-expert parts.
_PACKED = {"gate_up_proj": ("gate_proj", "up_proj"), "down_proj": ("down_proj",)}
_SHOWN = 8


def fused_groups(modules: list[str] | set[str]) -> dict[str, list[str]]:
    """Engine module -> the checkpoint modules it fuses, for groups with at least two parts present.

    ``{"model.layers.3.self_attn.qkv_proj": ["...q_proj", "...k_proj", "...v_proj"],
    "model.layers.3.mlp.experts": ["...experts.0.gate_proj", ...]}``.
    """
    out: dict[str, list[str]] = {}
    for m in sorted(modules):
        expert = _EXPERT_CHILD.match(m)
        if expert:
            out.setdefault(expert["parent"], []).append(m)
            continue
        parent, _, leaf = m.rpartition(".")
        for fused, parts in FUSED_GROUPS.items():
            if leaf in parts:
                out.setdefault(f"{parent}.{fused}" if parent else fused, []).append(m)
    return {k: v for k, v in out.items() if len(v) >= 2}


def _packed_groups(ck: Checkpoint) -> dict[str, list[str]]:
    """Packed expert modules (``{layer}.mlp.experts`` stored as 3-D ``gate_up_proj`` / ``down_proj``) -> the
    per-expert names an exclusion list may use for them (``experts.{e}.gate_proj`` ...)."""
    out: dict[str, list[str]] = {}
    for name, info in ck.tensors().items():
        parent, _, leaf = name.rpartition(".")
        if not parent.endswith(".experts") or leaf not in _PACKED or len(info.shape) != 3:
            continue
        n = min(info.shape[0], 4096)
        out.setdefault(parent, []).extend(f"{parent}.{e}.{part}" for e in range(n) for part in _PACKED[leaf])
    return {k: sorted(v) for k, v in out.items()}


def _view(ck: Checkpoint) -> QuantView | None:
    return effective_view(quant_views(ck.config, ck.hf_quant_config))


def _listed(names: list[str]) -> str:
    return ", ".join(names[:_SHOWN]) + (f" (+{len(names) - _SHOWN} more)" if len(names) > _SHOWN else "")


def check_fused(ck: Checkpoint) -> list[Finding]:
    """One ``FUSED_GROUP_PARTIALLY_EXCLUDED`` ERROR listing every fused module (q/k/v, gate/up, the experts of a MoE
    layer, packed or not) whose children the exclusion list splits; each says "k of n children" and which are not
    excluded. Exclusion matching per format: :mod:`specscope.audit.quantcfg`."""
    view = _view(ck)
    if view is None:
        return []
    groups = fused_groups(set(linear_modules(ck)))
    for parent, children in _packed_groups(ck).items():
        if not is_excluded(view, parent):  # the packed module itself excluded: all children are
            groups[parent] = children
    partial: dict[str, dict[str, Any]] = {}
    for fused, parts in groups.items():
        excluded = [p for p in parts if is_excluded(view, p)]
        if excluded and len(excluded) < len(parts):
            kept = [p for p in parts if p not in excluded]
            partial[fused] = {"excluded": excluded, "not_excluded": kept, "k": len(excluded), "n": len(parts)}
    if not partial:
        return []
    first, split = next(iter(partial.items()))
    return [
        finding(
            "FUSED_GROUP_PARTIALLY_EXCLUDED",
            file=view.file,
            tensor=split["excluded"][0] + ".weight",
            n=len(partial),
            groups=", ".join(f"{g} ({v['k']} of {v['n']} children)" for g, v in partial.items()),
            first=first,
            k=split["k"],
            total=split["n"],
            excluded=_listed(split["excluded"]),
            kept=_listed(split["not_excluded"]),
            details={"groups": partial},
        )
    ]


def check_fused_ignore_spelling(ck: Checkpoint, layout: DraftLayout | None) -> list[Finding]:
    """``MTP_IGNORE_PER_SHARD`` (WARNING): a compressed-tensors Qwen3.5 / Qwen3.6 checkpoint whose whole MTP head is
    unquantized and excluded, but whose fused MTP modules (``qkv_proj``, ``gate_up_proj``) no ``re:`` entry covers:
    only the shards' names do. vLLM maps a fused module back to its shards (``is_layer_skipped``) and loads the head;
    SGLang ``qwen3_5_mtp.py`` @008b79d2 builds ``Qwen3_5ForCausalLMMTP`` without ``packed_modules_mapping``, so the
    fused modules are built quantized and their BF16 weights skipped: accept length 1.00 (sgl-project/sglang issue
    #35797; fix PR #35887 open). A ``re:`` entry matching the fused names covers them under any spelling."""
    view = _view(ck)
    if view is None or view.method != "compressed-tensors" or layout is None or layout.family.key != "qwen3_5_mtp":
        return []
    linears = linear_modules(ck)
    head = sorted(m for m in linears if layout.contains(m + "."))
    if not head or any(is_quantized(ck, m, linears[m]) or not is_excluded(view, m) for m in head):
        return []
    patterns = [e for e in view.exclude if e.startswith("re:")]
    fused = sorted(
        f
        for f in fused_groups(head)
        if ".experts" not in f and not any(entry_covers(e, f, view.method) for e in patterns)
    )
    if not fused:
        return []
    return [
        finding(
            "MTP_IGNORE_PER_SHARD",
            file=view.file,
            checkpoint=arg(ck.label),
            n=len(fused),
            modules=_listed(fused),
            pattern=prefix_pattern(layout.family.head_prefix),
            details={"fused": fused},
        )
    ]


def mtp_quant_profile(ck: Checkpoint, head_modules: set[str]) -> Finding | None:
    """``MTP_QUANT_PROFILE`` INFO for a quantized checkpoint's MTP/draft linears (None when not quantized / no head).

    ``full``: every head linear quantized; ``none``: none; ``partial``: some (e.g. only the experts, seed 004).
    """
    view = _view(ck)
    linears = linear_modules(ck)
    mods = sorted(m for m in head_modules if m in linears)
    if view is None or not mods:
        return None
    quantized = [m for m in mods if is_quantized(ck, m, linears[m])]
    plain = [m for m in mods if m not in quantized]
    not_excluded = [m for m in plain if not is_excluded(view, m)]
    profile = "full" if not plain else "none" if not quantized else "partial"
    if not plain:
        tail = ""
    elif not not_excluded:
        tail = ", all of those excluded"
    else:
        tail = f", {len(not_excluded)} of those not excluded"
    return finding(
        "MTP_QUANT_PROFILE",
        file=view.file,
        profile=profile,
        quantized=len(quantized),
        plain=len(plain),
        tail=tail,
        details={"profile": profile, "quantized": quantized, "unquantized": plain, "not_excluded": not_excluded},
    )

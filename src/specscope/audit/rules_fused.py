"""Rule 4b: exclusion lists against the fused modules engines build; the MTP head's quantization profile.

Sources: vLLM ``packed_modules_mapping`` (``qkv_proj`` = ``q_proj`` + ``k_proj`` + ``v_proj``, ``gate_up_proj`` =
``gate_proj`` + ``up_proj``) and ``quantization/utils/quant_utils.py`` ``is_layer_skipped`` (a fused layer is skipped
when all its shards are; "Detected some but not all shards of ... are quantized. All shards of fused layers to have
the same precision" otherwise), seed 004 (an MTP head quantized on purpose only in its experts, with the rest
excluded). Exclusion matching: :mod:`specscope.audit.quantcfg`.

Codes: ``FUSED_GROUP_PARTIALLY_EXCLUDED`` (ERROR), ``MTP_QUANT_PROFILE`` (INFO: full / partial / none; the audit
emits it for ``partial`` and records every profile in ``facts["mtp_quantization"]``).
"""

from __future__ import annotations

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.quantcfg import QuantView, effective_view, is_excluded, quant_views
from specscope.audit.rules_quant import is_quantized, linear_modules
from specscope.checkpoint import Checkpoint

__all__ = ["FUSED_GROUPS", "fused_groups", "check_fused", "mtp_quant_profile"]

FUSED_GROUPS = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}


def fused_groups(modules: list[str] | set[str]) -> dict[str, list[str]]:
    """Engine module -> the checkpoint modules it fuses, for groups with at least two parts present.

    ``{"model.layers.3.self_attn.qkv_proj": ["...q_proj", "...k_proj", "...v_proj"]}``.
    """
    out: dict[str, list[str]] = {}
    for m in sorted(modules):
        parent, _, leaf = m.rpartition(".")
        for fused, parts in FUSED_GROUPS.items():
            if leaf in parts:
                out.setdefault(f"{parent}.{fused}" if parent else fused, []).append(m)
    return {k: v for k, v in out.items() if len(v) >= 2}


def _view(ck: Checkpoint) -> QuantView | None:
    return effective_view(quant_views(ck.config, ck.hf_quant_config))


def check_fused(ck: Checkpoint) -> list[Finding]:
    """One ``FUSED_GROUP_PARTIALLY_EXCLUDED`` ERROR listing every fused module whose parts the exclusion list splits."""
    view = _view(ck)
    if view is None:
        return []
    partial: dict[str, dict[str, list[str]]] = {}
    for fused, parts in fused_groups(set(linear_modules(ck))).items():
        excluded = [p for p in parts if is_excluded(view, p)]
        if excluded and len(excluded) < len(parts):
            partial[fused] = {"excluded": excluded, "not_excluded": [p for p in parts if p not in excluded]}
    if not partial:
        return []
    first, split = next(iter(partial.items()))
    return [
        finding(
            "FUSED_GROUP_PARTIALLY_EXCLUDED",
            file=view.file,
            tensor=split["excluded"][0] + ".weight",
            n=len(partial),
            groups=", ".join(partial),
            first=first,
            excluded=", ".join(split["excluded"]),
            kept=", ".join(split["not_excluded"]),
            details={"groups": partial},
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

"""Rule 5: a static FP8 KV cache declared in either config needs k/v scales for every attention layer.

Sources: NVIDIA-NeMo/RL PR #3615 (FP8 KV declared, no scales written; SGLang silently uses 1.0), vLLM PR #46265 (a lone
``v_scale`` crashed an assertion on ``k_scale``), ROCm/vllm PR #317 (perplexity cost of scale 1.0); case C10. Scale
names: ``...self_attn.k_scale`` (compressed-tensors / vLLM) and ``...self_attn.k_proj.k_scale`` (ModelOpt).
"""

from __future__ import annotations

import math

from specscope.audit.findings import Finding, Severity
from specscope.audit.layout import is_vision, layer_of
from specscope.audit.quantcfg import quant_views
from specscope.checkpoint import Checkpoint

__all__ = ["attention_layers", "kv_scale_table", "check_kv"]


def attention_layers(ck: Checkpoint, exclude_prefixes: tuple[str, ...] = ("mtp.",)) -> list[tuple[str, int]]:
    """``(prefix, index)`` of every main-model layer with a ``self_attn`` block (linear-attention layers have no KV)."""
    seen: set[tuple[str, int]] = set()
    for name in ck.locations:
        if name.startswith(exclude_prefixes) or is_vision(name):
            continue
        lo = layer_of(name)
        if lo and lo[2].startswith("self_attn."):
            seen.add((lo[0], lo[1]))
    return sorted(seen, key=lambda k: (k[0], k[1]))


def _find_scale(ck: Checkpoint, prefix: str, idx: int, kind: str) -> str | None:
    base = f"{prefix}layers.{idx}.self_attn."
    for cand in (f"{base}{kind}_scale", f"{base}{kind}_proj.{kind}_scale", f"{base}attn.{kind}_scale"):
        if cand in ck.locations:
            return cand
    return None


def kv_scale_table(ck: Checkpoint, layers: list[tuple[str, int]], *, read_values: bool = True) -> list[dict]:
    """One row per attention layer: ``{"layer", "k_scale", "v_scale", "k", "v"}`` (tensor names; values or None)."""
    rows = []
    for prefix, idx in layers:
        k, v = _find_scale(ck, prefix, idx, "k"), _find_scale(ck, prefix, idx, "v")
        rows.append(
            {
                "layer": idx,
                "k_scale": k,
                "v_scale": v,
                "k": ck.read_scalar(k) if (k and read_values) else None,
                "v": ck.read_scalar(v) if (v and read_values) else None,
            }
        )
    return rows


def check_kv(ck: Checkpoint, exclude_prefixes: tuple[str, ...] = ("mtp.",)) -> tuple[list[Finding], list[dict]]:
    """Codes: ``FP8_KV_SCALES_ABSENT`` (ERROR, no layer has a scale), ``FP8_KV_SCALE_MISSING`` (WARNING),
    ``FP8_KV_V_ONLY`` (WARNING), ``FP8_KV_SCALE_INVALID`` (ERROR, non-finite or <= 0)."""
    views = quant_views(ck.config, ck.hf_quant_config)
    declaring = [v.file for v in views.values() if v.kv_fp8_static]
    if not declaring:
        return [], []
    layers = attention_layers(ck, exclude_prefixes)
    if not layers:
        return [], []
    table = kv_scale_table(ck, layers)
    out: list[Finding] = []
    complete = sum(1 for r in table if r["k_scale"] and r["v_scale"])
    any_scale = sum(1 for r in table if r["k_scale"] or r["v_scale"])
    where = " and ".join(declaring)
    if any_scale == 0:
        out.append(
            Finding(
                Severity.ERROR,
                "FP8_KV_SCALES_ABSENT",
                f"static FP8 KV cache declared in {where}, but 0 of {len(layers)} attention layers have any k/v scale",
                file=declaring[0],
                found=f"0 of {len(layers)} layers with k_scale/v_scale",
                expected=f"k_scale and v_scale for all {len(layers)} attention layers",
                consequence="every layer runs with scale 1.0: clipped or wasted FP8 range and a measurable "
                "accuracy loss, with no error",
                fix="calibrate and add k/v scales, or declare the KV cache dynamic / unquantized",
                details={"layers_complete": 0, "attention_layers": len(layers)},
            )
        )
        return out, table
    missing = {r["layer"]: [k for k in ("k", "v") if not r[f"{k}_scale"]] for r in table}
    missing = {k: v for k, v in missing.items() if v}
    if missing:
        text = "; ".join(f"L{i}: {' and '.join(v)}" for i, v in missing.items())
        out.append(
            Finding(
                Severity.WARNING,
                "FP8_KV_SCALE_MISSING",
                f"k/v scales missing ({text}); {complete} of {len(layers)} layers complete",
                file=declaring[0],
                found=text,
                expected="k_scale and v_scale in every attention layer",
                consequence="engines fall back to 1.0 for missing scales (accuracy loss on those layers)",
                fix="calibrate the missing scales",
                details={
                    "missing": {str(k): v for k, v in missing.items()},
                    "layers_complete": complete,
                    "attention_layers": len(layers),
                },
            )
        )
    v_only = [r["layer"] for r in table if r["v_scale"] and not r["k_scale"]]
    if v_only:
        out.append(
            Finding(
                Severity.WARNING,
                "FP8_KV_V_ONLY",
                f"layers with v_scale but no k_scale: {v_only}",
                file=declaring[0],
                tensor=next(r["v_scale"] for r in table if r["layer"] == v_only[0]),
                found="v_scale without k_scale",
                expected="both or neither",
                consequence="some engine versions reject a lone v_scale at load (assertion on k_scale); others "
                "copy it to k",
                fix="add k_scale for these layers",
                details={"layers": v_only},
            )
        )
    bad = [
        f"L{r['layer']} {k}={r[k]}"
        for r in table
        for k in ("k", "v")
        if r[k] is not None and not (math.isfinite(r[k]) and r[k] > 0)
    ]
    if bad:
        out.append(
            Finding(
                Severity.ERROR,
                "FP8_KV_SCALE_INVALID",
                f"k/v scales not finite and > 0: {', '.join(bad)}",
                file=declaring[0],
                found=", ".join(bad),
                expected="finite scales > 0",
                consequence="NaN/inf or zero attention inputs",
                fix="recalibrate the scales",
            )
        )
    return out, table

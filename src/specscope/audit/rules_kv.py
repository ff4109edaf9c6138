"""Rule 5: a static FP8 KV cache declared in either config needs k/v scales for every attention layer.

Sources: NVIDIA-NeMo/RL PR #3615 (FP8 KV declared, no scales written; SGLang silently uses 1.0), vLLM PR #46265 (a lone
``v_scale`` crashed an assertion on ``k_scale``), ROCm/vllm PR #317 (perplexity cost of scale 1.0); case C10. Scale
names: ``...self_attn.k_scale`` (compressed-tensors / vLLM) and ``...self_attn.k_proj.k_scale`` (ModelOpt).
"""

from __future__ import annotations

import math
from typing import Any

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
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


def kv_scale_table(ck: Checkpoint, layers: list[tuple[str, int]], *, read_values: bool = True) -> list[dict[str, Any]]:
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


def check_kv(
    ck: Checkpoint, exclude_prefixes: tuple[str, ...] = ("mtp.",)
) -> tuple[list[Finding], list[dict[str, Any]]]:
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
        details = {"layers_complete": 0, "attention_layers": len(layers)}
        out.append(finding("FP8_KV_SCALES_ABSENT", file=declaring[0], where=where, layers=len(layers), details=details))
        return out, table
    missing = {r["layer"]: [k for k in ("k", "v") if not r[f"{k}_scale"]] for r in table}
    missing = {k: v for k, v in missing.items() if v}
    if missing:
        text = "; ".join(f"L{i}: {' and '.join(v)}" for i, v in missing.items())
        out.append(
            finding(
                "FP8_KV_SCALE_MISSING",
                file=declaring[0],
                missing=text,
                complete=complete,
                layers=len(layers),
                details={
                    "missing": {str(k): v for k, v in missing.items()},
                    "layers_complete": complete,
                    "attention_layers": len(layers),
                },
            )
        )
    v_only = [r["layer"] for r in table if r["v_scale"] and not r["k_scale"]]
    if v_only:
        first = next(r["v_scale"] for r in table if r["layer"] == v_only[0])
        out.append(finding("FP8_KV_V_ONLY", file=declaring[0], tensor=first, layers=v_only, details={"layers": v_only}))
    bad = [
        f"L{r['layer']} {k}={r[k]}"
        for r in table
        for k in ("k", "v")
        if r[k] is not None and not (math.isfinite(r[k]) and r[k] > 0)
    ]
    if bad:
        out.append(finding("FP8_KV_SCALE_INVALID", file=declaring[0], bad=", ".join(bad)))
    return out, table

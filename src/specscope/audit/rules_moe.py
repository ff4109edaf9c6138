"""MoE NVFP4 rule: gate (w1) and up (w3) halves of an expert with different per-tensor global scales.

Engines fuse gate and up into one GEMM with a single global scale. vLLM detects a mismatch, warns, and uses
the gate's scale for both halves (vllm-project/vllm issue #54974; same in TensorRT-LLM PR #14199), which
silently rescales the up half by gate/up. The accepted remedy is to adopt the larger effective scale for
both halves and rescale the other half's FP8 block scales (shared case C08 B1/B2; ``specscope.surgery.nvfp4
.share_global_scale`` does it). Conventions: ModelOpt ``weight_scale_2`` is direct (effective = value);
compressed-tensors ``weight_global_scale`` is reciprocal (effective = 1 / value), so its shared value is the
*minimum* of the stored numbers.
"""

from __future__ import annotations

import math
import re
from typing import Any

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.checkpoint import Checkpoint

__all__ = ["check_gate_up_scales"]

# (gate name, up name) spellings of the two halves
_HALVES = (("gate_proj", "up_proj"), ("w1", "w3"))
_SUFFIXES = {"weight_scale_2": "direct", "weight_global_scale": "reciprocal"}
_PATTERN = re.compile(r"^(?P<stem>.*)\.(?P<half>gate_proj|w1)\.(?P<suffix>weight_scale_2|weight_global_scale)$")


def check_gate_up_scales(ck: Checkpoint) -> list[Finding]:
    """One WARNING ``NVFP4_GATE_UP_SCALE_MISMATCH`` when any expert's gate and up global scales differ.

    ``details``: ``pairs`` (count), ``mismatched`` (count), ``mismatched_fraction``, ``ratio_max``, and per
    mismatched pair ``ratio`` (max / min effective scale), ``up_multiplier`` (gate / up effective scale: what
    "use the gate's scale for both" does to the up half) and ``shared_stored`` (the value both halves should
    store: max for direct scales, min for reciprocal ones). Reads only the scalar scale tensors.
    """
    rows: list[dict[str, Any]] = []
    for name in sorted(ck.tensors()):
        m = _PATTERN.match(name)
        if not m:
            continue
        up_half = dict(_HALVES)[m["half"]]
        up_name = f"{m['stem']}.{up_half}.{m['suffix']}"
        if ck.tensor(up_name) is None:
            continue
        g, u = ck.read_scalar(name), ck.read_scalar(up_name)
        if g is None or u is None or not all(math.isfinite(x) and x > 0 for x in (g, u)):
            continue
        reciprocal = _SUFFIXES[m["suffix"]] == "reciprocal"
        g_eff, u_eff = (1 / g, 1 / u) if reciprocal else (g, u)
        rows.append(
            {
                "expert": m["stem"],
                "gate_stored": g,
                "up_stored": u,
                "ratio": max(g_eff, u_eff) / min(g_eff, u_eff),
                "up_multiplier": g_eff / u_eff,
                "shared_stored": min(g, u) if reciprocal else max(g, u),
                "convention": _SUFFIXES[m["suffix"]],
            }
        )
    bad = [r for r in rows if r["gate_stored"] != r["up_stored"]]
    if not bad:
        return []
    worst = max(bad, key=lambda r: r["ratio"])
    multipliers = ", ".join(
        f"{r['up_multiplier']:.4g} ({(r['up_multiplier'] - 1) * 100:+.1f}%) at {r['expert']}" for r in bad[:4]
    ) + (" ..." if len(bad) > 4 else "")
    return [
        finding(
            "NVFP4_GATE_UP_SCALE_MISMATCH",
            tensor=f"{worst['expert']}.gate_proj",
            mismatched=len(bad),
            pairs=len(rows),
            fraction=len(bad) / len(rows),
            ratio=worst["ratio"],
            expert=worst["expert"],
            gate=worst["gate_stored"],
            up=worst["up_stored"],
            multipliers=multipliers,
            details={
                "pairs": len(rows),
                "mismatched": len(bad),
                "mismatched_fraction": len(bad) / len(rows),
                "ratio_max": worst["ratio"],
                "per_pair": bad,
            },
        )
    ]


#: the fused spelling of a MoE layer's experts (transformers' 3-D ``gate_up_proj`` [E, 2I, H], ``down_proj`` [E, H, I])
FUSED_EXPERTS = ("gate_up_proj", "down_proj")


def fused_experts_cover(
    ck: Checkpoint, experts: tuple[str, ...], names: set[str], missing: list[str]
) -> tuple[list[str], list[str]]:
    """``(covered, fused)``: the ``missing`` per-expert names (``experts``: the block_moe row's per-expert templates,
    ``mlp.experts.{e}.gate_proj.weight``) of layers that store their experts fused instead
    (``{layer}mlp.experts.gate_up_proj`` / ``down_proj``), and those fused names (sorted, each ``name [shape]``).

    vLLM reads per-expert names only (qwen3_moe.py @2e0831b0, mixtral.py @f0e26957: ``make_expert_params_mapping``
    over ``experts.{e}.<proj>``); a fused name matches no mapping and reaches ``params_dict[name]`` (KeyError)."""
    prefixes = sorted({t.split("{e}", 1)[0] for t in experts if "{e}" in t})
    covered: list[str] = []
    fused: set[str] = set()
    for name in missing:
        for prefix in prefixes:
            m = re.match(rf"^(.*?){re.escape(prefix)}\d+\.", name)
            stored = [f"{m.group(1)}{prefix}{w}" for w in FUSED_EXPERTS] if m else []
            stored = [s for s in stored if s in names]
            if stored:
                covered.append(name)
                fused.update(stored)
                break
    tensors = ck.tensors()
    shown = [f"{n} {list(tensors[n].shape)}" if n in tensors else n for n in sorted(fused)]
    return covered, shown

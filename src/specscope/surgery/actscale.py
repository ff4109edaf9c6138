"""Activation scales of a W4A4 NVFP4 draft: where each draft linear's input range comes from, stated per module.

A W4A4 NVFP4 linear quantizes its input at run time in blocks of 16 with E4M3 block scales, and those block scales
are taken relative to one per-tensor activation scale stored in the checkpoint: ModelOpt ``<m>.input_scale`` (F32
scalar, ``input_amax / 2688``, multiply) and compressed-tensors ``<m>.input_global_scale`` (F32 ``[1]``,
``2688 / input_amax``, divide; vLLM ``compressed_tensors_w4a4_nvfp4.py`` and ModelOpt ``nvfp4_tensor.py``
``get_activation_scaling_factor``; case C08 A1). A module declared W4A4 without one loads an uninitialised scale.

Sources, in order (each module's record says which it got; the plan notes and the surgery manifest carry it):

1. ``--input-amax FILE``: measured input abs-maxes, ``{"module": amax}`` or ``{"module": {"input_amax": amax}}``
   (the layout of case C08's ``amax.json``; keys starting with ``_`` are comments). Stated ``calibration file``.
2. The target's own scales, for a draft linear whose role (its name after ``layers.<n>.``, e.g.
   ``self_attn.q_proj``) the target's decoder layers also have: an MTP layer is a target decoder layer run one
   position ahead on the same residual stream (vLLM ``qwen3_next_mtp.py``, ``deepseek_mtp.py``), so its attention and
   MLP inputs are RMSNorm outputs of the kind the target's layers see. The largest of the target's scales for that
   role is taken, because the error is one-sided: a per-tensor scale above the true range only moves the E4M3 block
   scales down (precision is lost only for blocks below ~3.5e-5 x k of the range, k the over-estimate), one below
   it clips every block whose range exceeds it. Stated ``target: largest of N <role> input scales``.
3. Neither: the module stays W4A16 (NVFP4 weights, BF16 activations; declared so in the config) and the plan says
   why. No scale is invented. (A calibration run would need the target's hidden states, which only a forward pass
   of the target gives.)

Fused siblings (q/k/v, gate/up) read the same input and get one shared value: the largest of the members'.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from specscope.checkpoint.safefiles import read_json_file
from specscope.errors import SurgeryError
from specscope.surgery import nvfp4
from specscope.surgery.shards import Checkpoint

__all__ = ["ActScale", "ACT_SCALE_NAME", "input_scale_value", "target_is_w4a4", "read_input_amax", "activation_scales"]

#: the activation-scale tensor's name suffix and shape per layout.
ACT_SCALE_NAME = {"modelopt": ("input_scale", ()), "compressed-tensors": ("input_global_scale", (1,))}
_LAYER = re.compile(r"(?:^|\.)layers\.\d+\.")
_MAX_AMAX_FILE_BYTES = 16 << 20


@dataclass(frozen=True)
class ActScale:
    """One draft module's activation scale: the input abs-max it stands for, the value written (the layout's
    convention), and where it came from (a sentence)."""

    module: str
    input_amax: float
    value: float
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"input_amax": self.input_amax, "value": self.value, "source": self.source}


def input_scale_value(amax: float, layout: str) -> np.float32:
    """The stored activation scale for ``amax``: ModelOpt ``amax / 2688``, compressed-tensors ``2688 / amax``."""
    if layout == "modelopt":
        return nvfp4.scale2_from_amax(amax)
    return nvfp4.ct_global_scale(amax)


def _stored_to_amax(value: float, layout: str) -> float:
    return float(np.float32(value) * np.float32(2688.0)) if layout == "modelopt" else float(2688.0 / value)


#: the per-tensor weight scale that marks an NVFP4 module (an FP8 module's ``input_scale`` is amax / 448, not 2688).
_NVFP4_MARK = {"modelopt": "weight_scale_2", "compressed-tensors": "weight_global_scale"}


def _nvfp4_act_modules(ckpt: Checkpoint, layout: str, prefix: str) -> list[str]:
    """Non-draft NVFP4 modules (per-tensor weight scale and E4M3 block scales) that carry an activation scale."""
    suffix = "." + ACT_SCALE_NAME[layout][0]
    out = []
    for name in ckpt.names():
        m = name[: -len(suffix)]
        if name.endswith(suffix) and not name.startswith(prefix) and f"{m}.{_NVFP4_MARK[layout]}" in ckpt.location:
            if f"{m}.weight_scale" in ckpt.location and ckpt.info(f"{m}.weight_scale").dtype == "F8_E4M3":
                out.append(m)
    return out


def _target_scales(ckpt: Checkpoint, layout: str, prefix: str) -> dict[str, float]:
    """NVFP4 module -> stored activation scale, for every non-draft one that has one (finite and positive)."""
    suffix = "." + ACT_SCALE_NAME[layout][0]
    out: dict[str, float] = {}
    for m in _nvfp4_act_modules(ckpt, layout, prefix):
        arr = ckpt.read_array(m + suffix)
        if arr.size == 1 and math.isfinite(v := float(arr.reshape(-1)[0])) and v > 0:
            out[m] = v
    return out


def target_is_w4a4(ckpt: Checkpoint, layout: str, prefix: str) -> bool:
    """True when the target's own NVFP4 linears carry activation scales (W4A4), by the tensors on disk."""
    return bool(_nvfp4_act_modules(ckpt, layout, prefix))


def read_input_amax(path: str | Path, modules: list[str]) -> dict[str, float]:
    """``--input-amax FILE`` -> module -> input abs-max (see the module docstring for the layout).

    Raises:
        SurgeryError: unreadable file, a value that is not a positive finite number, or a module name that is not
            one of the draft linears being quantized (a typo would otherwise leave that module W4A16 silently).
    """
    fix = 'write {"mtp.fc": 13.44, ...} or {"mtp.fc": {"input_amax": 13.44}, ...}'
    obj = read_json_file(path, max_bytes=_MAX_AMAX_FILE_BYTES, fix=fix)
    if not isinstance(obj, dict):
        raise SurgeryError("--input-amax is not a JSON object", found=str(path), expected="module -> amax", fix=fix)
    out: dict[str, float] = {}
    for key, val in obj.items():
        if key.startswith("_"):
            continue
        amax = val.get("input_amax") if isinstance(val, dict) else val
        if isinstance(amax, bool) or not isinstance(amax, (int, float)) or not math.isfinite(amax) or amax <= 0:
            raise SurgeryError(
                f"--input-amax: {key}: not a positive finite input abs-max",
                found=repr(val)[:80],
                expected="a number > 0",
                fix=fix,
            )
        if key not in modules:
            raise SurgeryError(
                f"--input-amax names a module that is not quantized here: {key}",
                found=key,
                expected=f"one of {modules}",
                fix="check the module names (no .weight suffix) and --prefix",
            )
        out[key] = float(amax)
    return out


def role(module: str) -> str:
    """The module's name inside its decoder layer (``mtp.layers.0.self_attn.q_proj`` -> ``self_attn.q_proj``);
    a module outside any layer keeps its full name (so it matches nothing of the target's)."""
    m = list(_LAYER.finditer(module))
    return module[m[-1].end() :] if m else module


def activation_scales(
    ckpt: Checkpoint,
    groups: list[list[str]],
    layout: str,
    prefix: str,
    measured: Mapping[str, float] | None = None,
) -> dict[str, ActScale]:
    """The activation scale of every draft module that gets one (see the module docstring); absent: W4A16.

    Args:
        groups: the draft modules, fused siblings together (:func:`specscope.surgery.quantize.fusion_groups`).
        layout: ``modelopt`` | ``compressed-tensors``.
        measured: ``--input-amax`` values (module -> input abs-max).
    """
    measured = measured or {}
    target = _target_scales(ckpt, layout, prefix)
    by_role: dict[str, list[tuple[str, float]]] = {}
    for m, v in target.items():
        by_role.setdefault(role(m), []).append((m, v))
    out: dict[str, ActScale] = {}
    for group in groups:
        found: list[tuple[float, float, str]] = []  # (amax, stored value, source)
        for m in group:
            if m in measured:
                amax = measured[m]
                found.append((amax, float(input_scale_value(amax, layout)), f"calibration file: {m} {amax:g}"))
            elif role(m) in by_role:
                cands = by_role[role(m)]
                best_m, best_v = max(cands, key=lambda mv: _stored_to_amax(mv[1], layout))
                found.append(
                    (
                        _stored_to_amax(best_v, layout),
                        best_v,
                        f"target: largest of {len(cands)} {role(m)} input scales ({best_m})",
                    )
                )
        if not found:
            continue
        amax, value, source = max(found, key=lambda f: f[0])
        if len(group) > 1:
            source += f"; shared by fused {', '.join(x.rsplit('.', 1)[-1] for x in group)}"
        out.update({m: ActScale(m, amax, value, source) for m in group})
    return out

"""Rule 4b: the activation scales of W4A4 NVFP4 linears are there, valid, and one per fused GEMM.

A W4A4 NVFP4 linear quantizes its input at run time against a per-tensor activation scale stored beside the weight:
ModelOpt ``<m>.input_scale`` (F32 scalar, ``input_amax / 2688``; ModelOpt ``nvfp4_tensor.py``
``get_activation_scaling_factor``) and compressed-tensors ``<m>.input_global_scale`` (F32 ``[1]``, ``2688 /
input_amax``; vLLM ``compressed_tensors_w4a4_nvfp4.py``). Engines create that parameter for every W4A4 module and
load it from the checkpoint; one that is absent stays at its initial value, with no error, and every activation of
that module is quantized against a wrong range (for a draft head: acceptance near 0). Fused siblings (q/k/v,
gate/up) run as one GEMM with one input scale: vLLM takes the max of ModelOpt's ``input_scale`` shards, so halves
with different values are quantized against a range that was not theirs.

Which modules are W4A4 comes from the config vLLM reads (:func:`specscope.audit.quantcfg.effective_view`):
ModelOpt ``quant_algo: NVFP4`` (uniform) or a ``MIXED_PRECISION`` ``quantized_layers`` entry with ``NVFP4``;
compressed-tensors a ``config_groups`` group with 4-bit float ``input_activations``, chosen per module the way
compressed-tensors' ``match_targets`` orders them (exact name, then ``re:`` pattern, then the class ``Linear``).
Only modules stored as NVFP4 (E4M3 block scales and a per-tensor weight scale) are judged.
"""

from __future__ import annotations

import math
import re
from typing import Any

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.quantcfg import QuantView, is_excluded
from specscope.checkpoint import Checkpoint

__all__ = ["check_input_scales", "w4a4_modules"]

_FUSED = (("q_proj", "k_proj", "v_proj", "qkv_proj"), ("gate_proj", "up_proj", "gate_up_proj"))
#: layout -> (per-tensor weight scale that marks NVFP4, activation scale name, its stored shape)
_NAMES = {
    "modelopt": ("weight_scale_2", "input_scale", ((), (1,))),
    "compressed-tensors": ("weight_global_scale", "input_global_scale", ((1,), ())),
}


def _nvfp4_modules(ck: Checkpoint, mark: str) -> list[str]:
    out = []
    for name in ck.locations:
        if name.endswith("." + mark):
            m = name[: -len(mark) - 1]
            info = ck.tensor(f"{m}.weight_scale")
            if info is not None and info.dtype == "F8_E4M3":
                out.append(m)
    return sorted(out)


def _fused_names(module: str) -> list[str]:
    parent, _, leaf = module.rpartition(".")
    names = [module]
    for fam in _FUSED:
        if leaf in fam[:-1]:
            names.append(f"{parent}.{fam[-1]}" if parent else fam[-1])
    return names


def _re_match(pattern: str, name: str) -> bool:
    try:
        return re.match(pattern, name) is not None
    except re.error:  # compressed-tensors could not compile it either: it targets nothing
        return False


def _ct_group(groups: dict[str, Any], module: str) -> dict[str, Any] | None:
    """The config group compressed-tensors applies to ``module``: exact name, then ``re:``, then ``Linear``."""
    exact, regex, klass = [], [], []
    for grp in groups.values():
        if not isinstance(grp, dict):
            continue
        for t in grp.get("targets") or []:
            if not isinstance(t, str):
                continue
            if t == module:
                exact.append(grp)
            elif t.startswith("re:") and _re_match(t[3:], module):
                regex.append(grp)
            elif t == "Linear":
                klass.append(grp)
    for found in (exact, regex, klass):
        if found:
            return found[0]
    return None


def _declares_w4a4(ck: Checkpoint, view: QuantView, module: str) -> bool:
    if is_excluded(view, module):
        return False
    if view.method == "modelopt":
        if (view.algo or "").upper() == "MIXED_PRECISION":
            specs = [view.quantized_layers.get(n) for n in _fused_names(module)]
            return any(isinstance(s, dict) and str(s.get("quant_algo", "")).upper() == "NVFP4" for s in specs)
        return (view.algo or "").upper() == "NVFP4"
    qc = (ck.config or {}).get("quantization_config")
    groups = qc.get("config_groups") if isinstance(qc, dict) else None
    grp = _ct_group(groups, module) if isinstance(groups, dict) else None
    acts = grp.get("input_activations") if grp else None
    return isinstance(acts, dict) and acts.get("num_bits") == 4 and str(acts.get("type", "")).lower() == "float"


def w4a4_modules(ck: Checkpoint, view: QuantView | None) -> tuple[list[str], str | None]:
    """NVFP4 modules the config declares W4A4, and the activation-scale tensor name suffix they need."""
    if view is None or view.method not in _NAMES:
        return [], None
    mark, act, _ = _NAMES[view.method]
    return [m for m in _nvfp4_modules(ck, mark) if _declares_w4a4(ck, view, m)], act


def _fused_groups(modules: list[str]) -> list[list[str]]:
    by_key: dict[tuple[str, int], list[str]] = {}
    for m in modules:
        parent, _, leaf = m.rpartition(".")
        for i, fam in enumerate(_FUSED):
            if leaf in fam[:-1]:
                by_key.setdefault((parent, i), []).append(m)
    return [g for g in by_key.values() if len(g) > 1]


def check_input_scales(ck: Checkpoint, view: QuantView | None) -> list[Finding]:
    """Codes: ``NVFP4_INPUT_SCALE_MISSING`` (ERROR), ``NVFP4_INPUT_SCALE_INVALID`` (ERROR),
    ``NVFP4_INPUT_SCALE_FUSED_MISMATCH`` (WARNING). See the module docstring."""
    modules, act = w4a4_modules(ck, view)
    if not modules or act is None or view is None:
        return []
    shapes = _NAMES[view.method][2]
    out: list[Finding] = []
    missing = [m for m in modules if f"{m}.{act}" not in ck.locations]
    if missing:
        out.append(
            finding(
                "NVFP4_INPUT_SCALE_MISSING",
                file=view.file,
                tensor=f"{missing[0]}.{act}",
                n=len(missing),
                total=len(modules),
                act=act,
                modules=", ".join(missing[:8]) + (f" (+{len(missing) - 8} more)" if len(missing) > 8 else ""),
                details={"modules": missing, "tensor_suffix": act},
            )
        )
    values: dict[str, float] = {}
    bad: list[str] = []
    for m in modules:
        info = ck.tensor(f"{m}.{act}")
        if info is None:
            continue
        v = ck.read_scalar(f"{m}.{act}")
        if info.dtype != "F32" or tuple(info.shape) not in shapes or v is None or not (math.isfinite(v) and v > 0):
            bad.append(f"{m}.{act} = {info.dtype} {list(info.shape)} {v if v is not None else 'unreadable'}")
        else:
            values[m] = v
    if bad:
        out.append(
            finding(
                "NVFP4_INPUT_SCALE_INVALID",
                file=view.file,
                tensor=bad[0].split(" = ")[0],
                scales="; ".join(bad[:5]),
                details={"scales": bad},
            )
        )
    mismatched = []
    for g in _fused_groups([m for m in modules if m in values]):
        vs = [values[m] for m in g]
        if max(vs) != min(vs):
            mismatched.append(f"{', '.join(g)}: {', '.join(f'{v:.6g}' for v in vs)} (ratio {max(vs) / min(vs):.3g})")
    if mismatched:
        out.append(
            finding(
                "NVFP4_INPUT_SCALE_FUSED_MISMATCH",
                file=view.file,
                groups=len(mismatched),
                first=mismatched[0],
                act=act,
                details={"groups": mismatched},
            )
        )
    return out

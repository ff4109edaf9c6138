"""Plan: re-quantize a draft head's Linear weights to NVFP4 W4A16 inside a quantized checkpoint (seed 004).

Quantized: every unquantized 2-D ``<m>.weight`` under the prefix whose in_features is a multiple of 16
(for the Qwen3.6 MTP head: ``mtp.fc`` and the attention and MLP projections of ``mtp.layers.0``). Norms and
anything else stay as they are. Layers an engine fuses into one GEMM (``q/k/v_proj`` -> ``qkv_proj``,
``gate/up_proj`` -> ``gate_up_proj``) share one per-tensor scale computed from the group's amax, as ModelOpt
exports them, so no engine has to pick one half's scale for both (case C08 B; vLLM issue #54974).

Layouts (case C08, ``shared/fixtures``):

* ``modelopt``: ``<m>.weight`` U8 ``[out, in/2]``, ``<m>.weight_scale`` F8_E4M3 ``[out, in/16]``,
  ``<m>.weight_scale_2`` F32 scalar = amax / 2688 (direct convention).
* ``compressed-tensors``: ``<m>.weight_packed``, ``<m>.weight_scale``, ``<m>.weight_global_scale`` F32 ``[1]``
  = 2688 / amax (reciprocal convention). Block scales and FP4 payloads are the same bytes as ModelOpt's.

W4A16 has no activation scale, so no ``input_scale`` is written. Both configs are patched: the quantized
modules leave every exclude list and are declared ``W4A16_NVFP4`` (see :func:`configs.declare_nvfp4`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from specscope.errors import SurgeryError
from specscope.surgery import nvfp4
from specscope.surgery.configs import declare_nvfp4, dialect, remove_exclusions
from specscope.surgery.graft import _read_configs, copy_job, linear_modules, plan_derived
from specscope.surgery.plan import SurgeryPlan, TensorJob
from specscope.surgery.shards import Checkpoint, open_checkpoint

__all__ = ["SCHEMES", "LAYOUTS", "FUSED_GROUPS", "draft_linears", "fusion_groups", "plan_quantize_draft"]

SCHEMES = ("nvfp4-w4a16",)
LAYOUTS = ("modelopt", "compressed-tensors")
#: sibling module names engines fuse into one GEMM with one per-tensor scale.
FUSED_GROUPS = (("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj"))


def draft_linears(ckpt: Checkpoint, prefix: str) -> list[str]:
    """Unquantized linears under ``prefix`` that NVFP4 can hold (in_features % 16 == 0)."""
    return [
        m
        for m in linear_modules(ckpt, prefix, quantized=False)
        if ckpt.info(f"{m}.weight").shape[1] % nvfp4.BLOCK_SIZE == 0
    ]


def fusion_groups(modules: list[str]) -> list[list[str]]:
    """Partition ``modules`` into groups that must share a per-tensor scale (singletons for the rest)."""
    present = set(modules)
    groups: list[list[str]] = []
    seen: set[str] = set()
    for m in sorted(modules):
        if m in seen:
            continue
        parent, _, leaf = m.rpartition(".")
        group = [m]
        for fused in FUSED_GROUPS:
            if leaf in fused:
                group = [f"{parent}.{x}" for x in fused if f"{parent}.{x}" in present]
        seen.update(group)
        groups.append(group)
    return groups


class _Quantizer:
    """Quantizes one module when its first tensor is asked for and hands out the sibling tensors after."""

    def __init__(self, ckpt: Checkpoint, amax: dict[str, np.float32]):
        self.ckpt = ckpt
        self.amax = amax
        self.pending: dict[str, nvfp4.NVFP4Weight] = {}

    def get(self, module: str) -> nvfp4.NVFP4Weight:
        if module not in self.pending:
            w = self.ckpt.read_array(f"{module}.weight")  # [out, in] bf16/f16/f32
            self.pending[module] = nvfp4.quantize_nvfp4(w, amax=self.amax[module], name=f"{module}.weight")
        return self.pending[module]

    def done(self, module: str) -> None:
        self.pending.pop(module, None)


def _jobs_for(q: _Quantizer, ckpt: Checkpoint, module: str, layout: str) -> list[TensorJob]:
    out_f, in_f = ckpt.info(f"{module}.weight").shape
    origin = f"nvfp4 of {module}.weight"
    packed_name = "weight" if layout == "modelopt" else "weight_packed"
    global_name = "weight_scale_2" if layout == "modelopt" else "weight_global_scale"

    def packed() -> np.ndarray:
        return q.get(module).packed  # [out, in/2] u8

    def block() -> np.ndarray:
        return q.get(module).block_scale  # [out, in/16] e4m3

    def glob() -> np.ndarray:
        r = q.get(module)
        q.done(module)
        if layout == "modelopt":
            return np.asarray(r.scale2, dtype=np.float32)  # [] f32
        return np.asarray([r.global_scale], dtype=np.float32)  # [1] f32

    return [
        TensorJob(f"{module}.{packed_name}", "U8", (out_f, in_f // 2), packed, origin),
        TensorJob(f"{module}.weight_scale", "F8_E4M3", (out_f, in_f // nvfp4.BLOCK_SIZE), block, origin),
        TensorJob(f"{module}.{global_name}", "F32", () if layout == "modelopt" else (1,), glob, origin),
    ]


def plan_quantize_draft(
    src: str | Path, out: str | Path, *, scheme: str = "nvfp4-w4a16", prefix: str = "mtp.", layout: str | None = None
) -> SurgeryPlan:
    """Plan the NVFP4 re-quantization of the draft head under ``prefix`` (see the module docstring).

    Planning reads every draft linear once to get its amax (NaN/inf are rejected here, before writing).

    Args:
        layout: ``modelopt`` | ``compressed-tensors``; None = the target's own dialect (C08: the output uses
            the target checkpoint's convention).

    Raises:
        SurgeryError: unknown scheme or layout, a layout that differs from the target's dialect, no
            quantizable linear under ``prefix``, non-finite weights, or a config that cannot declare NVFP4.
    """
    if scheme not in SCHEMES:
        raise SurgeryError(
            "unknown quantization scheme", found=scheme, expected=list(SCHEMES), fix="use --scheme nvfp4-w4a16"
        )
    ckpt = open_checkpoint(src)
    configs = _read_configs(ckpt)
    d = dialect(configs)
    if d not in LAYOUTS:
        raise SurgeryError(
            "quantize-draft needs a ModelOpt or compressed-tensors checkpoint",
            found=d,
            expected=list(LAYOUTS),
            fix="quantize the target first; the draft joins its format",
        )
    layout = layout or d
    if layout not in LAYOUTS:
        raise SurgeryError("unknown layout", found=layout, expected=list(LAYOUTS), fix="--layout modelopt")
    if layout != d:
        raise SurgeryError(
            "layout differs from the checkpoint's quantization format",
            found=layout,
            expected=d,
            fix=f"use --layout {d} (loaders read one convention per checkpoint; case C08)",
        )
    modules = draft_linears(ckpt, prefix)
    if not modules:
        raise SurgeryError(
            f"no unquantized linear under {prefix!r}",
            found=ckpt.names(prefix)[:5],
            expected="2-D float weights without weight_scale, in_features % 16 == 0",
            fix="check --prefix; an already quantized head needs nothing",
        )
    amax: dict[str, np.float32] = {}
    for group in fusion_groups(modules):
        group_amax = max(nvfp4.tensor_amax(ckpt.read_array(f"{m}.weight"), name=f"{m}.weight") for m in group)
        amax.update({m: np.float32(group_amax) for m in group})
    q = _Quantizer(ckpt, amax)
    replaced = {f"{m}.weight" for m in modules}
    new: list[TensorJob] = []
    for name in ckpt.names(prefix):
        if name in replaced:
            new += _jobs_for(q, ckpt, name[: -len(".weight")], layout)
        else:
            new.append(copy_job(ckpt, name))
    still_unquantized = [m for m in linear_modules(ckpt, "", quantized=False) if m not in set(modules)]
    existing_nvfp4 = {
        m: dict(nvfp4_spec)
        for m in linear_modules(ckpt, "", quantized=True)
        if f"{m}.weight_scale_2" in ckpt.location
        for nvfp4_spec in [{"quant_algo": "NVFP4", "group_size": 16}]
    }

    def patch(cfgs: dict[str, dict]) -> dict[str, dict]:
        cfgs = remove_exclusions(cfgs, modules, still_unquantized)
        return declare_nvfp4(cfgs, modules, existing_nvfp4)

    plan = plan_derived(
        ckpt,
        Path(out),
        "quantize-draft",
        {"scheme": scheme, "prefix": prefix, "layout": layout},
        set(ckpt.names(prefix)),
        f"model-{prefix.strip('.').replace('.', '-') or 'draft'}-nvfp4",
        new,
        patch,
    )
    before = sum(ckpt.info(f"{m}.weight").nbytes for m in modules)
    after = sum(o * i // 2 + o * i // 16 + 4 for m in modules for o, i in [ckpt.info(f"{m}.weight").shape])
    plan.notes.append(
        f"{len(modules)} linears to NVFP4 ({layout}): {before:,} -> {after:,} bytes; "
        f"groups sharing a scale: {[g for g in fusion_groups(modules) if len(g) > 1]}"
    )
    return plan

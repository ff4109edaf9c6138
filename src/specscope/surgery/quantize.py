"""Plan: re-quantize a draft head's Linear weights to NVFP4 inside a quantized checkpoint (seed 004).

Quantized: every unquantized 2-D ``<m>.weight`` under the prefix whose in_features is a multiple of 16
(for the Qwen3.6 MTP head: ``mtp.fc`` and the attention and MLP projections of ``mtp.layers.0``). Norms and
anything else stay as they are. Layers an engine fuses into one GEMM (``q/k/v_proj`` -> ``qkv_proj``,
``gate/up_proj`` -> ``gate_up_proj``) share one per-tensor scale computed from the group's amax, as ModelOpt
exports them, so no engine has to pick one half's scale for both (case C08 B; vLLM issue #54974).

Layouts (case C08, ``shared/fixtures``); each is written with its own exporter's arithmetic
(:mod:`specscope.surgery.nvfp4`, ``rules``), so a ``compressed-tensors`` draft is byte for byte what
compressed-tensors writes:

* ``modelopt``: ``<m>.weight`` U8 ``[out, in/2]``, ``<m>.weight_scale`` F8_E4M3 ``[out, in/16]``,
  ``<m>.weight_scale_2`` F32 scalar = amax / 2688 (direct convention); W4A4: ``<m>.input_scale`` F32 scalar.
* ``compressed-tensors``: ``<m>.weight_packed``, ``<m>.weight_scale``, ``<m>.weight_global_scale`` F32 ``[1]``
  (reciprocal convention); W4A4: ``<m>.input_global_scale`` F32 ``[1]``.

Schemes: ``nvfp4-w4a16`` (weights only), ``nvfp4-w4a4`` (with activation scales), ``nvfp4`` (W4A4 when the
target's own NVFP4 linears carry activation scales, else W4A16). Where each activation scale comes from, and which
modules stay W4A16 for want of one, is :mod:`specscope.surgery.actscale`; the plan notes and the surgery manifest
(``args.activation_scales``) say it per module. Both configs are patched: the quantized modules leave every
exclude list and are declared (:func:`configs.declare_nvfp4`).

Speed and memory: every tensor is streamed in row chunks from the source shard (``Checkpoint.read_rows``) through
:func:`specscope.surgery.nvfp4_stream.quantize_stream` (table lookup, several threads); planning reads each draft
linear once for its amax, writing once more. Memory is one module's outputs plus a few chunks.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from specscope.audit.layout import is_embedding
from specscope.audit.quantcfg import effective_view, quant_views
from specscope.audit.rules_mtp import mtp_layout
from specscope.audit.rules_quant import engine_builds_unquantized
from specscope.checkpoint import load_checkpoint
from specscope.errors import SurgeryError
from specscope.surgery import nvfp4
from specscope.surgery.actscale import ACT_SCALE_NAME, ActScale, activation_scales, read_input_amax, target_is_w4a4
from specscope.surgery.configs import declare_nvfp4, dialect, remove_exclusions
from specscope.surgery.graft import _read_configs, copy_job, linear_modules, plan_derived
from specscope.surgery.nvfp4_stream import quantize_stream, stream_amax
from specscope.surgery.plan import SurgeryPlan, TensorJob
from specscope.surgery.shards import NUMPY_DTYPES, Checkpoint, open_checkpoint

__all__ = ["SCHEMES", "LAYOUTS", "FUSED_GROUPS", "draft_linears", "fusion_groups", "plan_quantize_draft"]

SCHEMES = ("nvfp4-w4a16", "nvfp4-w4a4", "nvfp4")
LAYOUTS = ("modelopt", "compressed-tensors")
#: sibling module names engines fuse into one GEMM with one per-tensor scale.
FUSED_GROUPS = (("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj"))


def draft_linears(ckpt: Checkpoint, prefix: str) -> list[str]:
    """Unquantized linears under ``prefix`` that NVFP4 can hold (in_features % 16 == 0); an embedding table is no
    linear (:func:`embedding_tables`)."""
    return [
        m
        for m in linear_modules(ckpt, prefix, quantized=False)
        if ckpt.info(f"{m}.weight").shape[1] % nvfp4.BLOCK_SIZE == 0 and not is_embedding(f"{m}.weight")
    ]


def embedding_tables(ckpt: Checkpoint, prefix: str) -> list[str]:
    """The 2-D float embedding tables under ``prefix``, left unquantized: DeepSeek's MTP layer keeps its own copy of
    the embedding (``model.layers.N.embed_tokens.weight``), which vLLM builds as a VocabParallelEmbedding with no
    quantization and loads as the shared ``model.embed_tokens`` (deepseek_mtp.py @03356f8c): packed NVFP4 bytes
    would not fit it and its scales would have no parameter."""
    return [m for m in linear_modules(ckpt, prefix, quantized=False) if is_embedding(f"{m}.weight")]


def engine_unquantized(ckpt: Checkpoint, configs: dict[str, dict[str, Any]], modules: list[str]) -> dict[str, str]:
    """The modules of ``modules`` the engine builds unquantized whatever the config says, each with the reason (the
    audit's rule, :func:`specscope.audit.rules_quant.engine_builds_unquantized`: DeepSeek's ``eh_proj`` is a plain
    linear under every method but Quark, ``shared_head.head`` under fp8 / compressed-tensors): quantizing them would
    write a head the audit fails (``MTP_QUANTIZED_ENGINE_UNQUANTIZED``) and the engine cannot load."""
    view = effective_view(quant_views(configs.get("config.json"), configs.get("hf_quant_config.json")))
    if view is None:
        return {}
    layout = mtp_layout(load_checkpoint(ckpt.root))
    family = layout.family.key if layout is not None else None
    why = {m: engine_builds_unquantized(view, m, family) for m in modules}
    return {m: w for m, w in why.items() if w is not None}


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

    def __init__(self, ckpt: Checkpoint, amax: dict[str, np.float32], rules: str, workers: int | None):
        self.ckpt = ckpt
        self.amax = amax
        self.rules = rules
        self.workers = workers
        self.pending: dict[str, nvfp4.NVFP4Weight] = {}

    def get(self, module: str) -> nvfp4.NVFP4Weight:
        if module not in self.pending:
            name = f"{module}.weight"
            info = self.ckpt.info(name)
            self.pending[module] = quantize_stream(
                partial(self.ckpt.read_rows, name),
                (info.shape[0], info.shape[1]),
                NUMPY_DTYPES[info.dtype],
                amax=self.amax[module],
                rules=self.rules,
                name=name,
                workers=self.workers,
            )
        return self.pending[module]

    def done(self, module: str) -> None:
        self.pending.pop(module, None)


def _jobs_for(q: _Quantizer, ckpt: Checkpoint, module: str, layout: str, act: ActScale | None) -> list[TensorJob]:
    out_f, in_f = ckpt.info(f"{module}.weight").shape
    origin = f"nvfp4 of {module}.weight"
    packed_name = "weight" if layout == "modelopt" else "weight_packed"
    global_name = "weight_scale_2" if layout == "modelopt" else "weight_global_scale"
    shape: tuple[int, ...] = () if layout == "modelopt" else (1,)

    def packed() -> np.ndarray:
        return q.get(module).packed  # [out, in/2] u8

    def block() -> np.ndarray:
        return q.get(module).block_scale  # [out, in/16] e4m3

    def glob() -> np.ndarray:
        r = q.get(module)
        q.done(module)
        return np.full(shape, r.scale2 if layout == "modelopt" else r.global_scale, dtype=np.float32)

    jobs = [
        TensorJob(f"{module}.{packed_name}", "U8", (out_f, in_f // 2), packed, origin),
        TensorJob(f"{module}.weight_scale", "F8_E4M3", (out_f, in_f // nvfp4.BLOCK_SIZE), block, origin),
        TensorJob(f"{module}.{global_name}", "F32", shape, glob, origin),
    ]
    if act is not None:
        suffix, act_shape = ACT_SCALE_NAME[layout]
        value: Callable[[], np.ndarray] = partial(np.full, act_shape, act.value, dtype=np.float32)
        jobs.append(TensorJob(f"{module}.{suffix}", "F32", act_shape, value, f"activation scale ({act.source})"))
    return jobs


def _check_args(scheme: str, layout: str | None, d: str | None) -> str:
    """The layout to write (the target's dialect unless given); refuses unknown or mismatched values."""
    if scheme not in SCHEMES:
        raise SurgeryError(
            "unknown quantization scheme",
            found=scheme,
            expected=f"one of {', '.join(SCHEMES)}",
            fix="use --scheme nvfp4",
        )
    if d not in LAYOUTS:
        raise SurgeryError(
            "quantize-draft needs a ModelOpt or compressed-tensors checkpoint",
            found=d,
            expected=f"one of {', '.join(LAYOUTS)}",
            fix="quantize the target first; the draft joins its format",
        )
    layout = layout or d
    if layout not in LAYOUTS:
        raise SurgeryError(
            "unknown layout", found=layout, expected=f"one of {', '.join(LAYOUTS)}", fix="--layout modelopt"
        )
    if layout != d:
        raise SurgeryError(
            "layout differs from the checkpoint's quantization format",
            found=layout,
            expected=d,
            fix=f"use --layout {d} (loaders read one convention per checkpoint; case C08)",
        )
    return layout


def plan_quantize_draft(
    src: str | Path,
    out: str | Path,
    *,
    scheme: str = "nvfp4-w4a16",
    prefix: str = "mtp.",
    layout: str | None = None,
    input_amax: str | Path | None = None,
    workers: int | None = None,
) -> SurgeryPlan:
    """Plan the NVFP4 re-quantization of the draft head under ``prefix`` (see the module docstring).

    Planning reads every draft linear once to get its amax (NaN/inf are rejected here, before writing).

    Args:
        scheme: ``nvfp4-w4a16`` | ``nvfp4-w4a4`` | ``nvfp4`` (follow the target).
        layout: ``modelopt`` | ``compressed-tensors``; None = the target's own dialect (C08: the output uses
            the target checkpoint's convention).
        input_amax: a JSON file of measured input abs-maxes (``--input-amax``; W4A4 only).
        workers: threads per tensor (None: the CPUs this process may use).

    Raises:
        SurgeryError: unknown scheme or layout, a layout that differs from the target's dialect, no
            quantizable linear under ``prefix``, non-finite weights, a bad ``--input-amax`` file, or a config that
            cannot declare NVFP4.
    """
    ckpt = open_checkpoint(src)
    configs = _read_configs(ckpt)
    layout = _check_args(scheme, layout, dialect(configs))
    plain = engine_unquantized(ckpt, configs, draft_linears(ckpt, prefix))
    modules = [m for m in draft_linears(ckpt, prefix) if m not in plain]
    if not modules:
        raise SurgeryError(
            f"no unquantized linear under {prefix!r}",
            found=ckpt.names(prefix)[:5],
            expected="2-D float weights without weight_scale, in_features % 16 == 0",
            fix="check --prefix; an already quantized head needs nothing",
        )
    w4a4 = scheme == "nvfp4-w4a4" or (scheme == "nvfp4" and target_is_w4a4(ckpt, layout, prefix))
    groups = fusion_groups(modules)
    measured = read_input_amax(input_amax, modules) if input_amax is not None else {}
    acts = activation_scales(ckpt, groups, layout, prefix, measured) if w4a4 else {}
    amax: dict[str, np.float32] = {}
    for group in groups:
        group_amax = max(_amax(ckpt, f"{m}.weight") for m in group)
        amax.update({m: np.float32(group_amax) for m in group})
    q = _Quantizer(ckpt, amax, layout, workers)
    replaced = {f"{m}.weight" for m in modules}
    new: list[TensorJob] = []
    for name in ckpt.names(prefix):
        if name in replaced:
            m = name[: -len(".weight")]
            new += _jobs_for(q, ckpt, m, layout, acts.get(m))
        else:
            new.append(copy_job(ckpt, name))
    still_unquantized = [m for m in linear_modules(ckpt, "", quantized=False) if m not in set(modules)]
    existing = [m for m in linear_modules(ckpt, "", quantized=True) if f"{m}.weight_scale_2" in ckpt.location]

    def patch(cfgs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        cfgs = remove_exclusions(cfgs, modules, still_unquantized)
        return declare_nvfp4(cfgs, modules, existing, set(acts))

    args = {"scheme": scheme, "prefix": prefix, "layout": layout, "w4a4": w4a4}
    if w4a4:
        args["activation_scales"] = {m: a.to_dict() for m, a in sorted(acts.items())}
    plan = plan_derived(
        ckpt,
        Path(out),
        "quantize-draft",
        args,
        set(ckpt.names(prefix)),
        f"model-{prefix.strip('.').replace('.', '-') or 'draft'}-nvfp4",
        new,
        patch,
    )
    plan.notes += _notes(ckpt, modules, groups, layout, w4a4, acts)
    plan.notes += [f"{m} stays unquantized: an embedding table, not a linear" for m in embedding_tables(ckpt, prefix)]
    plan.notes += [f"{m} stays unquantized: {why}" for m, why in sorted(plain.items())]
    return plan


def _amax(ckpt: Checkpoint, name: str) -> np.float32:
    info = ckpt.info(name)
    read: Callable[[int, int], np.ndarray] = partial(ckpt.read_rows, name)
    return stream_amax(read, (info.shape[0], info.shape[1]), NUMPY_DTYPES[info.dtype], name=name)


def _notes(
    ckpt: Checkpoint, modules: list[str], groups: list[list[str]], layout: str, w4a4: bool, acts: dict[str, ActScale]
) -> list[str]:
    """What the plan does, and per module where its activation scale came from (or why it has none)."""
    before = sum(ckpt.info(f"{m}.weight").nbytes for m in modules)
    after = sum(o * i // 2 + o * i // 16 + 4 for m in modules for o, i in [ckpt.info(f"{m}.weight").shape])
    notes = [
        f"{len(modules)} linears to NVFP4 ({layout}, {'W4A4' if w4a4 else 'W4A16'}): {before:,} -> {after:,} bytes; "
        f"groups sharing a scale: {[g for g in groups if len(g) > 1]}"
    ]
    if w4a4:
        for m in modules:
            a = acts.get(m)
            notes.append(
                f"{m}: W4A4, input amax {a.input_amax:.6g} from {a.source}"
                if a
                else f"{m}: stays W4A16 (NVFP4 weights, BF16 activations): no activation scale: not in --input-amax "
                "and no target layer has its role"
            )
    return notes

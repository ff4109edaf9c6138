"""Rule 4: quantization consistency - the two config copies agree, and every MTP / draft module is excluded exactly
when its tensors are unquantized; NVFP4 global-scale convention of the draft modules.

Sources: sgl-project/sglang PR #36158 and ROCm/ATOM PR #755 (BF16 MTP not excluded -> load error or ~0% acceptance;
case C06), ai-dynamo/aiconfigurator PR #1513 and NVIDIA/TensorRT-LLM PR #3167 (``config.json`` vs
``hf_quant_config.json`` disagree; case C11), seed 004 (vLLM prefers ``config.json``), vLLM PR #42549 (ModelOpt stores
``weight_scale_2 = amax / (6*448)``, compressed-tensors stores ``weight_global_scale = (6*448) / amax``; case C08).
Format matching rules: :mod:`specscope.audit.quantcfg`.
"""

from __future__ import annotations

import math

from specscope.audit.findings import Finding, Severity
from specscope.audit.layout import QUANT_AUX_SUFFIXES, module_of
from specscope.audit.quantcfg import QuantView, effective_view, is_excluded, quant_views
from specscope.checkpoint import Checkpoint
from specscope.checkpoint.dtypes import FLOAT8_DTYPES, PACKED_INT_DTYPES

__all__ = ["linear_modules", "is_quantized", "check_quant"]


def linear_modules(ck: Checkpoint) -> dict[str, str]:
    """Module -> weight tensor name for every linear layer (2-D weight, or a packed / quantized weight).

    Embeddings are not linear layers and are left out.
    """
    out: dict[str, str] = {}
    for name, locs in ck.locations.items():
        module, suffix = module_of(name)
        if suffix not in ("weight", "weight_packed", "qweight") or "embed" in module:
            continue
        info = locs[0].info
        if len(info.shape) == 2 or suffix != "weight":
            out.setdefault(module, name)
    return out


def is_quantized(ck: Checkpoint, module: str, weight_name: str) -> bool:
    """True when the stored module is quantized: a scale sibling exists or the weight is packed / 8-bit float."""
    if weight_name.endswith(("weight_packed", "qweight")):
        return True
    if any(f"{module}.{s}" in ck.locations for s in QUANT_AUX_SUFFIXES if s not in ("input_scale",)):
        return True
    info = ck.tensor(weight_name)
    return info is not None and (info.dtype in PACKED_INT_DTYPES or info.dtype in FLOAT8_DTYPES)


def _quantized_shape_hint(view: QuantView, module: str, shape: tuple[int, ...]) -> str:
    if len(shape) == 2 and "fp4" in str(view.algo).lower():  # two 4-bit codes per U8
        return f"U8 [{shape[0]}, {shape[1] // 2}] + scales"
    return "quantized weight + scales"


def check_quant(ck: Checkpoint, draft_modules: set[str]) -> tuple[list[Finding], dict]:
    """Quantization findings and facts (which file vLLM reads, the views).

    Args:
        ck: the checkpoint.
        draft_modules: linear modules that belong to the MTP head / draft model.

    Codes: ``MTP_UNQUANTIZED_NOT_EXCLUDED`` (ERROR), ``MTP_QUANTIZED_BUT_EXCLUDED`` (ERROR),
    ``QUANT_CONFIG_MISMATCH`` (ERROR when it touches draft modules, else WARNING; ``details.field`` says which),
    ``NVFP4_SCALE_CONVENTION`` (ERROR).
    """
    views = quant_views(ck.config, ck.hf_quant_config)
    eff = effective_view(views)
    facts: dict = {"quant_files": sorted(views), "quant_config_used_by_vllm": eff.file if eff else None}
    out: list[Finding] = []
    if eff is None:
        return out, facts
    linears = linear_modules(ck)
    quantized = {m: is_quantized(ck, m, w) for m, w in linears.items()}
    if not any(quantized.values()):
        return out, facts  # a config without quantized tensors: nothing to compare against

    unq_not_excl = sorted(m for m in draft_modules if m in linears and not quantized[m] and not is_excluded(eff, m))
    if unq_not_excl:
        ex = unq_not_excl[0]
        for m in unq_not_excl:
            if ".experts." in m and m.endswith("gate_proj"):
                ex = m
                break
        info = ck.tensors()[linears[ex]]  # linear_modules lists only tensors the checkpoint holds
        shape = info.shape
        out.append(
            Finding(
                Severity.ERROR,
                "MTP_UNQUANTIZED_NOT_EXCLUDED",
                f"{len(unq_not_excl)} MTP/draft linear modules are stored unquantized but {eff.file} does not exclude "
                f"them: {', '.join(unq_not_excl)}",
                file=eff.file,
                tensor=linears[ex],
                found=f"{linears[ex]}: {info.dtype} {list(shape)}, no weight_scale; not excluded",
                expected=f"excluded in {eff.file} (an engine applying the {eff.algo or eff.method} config expects "
                f"{_quantized_shape_hint(eff, ex, shape)})",
                consequence="the engine builds these layers quantized: load error on the shape mismatch, or an "
                "unloaded head and ~0% acceptance (vLLM special-cases only mtp.fc for Qwen3.5/3.6)",
                fix=f"add them to the exclude list of {eff.file} (specscope surgery patch-config)",
                details={"modules": unq_not_excl, "config": eff.file},
            )
        )
    q_but_excl = sorted(m for m in draft_modules if m in linears and quantized[m] and is_excluded(eff, m))
    if q_but_excl:
        out.append(
            Finding(
                Severity.ERROR,
                "MTP_QUANTIZED_BUT_EXCLUDED",
                f"{len(q_but_excl)} MTP/draft modules are stored quantized but {eff.file} excludes them: "
                f"{', '.join(q_but_excl)}",
                file=eff.file,
                tensor=linears[q_but_excl[0]],
                found="quantized tensors (scales / packed weights)",
                expected="not excluded",
                consequence="the engine builds these layers unquantized and fails at load on the shape assert "
                "(or loads packed bytes as BF16: garbage drafts)",
                fix=f"remove the matching entries from {eff.file}'s exclude list (both files for ModelOpt)",
                details={"modules": q_but_excl},
            )
        )

    cfg, hf = views.get("config.json"), views.get("hf_quant_config.json")
    if cfg is not None and hf is not None:
        out.extend(_mismatch(ck, cfg, hf, linears, quantized, draft_modules))
    out.extend(_scale_convention(ck, eff, draft_modules, linears, quantized))
    return out, facts


def _kv_evidence(ck: Checkpoint) -> tuple[int, int]:
    from specscope.audit.rules_kv import attention_layers, kv_scale_table

    layers = attention_layers(ck)
    table = kv_scale_table(ck, layers, read_values=False)
    return sum(1 for r in table if r["k_scale"] or r["v_scale"]), len(layers)


def _mismatch(ck, cfg: QuantView, hf: QuantView, linears, quantized, draft_modules) -> list[Finding]:
    out: list[Finding] = []
    if cfg.kv_desc != hf.kv_desc:
        with_scales, n_attn = _kv_evidence(ck)
        claim_fp8 = cfg if cfg.kv_fp8_static else hf
        other = hf if claim_fp8 is cfg else cfg
        backed = with_scales > 0
        verdict = (
            f"{claim_fp8.file}'s FP8 claim is backed by the tensors; {other.file} is the stale copy"
            if backed
            else f"no k/v scales on disk: the FP8 claim in {claim_fp8.file} is not backed"
        )
        out.append(
            Finding(
                Severity.WARNING,
                "QUANT_CONFIG_MISMATCH",
                f"KV cache: {hf.file} = {hf.kv_desc}, {cfg.file} = {cfg.kv_desc}; {with_scales} of {n_attn} attention "
                f"layers have k/v scales: {verdict}",
                file=other.file if backed else claim_fp8.file,
                found=f"{hf.file}: {hf.kv_desc}; {cfg.file}: {cfg.kv_desc}",
                expected="the same KV cache dtype in both",
                consequence=f"tools reading only {cfg.file} plan a BF16 KV cache (2 bytes vs 1 byte per element) while "
                f"vLLM takes the KV dtype from {hf.file}"
                if cfg.kv_desc == "none"
                else "engines disagree on the KV cache dtype depending on which file they read",
                fix="sync the two files toward the side the tensors support (specscope surgery patch-config --sync)",
                details={
                    "field": "kv_cache",
                    "config_json": cfg.kv_desc,
                    "hf_quant_config_json": hf.kv_desc,
                    "layers_with_scales": with_scales,
                    "attention_layers": n_attn,
                    "supported_by_tensors": claim_fp8.file if backed else other.file,
                },
            )
        )
    diff = sorted(m for m in linears if is_excluded(cfg, m) != is_excluded(hf, m))
    if diff:
        only_cfg = sorted(set(cfg.exclude) - set(hf.exclude))
        only_hf = sorted(set(hf.exclude) - set(cfg.exclude))
        agree_cfg = sum(1 for m in diff if is_excluded(cfg, m) != quantized[m])
        right = cfg if agree_cfg * 2 >= len(diff) else hf
        wrong = hf if right is cfg else cfg
        touches_draft = any(m in draft_modules for m in diff)
        out.append(
            Finding(
                Severity.ERROR if touches_draft else Severity.WARNING,
                "QUANT_CONFIG_MISMATCH",
                f"exclusions differ: only in {cfg.file}: {only_cfg or '-'}; only in {hf.file}: {only_hf or '-'}; "
                f"{len(diff)} modules affected; the tensors side with {right.file}",
                file=wrong.file,
                tensor=linears[diff[0]],
                found=f"{wrong.file} {'excludes' if is_excluded(wrong, diff[0]) else 'quantizes'} {diff[0]}",
                expected=f"as in {right.file} (tensors are {'quantized' if quantized[diff[0]] else 'unquantized'})",
                consequence=(
                    f"engines reading {wrong.file} build the MTP/draft head with the wrong precision: load "
                    "failure or ~0% acceptance"
                )
                if touches_draft
                else f"engines reading {wrong.file} build these layers with the wrong precision",
                fix=f"make {wrong.file}'s exclude list match {right.file} (specscope surgery patch-config --sync)",
                details={
                    "field": "exclude",
                    "only_in_config_json": only_cfg,
                    "only_in_hf_quant_config_json": only_hf,
                    "modules": diff,
                    "supported_by_tensors": right.file,
                },
            )
        )
    for field_name, a, b in (("quant_algo", cfg.algo, hf.algo), ("group_size", cfg.group_size, hf.group_size)):
        if cfg.method == "modelopt" and a is not None and b is not None and str(a).upper() != str(b).upper():
            out.append(
                Finding(
                    Severity.WARNING,
                    "QUANT_CONFIG_MISMATCH",
                    f"{field_name}: {cfg.file} = {a}, {hf.file} = {b}",
                    file=hf.file,
                    found=f"{a} vs {b}",
                    expected="the same value in both files",
                    consequence="engines disagree on the weight format depending on which file they read",
                    fix="sync the two files",
                    details={"field": field_name},
                )
            )
    return out


def _scale_convention(ck, eff: QuantView, draft_modules, linears, quantized) -> list[Finding]:
    out: list[Finding] = []
    bad: list[str] = []
    for m in sorted(draft_modules):
        if not quantized.get(m):
            continue
        if eff.method == "modelopt":
            for suffix in ("weight_scale_2", "input_scale"):
                v = ck.read_scalar(f"{m}.{suffix}")
                if v is not None and not (math.isfinite(v) and 0 < v <= 1):
                    bad.append(f"{m}.{suffix} = {v:g}")
        elif eff.method == "compressed-tensors":
            for suffix in ("weight_global_scale", "input_global_scale"):
                v = ck.read_scalar(f"{m}.{suffix}")
                if v is not None and not (math.isfinite(v) and v >= 1):
                    bad.append(f"{m}.{suffix} = {v:g}")
    if bad:
        modelopt = eff.method == "modelopt"
        out.append(
            Finding(
                Severity.ERROR,
                "NVFP4_SCALE_CONVENTION",
                f"{', '.join(bad)} under a {eff.method} config: "
                + (
                    "values > 1 look like reciprocal (compressed-tensors style) global scales"
                    if modelopt
                    else "values < 1 look like direct (ModelOpt style) global scales"
                ),
                file=eff.file,
                tensor=bad[0].split(" = ")[0],
                found="; ".join(bad),
                expected="weight_scale_2 / input_scale positive, finite, <= 1 (amax / 2688)"
                if modelopt
                else "weight_global_scale / input_global_scale >= 1 (2688 / amax)",
                consequence="dequantized weights are off by (2688/amax)^2, e.g. 10^6 for 1000 vs 0.001: garbage drafts",
                fix="rewrite the scales in the checkpoint's convention (ModelOpt: direct; compressed-tensors: "
                "reciprocal)",
                details={"scales": bad},
            )
        )
    return out

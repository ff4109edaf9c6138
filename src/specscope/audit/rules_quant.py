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
from collections.abc import Callable
from typing import Any

from specscope.audit.architectures import Family
from specscope.audit.catalog import arg, finding
from specscope.audit.findings import Finding
from specscope.audit.layout import QUANT_AUX_SUFFIXES, is_embedding, is_vision, module_of
from specscope.audit.quantcfg import KNOWN_QUANT_METHODS, QuantView, effective_view, is_excluded, quant_views
from specscope.checkpoint import Checkpoint
from specscope.checkpoint.dtypes import FLOAT8_DTYPES, PACKED_INT_DTYPES

__all__ = [
    "ENGINE_KEEPS_UNQUANTIZED",
    "LM_HEAD_UNQUANTIZED_METHODS",
    "PLAIN_LINEAR_EH_PROJ",
    "check_quant",
    "check_shared_embedding",
    "shares_embedding",
    "embedding_modules",
    "engine_builds_unquantized",
    "is_quantized",
    "linear_modules",
]

#: Draft modules vLLM builds unquantized under ``quant_method: fp8`` (Fp8Config, DeepSeek's block FP8 with
#: ``weight_scale_inv``) whatever ``ignored_layers`` says, so storing them BF16 and not excluded is right
#: (vllm/model_executor/models): the MoE router ``mlp.gate`` is a ``ReplicatedLinear`` with ``quant_config=None``
#: (deepseek_v2.py DeepseekV2MoE, qwen3_moe.py) and ``shared_expert_gate`` a plain linear (qwen2_moe.py);
#: ``shared_head.head`` / ``lm_head`` are ``ParallelLMHead``, which Fp8Config leaves unquantized. The DeepSeek-V3 / R1
#: FP8 releases store exactly these in BF16 with no ignore list (fresh-user check, 2026-12-05: they failed with this
#: finding). Other methods keep the rule whole for these: under Quark in SGLang a router that is not excluded is built
#: quantized (case C06). ``eh_proj`` is per family: :data:`PLAIN_LINEAR_EH_PROJ`.
ENGINE_KEEPS_UNQUANTIZED = ("mlp.gate", "shared_expert_gate", "shared_head.head", "lm_head")

#: MTP families whose ``eh_proj`` vLLM builds as a plain ``nn.Linear`` with no quant_config, under every method:
#: vllm-project/vllm vllm/model_executor/models/deepseek_mtp.py @4f7c1440 (DeepSeekMultiTokenPredictorLayer) and
#: glm4_moe_mtp.py @028aedf6 (Glm4MoeMultiTokenPredictorLayer). It has no scale parameter, so a stored
#: ``eh_proj.weight_scale`` fails ``load_weights`` (``params_dict[name]``), and a BF16 one needs no exclude entry.
#: Quark is left out: SGLang builds ``eh_proj`` as a quantized ``ReplicatedLinear`` under Quark (sgl-project/sglang
#: PR #23219, deepseek_nextn.py), so the engines disagree and the config's word is kept. Other families (LongCat,
#: Bailing, MiMo-V2: ``ReplicatedLinear`` with the quant config) follow their config.
PLAIN_LINEAR_EH_PROJ = ("deepseek_mtp", "glm4_moe_mtp")

#: Methods whose config leaves ``ParallelLMHead`` (``shared_head.head``) unquantized whatever the exclude list says:
#: Fp8Config, and compressed-tensors (vllm-project/vllm
#: vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py @004dadbe get_quant_method: only
#: ``LinearBase``, ``Attention`` and ``FusedMoE`` get a method). ModelOpt quantizes it unless excluded (modelopt.py
#: @00155cde ModelOptQuantConfigBase.get_quant_method: ``isinstance(layer, (LinearBase, ParallelLMHead))``).
LM_HEAD_UNQUANTIZED_METHODS = ("fp8", "compressed-tensors")

#: Methods that quantize ``ParallelLMHead`` only when the config's ``lm_head`` is true (vllm-project/vllm
#: vllm/model_executor/layers/quantization/awq_marlin.py @0322f292 and gptq_marlin.py @00161ce0 from_config
#: ``lm_head_quantized = get_from_keys_or(config, ["lm_head"], default=False)``; CUDA runs awq / gptq checkpoints
#: with them): AutoAWQ and GPTQModel store the head BF16 with no exclude entry.
LM_HEAD_KEY_METHODS = ("awq", "awq_marlin", "gptq", "gptq_marlin")


def _is(module: str, suffix: str) -> bool:
    return module == suffix or module.endswith("." + suffix)


def engine_builds_unquantized(view: QuantView, module: str, family: str | None) -> str | None:
    """Why the engine builds ``module`` unquantized whatever the exclude list says (the layer type vLLM gives it),
    None when the config decides."""
    if is_embedding(module):
        return (
            f"{module.rpartition('.')[2]} is an embedding table, built as a VocabParallelEmbedding with no "
            "quant_config (deepseek_mtp.py DeepSeekMultiTokenPredictor; no method quantizes a plain embedding)"
        )
    if family in PLAIN_LINEAR_EH_PROJ and view.method != "quark" and _is(module, "eh_proj"):
        return "eh_proj is a plain nn.Linear in vLLM's DeepSeek / GLM-4.5 MTP layer (no quant_config)"
    if view.method in LM_HEAD_UNQUANTIZED_METHODS and _is(module, "shared_head.head"):
        return f"shared_head.head is a ParallelLMHead, which {view.method} does not quantize"
    head = _is(module, "lm_head") or _is(module, "shared_head.head")
    if view.method in LM_HEAD_KEY_METHODS and not view.lm_head_quantized and head:
        return f"{module.rpartition('.')[2]} is a ParallelLMHead, which {view.method} quantizes only with lm_head: true"
    if view.method == "fp8" and any(_is(module, s) for s in ENGINE_KEEPS_UNQUANTIZED):
        return f"{module.rpartition('.')[2]} is built unquantized under Fp8Config"
    return None


def linear_modules(ck: Checkpoint) -> dict[str, str]:
    """Module -> weight tensor name for every linear layer (2-D weight, or a packed / quantized weight).

    Embedding tables (:func:`specscope.audit.layout.is_embedding`) are not linear layers and are left out:
    :func:`embedding_modules` lists them.
    """
    return {m: w for m, w in _weight_modules(ck).items() if not is_embedding(m)}


def embedding_modules(ck: Checkpoint) -> dict[str, str]:
    """Module -> weight tensor name for every token embedding table (:func:`specscope.audit.layout.is_embedding`)."""
    return {m: w for m, w in _weight_modules(ck).items() if is_embedding(m)}


def _weight_modules(ck: Checkpoint) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, locs in ck.locations.items():
        module, suffix = module_of(name)
        if suffix not in ("weight", "weight_packed", "qweight"):
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


#: quantization descriptions engines or tools read that specscope does not: ModelSlim's per-tensor map
#: (sglang PR #37736)
UNREAD_QUANT_FILES = ("quant_model_description.json",)


def _not_read(ck: Checkpoint, draft_modules: set[str]) -> list[Finding]:
    """``QUANT_CONFIG_NOT_READ`` (WARNING): linears stored quantized (a scale sibling, packed or 8-bit weights) with
    no quantization config specscope reads, so none of the quantization rules ran: named, never "no findings"
    (sgl-project/sglang PR #37736: a ModelSlim W8A8 checkpoint, described by ``quant_model_description.json`` only,
    whose MTP int8 codes an engine loaded as BF16 weights)."""
    linears = linear_modules(ck)
    quantized = sorted(m for m, w in linears.items() if is_quantized(ck, m, w))
    if not quantized:
        return []
    first = quantized[0]
    info = ck.tensor(linears[first])
    aux = next((s for s in QUANT_AUX_SUFFIXES if f"{first}.{s}" in ck.locations), None)
    how = f"{info.dtype if info else '?'}" + (f" with {aux}" if aux else "")
    unread = next((f for f in UNREAD_QUANT_FILES if f in ck.files), None)
    mtp = sum(1 for m in quantized if m in draft_modules)
    return [
        finding(
            "QUANT_CONFIG_NOT_READ" if unread else "QUANT_CONFIG_NOT_READ/none",
            file=unread or "config.json",
            n=len(quantized),
            in_mtp=f" ({mtp} of them in the MTP head)" if mtp else "",
            first=first,
            how=how,
            details={"quantized": len(quantized), "mtp_quantized": mtp, "first": first},
        )
    ]


def _common_prefix(modules: list[str]) -> str:
    """The longest dotted prefix shared by ``modules`` (``mtp.``), what ``patch-config --exclude-unquantized`` takes."""
    parts = [m.split(".") for m in modules]
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    if len(common) == min(len(p) for p in parts):  # one module: its parent
        common = common[:-1]
    return ".".join(common) + "." if common else ""


def _quantized_shape_hint(view: QuantView, module: str, shape: tuple[int, ...]) -> str:
    if len(shape) == 2 and "fp4" in str(view.algo).lower():  # two 4-bit codes per U8
        return f"U8 [{shape[0]}, {shape[1] // 2}] + scales"
    return "quantized weight + scales"


def check_quant(
    ck: Checkpoint, draft_modules: set[str], family: str | None = None, draft_embeddings: set[str] | None = None
) -> tuple[list[Finding], dict[str, Any]]:
    """Quantization findings and facts (which file vLLM reads, the views).

    Args:
        ck: the checkpoint.
        draft_modules: linear modules that belong to the MTP head / draft model.
        family: the MTP family key (``deepseek_mtp``), None for a separate draft or no head.
        draft_embeddings: embedding tables that belong to the MTP head / draft model (DeepSeek's per-layer
            ``embed_tokens`` copy): stored quantized, they are ``MTP_QUANTIZED_ENGINE_UNQUANTIZED``.

    Codes: ``QUANT_METHOD_UNKNOWN`` (WARNING; the other rules are then not run: an unknown method's exclude list
    cannot be read), ``QUANT_CONFIG_NOT_READ`` (WARNING: quantized tensors and no config read, :func:`_not_read`),
    ``MTP_UNQUANTIZED_NOT_EXCLUDED`` (ERROR), ``MTP_QUANTIZED_BUT_EXCLUDED`` (ERROR),
    ``QUANT_CONFIG_MISMATCH`` (ERROR when it touches draft modules, else WARNING; ``details.field`` says which),
    ``NVFP4_SCALE_CONVENTION`` (ERROR), ``MTP_QUANTIZED_ENGINE_UNQUANTIZED`` (ERROR: stored quantized, built
    unquantized whatever the config says: :func:`engine_builds_unquantized`).
    """
    views = quant_views(ck.config, ck.hf_quant_config)
    eff = effective_view(views)
    facts: dict[str, Any] = {"quant_files": sorted(views), "quant_config_used_by_vllm": eff.file if eff else None}
    out: list[Finding] = []
    if eff is None:
        return _not_read(ck, draft_modules), facts
    if eff.file == "config.json" and eff.method and eff.method not in KNOWN_QUANT_METHODS:
        known = ", ".join(sorted(KNOWN_QUANT_METHODS))
        out.append(finding("QUANT_METHOD_UNKNOWN", file=eff.file, method=eff.method, known=known))
        return out, facts
    linears = linear_modules(ck)
    quantized = {m: is_quantized(ck, m, w) for m, w in linears.items()}
    tables = {m: w for m, w in embedding_modules(ck).items() if m in (draft_embeddings or set())}
    q_tables = sorted(m for m, w in tables.items() if is_quantized(ck, m, w))
    if not any(quantized.values()) and not q_tables:
        return out, facts  # a config without quantized tensors: nothing to compare against

    unq_not_excl = sorted(
        m
        for m in draft_modules
        if m in linears
        and not quantized[m]
        and not is_excluded(eff, m)
        and engine_builds_unquantized(eff, m, family) is None
    )
    if unq_not_excl:
        ex = unq_not_excl[0]
        for m in unq_not_excl:
            if ".experts." in m and m.endswith("gate_proj"):
                ex = m
                break
        info = ck.tensors()[linears[ex]]  # linear_modules lists only tensors the checkpoint holds
        shape = info.shape
        out.append(
            finding(
                "MTP_UNQUANTIZED_NOT_EXCLUDED",
                file=eff.file,
                tensor=linears[ex],
                n=len(unq_not_excl),
                modules=", ".join(unq_not_excl),
                weight=linears[ex],
                dtype=info.dtype,
                shape=list(shape),
                scheme=eff.algo or eff.method,
                hint=_quantized_shape_hint(eff, ex, shape),
                checkpoint=arg(ck.label),
                prefix=arg(_common_prefix(unq_not_excl) or unq_not_excl[0].split(".")[0] + "."),
                details={"modules": unq_not_excl, "config": eff.file},
            )
        )
    built_plain = {m: engine_builds_unquantized(eff, m, family) for m in draft_modules if m in linears and quantized[m]}
    built_plain |= {m: engine_builds_unquantized(eff, m, family) for m in q_tables}
    q_plain = sorted(m for m, why in built_plain.items() if why is not None)
    if q_plain:
        out.append(_quantized_engine_unquantized(ck, eff, q_plain, built_plain))
    q_but_excl = sorted(m for m, why in built_plain.items() if why is None and is_excluded(eff, m))
    if q_but_excl:
        out.append(
            finding(
                "MTP_QUANTIZED_BUT_EXCLUDED",
                file=eff.file,
                tensor=linears[q_but_excl[0]],
                n=len(q_but_excl),
                modules=", ".join(q_but_excl),
                checkpoint=arg(ck.label),
                prefix=arg(_common_prefix(q_but_excl) or q_but_excl[0].split(".")[0] + "."),
                details={"modules": q_but_excl},
            )
        )

    cfg, hf = views.get("config.json"), views.get("hf_quant_config.json")
    if cfg is not None and hf is not None:
        out.extend(_mismatch(ck, cfg, hf, linears, quantized, draft_modules))
    out.extend(_scale_convention(ck, eff, draft_modules, linears, quantized))
    return out, facts


def check_shared_embedding(
    ck: Checkpoint, family: Family, *, own: Callable[[str], bool] | None = None
) -> list[Finding]:
    """``MTP_SHARED_EMBEDDING_QUANTIZED`` (WARNING): the target ``ck``'s own token embedding (not a head's copy,
    ``own``; not a vision tower's) is stored quantized and a head of ``family`` (its MTP head, or a separate draft
    whose family shares the embedding) reads it. SGLang's draft worker hands the head the table's bare weight without
    its scales (``get_embed_and_head`` / ``set_embed_and_head``, whether the draft stores a copy or not; a quantized
    table is servable there since sgl-project/sglang PR #34222), and the head fails at load or at its first step
    (sgl-project/sglang PR #38366). One engine's limit: a warning."""
    out: list[Finding] = []
    for module, weight in sorted(embedding_modules(ck).items()):
        if (own is not None and own(module)) or is_vision(module) or not is_quantized(ck, module, weight):
            continue
        tensors = sorted(n for n in ck.locations if module_of(n)[0] == module)
        out.append(
            finding(
                "MTP_SHARED_EMBEDDING_QUANTIZED",
                file=ck.shard_of(weight),
                tensor=weight,
                module=module,
                family=family.title,
                tensors=", ".join(tensors),
                details={"module": module, "tensors": tensors, "family": family.key},
            )
        )
    return out


def shares_embedding(family: Family) -> bool:
    """Whether a separate draft of ``family`` takes the target's token embedding (a shareable embedding table)."""
    return family.kind == "draft" and any(is_embedding(n) for n in family.shareable)


def _quantized_engine_unquantized(
    ck: Checkpoint, eff: QuantView, modules: list[str], why: dict[str, str | None]
) -> Finding:
    tensors = sorted(n for m in modules for n in ck.locations if n.startswith(m + ".") and "." not in n[len(m) + 1 :])
    scales = [n for n in tensors if not n.endswith((".weight", ".weight_packed", ".qweight"))]
    key = {"compressed-tensors": "ignore", "fp8": "ignored_layers", "modelopt": "exclude_modules"}
    return finding(
        "MTP_QUANTIZED_ENGINE_UNQUANTIZED",
        file=eff.file,
        tensor=scales[0] if scales else tensors[0],
        n=len(modules),
        modules=", ".join(modules),
        method=eff.method,
        tensors=", ".join(tensors),
        why="; ".join(sorted({w for m in modules if (w := why.get(m))})),
        exclude_key=key.get(str(eff.method), "exclude list"),
        details={"modules": modules, "tensors": tensors},
    )


def _kv_evidence(ck: Checkpoint) -> tuple[int, int]:
    from specscope.audit.rules_kv import attention_layers, kv_scale_table

    layers = attention_layers(ck)
    table = kv_scale_table(ck, layers, read_values=False)
    return sum(1 for r in table if r["k_scale"] or r["v_scale"]), len(layers)


def _mismatch(
    ck: Checkpoint,
    cfg: QuantView,
    hf: QuantView,
    linears: dict[str, str],
    quantized: dict[str, bool],
    draft_modules: set[str],
) -> list[Finding]:
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
            finding(
                "QUANT_CONFIG_MISMATCH/kv-vs-none" if cfg.kv_desc == "none" else "QUANT_CONFIG_MISMATCH/kv",
                file=other.file if backed else claim_fp8.file,
                hf=hf.file,
                hf_kv=hf.kv_desc,
                cfg=cfg.file,
                cfg_kv=cfg.kv_desc,
                with_scales=with_scales,
                attention=n_attn,
                verdict=verdict,
                checkpoint=arg(ck.label),
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
            finding(
                "QUANT_CONFIG_MISMATCH/exclude-draft" if touches_draft else "QUANT_CONFIG_MISMATCH/exclude",
                file=wrong.file,
                tensor=linears[diff[0]],
                cfg=cfg.file,
                only_cfg=only_cfg or "-",
                hf=hf.file,
                only_hf=only_hf or "-",
                modules=len(diff),
                right=right.file,
                wrong=wrong.file,
                action="excludes" if is_excluded(wrong, diff[0]) else "quantizes",
                module=diff[0],
                checkpoint=arg(ck.label),
                state="quantized" if quantized[diff[0]] else "unquantized",
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
            details = {"field": field_name}
            out.append(
                finding(
                    "QUANT_CONFIG_MISMATCH/field",
                    file=hf.file,
                    field=field_name,
                    cfg=cfg.file,
                    hf=hf.file,
                    a=a,
                    b=b,
                    details=details,
                )
            )
    return out


_CT_GLOBALS = ("weight_global_scale", "input_global_scale")


def _scale_convention(
    ck: Checkpoint, eff: QuantView, draft_modules: set[str], linears: dict[str, str], quantized: dict[str, bool]
) -> list[Finding]:
    out: list[Finding] = []
    bad: list[tuple[str, float]] = []
    suffixes = {"modelopt": ("weight_scale_2", "input_scale"), "compressed-tensors": _CT_GLOBALS}.get(eff.method, ())
    for m in sorted(draft_modules):
        if not quantized.get(m):
            continue
        for suffix in suffixes:
            v = ck.read_scalar(f"{m}.{suffix}")
            ok = v is not None and math.isfinite(v) and (0 < v <= 1 if eff.method == "modelopt" else v >= 1)
            if v is not None and not ok:
                bad.append((f"{m}.{suffix}", v))
    if bad:
        values = sorted({v for _, v in bad})
        span = f"{values[0]:g}" if len(values) == 1 else f"{values[0]:g} to {values[-1]:g}"
        modules = sorted({n.rpartition(".")[0] for n, _ in bad})
        kinds = sorted({n.rpartition(".")[2] for n, _ in bad})
        out.append(
            finding(
                f"NVFP4_SCALE_CONVENTION/{eff.method}",  # bad scales are found only under these two methods
                file=eff.file,
                tensor=bad[0][0],
                scales=f"{len(bad)} {'/'.join(kinds)} scales of {len(modules)} modules ({span})",
                method=eff.method,
                found=f"{bad[0][0]} = {bad[0][1]:g}"
                + (f" (+{len(bad) - 1} more, values {span})" if len(bad) > 1 else ""),
                details={"scales": [f"{n} = {v:g}" for n, v in bad], "modules": modules},
            )
        )
    return out

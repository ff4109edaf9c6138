"""The two quantization descriptions of a checkpoint, normalised, and each format's exclusion-matching rules.

Sources:
- ModelOpt: ``hf_quant_config.json`` ``{"quantization": {"quant_algo", "group_size", "kv_cache_quant_algo",
  "exclude_modules"}}`` and, since ModelOpt 0.31, a copy in ``config.json["quantization_config"]``
  (``quant_method: modelopt``, exclusions under ``ignore``). Exclusions are shell-style wildcards (``mtp*``,
  ``model.layers.61*``) matched against module names (vLLM ``modelopt.py`` ``is_layer_excluded``, fnmatch).
- compressed-tensors: ``config.json["quantization_config"]`` with ``ignore`` holding exact module names or ``re:``
  regular expressions (compressed-tensors ``utils/match.py``); ``kv_cache_scheme`` for the KV cache.
- Quark: ``exclude`` with names / wildcards (vLLM ``quark.py``).
- AWQ: ``modules_to_not_convert``, each entry a substring of the module name (vLLM ``awq.py``
  ``is_layer_skipped_awq``: ``any(module_name in prefix for module_name in modules_to_not_convert)``).
- GPTQ (GPTQModel): ``dynamic`` with ``"-:REGEX"`` keys for modules left unquantized (vLLM
  ``quantization/utils/gptq_utils.py`` ``get_dynamic_override``: a matching negative rule skips the layer); the
  regular expressions are kept as ``re:`` entries.
- Which one vLLM uses: ``config.json``'s ``quantization_config`` when present, else ``hf_quant_config.json``
  (vLLM ``model_loader/weight_utils.py`` ``get_quant_config``; seed 004: "vLLM prefers config.json").
- Fused names: an entry for ``qkv_proj`` covers ``q_proj``/``k_proj``/``v_proj``, ``gate_up_proj`` covers
  ``gate_proj``/``up_proj`` (vLLM ``packed_modules_mapping``); an entry naming a parent module covers its children.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["QuantView", "quant_views", "effective_view", "is_excluded", "entry_covers", "prefix_pattern"]

_FUSED = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}


#: ``quantization_config.quant_method`` values an engine or transformers loads (lower case): vLLM's
#: ``QUANTIZATION_METHODS`` (vllm/model_executor/layers/quantization/__init__.py, 0.11) and transformers'
#: ``QuantizationMethod`` (utils/quantization_config.py, 4.57). A method outside these is named
#: (``QUANT_METHOD_UNKNOWN``), not read with another dialect's keys.
KNOWN_QUANT_METHODS = frozenset(
    {
        "aqlm", "auto-round", "awq", "awq_marlin", "bitblas", "bitnet", "bitsandbytes", "compressed-tensors",
        "deepspeedfp", "eetq", "experts_int8", "fbgemm_fp8", "fp8", "fp_quant", "gguf", "gptq", "gptq_bitblas",
        "gptq_marlin", "gptq_marlin_24", "higgs", "hqq", "inc", "ipex", "modelopt", "modelopt_fp4", "moe_wna16",
        "mxfp4", "petit_nvfp4", "ptpc_fp8", "quanto", "quark", "rtn", "spqr", "torchao", "tpu_int8", "vptq",
    }
)  # fmt: skip


@dataclass(frozen=True)
class QuantView:
    """One file's quantization description.

    Attributes:
        file: ``config.json`` or ``hf_quant_config.json``.
        method: ``modelopt``, ``compressed-tensors``, ``quark``, ... (lower case).
        algo: ``NVFP4``, ``FP8``, ``MIXED_PRECISION``... (None when not stated).
        group_size: weight group size (None when not stated).
        exclude: exclusion entries in file order.
        kv_fp8_static: True when a static FP8 KV cache is declared (needs k/v scales).
        kv_desc: short text of the KV declaration (``"FP8"`` / ``"none"``).
        quantized_layers: MIXED_PRECISION per-layer map (ModelOpt), else empty.
        lm_head_quantized: the config's ``lm_head`` key is true (AWQ / GPTQ: the head is quantized only then).
    """

    file: str
    method: str
    algo: str | None
    group_size: int | None
    exclude: tuple[str, ...]
    kv_fp8_static: bool
    kv_desc: str
    quantized_layers: dict[str, Any] = field(default_factory=dict)
    lm_head_quantized: bool = False


def _kv_from_scheme(scheme: object) -> tuple[bool, str]:
    if not isinstance(scheme, dict):
        return False, "none"
    bits = scheme.get("num_bits")
    typ = str(scheme.get("type", "")).lower()
    dynamic = scheme.get("dynamic", False)
    if bits == 8 and typ == "float":
        return (dynamic in (False, None)), "FP8" if dynamic in (False, None) else "FP8 (dynamic)"
    return False, f"{typ}{bits}"


def _kv_from_algo(algo: object) -> tuple[bool, str]:
    if isinstance(algo, str) and algo.upper().startswith("FP8"):
        return True, "FP8"
    return False, "none" if algo in (None, "", "null") else str(algo)


def _str_list(value: object) -> tuple[str, ...]:
    """The string entries of a JSON list (anything else: none); configs are type-checked on load, this guards callers
    that pass raw dicts."""
    return tuple(e for e in value if isinstance(e, str)) if isinstance(value, list) else ()


def _gptq_negatives(dynamic: object) -> tuple[str, ...]:
    """GPTQModel ``dynamic`` keys ``"-:REGEX"`` (skip these modules) as ``re:REGEX`` exclusion entries."""
    if not isinstance(dynamic, dict):
        return ()
    return tuple("re:" + k[2:] for k in dynamic if isinstance(k, str) and k.startswith("-:"))


def _layer_map(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _group_size(qc: dict[str, Any]) -> int | None:
    own = qc.get("group_size")
    if isinstance(own, int):
        return own
    groups = qc.get("config_groups")
    for grp in (groups if isinstance(groups, dict) else {}).values():
        if isinstance(grp, dict) and isinstance(grp.get("weights"), dict):
            gs = grp["weights"].get("group_size")
            if isinstance(gs, int):
                return gs
    gq = qc.get("global_quant_config")
    weight = gq.get("weight") if isinstance(gq, dict) else None
    size = weight.get("group_size") if isinstance(weight, dict) else None
    if isinstance(size, int):
        return size
    return None


def quant_views(config: dict[str, Any] | None, hf_quant_config: dict[str, Any] | None) -> dict[str, QuantView]:
    """``{"config.json": QuantView, "hf_quant_config.json": QuantView}`` for the files that declare quantization."""
    out: dict[str, QuantView] = {}
    cfg = config or {}
    qc = cfg.get("quantization_config")
    text_config = cfg.get("text_config")
    if not isinstance(qc, dict) and isinstance(text_config, dict):
        qc = text_config.get("quantization_config")
    if isinstance(qc, dict):
        method = (_opt_str(qc.get("quant_method")) or "").lower()
        exclude = list(
            _str_list(qc.get("ignore") or qc.get("exclude_modules") or qc.get("exclude") or [])
            + _str_list(qc.get("modules_to_not_convert"))
            + _str_list(qc.get("ignored_layers"))  # vLLM Fp8Config (quant_method fp8, DeepSeek's block FP8)
            + _gptq_negatives(qc.get("dynamic"))
        )
        if "kv_cache_scheme" in qc:
            kv_static, kv_desc = _kv_from_scheme(qc.get("kv_cache_scheme"))
        else:
            kv_static, kv_desc = _kv_from_algo(qc.get("kv_cache_quant_algo"))
        algo = _opt_str(qc.get("quant_algo")) or _opt_str(qc.get("format"))
        gq = qc.get("global_quant_config")
        if not algo and isinstance(gq, dict) and isinstance(gq.get("weight"), dict):
            algo = _opt_str(gq["weight"].get("dtype"))  # Quark: "fp4" (MXFP4), "fp8_e4m3", ...
        out["config.json"] = QuantView(
            "config.json",
            method,
            algo,
            _group_size(qc),
            _str_list(exclude),
            kv_static,
            kv_desc,
            _layer_map(qc.get("quantized_layers")),
            qc.get("lm_head") is True,
        )
    if isinstance(hf_quant_config, dict):
        q = hf_quant_config.get("quantization")
        q = q if isinstance(q, dict) else hf_quant_config
        kv_static, kv_desc = _kv_from_algo(q.get("kv_cache_quant_algo"))
        exclude = q.get("exclude_modules") or []
        out["hf_quant_config.json"] = QuantView(
            "hf_quant_config.json",
            "modelopt",
            _opt_str(q.get("quant_algo")),
            q.get("group_size") if isinstance(q.get("group_size"), int) else None,
            _str_list(exclude),
            kv_static,
            kv_desc,
            _layer_map(q.get("quantized_layers")),
        )
    return out


def effective_view(views: dict[str, QuantView]) -> QuantView | None:
    """The view vLLM reads: ``config.json``'s when present, else ``hf_quant_config.json``'s."""
    return views.get("config.json") or views.get("hf_quant_config.json")


def _expand(module: str) -> list[str]:
    """``module`` plus its fused spellings (``...self_attn.q_proj`` -> also ``...self_attn.qkv_proj``)."""
    out = [module]
    parent, _, leaf = module.rpartition(".")
    for fused, parts in _FUSED.items():
        if leaf in parts:
            out.append(f"{parent}.{fused}" if parent else fused)
    return out


def _match_one(pattern: str, name: str, method: str) -> bool:
    if pattern.startswith("re:"):
        try:
            return re.match(pattern[3:], name) is not None
        except re.error:
            return False  # a pattern the engine cannot compile either matches nothing here
    if method == "awq":
        return pattern in name
    if name == pattern or name.startswith(pattern + "."):
        return True
    if method != "compressed-tensors" and any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return False


def prefix_pattern(prefix: str) -> str:
    """The compressed-tensors ``re:`` entry that covers every module under ``prefix`` (``mtp.`` -> ``re:^mtp[.].*``;
    ``re.match`` anchors it at the start, compressed-tensors ``utils/match.py``)."""
    return "re:^" + "".join("[.]" if c == "." else re.escape(c) for c in prefix) + ".*"


def entry_covers(entry: str, module: str, method: str) -> bool:
    """True when the exclusion ``entry`` of a ``method`` config (``modelopt``, ``compressed-tensors``, ``quark``,
    ``awq`` ...) covers ``module`` or one of its fused spellings: the one reading of an exclude entry, used by the
    audit and by surgery's config patches alike."""
    return any(_match_one(entry, name, method) for name in _expand(module))


def is_excluded(view: QuantView, module: str) -> bool:
    """True when ``view`` leaves ``module`` unquantized (excluded, or absent from a MIXED_PRECISION layer map)."""
    if any(entry_covers(p, module, view.method) for p in view.exclude):
        return True
    if view.quantized_layers and (view.algo or "").upper() == "MIXED_PRECISION":
        return not any(name in view.quantized_layers for name in _expand(module))
    return False

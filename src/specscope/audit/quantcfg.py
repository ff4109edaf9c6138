"""The two quantization descriptions of a checkpoint, normalised, and each format's exclusion-matching rules.

Sources:
- ModelOpt: ``hf_quant_config.json`` ``{"quantization": {"quant_algo", "group_size", "kv_cache_quant_algo",
  "exclude_modules"}}`` and, since ModelOpt 0.31, a copy in ``config.json["quantization_config"]``
  (``quant_method: modelopt``, exclusions under ``ignore``). Exclusions are shell-style wildcards (``mtp*``,
  ``model.layers.61*``) matched against module names (vLLM ``modelopt.py`` ``is_layer_excluded``, fnmatch).
- compressed-tensors: ``config.json["quantization_config"]`` with ``ignore`` holding exact module names or ``re:``
  regular expressions (compressed-tensors ``utils/match.py``); ``kv_cache_scheme`` for the KV cache.
- Quark: ``exclude`` with names / wildcards (vLLM ``quark.py``).
- Which one vLLM uses: ``config.json``'s ``quantization_config`` when present, else ``hf_quant_config.json``
  (vLLM ``model_loader/weight_utils.py`` ``get_quant_config``; seed 004: "vLLM prefers config.json").
- Fused names: an entry for ``qkv_proj`` covers ``q_proj``/``k_proj``/``v_proj``, ``gate_up_proj`` covers
  ``gate_proj``/``up_proj`` (vLLM ``packed_modules_mapping``); an entry naming a parent module covers its children.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

__all__ = ["QuantView", "quant_views", "effective_view", "is_excluded"]

_FUSED = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}


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
    """

    file: str
    method: str
    algo: str | None
    group_size: int | None
    exclude: tuple[str, ...]
    kv_fp8_static: bool
    kv_desc: str
    quantized_layers: dict = field(default_factory=dict)


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


def _group_size(qc: dict) -> int | None:
    if isinstance(qc.get("group_size"), int):
        return qc["group_size"]
    for grp in (qc.get("config_groups") or {}).values():
        if isinstance(grp, dict) and isinstance(grp.get("weights"), dict):
            gs = grp["weights"].get("group_size")
            if isinstance(gs, int):
                return gs
    gq = qc.get("global_quant_config")
    if isinstance(gq, dict) and isinstance(gq.get("weight"), dict) and isinstance(gq["weight"].get("group_size"), int):
        return gq["weight"]["group_size"]
    return None


def quant_views(config: dict | None, hf_quant_config: dict | None) -> dict[str, QuantView]:
    """``{"config.json": QuantView, "hf_quant_config.json": QuantView}`` for the files that declare quantization."""
    out: dict[str, QuantView] = {}
    config = config or {}
    qc = config.get("quantization_config")
    text_cfg = config.get("text_config")
    if not isinstance(qc, dict) and isinstance(text_cfg, dict):
        qc = text_cfg.get("quantization_config")
    if isinstance(qc, dict):
        method = str(qc.get("quant_method", "")).lower()
        exclude = qc.get("ignore") or qc.get("exclude_modules") or qc.get("exclude") or []
        if "kv_cache_scheme" in qc:
            kv_static, kv_desc = _kv_from_scheme(qc.get("kv_cache_scheme"))
        else:
            kv_static, kv_desc = _kv_from_algo(qc.get("kv_cache_quant_algo"))
        algo = qc.get("quant_algo") or qc.get("format")
        gq = qc.get("global_quant_config")
        if not algo and isinstance(gq, dict) and isinstance(gq.get("weight"), dict):
            algo = gq["weight"].get("dtype")  # Quark: "fp4" (MXFP4), "fp8_e4m3", ...
        out["config.json"] = QuantView(
            "config.json",
            method,
            str(algo) if algo else None,
            _group_size(qc),
            tuple(str(e) for e in exclude if isinstance(e, str)),
            kv_static,
            kv_desc,
            dict(qc.get("quantized_layers") or {}),
        )
    if isinstance(hf_quant_config, dict):
        q = hf_quant_config.get("quantization")
        q = q if isinstance(q, dict) else hf_quant_config
        kv_static, kv_desc = _kv_from_algo(q.get("kv_cache_quant_algo"))
        exclude = q.get("exclude_modules") or []
        out["hf_quant_config.json"] = QuantView(
            "hf_quant_config.json",
            "modelopt",
            q.get("quant_algo"),
            q.get("group_size") if isinstance(q.get("group_size"), int) else None,
            tuple(str(e) for e in exclude if isinstance(e, str)),
            kv_static,
            kv_desc,
            dict(q.get("quantized_layers") or {}),
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
        return re.match(pattern[3:], name) is not None
    if name == pattern or name.startswith(pattern + "."):
        return True
    if method != "compressed-tensors" and any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return False


def is_excluded(view: QuantView, module: str) -> bool:
    """True when ``view`` leaves ``module`` unquantized (excluded, or absent from a MIXED_PRECISION layer map)."""
    for name in _expand(module):
        if any(_match_one(p, name, view.method) for p in view.exclude):
            return True
    if view.quantized_layers and (view.algo or "").upper() == "MIXED_PRECISION":
        return not any(name in view.quantized_layers for name in _expand(module))
    return False

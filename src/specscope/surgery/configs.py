"""Quantization-config patches: exclude lists, NVFP4 declarations, syncing the two ModelOpt copies.

Configs stay plain dicts (foreign JSON: unknown keys survive), keyed by file name (``config.json``,
``hf_quant_config.json``); every function returns *new* dicts and never mutates its input.

Where each dialect keeps its exclude list (sources: vLLM ``model_executor/layers/quantization/modelopt.py``
``exclude_modules`` / ``ignore``; compressed-tensors ``QuantizationConfig.ignore``; AMD Quark
``quantization_config.exclude``; cases C06 and C11):

=================== ===================================================== ==============================
dialect             config.json                                           hf_quant_config.json
=================== ===================================================== ==============================
modelopt            ``quantization_config.ignore`` (or ``exclude_modules``) ``quantization.exclude_modules``
compressed-tensors  ``quantization_config.ignore``                         --
quark               ``quantization_config.exclude``                        --
awq                 ``quantization_config.modules_to_not_convert``         --
fp8                 ``quantization_config.ignored_layers``                 --
gptq (GPTQModel)    ``quantization_config.dynamic`` ``"-:REGEX"`` keys     --
=================== ===================================================== ==============================

AWQ entries are substrings of the layer name (vLLM ``awq.py`` ``is_layer_skipped_awq``); a module is added by its
name. GPTQ ``dynamic`` is a dict: ``"-:REGEX"`` keys skip the layers the expression ``re.match``es (vLLM
``quantization/utils/gptq_utils.py`` ``get_dynamic_override``), other keys are per-module overrides and are kept as
they are. The ``-:`` keys are read as ``re:`` entries; a module is added as ``-:`` + its escaped name, anchored at the
end, with the fused spelling vLLM names the layer by (``q_proj`` -> ``(?:q_proj|qkv_proj)``).

Entries are read by :func:`specscope.audit.quantcfg.entry_covers`, the audit's reading (one meaning): equal to the
module, a parent of it (``entry + "."`` prefix), an ``fnmatch`` glob for ModelOpt and Quark (``mtp*``), a ``re:``
regular expression (compressed-tensors ``utils/match.py``; ``re:^mtp[.].*``), a fused spelling (``qkv_proj``).
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from specscope.audit.architectures import FUSED_SPELLINGS
from specscope.audit.quantcfg import entry_covers, prefix_pattern
from specscope.errors import SurgeryError

__all__ = [
    "CONFIG",
    "HF_QUANT",
    "ExcludeList",
    "dialect",
    "exclude_lists",
    "entry_matches",
    "is_excluded",
    "add_exclusions",
    "remove_exclusions",
    "declare_nvfp4",
    "sync_configs",
    "render_json",
    "config_diff",
]

CONFIG = "config.json"
HF_QUANT = "hf_quant_config.json"
#: compressed-tensors' description of a data-free NVFP4 weight-only group (schema of the devstral fixture).
CT_W4A16_GROUP = {
    "weights": {
        "num_bits": 4,
        "type": "float",
        "symmetric": True,
        "group_size": 16,
        "strategy": "tensor_group",
        "dynamic": False,
        "scale_dtype": "torch.float8_e4m3fn",
    },
    "input_activations": None,
    "output_activations": None,
    "format": "nvfp4-pack-quantized",
}
#: compressed-tensors' NVFP4 W4A4 group: the weights as above, inputs quantized per block of 16 at run time against
#: a stored ``input_global_scale`` (``dynamic: "local"``; schema of the devstral fixture's ``input_activations``).
CT_W4A4_GROUP = {
    **CT_W4A16_GROUP,
    "input_activations": {
        "num_bits": 4,
        "type": "float",
        "symmetric": True,
        "group_size": 16,
        "strategy": "tensor_group",
        "dynamic": "local",
        "scale_dtype": "torch.float8_e4m3fn",
    },
}
FP8_KV_SCHEME = {"type": "float", "num_bits": 8, "dynamic": False}


@dataclass(frozen=True)
class ExcludeList:
    """Where one exclude list lives: ``configs[file][section][key]``."""

    file: str
    section: str
    key: str


def dialect(configs: dict[str, dict[str, Any]]) -> str | None:
    """``modelopt`` | ``compressed-tensors`` | ``quark`` | ``awq`` | ``gptq`` ... | None (no quantization config)."""
    qc = (configs.get(CONFIG) or {}).get("quantization_config")
    if isinstance(qc, dict) and qc.get("quant_method"):
        return str(qc["quant_method"]).lower()
    if configs.get(HF_QUANT):
        return "modelopt"
    return None


def exclude_lists(configs: dict[str, dict[str, Any]]) -> list[ExcludeList]:
    """Every exclude list the dialect uses, including ones that must be created (see the module table)."""
    d = dialect(configs)
    out: list[ExcludeList] = []
    if d is None:
        return out
    qc = configs.get(CONFIG, {}).get("quantization_config")
    if d == "quark":
        out.append(ExcludeList(CONFIG, "quantization_config", "exclude"))
    elif d == "compressed-tensors":
        out.append(ExcludeList(CONFIG, "quantization_config", "ignore"))
    elif d == "awq":
        out.append(ExcludeList(CONFIG, "quantization_config", "modules_to_not_convert"))
    elif d == "gptq":
        out.append(ExcludeList(CONFIG, "quantization_config", _DYNAMIC))
    elif d == "fp8":  # vLLM Fp8Config.from_config reads ``ignored_layers`` (module names)
        out.append(ExcludeList(CONFIG, "quantization_config", "ignored_layers"))
    elif d == "modelopt":
        if isinstance(qc, dict):
            key = "exclude_modules" if "exclude_modules" in qc and "ignore" not in qc else "ignore"
            out.append(ExcludeList(CONFIG, "quantization_config", key))
        if configs.get(HF_QUANT) is not None:
            out.append(ExcludeList(HF_QUANT, "quantization", "exclude_modules"))
    else:
        raise SurgeryError(
            "unsupported quantization dialect",
            found=d,
            expected="modelopt, compressed-tensors, quark, awq, gptq or fp8",
            fix="patch the config by hand",
        )
    return out


_DYNAMIC = "dynamic"


def _entries(configs: dict[str, dict[str, Any]], where: ExcludeList) -> list[str]:
    section = configs.get(where.file, {}).get(where.section) or {}
    value = section.get(where.key) or []
    if where.key == _DYNAMIC:  # GPTQModel: the "-:REGEX" keys, as re: entries
        return ["re:" + k[2:] for k in value if isinstance(k, str) and k.startswith("-:")]
    return list(value)


def _gptq_rule(entry: str) -> str:
    """A ``dynamic`` key that skips ``entry`` (an ``re:`` entry, or a module name matched with its fused spelling)."""
    if entry.startswith("re:"):
        return "-:" + entry[3:]
    parent, _, leaf = entry.rpartition(".")
    fused = FUSED_SPELLINGS.get(leaf)
    tail = f"(?:{re.escape(leaf)}|{re.escape(fused)})" if fused else re.escape(leaf)
    return "-:" + (re.escape(parent) + r"\." if parent else "") + tail + "$"


def entry_matches(entry: str, module: str, method: str = "modelopt") -> bool:
    """True when exclude entry ``entry`` of a ``method`` config covers ``module`` (see the module docstring)."""
    return entry_covers(entry, module, method)


def is_excluded(entries: list[str], module: str, method: str = "modelopt") -> bool:
    """True when any of ``entries`` covers ``module``."""
    return any(entry_matches(e, module, method) for e in entries)


def _set(configs: dict[str, dict[str, Any]], where: ExcludeList, entries: list[str]) -> None:
    section = configs.setdefault(where.file, {}).setdefault(where.section, {})
    if where.key == _DYNAMIC:  # keep the per-module overrides, rewrite the skip rules in entry order
        old = section.get(_DYNAMIC) if isinstance(section.get(_DYNAMIC), dict) else {}
        kept = {k: v for k, v in old.items() if not str(k).startswith("-:")}
        section[_DYNAMIC] = kept | {_gptq_rule(e): old.get(_gptq_rule(e), {}) for e in entries}
        return
    section[where.key] = entries


def add_exclusions(
    configs: dict[str, dict[str, Any]], modules: list[str], *, whole_prefix: str | None = None
) -> dict[str, dict[str, Any]]:
    """Append each module not yet covered to every exclude list (sorted, no duplicates); case C06.

    ``whole_prefix``: every linear under this prefix is unquantized; a compressed-tensors ``ignore`` then gains one
    :func:`prefix_pattern` entry instead of the names. Per-shard names leave an engine that does not map its fused
    modules (``qkv_proj``, ``gate_up_proj``) back to them building those quantized: SGLang ``qwen3_5_mtp.py``
    @008b79d2 passes no ``packed_modules_mapping`` for the MTP head and skips its BF16 weights (sgl-project/sglang
    issue #35797, fix PR #35887 open); a pattern covers the fused modules under any spelling. Other dialects keep
    names (their wildcard syntax differs per engine).

    Raises:
        SurgeryError: the checkpoint has no quantization config (nothing to exclude from).
    """
    lists = exclude_lists(configs)
    if not lists:
        raise SurgeryError(
            "no quantization config to exclude modules from",
            found="no quantization_config",
            expected="a quantized checkpoint",
            fix="nothing to patch: unquantized checkpoints load BF16",
        )
    out = copy.deepcopy(configs)
    method = dialect(out) or "modelopt"
    for where in lists:
        entries = _entries(out, where)
        missing = sorted(m for m in set(modules) if not is_excluded(entries, m, method))
        if missing and whole_prefix and method == "compressed-tensors":
            missing = [prefix_pattern(whole_prefix)]
        _set(out, where, entries + missing)
    return out


def remove_exclusions(
    configs: dict[str, dict[str, Any]], modules: list[str], still_unquantized: list[str]
) -> dict[str, dict[str, Any]]:
    """Drop every exclude entry that covers one of ``modules``; linears in ``still_unquantized`` that a dropped
    entry covered are re-added by name so they stay excluded (a glob such as ``mtp*`` or a compressed-tensors
    ``re:^mtp[.].*`` is split up into the names it still has to cover)."""
    out = copy.deepcopy(configs)
    method = dialect(out) or "modelopt"
    for where in exclude_lists(out):
        entries = _entries(out, where)
        dropped = [e for e in entries if any(entry_matches(e, m, method) for m in modules)]
        kept = [e for e in entries if e not in dropped]
        readd = sorted(
            m for m in still_unquantized if is_excluded(dropped, m, method) and not is_excluded(kept, m, method)
        )
        _set(out, where, kept + readd)
    return out


def declare_nvfp4(
    configs: dict[str, dict[str, Any]],
    modules: list[str],
    existing: list[str],
    w4a4: set[str] | frozenset[str] = frozenset(),
) -> dict[str, dict[str, Any]]:
    """Declare ``modules`` NVFP4 (group 16) in every config that describes per-module schemes: W4A4 (activation
    scales written) for those in ``w4a4``, W4A16 for the rest.

    * ModelOpt ``MIXED_PRECISION``: ``quantized_layers[m] = {"quant_algo": "NVFP4" | "W4A16_NVFP4", "group_size":
      16}`` in both files (seed 004: vLLM prefers config.json; both must declare the layers).
    * ModelOpt uniform ``NVFP4`` (W4A4) or ``W4A16_NVFP4``: leaving the exclude list is enough when every new module
      has that algorithm; otherwise converted to ``MIXED_PRECISION``, whose ``quantized_layers`` lists the
      checkpoint's ``existing`` quantized modules with the uniform algorithm plus the new ones.
    * compressed-tensors: config groups ``specscope_w4a4_nvfp4`` (weights + dynamic per-block FP4 input activations
      with a stored global scale) and ``specscope_w4a16_nvfp4`` targeting the modules by name.

    Raises:
        SurgeryError: a dialect or ModelOpt algorithm this cannot express (nothing is written).
    """
    out = copy.deepcopy(configs)
    d = dialect(out)
    algo_of = {m: ("NVFP4" if m in w4a4 else "W4A16_NVFP4") for m in modules}
    if d == "compressed-tensors":
        groups = out[CONFIG]["quantization_config"].setdefault("config_groups", {})
        for name, spec, members in (
            ("specscope_w4a4_nvfp4", CT_W4A4_GROUP, sorted(m for m in modules if m in w4a4)),
            ("specscope_w4a16_nvfp4", CT_W4A16_GROUP, sorted(m for m in modules if m not in w4a4)),
        ):
            if members:
                groups[name] = {"targets": members, **copy.deepcopy(spec)}
        return out
    if d != "modelopt":
        raise SurgeryError(
            "NVFP4 declaration needs a ModelOpt or compressed-tensors checkpoint",
            found=d,
            expected="modelopt | compressed-tensors",
            fix="quantize with --layout matching the target",
        )
    for file, section in ((CONFIG, "quantization_config"), (HF_QUANT, "quantization")):
        q = (out.get(file) or {}).get(section)
        if not isinstance(q, dict):
            continue
        algo = q.get("quant_algo")
        if algo in ("NVFP4", "W4A16_NVFP4"):
            if all(a == algo for a in algo_of.values()):
                continue
            q["quant_algo"] = "MIXED_PRECISION"
            q["quantized_layers"] = {m: {"quant_algo": algo, "group_size": 16} for m in sorted(existing)}
            algo = "MIXED_PRECISION"
        if algo != "MIXED_PRECISION":
            raise SurgeryError(
                f"{file}: ModelOpt quant_algo cannot host NVFP4 modules",
                found=algo,
                expected="NVFP4, W4A16_NVFP4 or MIXED_PRECISION",
                fix="patch the config by hand",
            )
        layers = q.setdefault("quantized_layers", {})
        for m in sorted(modules):
            layers[m] = {"quant_algo": algo_of[m], "group_size": 16}
    return out


def sync_configs(
    configs: dict[str, dict[str, Any]],
    *,
    kv_scales_present: bool,
    unquantized_linears: set[str],
    quantized_linears: set[str],
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Make ``config.json`` and ``hf_quant_config.json`` of a ModelOpt checkpoint agree; the tensors decide (C11).

    Args:
        kv_scales_present: any ``*.k_scale`` / ``*.v_scale`` tensor exists (backs an FP8 KV-cache claim).
        unquantized_linears / quantized_linears: module names of 2-D weights without / with ``weight_scale``.

    Returns:
        ``(new_configs, actions)``: one human-readable line per change.

    Raises:
        SurgeryError: not a ModelOpt checkpoint with both files, or an exclusion the tensors do not settle.
    """
    kind = dialect(configs)
    present = sorted(k for k, v in configs.items() if v)
    if kind != "modelopt" or configs.get(HF_QUANT) is None or configs.get(CONFIG) is None:
        both = configs.get(HF_QUANT) is not None and configs.get(CONFIG) is not None
        raise SurgeryError(
            "--sync needs a ModelOpt checkpoint with both config files",
            found=(
                f"{CONFIG} declares quant_method {kind!r} (not ModelOpt) beside {HF_QUANT}"
                if both
                else f"files {', '.join(present) or 'none'} (dialect {kind or 'none'})"
            ),
            expected=f"a ModelOpt checkpoint: {CONFIG} and {HF_QUANT} both present, no other quant_method",
            fix="only ModelOpt keeps two copies of the quantization config"
            + (f"; remove the stray {HF_QUANT} if the checkpoint is {kind}" if both else ""),
        )
    out = copy.deepcopy(configs)
    actions: list[str] = []
    hq = out[HF_QUANT].setdefault("quantization", {})
    qc = out[CONFIG].setdefault("quantization_config", {})
    hf_kv = hq.get("kv_cache_quant_algo")
    cfg_kv = qc.get("kv_cache_scheme")
    if (hf_kv is not None) != (cfg_kv is not None):
        if kv_scales_present:
            if cfg_kv is None:
                qc["kv_cache_scheme"] = dict(FP8_KV_SCHEME)
                actions.append(f"{CONFIG}: add kv_cache_scheme FP8 (k/v scales present; {HF_QUANT} says {hf_kv})")
            else:
                hq["kv_cache_quant_algo"] = "FP8"
                actions.append(f"{HF_QUANT}: kv_cache_quant_algo FP8 (k/v scales present)")
        else:
            if hf_kv is not None:
                hq["kv_cache_quant_algo"] = None
                actions.append(f"{HF_QUANT}: kv_cache_quant_algo null (no k/v scale tensors)")
            else:
                qc.pop("kv_cache_scheme", None)
                actions.append(f"{CONFIG}: drop kv_cache_scheme (no k/v scale tensors)")
    lists = {w.file: w for w in exclude_lists(out)}
    a, b = lists[CONFIG], lists[HF_QUANT]
    ea, eb = _entries(out, a), _entries(out, b)
    for entry, has, lacks in [(e, a, b) for e in ea if e not in eb] + [(e, b, a) for e in eb if e not in ea]:
        unq = {m for m in unquantized_linears if entry_matches(entry, m)}
        qua = {m for m in quantized_linears if entry_matches(entry, m)}
        if unq and not qua:
            _set(out, lacks, _entries(out, lacks) + [entry])
            actions.append(f"{lacks.file}: exclude {entry!r} ({len(unq)} matching linears are unquantized)")
        elif qua and not unq:
            _set(out, has, [e for e in _entries(out, has) if e != entry])
            actions.append(f"{has.file}: drop exclusion {entry!r} ({len(qua)} matching linears are quantized)")
        else:
            raise SurgeryError(
                f"exclude entry {entry!r} is in {has.file} only and the tensors do not settle it",
                found=f"{len(unq)} unquantized, {len(qua)} quantized matching linears",
                expected="all matching linears on one side",
                fix="edit the exclude lists by hand",
            )
    return out, actions


def render_json(obj: dict[str, Any], indent: int = 2) -> str:
    """The text a patched JSON file is written as (``indent`` spaces, trailing newline, key order kept)."""
    return json.dumps(obj, indent=indent, ensure_ascii=False) + "\n"


def config_diff(name: str, before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    """A unified diff of the JSON texts of ``before`` and ``after`` (empty string when equal)."""
    a = render_json(before).splitlines(keepends=True) if before is not None else []
    b = render_json(after).splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=f"a/{name}", tofile=f"b/{name}"))

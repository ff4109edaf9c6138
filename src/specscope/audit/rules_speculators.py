"""Drafts in the speculators format (``speculators_model_type`` in config.json): the structure vLLM requires, the
number of speculative tokens and the target ("verifier") the draft was trained for.

Source: vllm-project/vllm ``vllm/transformers_utils/configs/speculators/base.py`` @052316ae:
``validate_speculators_config`` raises ``ValueError("Invalid speculators config structure")`` unless
``speculators_config.proposal_methods[0].speculative_tokens``, ``speculators_config.verifier.name_or_path`` and
``speculators_model_type`` are present, and ``"Must provide transformer_layer_config"`` /
``"'transformer_layer_config' must be a dictionary if provided"`` for the network config;
``build_vllm_speculative_config`` takes ``num_speculative_tokens`` from the first proposal method. The network's
shapes are read from ``transformer_layer_config`` (:func:`specscope.checkpoint.index.network_config`).

Which methods vLLM loads: ``base.py`` @052316ae ``extract_transformers_pre_trained_config`` raises
``ValueError("Expected one of: ...")`` for a ``speculators_model_type`` its registry lacks, and the registry
(``vllm/transformers_utils/configs/speculators/algos.py``, ``@register_speculator``) registers ``eagle3`` (@cfb173ab),
then ``peagle``, ``dflash``, ``medusa`` and ``dspark`` (a later stored copy whose commit the index did not give); no
stored version registers ``eagle``. The speculators format's EAGLE-1 / HASS drafts (``speculators_model_type: eagle``,
``fusion_fc`` / ``transformer.*`` / ``embedding_layernorm`` / ``pre_lm_head_layernorm``; vllm-project/speculators
``convert/eagle/eagle_converter.py`` @792b9e6c^) were read only by the earlier class-based loader
(``configs/speculators/eagle.py`` @2748f013, architectures ``EAGLEModel``, ``layernorms`` -> ``add_para_norm``), whose
``llama_eagle.py`` @00da9231 renamed ``fusion_fc`` and ``pre_lm_head_layernorm`` and skipped ``transformer.*``.
"""

from __future__ import annotations

from typing import Any

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding

__all__ = ["check_speculators", "speculators_facts", "check_verifier", "REGISTERED_METHODS"]

#: the speculators methods vLLM's registry loads, algos.py (see the module docstring)
REGISTERED_METHODS = ("eagle3", "peagle", "dflash", "medusa", "dspark")

_REQUIRED = (
    ("speculators_config", "proposal_methods", 0, "speculative_tokens"),
    ("speculators_config", "verifier", "name_or_path"),
)


def _get(cfg: object, path: tuple[str | int, ...]) -> object:
    cur = cfg
    for step in path:
        if isinstance(step, int):
            if not isinstance(cur, list) or len(cur) <= step:
                return None
            cur = cur[step]
        else:
            if not isinstance(cur, dict) or step not in cur:
                return None
            cur = cur[step]
    return cur


def _path(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))


def speculators_facts(cfg: dict[str, Any] | None) -> dict[str, Any]:
    """``{method, num_speculative_tokens, verifier, verifier_architectures}`` of a speculators-format config (values
    as stored, None when absent), or ``{}`` for another format."""
    if not cfg or "speculators_model_type" not in cfg:
        return {}
    archs = _get(cfg, ("speculators_config", "verifier", "architectures"))
    return {
        "format": "speculators",
        "method": cfg.get("speculators_model_type"),
        "num_speculative_tokens": _get(cfg, _REQUIRED[0]),
        "verifier": _get(cfg, _REQUIRED[1]),
        "verifier_architectures": [str(a) for a in archs] if isinstance(archs, list) else None,
    }


def check_speculators(cfg: dict[str, Any] | None) -> list[Finding]:
    """``DRAFT_SPECULATORS_CONFIG_INVALID`` (ERROR): a speculators-format config vLLM refuses to load (see the
    module docstring), naming each missing key; ``/eagle``: an EAGLE-1 / HASS draft, a method vLLM's registry
    lacks."""
    if not cfg or "speculators_model_type" not in cfg:
        return []
    out: list[Finding] = []
    if cfg.get("speculators_model_type") == "eagle":
        out.append(
            finding(
                "DRAFT_SPECULATORS_CONFIG_INVALID/eagle",
                file="config.json",
                methods=", ".join(REGISTERED_METHODS),
                details={"speculators_model_type": "eagle", "registered_methods": list(REGISTERED_METHODS)},
            )
        )
    missing = [_path(p) for p in _REQUIRED if _get(cfg, p) is None]
    tlc = cfg.get("transformer_layer_config")
    if not isinstance(tlc, dict):
        missing.append("transformer_layer_config" + (" (not a dictionary)" if tlc is not None else ""))
    if missing:
        out.append(
            finding(
                "DRAFT_SPECULATORS_CONFIG_INVALID",
                file="config.json",
                missing=", ".join(missing),
                details={"missing": missing},
            )
        )
    return out


def check_verifier(draft_cfg: dict[str, Any] | None, target_cfg: dict[str, Any] | None) -> list[Finding]:
    """``DRAFT_VERIFIER_DIFFERS`` (WARNING): the speculators config names the verifier's architectures and none of
    them is the target's: the draft was trained on another model's hidden states."""
    facts = speculators_facts(draft_cfg)
    want = facts.get("verifier_architectures")
    have = (target_cfg or {}).get("architectures")
    if not want or not isinstance(have, list) or not have or set(want) & {str(a) for a in have}:
        return []
    return [
        finding(
            "DRAFT_VERIFIER_DIFFERS",
            file="config.json",
            verifier=str(facts.get("verifier")),
            want=", ".join(want),
            have=", ".join(str(a) for a in have),
            details={"verifier": facts.get("verifier"), "verifier_architectures": want, "target_architectures": have},
        )
    ]

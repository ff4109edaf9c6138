"""What a config's server facts say about its speculation: the method and the draft length k.

Read from the run's stored server facts (``Run.server_facts``: the vLLM recipe, the facts parsed from a vLLM log,
the embedded engine's config), so that the report, ``advise`` and the judgement's ``not_engaged`` rule
(:mod:`specscope.stats.judgement`) agree on which configs speculate.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["NO_SPECULATION", "spec_method", "spec_k", "speculative_method", "method_from_name", "methods_of"]

#: method names that mean "no speculation" (the recipes' ``method = "base"``).
NO_SPECULATION = frozenset({"base", "none", ""})


def spec_method(config: str, facts: Mapping[str, Any]) -> str | None:
    """The speculative method a config ran (``mtp``, ``eagle3``, ``dflash``, ``draft``, ``ngram``...), or None.

    Sources, first found: the vLLM recipe's ``method``; the ``speculative_config.method`` parsed from the
    vLLM log; the embedded engine's ``config.spec_types`` (``draft`` when it loaded a draft model);
    else None (an external server: the caller may fall back to the config name).
    """
    recipe = facts.get("recipe")
    if isinstance(recipe, Mapping) and recipe.get("method"):
        return str(recipe["method"])
    logs = facts.get("log_facts")
    spec = logs.get("speculative_config") if isinstance(logs, Mapping) else None
    if isinstance(spec, Mapping) and spec.get("method"):
        return str(spec["method"])
    if isinstance(facts.get("draft"), Mapping):
        return "draft"
    cfg = facts.get("config")
    if isinstance(cfg, Mapping) and cfg.get("spec_types"):
        types = cfg["spec_types"]
        return ",".join(map(str, types)) if isinstance(types, list | tuple) else str(types)
    return None


def spec_k(config: str, facts: Mapping[str, Any]) -> int | None:
    """Draft tokens per step (k) of a config, or None when nothing says.

    Sources, first found: the vLLM recipe's ``num_speculative_tokens``; the one parsed from the vLLM log's
    speculative config; a top-level ``k``,
    ``num_speculative_tokens`` or ``draft_max``; the embedded engine's ``config.draft_n_max_tokens``
    (llama.cpp ``--spec-draft-n-max``) when it drafts; a config name ending in ``k<digits>``.
    """
    recipe = facts.get("recipe")
    if isinstance(recipe, Mapping) and recipe.get("num_speculative_tokens") is not None:
        return int(recipe["num_speculative_tokens"])
    logs = facts.get("log_facts")
    spec = logs.get("speculative_config") if isinstance(logs, Mapping) else None
    if isinstance(spec, Mapping) and spec.get("num_speculative_tokens") is not None:
        return int(spec["num_speculative_tokens"])
    for key in ("k", "num_speculative_tokens", "draft_max"):
        if facts.get(key) is not None:
            return int(facts[key])
    cfg = facts.get("config")
    if isinstance(cfg, Mapping) and cfg.get("spec_types") and cfg.get("draft_n_max_tokens") is not None:
        return int(cfg["draft_n_max_tokens"])
    m = re.search(r"k(\d+)$", config)
    return int(m.group(1)) if m else None


def speculative_method(config: str, facts: Mapping[str, Any]) -> str | None:
    """The method a config speculates with, None when its facts say it does not (no method, or ``base``)."""
    method = spec_method(config, facts)
    return None if method is None or method.lower() in NO_SPECULATION else method


#: words in a config's name that name a speculative method (an external server is known only by its name)
_METHOD_NAME = re.compile(r"mtp|eagle|dflash|draft|medusa|ngram|suffix|lookahead|spec", re.IGNORECASE)


def method_from_name(config: str) -> str | None:
    """The speculative method a config's name names (``mtp3`` -> ``mtp``), None when it names none."""
    m = _METHOD_NAME.search(config)
    return m.group(0).lower() if m else None


def methods_of(facts: Mapping[str, Mapping[str, Any]]) -> dict[str, str | None]:
    """config -> its speculative method (None: the facts say it does not speculate), for every config whose facts
    tell: a recipe, a vLLM log's speculative config, the embedded engine's ``spec_types``. A server specscope did not
    start (``kind`` external) says nothing about it and is left out: unknown."""
    out: dict[str, str | None] = {}
    for c, f in facts.items():
        if not isinstance(f, Mapping):
            continue
        cfg = f.get("config")
        says = spec_method(c, f) is not None or isinstance(f.get("recipe"), Mapping)
        if says or (isinstance(cfg, Mapping) and "spec_types" in cfg):
            out[c] = speculative_method(c, f)
    return out

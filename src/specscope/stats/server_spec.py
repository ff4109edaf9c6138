"""What a config's server facts say about its speculation: the method and the draft length k.

Read from the run's stored server facts (``Run.server_facts``) by the engine adapters
(:mod:`specscope.adapters.facts`: each engine's shapes in its own ``facts`` module), so that the report,
``advise`` and the judgement's ``not_engaged`` rule (:mod:`specscope.stats.judgement`) agree on which configs
speculate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from specscope.adapters.facts import ServerSpec, server_spec
from specscope.facts import LogPoolFacts, RunFacts, ServerFacts
from specscope.kaxis import is_draft_length, split_k_name

__all__ = [
    "NO_SPECULATION",
    "draft_passes_per_step",
    "spec_method",
    "spec_k",
    "run_k",
    "speculative_method",
    "method_from_name",
    "methods_of",
    "served_model",
]

#: method names that mean "no speculation" (the recipes' ``method = "base"``).
NO_SPECULATION = frozenset({"base", "none", ""})


def _spec(facts: ServerFacts) -> ServerSpec:
    """What the engine adapters read of the stored facts, in their own shapes."""
    return server_spec(facts.stored)


def spec_method(config: str, facts: ServerFacts) -> str | None:
    """The speculative method a config ran (``mtp``, ``eagle3``, ``dflash``, ``draft``, ``ngram``...), or None.

    Read by the engine adapters from the shapes they know (:func:`specscope.adapters.facts.server_spec`: a launch
    recipe, a start-up log's speculative config, the embedded engine's config); else None (an external server: the
    caller may fall back to the config name).
    """
    return _spec(facts).method


def spec_k(config: str, facts: ServerFacts) -> int | None:
    """Draft tokens per step (k) of a config, or None when nothing says.

    Sources, first found: the engine adapters (:func:`specscope.adapters.facts.server_spec`); a top-level ``k``,
    ``num_speculative_tokens`` or ``draft_max``; the config name's ``-kK`` (:func:`specscope.kaxis.split_k_name`,
    the one reading ``bench --k``, the engine and ``import`` share). A stated k outside 0..K_MAX is no draft length
    (:func:`specscope.kaxis.is_draft_length`) and the next source is asked.
    """
    for k in (_spec(facts).k, facts.stated_k):
        if is_draft_length(k, 0):
            return k
    return split_k_name(config)[1]


def run_k(config: str, facts: ServerFacts, draftings: Iterable[Mapping[str, Any] | None]) -> tuple[int | None, str]:
    """A config's k and where it came from: :func:`spec_k` (``"server facts"``), else the one per-step bound its
    responses stated (``"responses"``: a cell's ``drafting["configured_k"]``, vLLM / TRT-LLM ``num_spec_tokens``,
    when every cell that states one states the same); ``(None, "unknown")`` otherwise."""
    k = spec_k(config, facts)
    if k is not None:
        return k, "server facts"
    stated = {d.get("configured_k") for d in draftings if d and d.get("configured_k") is not None}
    (one,) = stated if len(stated) == 1 else (None,)
    return (one, "responses") if is_draft_length(one) else (None, "unknown")


def speculative_method(config: str, facts: ServerFacts) -> str | None:
    """The method a config speculates with, None when its facts say it does not (no method, or ``base``)."""
    method = spec_method(config, facts)
    return None if method is None or method.lower() in NO_SPECULATION else method


#: words in a config's name that name a speculative method (an external server is known only by its name)
_METHOD_NAME = re.compile(r"mtp|eagle|dflash|draft|medusa|ngram|suffix|lookahead|spec", re.IGNORECASE)


def method_from_name(config: str) -> str | None:
    """The speculative method a config's name names (``mtp3`` -> ``mtp``), None when it names none."""
    m = _METHOD_NAME.search(config)
    return m.group(0).lower() if m else None


def methods_of(facts: RunFacts) -> dict[str, str | None]:
    """config -> its speculative method (None: the facts say it does not speculate), for every config whose facts
    tell (:attr:`specscope.adapters.facts.ServerSpec.stated`). A server specscope did not start (``kind`` external)
    says nothing about it and is left out: unknown."""
    out: dict[str, str | None] = {}
    for c, f in facts.items():
        if _spec(f).stated:
            out[c] = speculative_method(c, f)
    return out


def log_pools_of(facts: RunFacts) -> dict[str, tuple[LogPoolFacts, ...]]:
    """config -> its stored server-log pools (``log_pools``, ``bench --server-log``), for every config that has any."""
    return {c: f.log_pools for c, f in facts.items() if f.log_pools}


def draft_passes_per_step(facts: ServerFacts) -> float:
    """Draft-model forward passes per verify step that do not grow with k (passes; q of
    :mod:`specscope.stats.predict`), as the engine adapters read them
    (:attr:`specscope.adapters.facts.ServerSpec.draft_passes_per_step`: 1 for a llama.cpp draft model, whose draft
    mirrors the verify batch in a pass of its own; 0 when no adapter says: n-gram drafting reads no weights, and
    vLLM's MTP head consumes the verified tokens in its first drafting pass)."""
    return _spec(facts).draft_passes_per_step


def served_model(facts: ServerFacts, which: Literal["model", "draft"] = "model") -> str | None:
    """The model a server said it served (``which`` "model"; "draft" for the draft model it loaded): the name of the
    embedded engine's ``{"name", "path", ...}`` record, or the id an OpenAI-compatible server gave; None when the
    facts do not say."""
    named = facts.model if which == "model" else facts.draft
    return named.name if named is not None and named.name else None

"""llama.cpp's server facts: as specscope's embedded engine (xllamacpp) stores them, ``draft`` (a draft model it
derived and loaded), ``config.spec_types`` (llama-server's ``--spec-type`` list: ``ngram-mod`` ...) and
``config.draft_n_max_tokens`` (``--spec-draft-n-max``, the draft model's k) and
``config.ngram_mod_n_max_tokens`` (``--spec-ngram-mod-n-max``, ngram-mod's k; None: llama.cpp's default
:data:`NGRAM_MOD_N_MAX_DEFAULT`); and for a llama-server specscope did not start, its ``GET /slots``
(:data:`FACTS_PATH`, read by :func:`read_facts_endpoint` with
:func:`specscope.adapters.llamacpp.slots.slots_spec_config`): every slot's ``params["speculative.n_max"]``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.adapters.llamacpp.slots import slots_spec_config

__all__ = [
    "NGRAM_MOD_N_MAX_DEFAULT",
    "DRAFT_SIMPLE_PASSES_PER_STEP",
    "draft_passes_per_step",
    "FACTS_PATH",
    "read_facts_endpoint",
    "spec_k",
    "spec_method",
    "states_speculation",
]

#: the server-facts endpoint a llama-server answers (tools/server/server.cpp, b9251; on by default, ``--no-slots``)
FACTS_PATH = "/slots"

#: ngram-mod's ``n_max`` when ``--spec-ngram-mod-n-max`` is not given (common/common.h
#: ``common_params_speculative_ngram_mod``, read from the xllamacpp 2026.10 build: n_match 24, n_min 48, n_max 64)
NGRAM_MOD_N_MAX_DEFAULT = 64

#: draft-model forward passes per verify step that do not grow with k, for ``draft-simple``: its draft mirrors every
#: target batch (the verify batch) in one pass of its own (common/speculative.cpp, ``process()``), then drafts from
#: the target's sampled token, one pass for it and one per drafted token but the last (``draft()``): k + 1 passes per
#: step. The xllamacpp 2026.10 build carries that code (its strings hold ``process()``'s messages, "failed to decode
#: draft batch", and not the older catch-up's).
DRAFT_SIMPLE_PASSES_PER_STEP = 1.0


def read_facts_endpoint(body: Any) -> dict[str, Any]:
    """What ``GET /slots`` says of speculation (:func:`specscope.adapters.llamacpp.slots.slots_spec_config`)."""
    return slots_spec_config(body)


def _slots_k(facts: Mapping[str, Any]) -> int | None:
    """The one ``speculative.n_max`` every slot of ``/slots`` states (> 0), else None."""
    endpoints = facts.get("endpoints")
    slots = endpoints.get(FACTS_PATH) if isinstance(endpoints, Mapping) else None
    values = set(slots.get("n_max") or []) if isinstance(slots, Mapping) else set()
    (k,) = values if len(values) == 1 else (None,)
    return k if isinstance(k, int) and k > 0 else None


def spec_method(facts: Mapping[str, Any]) -> str | None:
    """``draft`` when a draft model was loaded, else the configured spec types joined by commas; None otherwise."""
    if isinstance(facts.get("draft"), Mapping):
        return "draft"
    cfg = facts.get("config")
    if isinstance(cfg, Mapping) and cfg.get("spec_types"):
        types = cfg["spec_types"]
        return ",".join(map(str, types)) if isinstance(types, list | tuple) else str(types)
    return None


def _embedded_k(cfg: Mapping[str, Any]) -> int | None:
    """The most tokens one step of the embedded engine's drafters drafts: ``draft-simple``'s
    ``draft_n_max_tokens``, ``ngram-mod``'s ``ngram_mod_n_max_tokens`` (its default when unset), the larger when
    both draft; None when a spec type's length is not one specscope sets (``ngram-simple``, ``ngram-map-k`` ...)."""
    types = cfg.get("spec_types")
    types = set(map(str, types)) if isinstance(types, list | tuple) else {str(types)}
    ks = []
    if "draft-simple" in types:
        types.discard("draft-simple")
        if cfg.get("draft_n_max_tokens") is None:
            return None
        ks.append(int(cfg["draft_n_max_tokens"]))
    if "ngram-mod" in types:
        types.discard("ngram-mod")
        n_max = cfg.get("ngram_mod_n_max_tokens")
        ks.append(NGRAM_MOD_N_MAX_DEFAULT if n_max is None else int(n_max))
    return max(ks) if ks and not types else None


def spec_k(facts: Mapping[str, Any]) -> int | None:
    """When the embedded engine drafts (``spec_types`` set), the most tokens a step drafts (:func:`_embedded_k`:
    ngram-mod's own ``n_max``, not the draft model's); else the one ``speculative.n_max`` every slot of ``/slots``
    states; None otherwise."""
    cfg = facts.get("config")
    if isinstance(cfg, Mapping) and cfg.get("spec_types"):
        return _embedded_k(cfg)
    return _slots_k(facts)


def states_speculation(facts: Mapping[str, Any]) -> bool:
    """Whether the facts tell if the server speculates: the embedded engine's config lists its spec types (empty:
    it does not)."""
    cfg = facts.get("config")
    return isinstance(cfg, Mapping) and "spec_types" in cfg


def draft_passes_per_step(facts: Mapping[str, Any]) -> float | None:
    """:data:`DRAFT_SIMPLE_PASSES_PER_STEP` when a draft model was loaded (:func:`spec_method` says ``draft``: the
    ``draft-simple`` drafter); None otherwise (n-gram drafting reads no weights)."""
    return DRAFT_SIMPLE_PASSES_PER_STEP if spec_method(facts) == "draft" else None

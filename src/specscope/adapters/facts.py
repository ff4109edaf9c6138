"""Server facts: what a config's stored facts (``Run.server_facts``) say about its speculation, read by each engine's
adapter (``specscope.adapters.<engine>.facts``: ``spec_method(facts)`` / ``spec_k(facts)``, None when its shapes are
not there) into one engine-neutral record. Adapters are asked in registry order; the first that answers wins."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from specscope.adapters.registry import engine_modules

__all__ = ["ServerSpec", "facts_endpoints", "server_spec"]


@dataclass(frozen=True)
class ServerSpec:
    """The speculation a server's facts state.

    Attributes:
        method: the speculative method as the engine names it (``mtp``, ``eagle3``, ``draft``, ``ngram``, ``base``...),
            None when no adapter's shapes say.
        k: draft tokens per verify step (tokens), None when no adapter's shapes say.
        method_from: the engine whose adapter read the method (None with no method).
        k_from: the engine whose adapter read k (None with no k).
        stated: an adapter's shapes are there, so the facts tell whether the server speculates (a launch recipe, the
            embedded engine's config with its spec types), even when they say it does not (no method, ``base``).
        draft_passes_per_step: draft-model forward passes per verify step that do not grow with k (passes; an
            adapter's ``draft_passes_per_step(facts)``, 0 when none says: a drafter whose first pass consumes the
            verified tokens runs k passes for k tokens). Used by :mod:`specscope.stats.predict`.
    """

    method: str | None = None
    k: int | None = None
    method_from: str | None = None
    k_from: str | None = None
    stated: bool = False
    draft_passes_per_step: float = 0.0


@cache
def _fact_modules() -> tuple[tuple[str, ModuleType], ...]:
    return tuple(engine_modules("facts"))


def _first(name: str, facts: Mapping[str, Any]) -> tuple[Any, str | None]:
    for engine, mod in _fact_modules():
        read: Callable[[Mapping[str, Any]], Any] | None = getattr(mod, name, None)
        value = read(facts) if read is not None else None
        if value is not None:
            return value, engine
    return None, None


def server_spec(facts: Mapping[str, Any]) -> ServerSpec:
    """The speculation ``facts`` state, read by the adapters (module doc)."""
    method, method_from = _first("spec_method", facts)
    k, k_from = _first("spec_k", facts)
    stated = method is not None or any(mod.states_speculation(facts) for _e, mod in _fact_modules())
    passes, _ = _first("draft_passes_per_step", facts)
    return ServerSpec(method, k, method_from, k_from, stated, float(passes or 0.0))


def facts_endpoints() -> tuple[tuple[str, Callable[[Any], dict[str, Any]]], ...]:
    """``(path, reader)`` of every adapter's server-facts endpoint (``FACTS_PATH`` / ``read_facts_endpoint``): a
    server specscope did not start is asked each path once at its check; what a reader makes of a 200 JSON answer is
    stored under the server facts' ``endpoints[path]``, where that adapter's ``spec_method`` / ``spec_k`` read it."""
    return tuple((mod.FACTS_PATH, mod.read_facts_endpoint) for _e, mod in _fact_modules() if hasattr(mod, "FACTS_PATH"))

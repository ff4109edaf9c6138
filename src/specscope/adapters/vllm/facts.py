"""vLLM's server facts as specscope stores them: the launch recipe (``recipe.method``,
``recipe.num_speculative_tokens``: specscope's recipes file for ``--engine vllm``) and the speculative config parsed
from its start-up log (``log_facts.speculative_config.method`` / ``.num_speculative_tokens``: the engine's
``SpeculativeConfig(...)`` line, vllm/config/speculative.py ``__repr__``), and the ``speculative_config`` an imported
file recorded as the server's (``speculative_config.method`` / ``.num_speculative_tokens``: a ``vllm bench sweep
serve`` run's ``--speculative-config`` override, :mod:`specscope.importers.vllm_serve`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["spec_k", "spec_method", "states_speculation"]


def _log_spec(facts: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The log's speculative config, else the one an imported file recorded; None when neither is there."""
    logs = facts.get("log_facts")
    spec = logs.get("speculative_config") if isinstance(logs, Mapping) else None
    if not isinstance(spec, Mapping):
        spec = facts.get("speculative_config")
    return spec if isinstance(spec, Mapping) else None


def spec_method(facts: Mapping[str, Any]) -> str | None:
    """The recipe's ``method``, else the log's (or the imported) speculative config's; None
    when neither is there."""
    recipe = facts.get("recipe")
    if isinstance(recipe, Mapping) and recipe.get("method"):
        return str(recipe["method"])
    spec = _log_spec(facts)
    return str(spec["method"]) if spec is not None and spec.get("method") else None


def spec_k(facts: Mapping[str, Any]) -> int | None:
    """The recipe's ``num_speculative_tokens``, else the log's (or the imported) speculative config's; None
    when neither is there."""
    recipe = facts.get("recipe")
    if isinstance(recipe, Mapping) and recipe.get("num_speculative_tokens") is not None:
        return int(recipe["num_speculative_tokens"])
    spec = _log_spec(facts)
    if spec is not None and spec.get("num_speculative_tokens") is not None:
        return int(spec["num_speculative_tokens"])
    return None


def states_speculation(facts: Mapping[str, Any]) -> bool:
    """Whether the facts tell if the server speculates: a launch recipe is there (``method = "base"``: it does not)."""
    return isinstance(facts.get("recipe"), Mapping)

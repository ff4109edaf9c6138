"""Pre-flight for launched recipes: audit every recipe's model and draft before any server starts.

Used by ``bench --launch vllm`` and ``gate --launch vllm`` (``serve`` calls the same audit for its one recipe).
The audit itself is :func:`specscope.audit.preflight.require_preflight` (headers only, local or hub).
"""

from __future__ import annotations

from collections.abc import Iterable

from specscope.audit.preflight import require_preflight
from specscope.launch.recipes import load_recipes
from specscope.targets.plan import TargetPlan

__all__ = ["preflight_plan"]


def preflight_plan(plan: TargetPlan, names: Iterable[str], *, skip: bool) -> dict[str, dict[str, object]]:
    """Audit each recipe of a ``vllm`` plan; ``{}`` for other kinds (nothing is launched from a recipe).

    Returns:
        config name -> what the run records (``{"status": "passed" | "not needed" | "skipped (--no-preflight)"}``).

    Raises:
        PreflightRefused: (exit 2) a recipe would speculate on a missing, unindexed, un-excluded or malformed
            head; nothing has started. ConfigError: an unknown recipe.
    """
    if plan.kind != "vllm":
        return {}
    book = load_recipes(plan.recipes)
    out: dict[str, dict[str, object]] = {}
    for name in names:
        recipe = book.get(name)  # an unknown recipe fails before anything starts
        if skip:
            out[name] = {"status": "skipped (--no-preflight)", "method": recipe.method, "model": recipe.model}
        else:
            out[name] = require_preflight(recipe.model, recipe.draft_model, recipe.method, recipe=name).describe()
    return out

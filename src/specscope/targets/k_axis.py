"""Expand a :class:`~specscope.targets.plan.TargetPlan` along the k axis (``--k 1,2,4``, issue 16).

Each speculative config of the plan (embedded: a config with speculative types; vLLM: a recipe whose method
is not ``base``) becomes one config per draft length k, named ``NAME-kK``; the baseline stays one config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from specscope.engine import get_config
from specscope.errors import ConfigError
from specscope.kaxis import expand_k, parse_k_list
from specscope.launch.recipes import load_recipes
from specscope.targets.plan import TargetPlan

__all__ = ["expand_plan_k"]


def expand_plan_k(plan: TargetPlan, k: str | None, default: Iterable[str]) -> TargetPlan:
    """``plan`` with every speculative config expanded per k of ``k`` (``"1,2,4"``); ``k`` None: unchanged.

    Args:
        plan: the parsed targets. k: the ``--k`` text. default: the command's configs when ``plan`` names none.

    Raises:
        ConfigError: a bad ``--k``, ``--k`` with ``--server`` (a running server's draft length is fixed), or
            an unknown config name.
    """
    ks = parse_k_list(k)
    if not ks:
        return plan
    if plan.kind == "external":
        raise ConfigError(
            "--k cannot change the draft length of a server you started",
            found=f"--k {k} with --server",
            expected="--k with the embedded engine or --launch vllm",
            fix="start one server per k and pass each as --server NAME-kK=URL",
        )
    names = plan.names(default)
    if plan.kind == "vllm":
        book = load_recipes(plan.recipes)
        configs = expand_k(names, ks, lambda n: book.get(n).method != "base")
    else:
        configs = expand_k(names, ks, lambda n: bool(get_config(n).spec_types))
    return dataclasses.replace(plan, configs=configs)

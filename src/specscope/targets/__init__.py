"""specscope.targets: who serves the configs of a run — one parser and one way to start each kind.

- :mod:`specscope.targets.plan` — ``parse_targets(configs=, servers=, launch=, recipes=)`` -> ``TargetPlan``
  (``--configs``, ``--server NAME=URL``, ``--launch embedded|vllm``), shared by ``bench`` and ``gate``.
- :mod:`specscope.targets.servers` — ``open_target(plan, name, log_path)``: the embedded engine, vLLM from
  a recipe or a user's server, as a :class:`specscope.seam.ServerTarget`.
"""

from __future__ import annotations

from specscope.targets.plan import LAUNCHERS, TargetPlan, parse_configs, parse_servers, parse_targets
from specscope.targets.servers import (
    EmbeddedTarget,
    ExternalServer,
    LaunchedTarget,
    embedded_config_names,
    embedded_target,
    launched_target,
    open_target,
    recipe_names,
)

__all__ = [
    "LAUNCHERS",
    "EmbeddedTarget",
    "ExternalServer",
    "LaunchedTarget",
    "TargetPlan",
    "embedded_config_names",
    "embedded_target",
    "launched_target",
    "open_target",
    "parse_configs",
    "parse_servers",
    "parse_targets",
    "recipe_names",
]

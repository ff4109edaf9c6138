"""Cell order of a bench run.

Each config is one server start, so cells are grouped by config (in the order given); inside a config,
each repeat visits every (workload, concurrency) cell once, in a freshly shuffled order seeded by
(seed, repeat, config index), so slow drift of the machine does not line up with one workload or level.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from specscope.bench.targets import embedded_config_names, recipe_names
from specscope.config import BenchOptions
from specscope.errors import ConfigError
from specscope.kaxis import split_k_name
from specscope.records import CellKey

__all__ = ["plan_cells", "check_names", "EMBEDDED_MAX_PARALLEL"]

EMBEDDED_MAX_PARALLEL = 256  # the embedded engine's slot limit (specscope.engine.EngineConfig.n_parallel)


def plan_cells(options: BenchOptions) -> list[CellKey]:
    """Every cell of the matrix, in the order they are run (deterministic for given options)."""
    out: list[CellKey] = []
    from specscope.bench.workloads import expand_workloads

    pairs = [(w, n) for w in expand_workloads(options) for n in options.levels]
    for ci, config in enumerate(options.configs):
        for r in range(options.repeats):
            rng = np.random.default_rng([options.seed, r, ci])
            order = rng.permutation(len(pairs))
            out.extend(CellKey(config, pairs[i][0], pairs[i][1], r) for i in order)
    return out


def check_names(options: BenchOptions, servers: dict[str, str] | None, engine: str, recipes: Path | None) -> None:
    """Refuse unknown workload / config names, a baseline outside the configs, or too many embedded streams.

    Raises:
        ConfigError: naming the first unknown name and the known ones.
    """
    from specscope.workload import PACK_NAMES

    sourced = (*options.workload_files, *(w for w in options.workloads if "." in w and options.datasets))
    unknown_w = [w for w in options.workloads if w not in PACK_NAMES and w not in sourced]
    if unknown_w:
        raise ConfigError(
            f"unknown workload {unknown_w[0]!r}",
            found=unknown_w,
            expected=f"one of {', '.join(PACK_NAMES)}",
            fix="pass e.g. --workloads prose,code,edit",
        )
    if servers:
        known = tuple(servers)
        fix = "name each server's config with --server NAME=URL"
    elif engine == "vllm":
        known = recipe_names(recipes)
        fix = "pick recipes from `specscope serve --list`, or pass --recipes FILE"
    else:
        known = embedded_config_names()
        fix = "the embedded engine has base, ngram and draft; pass --server URL for your own server"
    unknown_c = [c for c in options.configs if c not in known and split_k_name(c)[0] not in known]
    if not servers and engine == "embedded" and max(options.levels) > EMBEDDED_MAX_PARALLEL:
        raise ConfigError(
            "concurrency level too high for the embedded engine",
            found=max(options.levels),
            expected=f"at most {EMBEDDED_MAX_PARALLEL} streams (llama.cpp slots)",
            fix=f"pass --levels up to {EMBEDDED_MAX_PARALLEL}, or --server URL for a bigger server",
        )
    if options.baseline is not None and options.baseline not in options.configs:
        raise ConfigError(
            f"baseline {options.baseline!r} is not among the configs",
            found=options.baseline,
            expected=f"one of {', '.join(options.configs)}",
        )
    if unknown_c:
        raise ConfigError(
            f"unknown config {unknown_c[0]!r}", found=unknown_c, expected=f"one of {', '.join(known)}", fix=fix
        )

"""Cell order of a bench run.

Each config is one server start, so cells are grouped by config (in the order given); inside a config,
each repeat visits every (workload, concurrency) cell once, in a freshly shuffled order seeded by
(seed, repeat, config index), so slow drift of the machine does not line up with one workload or level.
"""

from __future__ import annotations

import numpy as np

from specscope.config import BenchOptions
from specscope.records import CellKey

__all__ = ["plan_cells"]


def plan_cells(options: BenchOptions) -> list[CellKey]:
    """Every cell of the matrix, in the order they are run (deterministic for given options)."""
    out: list[CellKey] = []
    pairs = [(w, n) for w in options.workloads for n in options.levels]
    for ci, config in enumerate(options.configs):
        for r in range(options.repeats):
            rng = np.random.default_rng([options.seed, r, ci])
            order = rng.permutation(len(pairs))
            out.extend(CellKey(config, pairs[i][0], pairs[i][1], r) for i in order)
    return out

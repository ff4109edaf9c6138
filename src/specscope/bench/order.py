"""The order in which a bench run visits its cells, and which server measures each cell.

Two designs (issue 12, "honest comparisons"):

* **interleaved** - every config's server is up together (``--server`` per config, or the embedded engine,
  which starts one llama.cpp server per config and leaves the idle ones waiting). Each repeat visits the
  (workload, N) pairs in a shuffled order and, for each pair, every config in a freshly shuffled order, so the
  cells that will be compared (same workload and N) run next to each other in time and configs alternate.
* **blocks** - servers launch one at a time (``--launch vllm``). Repeats run counterbalanced blocks of configs
  (ABC, CBA, ABC, ...), so drift does not favour the config that always runs last; at every block boundary a
  *sentinel* cell of the baseline (its first workload at its lowest N) is measured again (config name
  ``BASELINE~sentinel``, served by the baseline's server), so drift across the run can be measured.

Shuffles are seeded by (seed, repeat), so a plan is the same for the same options. With ``--crash-trials`` T > 0 the
levels of each repeat (each block) are visited in ascending order whatever the design (issue 35): a crash at N then
stops only the levels above N, so the highest stable level and the first crashing level are both measured; the
workloads of one level keep their shuffled order (a stable sort of the shuffled pairs by N).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from specscope.bench.workloads import expand_workloads
from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX, BenchOptions
from specscope.records import CellKey

__all__ = ["SENTINEL_SUFFIX", "Design", "Segment", "interleaved_plan", "blocks_plan", "server_config", "segments"]

Design = Literal["interleaved", "blocks"]


def server_config(config: str) -> str:
    """The engine config behind a run config: ``base-again`` and ``base~sentinel`` are measured on ``base``'s
    kind of server (the A/A control on a second server of it, the sentinel on the same one)."""
    for suffix in (SENTINEL_SUFFIX, AA_SUFFIX):
        if config.endswith(suffix):
            return config[: -len(suffix)]
    return config


def _pairs(options: BenchOptions) -> list[tuple[str, int]]:
    return [(w, n) for w in expand_workloads(options) for n in options.levels]


def _visit(options: BenchOptions, rng: np.random.Generator, pairs: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The (workload, N) pairs of one repeat or block in a shuffled order; levels ascending with crash trials."""
    shuffled = [pairs[int(i)] for i in rng.permutation(len(pairs))]
    return sorted(shuffled, key=lambda p: p[1]) if options.crash_trials > 0 else shuffled


def interleaved_plan(options: BenchOptions, repeats: range | None = None) -> list[CellKey]:
    """All cells of all configs in one sequence where configs alternate (see the module docstring)."""
    configs = options.run_configs()
    pairs = _pairs(options)
    out: list[CellKey] = []
    first = options.min_repeats if options.target_ci is not None else options.repeats
    for r in repeats if repeats is not None else range(first):
        rng = np.random.default_rng([options.seed, r, 1201])
        for w, n in _visit(options, rng, pairs):
            out.extend(CellKey(configs[int(j)], w, n, r) for j in rng.permutation(len(configs)))
    return out


def blocks_plan(options: BenchOptions) -> list[CellKey]:
    """Counterbalanced blocks (ABC, CBA, ...) with a baseline sentinel cell at every block boundary; a run of one
    config has nothing to compare, so it gets no sentinels."""
    configs = list(options.run_configs())
    pairs = _pairs(options)
    base = options.baseline_config()
    sentinel = base + SENTINEL_SUFFIX
    first_w, first_n = expand_workloads(options)[0], min(options.levels)
    out: list[CellKey] = []
    k = 0
    with_sentinels = len(configs) > 1
    for r in range(options.repeats):
        order = configs if r % 2 == 0 else configs[::-1]
        for bi, config in enumerate(order):
            rng = np.random.default_rng([options.seed, r, bi, 1202])
            block = [CellKey(config, w, n, r) for w, n in _visit(options, rng, pairs)]
            if config == base and with_sentinels:  # on the baseline's server, at both ends of its block
                block = [CellKey(sentinel, first_w, first_n, k), *block, CellKey(sentinel, first_w, first_n, k + 1)]
                k += 2
            out.extend(block)
    return out


@dataclass(frozen=True)
class Segment:
    """Consecutive cells measured on one server start (``blocks``) or on all servers at once (``interleaved``).

    Attributes:
        servers: the run configs whose servers are up (keys of the servers to start).
        cells: the cells, in order.
    """

    servers: tuple[str, ...]
    cells: tuple[CellKey, ...]


def segments(plan: list[CellKey], design: Design) -> list[Segment]:
    """Split a plan into server starts: one segment with every server (interleaved), or one per run of cells
    that share a server (blocks; a sentinel shares its baseline's server)."""
    if design == "interleaved":
        servers = tuple(dict.fromkeys(k.config for k in plan if not k.config.endswith(SENTINEL_SUFFIX)))
        return [Segment(servers, tuple(plan))] if plan else []
    out: list[Segment] = []
    current: list[CellKey] = []
    owner = ""
    for key in plan:
        srv = key.config[: -len(SENTINEL_SUFFIX)] if key.config.endswith(SENTINEL_SUFFIX) else key.config
        if current and srv != owner:
            out.append(Segment((owner,), tuple(current)))
            current = []
        owner = srv
        current.append(key)
    if current:
        out.append(Segment((owner,), tuple(current)))
    return out

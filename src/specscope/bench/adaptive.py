"""Adaptive repeats (``--target-ci``): spend rounds only where a comparison is not settled yet.

Every cell runs ``min_repeats`` rounds (interleaved, :mod:`specscope.bench.order`). After each round, a
comparison (config x workload x N against the baseline, paired nearest in time) is *settled* when

* its interval's relative half-width ``(high - low) / 2 / speedup`` is at most ``target_ci``, or
* its whole interval lies outside ``1 +- target_ci`` (a clear win or loss that the target noise cannot flip).

Each unsettled comparison gets one more round of its config and of the baseline at that workload x N (in a
freshly shuffled order), until ``max_repeats``. The fixed design (no ``target_ci``) runs ``repeats`` rounds of
everything.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from specscope.bench.order import Segment, interleaved_plan
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.stats.speedup import Speedup, paired_speedups
from specscope.stats.summary import CellSummary
from specscope.store import Run

__all__ = ["settled", "unsettled", "next_round", "adaptive_rounds", "resumed_rounds"]


def settled(s: Speedup, target_ci: float) -> bool:
    """True when comparison ``s`` needs no more rounds for ``target_ci`` (fraction)."""
    if s.ci_low is None or s.ci_high is None or not s.speedup:
        return False
    if (s.ci_high - s.ci_low) / 2.0 / s.speedup <= target_ci:
        return True
    return s.ci_low > 1.0 + target_ci or s.ci_high < 1.0 - target_ci


def unsettled(options: BenchOptions, cells: Sequence[CellSummary]) -> set[tuple[str, str, int]]:
    """(config, workload, N) of the comparisons that are not settled (a comparison without rounds is not)."""
    target = options.target_ci or 0.0
    base = options.baseline_config()
    got = {(s.config, s.workload, s.concurrency): s for s in paired_speedups(cells, baseline=base)}
    out = set()
    for config in options.run_configs():
        if config == base:
            continue
        for w in options.workloads:
            for n in options.levels:
                s = got.get((config, w, n))
                if s is None or not settled(s, target):
                    out.add((config, w, n))
    return out


def next_round(options: BenchOptions, cells: Sequence[CellSummary], done: Collection[CellKey]) -> list[CellKey]:
    """The cells of the next adaptive round (empty when every comparison is settled or at ``max_repeats``)."""
    if options.target_ci is None:
        return []
    base = options.baseline_config()
    need = unsettled(options, cells)
    rounds: dict[tuple[str, str, int], int] = {}
    for k in done:
        g = (k.config, k.workload, k.concurrency)
        rounds[g] = max(rounds.get(g, 0), k.repeat + 1)
    wanted = set()
    for config, w, n in need:
        r = rounds.get((config, w, n), 0)
        if r < options.max_repeats:
            wanted |= {(config, w, n, r), (base, w, n, rounds.get((base, w, n), 0))}
    if not wanted:
        return []
    repeats = range(min(x[3] for x in wanted), max(x[3] for x in wanted) + 1)
    plan = interleaved_plan(options, repeats)
    return [k for k in plan if (k.config, k.workload, k.concurrency, k.repeat) in wanted]


def adaptive_rounds(run: Run, options: BenchOptions, tally: Any) -> Callable[[], list[CellKey]]:
    """The runner's source of further rounds: :func:`next_round` over the run's stored cells, each new cell
    counted in ``tally`` (the runner's progress totals: ``total`` and ``left`` per config)."""

    def more() -> list[CellKey]:
        cells = next_round(options, summarize_run(run), run.done_keys())
        tally.total += len(cells)
        for k in cells:
            tally.left[k.config] = tally.left.get(k.config, 0) + 1
        return cells

    return more


def resumed_rounds(options: BenchOptions, more: Callable[[], list[CellKey]] | None) -> list[Segment]:
    """A resumed adaptive run whose first rounds are all done: its next round, on every server."""
    cells = more() if more is not None else []
    return [Segment(tuple(options.run_configs()), tuple(cells))] if cells else []

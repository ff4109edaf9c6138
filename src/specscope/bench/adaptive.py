"""Adaptive repeats (``--target-ci F``): spend rounds only where a comparison is not as precise as asked.

Every cell runs ``min_repeats`` rounds (interleaved, :mod:`specscope.bench.order`). After each round the run is
judged by the report's own judgement (:func:`specscope.stats.judgement.judge`, with the run's ``--min-effect``):
a comparison (config x workload x level against the baseline) is **done** when its speedup interval's relative
half-width (:func:`specscope.stats.speedup.relative_half_width`: ``sqrt(high / low) - 1``, the figure the report's
interval shows) is at most ``F``, or when its verdict is ``not engaged`` (the server drafted nothing: more rounds
cannot make it speculate). Only the comparisons not done get another round of their config, the baseline and the A/A
control at that workload x level (in a freshly shuffled order), until ``max_repeats``. This is exactly what
``--target-ci``'s help says. The verdicts are the report's (the same function), computed on whatever rounds each
comparison got; a ``faster`` verdict reached early does not stop a comparison whose interval is still wider than
asked (the rule before this one did, so ``--target-ci 0.005`` stopped at a +-1 % interval).

The A/A control ``BASELINE-again`` is not a comparison to finish: it gets a round whenever its workload x level gets
one, beside the baseline, so that the noise floor rests on the same rounds as the comparisons it judges.

The fixed design (no ``target_ci``) runs ``repeats`` rounds of everything. benchmarks/adaptive_repeats.py measures
both designs side by side (embedded) and benchmarks/adaptive_simulated.py simulates the seed card's 540-cell matrix
(benchmarks/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from specscope.bench.order import Segment, interleaved_plan
from specscope.config import AA_SUFFIX, BenchOptions
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import judge
from specscope.stats.server_spec import methods_of
from specscope.stats.speedup import relative_half_width
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison
from specscope.store import Run

__all__ = ["decided", "unsettled", "next_round", "adaptive_rounds", "resumed_rounds"]


def decided(c: Comparison, target_ci: float) -> bool:
    """True when comparison ``c`` needs no more rounds: its interval's relative half-width is at most ``target_ci``
    (fraction), or it is ``not engaged`` (module docstring)."""
    if c.verdict == "not_engaged":
        return True
    half = relative_half_width(c.low, c.high)
    return half is not None and half <= target_ci


def unsettled(
    options: BenchOptions, cells: Sequence[CellSummary], methods: dict[str, str | None] | None = None
) -> set[tuple[str, str, int]]:
    """(config, workload, N) of the comparisons not decided yet (a comparison without rounds is not)."""
    base = options.baseline_config()
    j = judge(cells, base, min_effect=options.min_effect, methods=methods, picks=False)
    out = set()
    for config in options.run_configs():
        if config in (base, base + AA_SUFFIX):
            continue
        for w in options.workloads:
            for n in options.levels:
                c = j.get(config, w, n)
                if c is None or not decided(c, options.target_ci or 0.0):
                    out.add((config, w, n))
    return out


def next_round(
    options: BenchOptions,
    cells: Sequence[CellSummary],
    done: Collection[CellKey],
    methods: dict[str, str | None] | None = None,
) -> list[CellKey]:
    """The cells of the next adaptive round (empty when every comparison is decided or at ``max_repeats``);
    ``methods``: config -> speculative method from the server facts (:func:`specscope.stats.server_spec.methods_of`)."""
    if options.target_ci is None:
        return []
    base = options.baseline_config()
    riders = [c for c in options.run_configs() if c in (base, base + AA_SUFFIX)]  # the baseline and its A/A control
    need = unsettled(options, cells, methods)
    rounds: dict[tuple[str, str, int], int] = {}
    for k in done:
        g = (k.config, k.workload, k.concurrency)
        rounds[g] = max(rounds.get(g, 0), k.repeat + 1)
    wanted = set()
    for config, w, n in need:
        r = rounds.get((config, w, n), 0)
        if r < options.max_repeats:
            wanted |= {(config, w, n, r)} | {(b, w, n, rounds.get((b, w, n), 0)) for b in riders}
    if not wanted:
        return []
    repeats = range(min(x[3] for x in wanted), max(x[3] for x in wanted) + 1)
    plan = interleaved_plan(options, repeats)
    return [k for k in plan if (k.config, k.workload, k.concurrency, k.repeat) in wanted]


def adaptive_rounds(run: Run, options: BenchOptions, tally: Any) -> Callable[[], list[CellKey]]:
    """The runner's source of further rounds: :func:`next_round` over the run's stored cells, each new cell
    counted in ``tally`` (the runner's progress totals: ``total`` and ``left`` per config)."""

    def more() -> list[CellKey]:
        cells = next_round(options, summarize_run(run), run.done_keys(), methods_of(run.server_facts))
        tally.total += len(cells)
        for k in cells:
            tally.left[k.config] = tally.left.get(k.config, 0) + 1
        return cells

    return more


def resumed_rounds(options: BenchOptions, more: Callable[[], list[CellKey]] | None) -> list[Segment]:
    """A resumed adaptive run whose first rounds are all done: its next round, on every server."""
    cells = more() if more is not None else []
    return [Segment(tuple(options.run_configs()), tuple(cells))] if cells else []

"""Adaptive repeats (``--target-ci``): spend rounds only where a comparison is not decided yet.

Every cell runs ``min_repeats`` rounds (interleaved, :mod:`specscope.bench.order`). After each round the run is
judged by the report's own judgement (:func:`specscope.stats.judgement.judge`, with the run's ``--min-effect``): a
comparison (config x workload x N against the baseline) is **decided** when its verdict is ``faster``, ``slower``,
``equivalent`` or ``not_engaged``, and only the undecided ones (``undetermined``, or not yet measured) get another
round of their config, the baseline and the A/A control at that workload x N (in a freshly shuffled order), until
``max_repeats``. There is no second rule here: the stop is the verdict the report prints, from the same function, so
an adaptive run stops exactly where its report can say something. ``target_ci`` is therefore not a precision every
comparison reaches: a ``faster`` verdict at +-1 % stops even when ``target_ci`` is 0.005 (the help says so; for a
set precision on every comparison, run the fixed design with more ``--repeats``). This rule is issue 24's: on the
seed card's shape it reaches the fixed design's verdict on 99.3 % of comparisons with 36 % of its cell-time, where
stopping at the half-width alone needed 48 % (benchmarks/RESULTS.md).

The stopping rule itself is :mod:`specscope.stats.stopping` (its thresholds with it). A comparison that
``max_repeats`` rounds could not decide also stops (:func:`specscope.stats.stopping.futile`, after at least 3 rounds:
the interval projected to ``max_repeats`` rounds around the current speedup would neither exclude 1 with an effect
beyond ``min_effect`` nor lie within ``1 +- min_effect``): the fixed design's extra rounds would leave it
``undetermined``. Without it, every comparison near 1 (an n-gram config that drafts a little, the A/A control's
group) ran to ``max_repeats`` and the embedded quick matrix spent 62 % of the fixed design's cell-time.

The A/A control ``BASELINE-again`` is not a comparison to decide: it gets a round whenever its workload x N gets
one, beside the baseline, so that the noise floor rests on the same rounds as the comparisons it judges.

``target_ci`` (fraction) is what turns the adaptive design on; a comparison whose interval's relative half-width
(:func:`specscope.stats.speedup.relative_half_width`: ``sqrt(high / low) - 1``) is already at most ``target_ci`` and
whose interval lies inside ``1 +- 2 * min_effect`` also stops (it is precise and cannot become faster or slower by
more than a few times the minimum effect: more rounds would make it ``equivalent`` or keep it ``undetermined`` near
the threshold). The fixed design (no ``target_ci``) runs ``repeats`` rounds of everything.
benchmarks/adaptive_repeats.py measures both designs side by side (embedded) and simulates the seed card's 540-cell
matrix (benchmarks/RESULTS.md).
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
from specscope.stats.stopping import DECIDED, decided, futile
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import min_effect_of
from specscope.store import Run

__all__ = ["DECIDED", "decided", "futile", "unsettled", "next_round", "adaptive_rounds", "resumed_rounds"]


def unsettled(
    options: BenchOptions, cells: Sequence[CellSummary], methods: dict[str, str | None] | None = None
) -> set[tuple[str, str, int]]:
    """(config, workload, N) of the comparisons not decided yet (a comparison without rounds is not)."""
    base = options.baseline_config()
    min_effect = min_effect_of(None, options.min_effect)  # None: the judging rule's default
    j = judge(cells, base, min_effect=min_effect, methods=methods, picks=False)
    out = set()
    for config in options.run_configs():
        if config in (base, base + AA_SUFFIX):
            continue
        for w in options.workloads:
            for n in options.levels:
                c = j.get(config, w, n)
                if c is None or not decided(c, options.target_ci or 0.0, min_effect, options.max_repeats):
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

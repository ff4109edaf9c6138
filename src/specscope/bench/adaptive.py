"""Adaptive repeats (``--target-ci``): spend rounds only where a comparison is not settled yet.

Every cell runs ``min_repeats`` rounds (interleaved, :mod:`specscope.bench.order`). After each round, a
comparison (config x workload x N against the baseline, paired nearest in time) is *settled* when the verdict the
report would give (:mod:`specscope.stats.noise`) is one that more rounds at ``target_ci`` would not change:

* its interval excludes 1 (a win or a loss), it rests on enough paired rounds (below), it is
  precise enough (relative half-width ``(high - low) / 2 /
  speedup`` at most ``target_ci``, or the whole interval outside ``1 +- target_ci``: the target noise cannot flip
  it), *and* its effect ``|speedup - 1|`` is larger than the run's A/A noise floor ``spread`` (the band: the
  largest A/A spread over the groups measured on at least its rounds, :func:`specscope.stats.noise.noise_floor`;
  no A/A control: no band) and than the drift of its workload x N so far
  (:meth:`specscope.stats.noise.DriftCheck.of`), the report's own rules. A win or loss that the band or the drift
  overrules is not settled: more rounds re-measure both, and the fixed design, whose band and drift rest on all its
  rounds, may call it. Two rounds decide a win or a loss only on a quiet run,
  where the A/A band itself is within ``target_ci`` (the baseline measured twice agreed to the target), or when the
  whole interval lies beyond ``DECISIVE_BANDS`` (2) bands, ``1 +- 2 * spread``; otherwise it takes
  ``MIN_EFFECT_ROUNDS``: two rounds give the range of two per-round ratios (:mod:`specscope.stats.speedup`), and on
  the shared, loaded 2-core machine n-gram on code (0 drafts) came out 1.47x [1.31x, 1.69x] after 2 rounds, beyond a
  +-20 % A/A band but not beyond two (1.40), then 1.05x [0.51x, 1.69x] after 3 and ``within noise`` after 6; on the
  quiet machine (A/A band +-1-2 %) every 2-round win or loss was the fixed design's verdict, and with a +-8 % band
  draft's 0.26x [0.25x, 0.26x] on prose was (benchmarks/RESULTS.md);
* its interval contains 1 and it is precise enough (half-width at most ``target_ci``) on ``MIN_EFFECT_ROUNDS``
  rounds, or the whole interval lies inside the band ``1 +- spread``: ``within noise`` by the interval and by the
  band, at the noise the run measured. This is what stops a config that does nothing here (n-gram on prose: 0
  drafts, speedup ~1) from running to ``max_repeats`` only because its interval is as wide as the noise. Precision
  on 2 rounds is not enough, for the reason a 2-round win is not: each round sends other prompts, and two alike
  can agree by chance; on the quiet machine (2026-12-02) n-gram on edit at N=2 read 0.98x [0.95x, 1.01x] after 2
  rounds, then 1.02x [0.95x, 1.14x], and won after 6, 1.10x [1.01x, 1.21x];
* its interval contains 1 and its effect ``|speedup - 1|`` is inside half the band, ``BAND_SHRINK * spread``
  (futility): to be called a win or a loss after ``max_repeats`` rounds, its interval must leave 1 *and* its effect
  must pass the band the fixed design measures, about half of a 2-round band (below), which the effect is inside
  already. On the quiet machine (2026-12-02) n-gram on prose (0 drafts) read 0.95x [0.75x, 1.17x] after 2 rounds
  against a +-20 % band and ran to 6 rounds for the fixed design's ``within noise``;
* its whole interval lies inside half the band, ``1 +- BAND_SHRINK * spread`` (even a win or a loss by its
  interval): ``within noise`` even against the band the fixed design would measure. A band from 2-3 rounds is the
  extreme of 2-3 A/A ratios and overstates the noise: on the embedded engine (three 6-round runs on the shared
  2-core machine, 2026-12-01, benchmarks/RESULTS.md) the band after 6 rounds was 0.49-0.77 of its 2-round value
  (median 0.57, six workload groups), so an interval inside half the 2-round band is, but for the tightest case,
  inside the band the fixed design judges by. With the whole band instead, a 2-round band of +-85 % called draft's
  -51 % on code ``within noise`` where the fixed design said ``loses``.

The A/A control ``BASELINE-again`` is not a comparison to settle (it is never a win or a loss): it gets a round
whenever its workload x N gets one, beside the baseline, so that the noise band rests on the same rounds as the
comparisons it judges. Each unsettled comparison gets one more round of its config, the baseline and the A/A
control at that workload x N (in a freshly shuffled order), until ``max_repeats``. The fixed design (no
``target_ci``) runs ``repeats`` rounds of everything.

What it costs in verdicts: a comparison settled by the band is judged against a band measured over fewer rounds
than the fixed design's; benchmarks/adaptive_repeats.py replays the rule on a fixed 6-round run and compares every
verdict (benchmarks/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from specscope.bench.order import Segment, interleaved_plan
from specscope.config import AA_SUFFIX, BenchOptions
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.stats.noise import DriftCheck, drift_check, noise_floor
from specscope.stats.speedup import Speedup, paired_speedups
from specscope.stats.summary import CellSummary
from specscope.store import Run

__all__ = [
    "BAND_SHRINK",
    "MIN_EFFECT_ROUNDS",
    "DECISIVE_BANDS",
    "settled",
    "unsettled",
    "next_round",
    "adaptive_rounds",
    "resumed_rounds",
]

MIN_EFFECT_ROUNDS = 3  # paired rounds a win or a loss needs before it stops (see the module docstring)
DECISIVE_BANDS = 2.0  # a 2-round win or loss whose interval clears this many A/A bands stops (module docstring)
BAND_SHRINK = 0.5  # the part of a few-round A/A band inside which any interval is settled (see the module docstring)


def settled(s: Speedup, target_ci: float, band: float | None = None, drift: DriftCheck | None = None) -> bool:
    """True when comparison ``s`` needs no more rounds for ``target_ci`` (fraction), given the A/A noise band
    ``band`` (fraction, None: no A/A control measured) and the run's drift check so far (None: not known)."""
    if s.ci_low is None or s.ci_high is None or not s.speedup:
        return False
    if band is not None and 1.0 - BAND_SHRINK * band <= s.ci_low and s.ci_high <= 1.0 + BAND_SHRINK * band:
        return True
    precise = (s.ci_high - s.ci_low) / 2.0 / s.speedup <= target_ci
    if s.ci_low <= 1.0 <= s.ci_high:  # within noise by its interval
        if band is not None and abs(s.speedup - 1.0) <= BAND_SHRINK * band:
            return True  # futile: its effect is inside the band the fixed design would judge it by (docstring)
        if precise and s.repeats >= MIN_EFFECT_ROUNDS:
            return True
        return band is not None and 1.0 - band <= s.ci_low and s.ci_high <= 1.0 + band
    if s.repeats < MIN_EFFECT_ROUNDS and not _decisive(s, target_ci, band):
        return False  # two rounds decide a win or a loss only on a quiet run or far beyond the band (docstring)
    clear = s.ci_low > 1.0 + target_ci or s.ci_high < 1.0 - target_ci
    effect = s.speedup - 1.0
    overruled = (band is not None and abs(effect) <= band) or (drift is not None and drift.flags(effect))
    return (precise or clear) and not overruled


def _decisive(s: Speedup, target_ci: float, band: float | None) -> bool:
    """True when a win or a loss may stop after fewer than ``MIN_EFFECT_ROUNDS``: the A/A band is within
    ``target_ci`` (a quiet run), or the whole interval lies beyond ``DECISIVE_BANDS`` times the band."""
    if band is None:
        return False
    if band <= target_ci:
        return True
    assert s.ci_low is not None and s.ci_high is not None
    reach = DECISIVE_BANDS * band
    return s.ci_low > 1.0 + reach or s.ci_high < 1.0 - reach


def unsettled(options: BenchOptions, cells: Sequence[CellSummary]) -> set[tuple[str, str, int]]:
    """(config, workload, N) of the comparisons that are not settled (a comparison without rounds is not)."""
    target = options.target_ci or 0.0
    base = options.baseline_config()
    speedups = paired_speedups(cells, baseline=base)
    got = {(s.config, s.workload, s.concurrency): s for s in speedups}
    drift = drift_check(cells, base)
    out = set()
    for config in options.run_configs():
        if config in (base, base + AA_SUFFIX):
            continue
        for w in options.workloads:
            for n in options.levels:
                s = got.get((config, w, n))
                floor = None if s is None else noise_floor(speedups, base, s.repeats)
                band = None if floor is None else floor[0]
                if s is None or not settled(s, target, band, drift.of((w, n))):
                    out.add((config, w, n))
    return out


def next_round(options: BenchOptions, cells: Sequence[CellSummary], done: Collection[CellKey]) -> list[CellKey]:
    """The cells of the next adaptive round (empty when every comparison is settled or at ``max_repeats``)."""
    if options.target_ci is None:
        return []
    base = options.baseline_config()
    riders = [c for c in options.run_configs() if c in (base, base + AA_SUFFIX)]  # the baseline and its A/A control
    need = unsettled(options, cells)
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

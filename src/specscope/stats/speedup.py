"""Paired speedup of every config against the baseline, with a bootstrap confidence interval.

For one workload x requested concurrency, config X and the baseline (``base``) each ran the same
repeats (rounds). Each cell of X is *paired* with the baseline cell measured nearest in time
(:mod:`specscope.stats.pairing`; by repeat index for runs without cell instants), so a pair shares the
machine's state. The speedup is the ratio of means

    speedup = mean_r(X_r) / mean_r(base_r)            (dimensionless; X_r, base_r in tokens/s)

and its 95 % interval is a paired percentile bootstrap over rounds
(``scipy.stats.bootstrap(..., paired=True, method="percentile")``, fixed seed, 9999 resamples): a
resample draws n round indices with replacement and recomputes the ratio of means on them.

Verdict (the seeds' rule: a difference inside the noise is not a win):

* ``wins``  - the whole interval is above 1.0;
* ``loses`` - the whole interval is below 1.0;
* ``within noise`` - the interval contains 1.0 (an end exactly at 1.0 counts as containing it);
* ``undetermined`` - fewer than 2 paired rounds, so no interval exists.

:mod:`specscope.stats.noise` then overrules ``wins`` / ``loses`` inside the A/A control's spread or the run's
drift. Every ``within noise`` / ``undetermined`` verdict carries ``why``; every interval carries ``interval``,
the honest name of what it is for its number of rounds (``95% CI`` only from 6 rounds).

What the interval can mean with few rounds: with n = 2 a paired resample can only be round 1 twice,
round 2 twice, or one of each, so the bootstrap distribution has three values and the "95 %"
interval is the range of the two per-round ratios. It says whether both rounds agree on the sign; it
does not have 95 % coverage. With n = 3 the ends are the extreme per-round ratios. Intervals start to
behave like confidence intervals from about 6 rounds (the seed matrix used 6).

Also reported: the coefficient of variation (sample std / mean, ddof=1) of the figure over the
rounds of each side, the seeds' noise yardstick ("median 0.42 %, p90 2.41 %").
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from scipy import stats as sps

from specscope.errors import ConfigError, require_one_of
from specscope.stats.groups import GroupKey, group_cells, metric_value
from specscope.stats.pairing import pair_by_time
from specscope.stats.summary import CellSummary

__all__ = [
    "BOOTSTRAP_SEED",
    "BOOTSTRAP_RESAMPLES",
    "Verdict",
    "Speedup",
    "ratio_of_means_ci",
    "verdict_of",
    "coefficient_of_variation",
    "paired_speedups",
    "few_repeats_note",
    "few_repeats_notes",
    "interval_label",
    "interval_labels",
    "why_of",
]

BOOTSTRAP_SEED = 20260728
BOOTSTRAP_RESAMPLES = 9999

Verdict = Literal["wins", "loses", "within noise", "undetermined"]


@dataclass(frozen=True)
class Speedup:
    """One config against the baseline in one workload x concurrency.

    Attributes:
        config, baseline, workload, concurrency: the comparison (concurrency = requested streams).
        metric: the figure compared (``output_tok_s`` unless asked otherwise).
        repeats: number of paired rounds used (present and usable on both sides).
        config_mean, baseline_mean: means of the figure over those rounds (tokens/s).
        speedup: config_mean / baseline_mean (dimensionless); None when the baseline mean is 0.
        ci_low, ci_high: paired percentile-bootstrap interval (95 % level) of the speedup; None with < 2 rounds;
            what it means for ``repeats`` rounds is ``interval`` (a real 95 % interval only from 6).
        verdict: see the module docstring.
        config_cv, baseline_cv: coefficient of variation over the rounds (fraction, not %);
            None with < 2 rounds.
        note: caveat for few rounds, or why rounds were dropped; "" when none.
        interval: what ``ci_low..ci_high`` is for ``repeats`` rounds (:func:`interval_label`).
        why: for ``within noise`` / ``undetermined``, the reason (interval contains 1, too few rounds, rounds
            dropped, A/A noise, drift); "" otherwise.
    """

    config: str
    baseline: str
    workload: str
    concurrency: int
    metric: str
    repeats: int
    config_mean: float
    baseline_mean: float
    speedup: float | None
    ci_low: float | None
    ci_high: float | None
    verdict: Verdict
    config_cv: float | None
    baseline_cv: float | None
    note: str = ""
    interval: str = ""
    why: str = ""

    @property
    def gain(self) -> float | None:
        """speedup - 1 (fraction; 0.323 means +32.3 %)."""
        return None if self.speedup is None else self.speedup - 1.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio_of_means(x: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    # x, b: [..., n] rounds of the config and of the baseline -> [...] ratio of means
    return np.mean(x, axis=axis) / np.mean(b, axis=axis)


def ratio_of_means_ci(
    x: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """Paired percentile-bootstrap interval of mean(x) / mean(b).

    Args:
        x, b: paired per-round figures, same length n >= 2 (x[i] and b[i] ran in round i).
        confidence: two-sided confidence level.
        seed: numpy Generator seed; the same inputs always give the same interval.
        resamples: bootstrap resamples.

    Returns:
        (low, high), dimensionless.

    Raises:
        ConfigError: lengths differ or n < 2.
    """
    xa = np.asarray(x, dtype=np.float64)  # [n]
    ba = np.asarray(b, dtype=np.float64)  # [n]
    if xa.shape != ba.shape or xa.ndim != 1 or xa.size < 2:
        raise ConfigError(
            "a paired bootstrap needs two equally long series of at least 2 rounds",
            found=f"{xa.size} and {ba.size} rounds",
            expected=">= 2 paired rounds",
            fix="run more repeats (--repeats)",
        )
    if np.all(xa == xa[0]) and np.all(ba == ba[0]):
        r = float(xa[0] / ba[0])  # every resample gives the same ratio
        return r, r
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=sps.DegenerateDataWarning)
        res = sps.bootstrap(
            (xa, ba),
            _ratio_of_means,
            paired=True,
            vectorized=True,
            method="percentile",
            confidence_level=confidence,
            n_resamples=resamples,
            rng=np.random.default_rng(seed),
        )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def verdict_of(ci_low: float | None, ci_high: float | None) -> Verdict:
    """wins / loses / within noise from an interval of a speedup; undetermined without one."""
    if ci_low is None or ci_high is None:
        return "undetermined"
    if ci_low > 1.0:
        return "wins"
    if ci_high < 1.0:
        return "loses"
    return "within noise"


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof=1) over the mean; None with < 2 values or a zero mean."""
    a = np.asarray(values, dtype=np.float64)  # [n]
    if a.size < 2 or float(np.mean(a)) == 0.0:
        return None
    return float(np.std(a, ddof=1) / np.mean(a))


def few_repeats_note(n: int, n_high: int | None = None) -> str:
    """What an interval from n rounds (``n``..``n_high`` rounds, one class of :func:`interval_label`) can and cannot
    mean; empty from 6 rounds on."""
    hi = n if n_high is None else n_high
    if hi < 2:
        return "1 round: no interval; run at least 2 repeats (6 for a real 95% interval)"
    if hi == 2:
        return (
            "2 rounds: the interval is the range of the two per-round ratios; it shows whether both "
            "rounds agree, not 95% coverage"
        )
    if n >= 6:
        return ""
    rounds = f"{n}" if hi == n else f"{n}-{hi}"
    return f"{rounds} rounds: the interval ends are near the extreme per-round ratios; coverage is below 95%"


def interval_label(n: int, n_high: int | None = None) -> str:
    """The honest name of a paired bootstrap interval over ``n`` rounds (no "95 %" below 6 rounds).

    ``n_high``: name the intervals of several rows resting on ``n``..``n_high`` rounds at once (a range inside one
    class: below 2, 2-5 or from 6; :func:`interval_labels` splits a table's counts into those classes).
    """
    hi = n if n_high is None else n_high
    if hi < 2:
        return "no interval"
    if hi == n == 2:
        return "range of 2 per-round ratios"
    rounds = f"{n}" if hi == n else f"{n}-{hi}"
    if hi < 6:
        return f"bootstrap range over {rounds} rounds (coverage below 95%)"
    return f"95% CI ({rounds} rounds)"


def _classes(ns: Iterable[int]) -> list[tuple[int, int]]:
    """(lowest, highest) count of each class of round counts present: below 2, 2-5, from 6."""
    counts = sorted(set(ns))
    out = []
    for lo, hi in ((0, 1), (2, 5), (6, 1 << 30)):
        inside = [n for n in counts if lo <= n <= hi]
        if inside:
            out.append((inside[0], inside[-1]))
    return out


def interval_labels(ns: Iterable[int]) -> str:
    """One name for the intervals of several rows resting on ``ns`` rounds each (0 for a row with no interval),
    right for every row: ``range of 2 per-round ratios`` when all have 2, ``bootstrap range over 2-3 rounds
    (coverage below 95%)`` when some have 2 and some 3, never a count or a "95 %" that is wrong for a row."""
    parts = [interval_label(lo, hi) for lo, hi in _classes(ns) if hi >= 2]
    return " or ".join(parts) or interval_label(0)


def few_repeats_notes(ns: Iterable[int]) -> str:
    """:func:`few_repeats_note` for rows resting on ``ns`` rounds each, one sentence per class present."""
    return "; ".join(note for lo, hi in _classes(ns) if (note := few_repeats_note(lo, hi)))


def why_of(verdict: Verdict, n: int, dropped: int, lo: float | None, hi: float | None) -> str:
    """Why a verdict is ``within noise`` or ``undetermined`` ("" for wins / loses)."""
    parts = []
    if verdict == "undetermined":
        parts.append(f"{n} paired round{'s' if n != 1 else ''}: no interval (run at least 2 repeats)")
    elif verdict == "within noise" and lo is not None and hi is not None:
        parts.append(f"the interval [{lo:.3f}x, {hi:.3f}x] contains 1")
        if n < 6:
            parts.append(f"only {n} rounds")
    if parts and dropped:
        parts.append(f"{dropped} round(s) dropped as degraded or unpaired")
    return "; ".join(parts)


def paired_speedups(
    summaries: Iterable[CellSummary],
    *,
    baseline: str = "base",
    metric: str = "output_tok_s",
    include_degraded: bool = False,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> list[Speedup]:
    """Speedup of every non-baseline config over ``baseline`` in each workload x concurrency.

    Cells are paired nearest in time (:func:`specscope.stats.pairing.pair_by_time`); a round missing or
    unusable on either side is dropped (said in ``note`` and ``why``). Groups with no paired round at all are left out.

    Returns:
        Speedups sorted by workload (first-seen order), concurrency, config (first-seen order).

    Raises:
        ConfigError: the baseline config is not in the run.
    """
    cells = list(summaries)
    configs = list(dict.fromkeys(c.config for c in cells))
    workloads = list(dict.fromkeys(c.workload for c in cells))
    require_one_of(
        baseline,
        configs,
        f"baseline config {baseline!r} is not in the run",
        expected="one of the run's configs: {}",
        empty="none (no cells)",
        fix="pass --baseline with one of the run's configs",
    )
    groups = group_cells(cells, include_degraded)
    all_groups = group_cells(cells, include_degraded=True)
    out: list[Speedup] = []
    levels = sorted({c.concurrency for c in cells})
    for wl in workloads:
        for conc in levels:
            base_cells = groups.get(GroupKey(baseline, wl, conc), {})
            for cfg in configs:
                if cfg == baseline:
                    continue
                cfg_cells = groups.get(GroupKey(cfg, wl, conc), {})
                pairs = []
                for xc, bc in pair_by_time(cfg_cells, base_cells):
                    xv, bv = metric_value(xc, metric), metric_value(bc, metric)
                    if xv is not None and bv is not None:
                        pairs.append((xv, bv))
                if not pairs:
                    continue
                x = [p[0] for p in pairs]
                b = [p[1] for p in pairs]
                n = len(pairs)
                notes = [few_repeats_note(n)]
                asked = set(all_groups.get(GroupKey(baseline, wl, conc), {})) | set(
                    all_groups.get(GroupKey(cfg, wl, conc), {})
                )
                dropped = max(0, len(asked) - n)
                if dropped:
                    notes.append(f"{dropped} round(s) dropped (unusable or unpaired)")
                x_mean, b_mean = float(np.mean(x)), float(np.mean(b))
                ratio = x_mean / b_mean if b_mean > 0 else None
                lo = hi = None
                if n >= 2 and ratio is not None and min(b) > 0:
                    lo, hi = ratio_of_means_ci(x, b, seed=seed, resamples=resamples)
                out.append(
                    Speedup(
                        config=cfg,
                        baseline=baseline,
                        workload=wl,
                        concurrency=conc,
                        metric=metric,
                        repeats=n,
                        config_mean=x_mean,
                        baseline_mean=b_mean,
                        speedup=ratio,
                        ci_low=lo,
                        ci_high=hi,
                        verdict=verdict_of(lo, hi),
                        config_cv=coefficient_of_variation(x),
                        baseline_cv=coefficient_of_variation(b),
                        note="; ".join(s for s in notes if s),
                        interval=interval_label(n if lo is not None else 0),
                        why=why_of(verdict_of(lo, hi), n, dropped, lo, hi),
                    )
                )
    return out

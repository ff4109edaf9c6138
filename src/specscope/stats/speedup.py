"""The paired rounds of one comparison and the interval of its speedup.

For one workload x level, config X and the baseline B each ran some rounds. Each usable cell of X is *paired* with
the usable baseline cell measured nearest in time (:mod:`specscope.stats.pairing`; by repeat index for runs without
cell instants), so a pair shares the machine's state; cells named as cold starts (:mod:`specscope.stats.noise`) are
left out before pairing. Per pair i the ratio ``r_i = X_i / B_i`` (aggregate tokens/s over tokens/s).

* **Speedup**: the geometric mean of the paired ratios, ``exp(mean_i log r_i)`` (dimensionless).
* **Interval** (:func:`log_ratio_interval`): a Student t-interval on the log ratios,
  ``exp(mean ± t_{(1+c)/2, n-1} * sd / sqrt(n))`` with ``sd`` the sample standard deviation (ddof=1) and ``c``
  the confidence (0.95). Why this one: a run has 2-12 rounds; a percentile bootstrap over n rounds has at most
  ``C(2n-1, n)`` distinct resamples (3 at n=2, 10 at n=3), so its "95 %" interval is the range of the extreme
  ratios and under-covers badly at small n, while the log ratio of two tok/s figures is close to normal and the
  t-interval's width grows as it must when n is small. ``benchmarks/verdict_coverage.py`` measures both on a noise
  model fitted to real embedded runs (benchmarks/RESULTS.md, "Verdict coverage"): the t-interval holds at least
  93 % coverage from n=2 on; the bootstrap does not at any n up to 12, so it is not used.

Also here: the coefficient of variation (sample std / mean, ddof=1), the seeds' noise yardstick ("median 0.42 %,
p90 2.41 %").
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from specscope.stats.groups import GroupKey, metric_value
from specscope.stats.pairing import midpoint_s, pair_by_time
from specscope.stats.summary import CellSummary

__all__ = [
    "CONFIDENCE",
    "METHOD",
    "Interval",
    "PairedRounds",
    "log_ratio_interval",
    "coefficient_of_variation",
    "paired_rounds",
    "interval_label",
    "relative_half_width",
    "projected_half_width",
]

CONFIDENCE = 0.95  # two-sided level of every interval specscope prints
METHOD = "t_log_ratio"  # the interval's method id (JSON); its words: interval_label


@dataclass(frozen=True)
class Interval:
    """A speedup and its interval.

    Attributes:
        point: geometric mean of the ratios (dimensionless), None without a ratio.
        low, high: the interval's ends (dimensionless), None with fewer than 2 ratios.
        rounds: ratios it rests on.
        method: :data:`METHOD`, or ``"none"`` without an interval.
    """

    point: float | None
    low: float | None
    high: float | None
    rounds: int
    method: str

    @property
    def label(self) -> str:
        """The interval's name for its rounds, e.g. ``95% t-interval on log ratios (3 rounds)``."""
        return interval_label(self.rounds)

    @property
    def half_width(self) -> float | None:
        """The interval's relative half-width (:func:`relative_half_width`), None without an interval."""
        return relative_half_width(self.low, self.high)


def relative_half_width(low: float | None, high: float | None) -> float | None:
    """The relative half-width of a speedup interval ``[low, high]``: ``sqrt(high / low) - 1`` (fraction; the
    t-interval on log ratios is symmetric on the log scale, ``exp(mean +- h)``, and this is ``exp(h) - 1``), the
    figure ``--target-ci`` asks for; None without an interval."""
    if low is None or high is None or low <= 0:
        return None
    return math.sqrt(high / low) - 1.0


def projected_half_width(low: float | None, high: float | None, rounds: int, at_rounds: int) -> float | None:
    """The log-scale half-width the interval ``[low, high]`` of :func:`log_ratio_interval` over ``rounds`` rounds
    would have over ``at_rounds`` rounds if the spread of the log ratios stayed as it is:
    ``h * (t(at_rounds - 1) / t(rounds - 1)) * sqrt(rounds / at_rounds)`` with ``h = log(high / low) / 2`` and ``t``
    the two-sided :data:`CONFIDENCE` quantile of Student's t. None without an interval (fewer than 2 rounds)."""
    if low is None or high is None or low <= 0 or rounds < 2 or at_rounds < 2:
        return None
    h = math.log(high / low) / 2.0
    q = 0.5 + CONFIDENCE / 2.0
    return h * float(sps.t.ppf(q, at_rounds - 1) / sps.t.ppf(q, rounds - 1)) * math.sqrt(rounds / at_rounds)


def interval_label(rounds: int) -> str:
    """The words for an interval of :func:`log_ratio_interval` over ``rounds`` rounds (0 or 1: none)."""
    if rounds < 2:
        return f"no interval ({rounds} round{'s' if rounds != 1 else ''})"
    return f"{CONFIDENCE:.0%} t-interval on log ratios ({rounds} rounds)"


def log_ratio_interval(ratios: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The geometric-mean speedup of paired ``ratios`` (each > 0, dimensionless) and its t-interval on log ratios
    (module docstring). One ratio: a point without an interval; none: neither."""
    r = np.asarray([x for x in ratios if x is not None and x > 0 and math.isfinite(x)], dtype=np.float64)  # [n]
    n = int(r.size)
    if n == 0:
        return Interval(None, None, None, 0, "none")
    logs = np.log(r)
    mean = float(np.mean(logs))
    if n < 2:
        return Interval(math.exp(mean), None, None, n, "none")
    half = float(sps.t.ppf(0.5 + confidence / 2.0, n - 1)) * float(np.std(logs, ddof=1)) / math.sqrt(n)
    return Interval(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n, METHOD)


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof=1) over the mean; None with < 2 values or a zero mean."""
    a = np.asarray(values, dtype=np.float64)  # [n]
    if a.size < 2 or float(np.mean(a)) == 0.0:
        return None
    return float(np.std(a, ddof=1) / np.mean(a))


@dataclass(frozen=True)
class PairedRounds:
    """The rounds one comparison rests on.

    Attributes:
        config_values, baseline_values: the paired figures in the config cells' time order (tokens/s).
        config_cells: the config's usable cells that were paired (in the same order).
        asked: rounds stored on either side (any status); ``dropped`` = asked - paired rounds.
        cold: cells of either side left out as cold starts.
        offsets_s: per pair, the config cell's mid instant minus its baseline cell's (s); ``()`` without instants.
    """

    config_values: tuple[float, ...]
    baseline_values: tuple[float, ...]
    config_cells: tuple[CellSummary, ...]
    asked: int
    cold: int
    offsets_s: tuple[float, ...] = ()

    @property
    def mean_offset_s(self) -> float | None:
        """The mean of ``offsets_s`` (s), None without instants."""
        return sum(self.offsets_s) / len(self.offsets_s) if self.offsets_s else None

    @property
    def rounds(self) -> int:
        return len(self.config_values)

    @property
    def dropped(self) -> int:
        return max(0, self.asked - self.rounds)

    @property
    def ratios(self) -> tuple[float, ...]:
        return tuple(x / b for x, b in zip(self.config_values, self.baseline_values, strict=True) if b > 0)


def paired_rounds(
    groups: Mapping[GroupKey, Mapping[int, CellSummary]],
    all_groups: Mapping[GroupKey, Mapping[int, CellSummary]],
    config: str,
    baseline: str,
    workload: str,
    level: int,
    *,
    metric: str = "output_tok_s",
    exclude: Collection[tuple[str, str, int, int]] = (),
) -> PairedRounds:
    """The paired rounds of ``config`` against ``baseline`` at one workload x level.

    Args:
        groups: usable cells by group and repeat (:func:`specscope.stats.groups.group_cells`).
        all_groups: every stored cell by group and repeat (for the count of rounds asked).
        exclude: (config, workload, level, repeat) of cells to leave out (cold starts).
    """

    def usable(cfg: str) -> dict[int, CellSummary]:
        cells = groups.get(GroupKey(cfg, workload, level), {})
        return {r: c for r, c in cells.items() if (cfg, workload, level, r) not in exclude}

    x_cells, b_cells = usable(config), usable(baseline)
    cold = sum(
        1
        for cfg in (config, baseline)
        for r in groups.get(GroupKey(cfg, workload, level), {})
        if (cfg, workload, level, r) in exclude
    )
    xs: list[float] = []
    bs: list[float] = []
    kept: list[CellSummary] = []
    offsets: list[float] = []
    for xc, bc in pair_by_time(x_cells, b_cells):
        xv, bv = metric_value(xc, metric), metric_value(bc, metric)
        if xv is not None and bv is not None and bv > 0 and xv > 0:
            xs.append(xv)
            bs.append(bv)
            kept.append(xc)
            tx, tb = midpoint_s(xc), midpoint_s(bc)
            if tx is not None and tb is not None:
                offsets.append(tx - tb)
    asked = len(
        set(all_groups.get(GroupKey(config, workload, level), {}))
        | set(all_groups.get(GroupKey(baseline, workload, level), {}))
    )
    return PairedRounds(
        tuple(xs), tuple(bs), tuple(kept), asked, cold, tuple(offsets) if len(offsets) == len(xs) else ()
    )

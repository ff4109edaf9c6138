"""Paired speedup, bootstrap interval, verdict and CV against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from cellmaker import cell

from specscope.errors import ConfigError
from specscope.stats.speedup import (
    coefficient_of_variation,
    paired_speedups,
    ratio_of_means_ci,
    verdict_of,
)


def _run(base: list[float], mtp: list[float], workload: str = "code", conc: int = 1):
    cells = [cell("base", workload, conc, r, v) for r, v in enumerate(base)]
    cells += [cell("mtp", workload, conc, r, v) for r, v in enumerate(mtp)]
    return cells


def test_two_rounds_interval_is_range_of_per_round_ratios():
    # rounds: 15/10 = 1.5 and 14/12 = 1.1667; the mixed resample gives 29/22. With 2 rounds each
    # extreme resample has probability 1/4 > 2.5 %, so the percentile ends are exactly the two ratios.
    (s,) = paired_speedups(_run([10.0, 12.0], [15.0, 14.0]))
    assert s.repeats == 2
    assert s.speedup == pytest.approx(29.0 / 22.0)
    assert s.ci_low == pytest.approx(14.0 / 12.0)
    assert s.ci_high == pytest.approx(1.5)
    assert s.verdict == "wins"
    assert s.baseline_cv == pytest.approx(np.sqrt(2.0) / 11.0)  # std(10,12)=sqrt(2), mean 11
    assert s.config_cv == pytest.approx(np.sqrt(0.5) / 14.5)
    assert "range of the two per-round ratios" in s.note


def test_three_rounds_spanning_one_is_within_noise_not_a_win():
    # per-round ratios 0.9, 1.1, 1.05; P(all three rounds the same) = 1/27 > 2.5 %, so the ends are exact.
    (s,) = paired_speedups(_run([10.0, 10.0, 10.0], [9.0, 11.0, 10.5]))
    assert s.speedup == pytest.approx(30.5 / 30.0)
    assert (s.ci_low, s.ci_high) == (pytest.approx(0.9), pytest.approx(1.1))
    assert s.verdict == "within noise"


def test_losing_config():
    (s,) = paired_speedups(_run([10.0, 10.2, 9.9], [8.0, 8.1, 7.9]))
    assert s.ci_low == pytest.approx(8.1 / 10.2)
    assert s.ci_high == pytest.approx(0.8)
    assert s.verdict == "loses"


def test_interval_touching_one_is_within_noise():
    (s,) = paired_speedups(_run([10.0, 10.0], [10.0, 12.0]))
    assert s.ci_low == pytest.approx(1.0)
    assert s.verdict == "within noise"
    assert verdict_of(1.0000001, 1.2) == "wins"
    assert verdict_of(0.8, 0.9999999) == "loses"
    assert verdict_of(None, None) == "undetermined"


def test_single_round_has_no_interval():
    (s,) = paired_speedups(_run([10.0], [20.0]))
    assert s.speedup == pytest.approx(2.0)
    assert s.ci_low is None and s.ci_high is None
    assert s.verdict == "undetermined"
    assert s.config_cv is None


def _slow_reference_ci(x, b, resamples=40000, seed=7):
    rng = np.random.default_rng(seed)
    x, b = np.asarray(x), np.asarray(b)
    ratios = []
    for _ in range(resamples):
        idx = rng.integers(0, len(x), len(x))
        ratios.append(x[idx].mean() / b[idx].mean())
    return np.percentile(ratios, [2.5, 97.5])


def test_eight_rounds_match_a_slow_reference_and_are_deterministic():
    base = [12.6, 12.5, 12.7, 12.6, 12.4, 12.8, 12.6, 12.5]
    mtp = [16.6, 16.1, 17.2, 16.4, 15.9, 17.0, 16.8, 16.3]
    lo, hi = ratio_of_means_ci(mtp, base)
    ref_lo, ref_hi = _slow_reference_ci(mtp, base)
    assert lo == pytest.approx(ref_lo, abs=0.004)
    assert hi == pytest.approx(ref_hi, abs=0.004)
    assert (lo, hi) == ratio_of_means_ci(mtp, base)  # fixed seed: identical on a second call
    assert lo < sum(mtp) / sum(base) < hi


def test_degraded_round_is_dropped_and_said():
    cells = _run([10.0, 10.0, 10.0], [15.0, 15.0, 99.0])
    cells[-1] = cell("mtp", "code", 1, 2, 99.0, status="degraded", reasons=("STREAM_DEGRADED",))
    (s,) = paired_speedups(cells)
    assert s.repeats == 2
    assert s.speedup == pytest.approx(1.5)
    assert "1 round(s) dropped" in s.note
    (s_all,) = paired_speedups(cells, include_degraded=True)
    assert s_all.repeats == 3
    assert s_all.speedup == pytest.approx(129.0 / 30.0)


def test_rows_per_workload_and_concurrency():
    cells = _run([10.0, 10.0], [12.0, 12.0], "prose", 1) + _run([40.0, 40.0], [30.0, 30.0], "prose", 8)
    rows = paired_speedups(cells)
    assert [(r.workload, r.concurrency, r.speedup) for r in rows] == [("prose", 1, 1.2), ("prose", 8, 0.75)]
    # identical rounds: a zero-width interval at the ratio
    assert (rows[0].ci_low, rows[0].ci_high, rows[0].verdict) == (1.2, 1.2, "wins")
    assert rows[1].verdict == "loses"


def test_missing_baseline_is_a_config_error():
    with pytest.raises(ConfigError) as e:
        paired_speedups([cell("mtp", "code", 1, 0, 10.0)])
    assert e.value.found == "base" and e.value.expected == "one of the run's configs: mtp" and e.value.fix


def test_cv_hand_values():
    assert coefficient_of_variation([2.0, 4.0, 6.0]) == pytest.approx(0.5)  # std 2, mean 4
    assert coefficient_of_variation([5.0]) is None

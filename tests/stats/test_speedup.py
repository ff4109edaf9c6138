"""Paired rounds, the t-interval on log ratios and the CV against hand-computed values (pure data)."""

from __future__ import annotations

import math

import pytest
from cellmaker import cell

from specscope.errors import ConfigError
from specscope.stats.groups import group_cells
from specscope.stats.judgement import judge
from specscope.stats.speedup import coefficient_of_variation, interval_label, log_ratio_interval, paired_rounds

T975_DF1 = math.tan(math.pi * 0.475)  # Student t, 97.5 % quantile, 1 degree of freedom (Cauchy): 12.7062
T975_DF2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)  # 2 degrees of freedom, closed form: 4.3027


def _run(base: list[float], mtp: list[float], workload: str = "code", conc: int = 1):
    cells = [cell("base", workload, conc, r, v) for r, v in enumerate(base)]
    cells += [cell("mtp", workload, conc, r, v) for r, v in enumerate(mtp)]
    return cells


def test_two_rounds_t_interval_on_log_ratios_hand_computed():
    # per-round ratios 15/10 = 1.5 and 14/12; n = 2: sd / sqrt(n) = |l1 - l2| / 2
    l1, l2 = math.log(1.5), math.log(14.0 / 12.0)
    mean, half = (l1 + l2) / 2, T975_DF1 * abs(l1 - l2) / 2
    iv = log_ratio_interval([1.5, 14.0 / 12.0])
    assert iv.point == pytest.approx(math.exp(mean), rel=1e-12)
    assert iv.low == pytest.approx(math.exp(mean - half), rel=1e-9)
    assert iv.high == pytest.approx(math.exp(mean + half), rel=1e-9)
    assert (iv.rounds, iv.method) == (2, "t_log_ratio")
    assert iv.label == "95% t-interval on log ratios (2 rounds)"
    # two rounds that both say "faster" are not sure of it: the interval reaches below 1
    assert iv.low < 1.0 < iv.high


def test_the_issue_case_three_rounds_include_one():
    """Issue 24: n-gram on prose (0 drafts), paired ratios 0.975, 0.993, 0.987: the old bootstrap said
    [0.98x, 0.99x] "loses"; the t-interval is [0.962, 1.008] and contains 1."""
    iv = log_ratio_interval([0.975, 0.993, 0.987])
    logs = [math.log(r) for r in (0.975, 0.993, 0.987)]
    m = sum(logs) / 3
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / 2)
    assert iv.low == pytest.approx(math.exp(m - T975_DF2 * sd / math.sqrt(3)), rel=1e-9)
    assert iv.high == pytest.approx(math.exp(m + T975_DF2 * sd / math.sqrt(3)), rel=1e-9)
    assert round(iv.low, 3) == 0.962 and round(iv.high, 3) == 1.008


def test_one_round_has_a_point_and_no_interval_and_none_has_nothing():
    iv = log_ratio_interval([2.0])
    assert (iv.point, iv.low, iv.high, iv.rounds, iv.method) == (2.0, None, None, 1, "none")
    assert iv.label == "no interval (1 round)" and interval_label(0) == "no interval (0 rounds)"
    assert log_ratio_interval([]).point is None


def test_identical_rounds_give_a_zero_width_interval_at_the_ratio():
    iv = log_ratio_interval([1.2, 1.2, 1.2])
    assert iv.point == pytest.approx(1.2) and iv.low == pytest.approx(1.2) and iv.high == pytest.approx(1.2)


def test_degraded_round_is_dropped_and_counted():
    cells = _run([10.0, 10.0, 10.0], [15.0, 15.0, 99.0])
    cells[-1] = cell("mtp", "code", 1, 2, 99.0, status="degraded", reasons=("STREAM_DEGRADED",))
    pr = paired_rounds(group_cells(cells), group_cells(cells, True), "mtp", "base", "code", 1)
    assert pr.rounds == 2 and pr.asked == 3 and pr.dropped == 1 and pr.ratios == (1.5, 1.5)
    (c,) = judge(cells, "base").comparisons
    assert c.rounds == 2 and c.dropped == 1 and c.speedup == pytest.approx(1.5)
    assert [(r.code, r.figure) for r in c.reasons] == [("ROUNDS_DROPPED", 1)]


def test_a_comparison_per_workload_and_level_with_its_means_and_cvs():
    cells = _run([10.0, 12.0], [15.0, 14.0], "prose", 1) + _run([40.0, 40.0], [30.0, 30.0], "prose", 8)
    a, b = judge(cells, "base").comparisons
    assert [(c.workload, c.level) for c in (a, b)] == [("prose", 1), ("prose", 8)]
    assert a.config_mean == pytest.approx(14.5) and a.baseline_mean == pytest.approx(11.0)
    assert a.baseline_cv == pytest.approx(math.sqrt(2.0) / 11.0)  # std(10, 12) = sqrt(2), mean 11
    assert b.speedup == pytest.approx(0.75) and b.verdict == "slower"


def test_missing_baseline_is_a_config_error():
    with pytest.raises(ConfigError) as e:
        judge([cell("mtp", "code", 1, 0, 10.0)], "base")
    assert e.value.found == "base" and e.value.expected == "one of the run's configs: mtp" and e.value.fix


def test_cv_hand_values():
    assert coefficient_of_variation([2.0, 4.0, 6.0]) == pytest.approx(0.5)  # std 2, mean 4
    assert coefficient_of_variation([5.0]) is None

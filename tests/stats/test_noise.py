"""Pairing by time, the A/A noise floor, the drift check and honest interval names (pure data)."""

from __future__ import annotations

import pytest
from cellmaker import cell

from specscope.stats.noise import drift_check, judged_speedups
from specscope.stats.pairing import pair_by_time
from specscope.stats.speedup import interval_label, why_of


def timed(config, repeat, tok_s, t0_s, workload="prose", n=1):
    return cell(config, workload, n, repeat, tok_s, started_at_s=t0_s, ended_at_s=t0_s + 10.0)


def test_cells_pair_with_the_baseline_cell_nearest_in_time_not_the_same_repeat():
    # ngram r0 ran right after base r1, and ngram r1 right after base r0
    x = {0: timed("ngram", 0, 110.0, 1000.0), 1: timed("ngram", 1, 120.0, 100.0)}
    b = {0: timed("base", 0, 100.0, 80.0), 1: timed("base", 1, 90.0, 1020.0)}
    pairs = pair_by_time(x, b)
    assert [(p[0].repeat, p[1].repeat) for p in pairs] == [(1, 0), (0, 1)]
    # without instants (runs stored before issue 12), by repeat index
    old = pair_by_time({0: cell("ngram", "prose", 1, 0, 1.0), 1: cell("ngram", "prose", 1, 1, 1.0)}, b)
    assert [(p[0].repeat, p[1].repeat) for p in old] == [(0, 0), (1, 1)]


def test_a_win_inside_the_aa_spread_is_within_noise_and_the_aa_control_never_wins():
    cells = []
    for r, (base, again, fast) in enumerate([(100.0, 104.0, 105.0), (100.0, 106.0, 106.0), (100.0, 105.0, 104.0)]):
        t = 100.0 * r
        cells += [timed("base", r, base, t), timed("base-again", r, again, t + 20), timed("ngram", r, fast, t + 40)]
    judged, drift = judged_speedups(cells, "base")
    by = {s.config: s for s in judged}
    aa, ng = by["base-again"], by["ngram"]
    assert aa.speedup == pytest.approx(1.05)
    assert aa.ci_low > 1.0  # its interval excludes 1, yet it is the noise floor, not a win
    assert aa.verdict == "within noise"
    assert aa.why == (
        "A/A control (the baseline measured twice): the noise floor is +-6.0 %; "
        "its interval excludes 1, so the run is noisier than its intervals say"
    )
    assert ng.ci_low > 1.0 and ng.speedup == pytest.approx(1.05)
    assert ng.verdict == "within noise"
    assert ng.why == "effect +5.0 % is inside the A/A spread +-6.0 %"
    # drift: base and base-again cells in time order, early three (100, 104, 100) against late three (106, 100, 105)
    assert drift.drift == pytest.approx(311.0 / 304.0 - 1.0)


def test_a_win_beyond_the_aa_spread_stays_a_win_and_drift_overrules_a_small_one():
    cells = []
    for r in range(3):
        t = 100.0 * r
        cells += [
            timed("base", r, 100.0, t),
            timed("base-again", r, 100.0 + r, t + 20),
            timed("draft", r, 150.0 + r, t + 40),
        ]
    judged, _ = judged_speedups(cells, "base")
    draft = next(s for s in judged if s.config == "draft")
    assert draft.verdict == "wins" and draft.why == ""
    # the baseline drifts by 30 %: a +20 % effect is no larger than that
    drifting = [timed("base", r, v, 100.0 * r) for r, v in enumerate([100.0, 100.0, 130.0, 130.0])]
    drifting += [timed("ngram", r, v, 100.0 * r + 30) for r, v in enumerate([121.0, 119.0, 157.0, 155.0])]
    judged, drift = judged_speedups(drifting, "base")
    assert drift.drift == pytest.approx(0.3) and drift.group == ("prose", 1) and drift.cells == 4
    ng = judged[0]
    assert ng.ci_low > 1.0
    assert ng.verdict == "within noise"
    assert ng.why == "effect +20.0 % is no larger than the run's drift 30.0 %"


def test_drift_check_early_half_against_late_half():
    cells = [timed("base", r, v, 10.0 * r) for r, v in enumerate([100.0, 102.0, 110.0, 90.0, 80.0])]
    d = drift_check(cells, "base")
    # early = first 2 (mean 101), late = last 2 (mean 85)
    assert d.drift == pytest.approx(abs(85.0 / 101.0 - 1.0))
    assert drift_check([timed("base", 0, 100.0, 0.0)], "base").drift is None


def test_interval_names_and_reasons_are_honest_for_the_rounds():
    assert interval_label(0) == "no interval"
    assert interval_label(2) == "range of 2 per-round ratios"
    assert interval_label(3) == "bootstrap range over 3 rounds (coverage below 95%)"
    assert interval_label(6) == "95% CI (6 rounds)"
    assert why_of("undetermined", 1, 1, None, None) == (
        "1 paired round: no interval (run at least 2 repeats); 1 round(s) dropped as degraded or unpaired"
    )
    assert why_of("within noise", 2, 0, 0.9, 1.1) == "the interval [0.900x, 1.100x] contains 1; only 2 rounds"
    assert why_of("wins", 6, 0, 1.1, 1.2) == ""


def test_the_noise_floor_is_the_largest_aa_spread_of_the_run():
    """A quiet group's A/A control (two rounds that agreed to 1 %) does not let a 3 % effect be called: the floor
    is the run's largest spread, here prose at N=2's +-10 %."""
    cells = []
    for r, (quiet_again, noisy_again, ngram) in enumerate([(101.0, 110.0, 103.0), (100.0, 95.0, 103.5)]):
        t = 100.0 * r
        cells += [
            timed("base", r, 100.0, t),
            timed("base-again", r, quiet_again, t + 10),
            timed("ngram", r, ngram, t + 20),
        ]
        cells += [timed("base", r, 100.0, t + 30, n=2), timed("base-again", r, noisy_again, t + 40, n=2)]
    judged, _ = judged_speedups(cells, "base")
    by = {(s.config, s.concurrency): s for s in judged}
    assert by[("base-again", 1)].why == (
        "A/A control (the baseline measured twice): its spread is +-1.0 %; comparisons on 2 rounds are judged "
        "against +-10.0 % (the run's largest, prose at N=2)"
    )
    assert by[("base-again", 2)].why.startswith(
        "A/A control (the baseline measured twice): the noise floor is +-10.0 %"
    )
    ng = by[("ngram", 1)]
    assert ng.ci_low > 1.0 and ng.speedup == pytest.approx(1.0325)  # excludes 1 and +3.25 % is beyond +-1 %
    assert ng.verdict == "within noise"
    assert ng.why == "effect +3.2 % is inside the A/A spread +-10.0 % (the run's largest, prose at N=2)"


def test_a_comparison_is_judged_against_the_drift_of_its_own_group():
    """The baseline of prose at N=2 drifts by 30 %; a +20 % win at N=1, whose baseline held still, stays a win, and
    a +20 % effect at N=2 is overruled by its own group's drift."""
    cells = []
    for r, (b1, x1, b2, x2) in enumerate(
        [
            (100.0, 121.0, 100.0, 121.0),
            (100.0, 119.0, 100.0, 119.0),
            (100.0, 120.0, 130.0, 157.0),
            (100.0, 120.0, 130.0, 155.0),
        ]
    ):
        t = 100.0 * r
        cells += [timed("base", r, b1, t), timed("ngram", r, x1, t + 10)]
        cells += [timed("base", r, b2, t + 20, n=2), timed("ngram", r, x2, t + 30, n=2)]
    judged, drift = judged_speedups(cells, "base")
    assert drift.drift == pytest.approx(0.3) and drift.group == ("prose", 2)
    assert drift.of(("prose", 1)).drift == pytest.approx(0.0) and drift.of(("prose", 1)).cells == 4
    assert drift.cells == 8
    by = {s.concurrency: s for s in judged}
    assert by[1].verdict == "wins" and by[1].why == ""
    assert by[2].ci_low > 1.0 and by[2].verdict == "within noise"
    assert by[2].why == "effect +20.0 % is no larger than its baseline's drift 30.0 % (prose at N=2)"


def test_a_comparison_on_more_rounds_is_not_judged_by_a_spread_from_fewer():
    """An adaptive run: prose at N=2 stopped after 2 rounds with a +-20 % A/A spread; prose at N=1 ran 4 rounds
    (spread +-2 %). The 4-round n-gram loss at N=1 (-10 %) is judged against the 4-round group's floor, not the
    2-round one; a 2-round comparison is judged against the largest of all."""
    cells = []
    for r, (again, ngram) in enumerate([(101.0, 90.0), (99.0, 91.0), (100.0, 89.0), (101.0, 90.0)]):
        t = 100.0 * r
        cells += [timed("base", r, 100.0, t), timed("base-again", r, again, t + 10), timed("ngram", r, ngram, t + 20)]
    for r, (again, ngram) in enumerate([(120.0, 89.0), (100.0, 90.0)]):
        t = 100.0 * r + 50
        cells += [timed("base", r, 100.0, t, n=2), timed("base-again", r, again, t + 10, n=2)]
        cells += [timed("ngram", r, ngram, t + 20, n=2)]
    judged, _ = judged_speedups(cells, "base")
    by = {(s.config, s.concurrency): s for s in judged}
    assert by[("base-again", 2)].why.startswith(
        "A/A control (the baseline measured twice): the noise floor is +-20.0 %"
    )
    assert by[("ngram", 1)].repeats == 4 and by[("ngram", 1)].speedup == pytest.approx(0.90)
    assert by[("ngram", 1)].verdict == "loses" and by[("ngram", 1)].why == ""
    two = by[("ngram", 2)]
    assert two.repeats == 2 and two.ci_high < 1.0 and two.verdict == "within noise"
    assert two.why == "effect -10.5 % is inside the A/A spread +-20.0 %"


def test_in_an_adaptive_run_the_floor_says_which_groups_it_is_the_largest_of():
    """Three groups: N=1 and N=4 ran 4 rounds (A/A spreads +-1 % and +-5 %), N=2 stopped after 2 (+-20 %). A 4-round
    -4 % effect at N=1 is inside +-5 %, which is the largest over the 4-round groups, not the run's largest (20 %)."""
    cells = []
    for r, (a1, x1, a4) in enumerate(
        [(101.0, 96.0, 105.0), (99.0, 96.2, 95.0), (100.0, 95.8, 104.0), (100.0, 96.0, 96.0)]
    ):
        t = 100.0 * r
        cells += [timed("base", r, 100.0, t), timed("base-again", r, a1, t + 10), timed("ngram", r, x1, t + 20)]
        cells += [timed("base", r, 100.0, t + 30, n=4), timed("base-again", r, a4, t + 40, n=4)]
    for r, again in enumerate([120.0, 100.0]):
        cells += [timed("base", r, 100.0, 100.0 * r + 50, n=2), timed("base-again", r, again, 100.0 * r + 60, n=2)]
    judged, _ = judged_speedups(cells, "base")
    by = {(s.config, s.concurrency): s for s in judged}
    ng = by[("ngram", 1)]
    assert ng.repeats == 4 and ng.ci_high < 1.0 and ng.verdict == "within noise"
    aa4 = by[("base-again", 4)]
    floor4 = max(abs(aa4.ci_low - 1.0), abs(aa4.ci_high - 1.0))  # the A/A spread's definition
    assert 0.04 < floor4 < 0.2 and floor4 > abs(ng.gain)
    assert ng.why == (
        f"effect {ng.gain * 100:+.1f} % is inside the A/A spread +-{floor4 * 100:.1f} % "
        "(the largest on at least 4 rounds, prose at N=4)"
    )
    assert by[("base-again", 1)].why.endswith(
        f"judged against +-{floor4 * 100:.1f} % (the largest on at least 4 rounds, prose at N=4)"
    )

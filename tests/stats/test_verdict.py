"""The one verdict rule (stats/verdict.py): every verdict of the closed set, its reasons and their figures."""

from __future__ import annotations

import pytest

from specscope.config import RunOptions
from specscope.stats.noise import NoiseFloor
from specscope.stats.speedup import Interval
from specscope.stats.verdict import DEFAULT_MIN_EFFECT, MIN_VERDICT_ROUNDS, VERDICTS, decide, min_effect_of


def iv(point: float, low: float, high: float, rounds: int = 3) -> Interval:
    return Interval(point, low, high, rounds, "t_log_ratio")


def codes(reasons) -> list[tuple[str, float | int | None]]:
    return [(r.code, r.figure) for r in reasons]


def test_the_closed_set_and_the_defaults():
    assert VERDICTS == ("faster", "slower", "equivalent", "undetermined", "not_engaged")
    assert DEFAULT_MIN_EFFECT == 0.02 and MIN_VERDICT_ROUNDS == 2


def test_faster_and_slower_need_the_interval_to_exclude_one_and_the_effect_beyond_min_effect():
    assert decide(iv(1.30, 1.25, 1.35)) == ("faster", ())
    assert decide(iv(0.80, 0.75, 0.85)) == ("slower", ())
    # excludes 1, effect +1.5 % is under the 2 % minimum and the interval reaches past it: undetermined
    v, r = decide(iv(1.015, 1.005, 1.025))
    assert v == "undetermined" and codes(r) == [("BELOW_MIN_EFFECT", pytest.approx(0.015))]
    # identical servers 0.9998x with a tight interval: never "slower"; equivalent
    assert decide(iv(0.9998, 0.9996, 0.99995))[0] == "equivalent"
    # the same interval under --min-effect 0: a real, tiny loss
    assert decide(iv(0.9998, 0.9996, 0.99995), min_effect=0.0)[0] == "slower"


def test_equivalent_when_the_whole_interval_lies_within_min_effect():
    assert decide(iv(1.00, 0.985, 1.019)) == ("equivalent", ())
    assert decide(iv(1.01, 1.002, 1.018)) == ("equivalent", ())  # excludes 1 but the difference is below 2 %
    v, r = decide(iv(1.00, 0.97, 1.03))
    assert v == "undetermined" and codes(r) == [("INTERVAL_INCLUDES_ONE", pytest.approx((1.03 / 0.97) ** 0.5 - 1))]
    assert r[0].text == "the interval [0.970x, 1.030x] contains 1 and reaches beyond +-2.0 %"


def test_the_aa_floor_and_a_confirmed_drift_bias_hold_a_verdict_back():
    floor = NoiseFloor(0.06, "prose", 1, 3)
    v, r = decide(iv(1.05, 1.02, 1.08), floor=floor)
    assert v == "undetermined" and codes(r) == [("AA_FLOOR", 0.06)]
    assert r[0].text == "effect +5.0 % is inside the A/A noise floor +-6.0 % (prose at N=1, 3 rounds)"
    assert decide(iv(1.07, 1.04, 1.10), floor=floor)[0] == "faster"
    v, r = decide(iv(0.90, 0.85, 0.95), drift=0.12)
    assert v == "undetermined" and codes(r) == [("DRIFT", 0.12)]
    assert decide(iv(0.90, 0.85, 0.95), drift=0.02)[0] == "slower"


def test_too_few_rounds_and_no_drafts():
    v, r = decide(Interval(1.5, None, None, 1, "none"))
    assert v == "undetermined" and codes(r) == [("TOO_FEW_ROUNDS", 1)]
    assert r[0].text == "1 paired round: a verdict needs at least 2 (run more repeats)"
    v, r = decide(iv(0.98, 0.96, 1.00), engaged=False, zero_draft_cells=3)
    assert v == "not_engaged" and codes(r) == [("NO_DRAFTS", 3)]


def test_the_aa_control_is_equivalent_or_undetermined_never_faster():
    assert decide(iv(1.00, 0.99, 1.01), control=True) == ("equivalent", ())
    v, r = decide(iv(1.05, 1.02, 1.08), control=True)
    assert v == "undetermined" and codes(r) == [("AA_EXCLUDES_ONE", pytest.approx(0.05))]
    assert decide(iv(1.30, 1.25, 1.35), control=True)[0] == "undetermined"


def test_min_effect_from_the_command_line_the_manifest_or_the_default():
    assert min_effect_of(RunOptions.from_stored({"min_effect": 0.05})) == 0.05
    assert min_effect_of(RunOptions.from_stored({"min_effect": 0.05}), 0.01) == 0.01
    assert min_effect_of(RunOptions.from_stored({})) == 0.02 and min_effect_of(None) == 0.02

"""Picks by point estimate (:mod:`specscope.stats.unjudged`): pure arithmetic on given rates."""

from __future__ import annotations

import math

import pytest

from specscope.stats.unjudged import unjudged_picks

# tok/s at 1 and 16 streams: 'fast1' triples the baseline at one stream and loses a little at 16, 'steady' gains
# 20 % everywhere. A geometric mean of speedups ranks fast1 first (sqrt(3 x 0.9) = 1.64); the same time at both
# levels gives fast1 (30 + 180) / (10 + 200) = 1.0 and steady (12 + 240) / 210 = 1.2.
RATES = {
    ("base", 1): 10.0,
    ("base", 16): 200.0,
    ("fast1", 1): 30.0,
    ("fast1", 16): 180.0,
    ("steady", 1): 12.0,
    ("steady", 16): 240.0,
}


def _rate(config: str, level: int) -> float | None:
    return RATES.get((config, level))


def test_overall_is_equal_time_on_tok_s_never_a_geometric_mean_of_speedups():
    u = unjudged_picks(_rate, "base", ["fast1", "steady"], [1, 16], None)
    assert math.sqrt(3.0 * 0.9) > 1.2  # what a geometric mean would have picked
    assert u.overall == "steady"
    assert u.overall_speedup == pytest.approx(252.0 / 210.0, rel=1e-12)
    assert [(p.level, p.config, p.tok_s, p.baseline_tok_s) for p in u.levels] == [
        (1, "fast1", 30.0, 10.0),
        (16, "steady", 240.0, 200.0),
    ]


def test_level_mix_static_and_dynamic_are_time_weighted_rates():
    u = unjudged_picks(_rate, "base", ["fast1", "steady"], [1, 16], {1: 0.75, 16: 0.25})
    assert (u.static, u.static_tok_s, u.baseline_tok_s) == ("steady", 0.75 * 12 + 0.25 * 240, 0.75 * 10 + 0.25 * 200)
    assert (u.dynamic, u.dynamic_tok_s) == ({1: "fast1", 16: "steady"}, 0.75 * 30 + 0.25 * 240)


def test_a_level_the_baseline_lacks_leaves_overall_absent():
    u = unjudged_picks(_rate, "base", ["fast1"], [1, 4], None)
    assert (u.overall, u.overall_speedup) == (None, None)


def test_a_config_that_did_not_speculate_is_never_the_point_estimate_pick():
    """Found on `make bench` (2026-12-05): one round each, ``ngram`` reported 0 drafts on prose (``not engaged``) and
    measured 3 % above the baseline by noise; the unjudged pick named it. It served the baseline's way: no pick."""
    from cellmaker import cell, counters

    from specscope.report.advice import advise
    from specscope.stats.choices import Traffic

    cells = [
        cell("base", "prose", 1, 0, 100.0),
        cell("ngram", "prose", 1, 0, 103.0, counters=counters(0, [0.0, 0.0, 0.0])),
        cell("mtp", "prose", 1, 0, 101.0, counters=counters(50, [40.0, 30.0, 20.0])),
    ]
    c = advise(cells, Traffic(mix={"prose": 1.0})).choices
    (lv,) = c.levels
    assert {m.config: m.verdict for m in lv.candidates} == {"ngram": "not_engaged", "mtp": "undetermined"}
    assert c.unjudged is not None
    assert [(p.config, p.tok_s, p.baseline_tok_s) for p in c.unjudged.levels] == [("mtp", 101.0, 100.0)]
    assert (c.unjudged.overall, c.unjudged.overall_speedup) == ("mtp", pytest.approx(1.01, rel=1e-12))

"""Acceptance views against hand-computed values (seed 003's per-position acceptance at k=5)."""

from __future__ import annotations

import pytest
from cellmaker import cell, counters

from specscope.stats.acceptance import acceptance_view, conditional_rates, pooled_acceptance

SEED3_COUNTS = [936.0, 815.0, 681.0, 581.0, 484.0]  # per 1000 drafts: 0.936 / 0.815 / 0.681 / 0.581 / 0.484


def test_unconditional_and_conditional_rates():
    v = acceptance_view(1000, 5000, sum(SEED3_COUNTS), SEED3_COUNTS)
    assert v.unconditional == pytest.approx((0.936, 0.815, 0.681, 0.581, 0.484))
    assert v.conditional == pytest.approx((0.936, 0.815 / 0.936, 0.681 / 0.815, 0.581 / 0.681, 0.484 / 0.581))
    assert v.conditional[1] == pytest.approx(0.870726, abs=1e-6)
    assert v.acceptance_rate == pytest.approx(0.6994)  # 3497 / 5000: the seed's "mean ~0.70"
    assert v.acceptance_length == pytest.approx(4.497)
    assert v.length_from_positions == pytest.approx(4.497)
    assert v.flags == ()


def test_length_identity_violation_is_flagged():
    v = acceptance_view(1000, 5000, 4000, SEED3_COUNTS)  # accepted_tokens says 4000, positions sum to 3497
    assert v.acceptance_length == pytest.approx(5.0)
    assert v.length_from_positions == pytest.approx(4.497)
    assert len(v.flags) == 1 and v.flags[0].startswith("LENGTH_IDENTITY")


def test_rising_position_is_flagged():
    v = acceptance_view(100, 200, 90, [40, 50])
    assert any(f.startswith("POSITION_RISES") for f in v.flags)
    assert v.conditional == pytest.approx((0.4, 1.25))


def test_conditional_after_zero_is_none():
    assert conditional_rates([0.5, 0.0, 0.0]) == (0.5, 0.0, None)


def test_pooled_sums_counters_not_rates():
    cells = [
        cell("mtp", "prose", 1, 0, 10.0, counters=counters(100, [50, 20])),
        cell("mtp", "prose", 4, 0, 10.0, counters=counters(300, [90, 30])),
        cell("mtp", "edit", 1, 0, 10.0, counters=counters(10, [10, 10])),
        cell("base", "prose", 1, 0, 10.0),
        cell("mtp", "prose", 8, 0, 10.0, status="failed", counters=counters(1000, [0, 0])),
    ]
    views = pooled_acceptance(cells)
    assert set(views) == {("mtp", "prose"), ("mtp", "edit")}
    prose = views[("mtp", "prose")]
    assert prose.drafts == 400
    assert prose.unconditional == pytest.approx((140 / 400, 50 / 400))  # not the mean of 0.5 and 0.3
    assert prose.acceptance_rate == pytest.approx(190 / 800)
    assert views[("mtp", "edit")].acceptance_rate == pytest.approx(1.0)
    by_config = pooled_acceptance(cells, by_workload=False)
    assert by_config[("mtp", None)].drafts == 410

"""The smallest number of rounds a verdict is allowed at comes from benchmarks/verdict_coverage.py's table, not a
guess: a small, seeded version of it here (the full table is in benchmarks/RESULTS.md, "Verdict coverage")."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import verdict_coverage as vc  # noqa: E402

from specscope.stats.speedup import log_ratio_interval  # noqa: E402
from specscope.stats.verdict import MIN_VERDICT_ROUNDS, decide  # noqa: E402


def test_min_verdict_rounds_is_the_tables_smallest_n():
    rows = vc.table(vc.NoiseModel(), reps=2000, min_effect=0.02, seed=7, boot_reps=0)
    assert [r.n for r in rows] == list(range(2, 13))
    assert vc.smallest_n(rows) == MIN_VERDICT_ROUNDS == 2
    assert all(r.coverage_worst >= vc.COVERAGE_GOAL and r.false_faster <= 0.05 for r in rows)
    # power grows with the rounds at a 10 % effect
    assert rows[0].power[2] < rows[4].power[2] < rows[-1].power[2]


def test_the_bootstrap_it_replaces_does_not_cover_at_small_n():
    ratios, x, b, _ = vc.simulate_ratios(vc.NoiseModel(), 0.02, 0.0, 3, 200, np.random.default_rng(3))
    assert vc.bootstrap_coverage(x, b, 1.0, np.random.default_rng(4), 1000) < 0.8
    _, lo, hi = vc.t_intervals(ratios)
    assert np.mean((lo <= 1.0) & (1.0 <= hi)) > 0.9


def test_the_vectorised_rule_of_the_benchmark_is_the_rule():
    rng = np.random.default_rng(11)
    ratios = np.exp(rng.normal(0.03, 0.03, size=(300, 3)))
    p, lo, hi = vc.t_intervals(ratios)
    faster, slower = vc.verdicts(p, lo, hi, 0.02)
    for i in range(300):
        iv = log_ratio_interval(list(ratios[i]))
        assert (iv.point, iv.low, iv.high) == (pytest.approx(p[i]), pytest.approx(lo[i]), pytest.approx(hi[i]))
        v, _ = decide(iv, min_effect=0.02)
        assert (v == "faster", v == "slower") == (bool(faster[i]), bool(slower[i]))

"""A mix's round r is repeat r of every workload and level in it (stats/mix.py, module docstring): a repeat one
part lacks is no round of the mix, and the parts are never paired by position.

mtp's prose cell of repeat 0 is missing (a cold start left out, a failed cell). Code runs at 100/200/300 tok/s for
the baseline in repeats 0/1/2, mtp at 1.1x of that; prose at 100 for the baseline, 120 for mtp. With equal token
shares, round r's ratio is H(120, 1.1 c_r) / H(100, c_r), H the harmonic mean, c_r the baseline's code rate: rounds
1 and 2 only. Pairing by position would put prose's repeat 1 beside code's repeat 0 (H(120, 110) / H(100, 100)).
"""

from __future__ import annotations

import math

import pytest
from cellmaker import cell

from specscope.report.advice import advise
from specscope.stats.choices import Traffic
from specscope.stats.mix import common_rounds, level_mix_round_ratios, mix_round_ratios

CODE = (100.0, 200.0, 300.0)


def _h(a: float, b: float) -> float:
    return 1.0 / (0.5 / a + 0.5 / b)


def _cells():
    out = []
    for r, c in enumerate(CODE):
        out += [cell("base", "prose", 1, r, 100.0), cell("base", "code", 1, r, c), cell("mtp", "code", 1, r, 1.1 * c)]
        if r:
            out.append(cell("mtp", "prose", 1, r, 120.0))
    return out


def test_mix_rounds_are_the_repeats_every_workload_has():
    want = [_h(120.0, 1.1 * c) / _h(100.0, c) for c in CODE[1:]]
    prose = {1: (120.0, 100.0), 2: (120.0, 100.0)}
    got = mix_round_ratios([prose, {r: (1.1 * c, c) for r, c in enumerate(CODE)}], [0.5, 0.5])
    assert got == pytest.approx(want, rel=1e-12)
    assert common_rounds([{0: (1, 1)}, {1: (1, 1)}]) == []
    assert mix_round_ratios([{0: (1.0, 1.0)}, {1: (1.0, 1.0)}], [0.5, 0.5]) == []
    lv = level_mix_round_ratios({1: [{0: (2.0, 1.0), 1: (2.0, 1.0)}], 4: [{1: (3.0, 3.0)}]}, [1.0], {1: 0.5, 4: 0.5})
    assert lv == pytest.approx([(0.5 * 2.0 + 0.5 * 3.0) / (0.5 * 1.0 + 0.5 * 3.0)], rel=1e-12)


def test_advise_mix_rests_on_the_common_repeats():
    c = advise(_cells(), Traffic(mix={"prose": 0.5, "code": 0.5})).choices
    (lv,) = c.levels
    (m,) = [m for m in lv.candidates if m.config == "mtp"]
    ratios = [_h(120.0, 1.1 * c) / _h(100.0, c) for c in CODE[1:]]
    assert m.rounds == 2
    assert m.speedup == pytest.approx(math.exp(sum(map(math.log, ratios)) / 2), rel=1e-9)
    # each round's ratio lies between the workloads' own ratios (1.1 and 1.2), so the mix does too
    assert 1.1 < m.speedup < 1.2

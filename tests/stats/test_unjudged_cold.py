"""The point-estimate (unjudged) pick rests on the cells the comparisons rest on: a cold start left out of the pairing
is left out of the pick's mix rate too (fresh-user finding, 2026-12-06: `make bench`'s report showed ngram's mix
speedup at N=1 as 1.02x on its one paired round, while the unjudged pick beside it named base first, 8.7 tok/s
against ngram's mean that still held its cold first cell)."""

from __future__ import annotations

import pytest
from cellmaker import timed

from specscope.stats.judgement import judge


def _timed(config: str, repeat: int, tok_s: float, at_s: float):
    return timed(config, repeat, tok_s, at_s, "code")


def test_a_cold_start_is_out_of_the_unjudged_rate_as_out_of_the_pairing():
    cells = [
        _timed("base", 0, 10.0, 0.0),
        _timed("ngram", 0, 5.0, 20.0),  # ngram's first cell: half its later speed, a cold start
        _timed("base", 1, 10.0, 40.0),
        _timed("ngram", 1, 10.5, 60.0),
    ]
    j = judge(cells, "base")
    assert [(c.config, c.workload, c.level, c.repeat) for c in j.cold_starts] == [("ngram", "code", 1, 0)]
    (cmp,) = [c for c in j.comparisons if c.config == "ngram"]
    assert cmp.rounds == 1 and cmp.speedup == pytest.approx(1.05)  # one paired round: too few to judge
    assert j.choices is not None
    (lv,) = j.choices.levels
    # the pick's rates: ngram's warm cell (10.5) against base's two (10.0): 1.05x, as the comparison says; with the
    # cold cell ngram's mean was 7.75 and base ranked first
    assert j.choices.unjudged is not None
    (pick,) = j.choices.unjudged.levels
    assert (pick.config, pick.tok_s, pick.baseline_tok_s) == ("ngram", pytest.approx(10.5), pytest.approx(10.0))
    (m,) = [m for m in lv.candidates if m.config == "ngram"]
    assert m.speedup == pytest.approx(1.05)

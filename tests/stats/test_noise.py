"""Pairing by time, cold starts, the drift check and its confirmation, the A/A noise floor (pure data)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from cellmaker import cell, timed

from specscope.stats.judgement import judge
from specscope.stats.noise import aa_floor, cold_starts, drift_check
from specscope.stats.pairing import pair_by_time
from specscope.stats.summary import CellSummary


def test_cells_pair_with_the_baseline_cell_nearest_in_time_not_the_same_repeat():
    # ngram r0 ran right after base r1, and ngram r1 right after base r0
    x = {0: timed("ngram", 0, 110.0, 1000.0), 1: timed("ngram", 1, 120.0, 100.0)}
    b = {0: timed("base", 0, 100.0, 80.0), 1: timed("base", 1, 90.0, 1020.0)}
    pairs = pair_by_time(x, b)
    assert [(p[0].repeat, p[1].repeat) for p in pairs] == [(1, 0), (0, 1)]
    # without instants (runs stored before issue 12), by repeat index
    old = pair_by_time({0: cell("ngram", "prose", 1, 0, 1.0), 1: cell("ngram", "prose", 1, 1, 1.0)}, b)
    assert [(p[0].repeat, p[1].repeat) for p in old] == [(0, 0), (1, 1)]


def _make_bench_cold_start():
    """Issue 24's fresh clone: the baseline's first two cells (two workloads) at 22.6 and 21.2 tok/s, the same cells
    later at 33-34; the A/A server's and n-gram's cells steady; a round is base, base-again, ngram, 10 s apart."""
    cells = []
    base = {("prose", 0): 22.6, ("code", 0): 21.2, ("prose", 1): 33.5, ("code", 1): 33.9}
    base |= {("prose", 2): 33.8, ("code", 2): 33.2}
    t = 0.0
    for r in range(3):
        for w in ("prose", "code"):
            cells += [timed("base", r, base[(w, r)], t, w), timed("base-again", r, 33.6, t + 10, w)]
            cells += [timed("ngram", r, 33.0, t + 20, w)]
            t += 30.0
    return cells


def test_a_cold_engine_is_named_a_cold_start_not_drift():
    cells = _make_bench_cold_start()
    cold = cold_starts(cells)
    assert [(c.config, c.workload, c.repeat) for c in cold] == [("base", "prose", 0), ("base", "code", 0)]
    assert cold[0].later_tok_s == pytest.approx(33.65) and cold[0].drop == pytest.approx(1 - 22.6 / 33.65)
    assert "a cold start, left out" in cold[0].text
    drift = drift_check(cells, "base", cold)  # after warm-up: 33.5 -> 33.8 on prose
    assert drift.of(("prose", 1)).drift == pytest.approx(33.8 / 33.5 - 1)
    assert drift.largest.drift == pytest.approx(33.2 / 33.9 - 1)  # not the 52.7 % the cold cells would make
    j = judge(cells, "base")
    ng = j.get("ngram", "prose", 1)
    assert ng.rounds == 2 and ng.has("COLD_START") and ng.speedup == pytest.approx(math.sqrt(33 / 33.5 * 33 / 33.8))
    assert [c.key for c in j.cold_starts] == [c.key for c in cold]


def test_later_cells_and_small_drops_are_not_cold_starts():
    cells = [timed("base", r, v, 10.0 * r) for r, v in enumerate([90.0, 100.0, 101.0, 60.0])]  # 10 % and a late dip
    assert cold_starts(cells) == ()
    assert cold_starts([timed("base", 0, 50.0, 0.0)]) == ()  # nothing later to compare with
    # two prompts, one twice as slow, alternating: the first slow cell is the slow prompt, not a cold engine
    alternating = [timed("flaky", r, v, 10.0 * r) for r, v in enumerate([50.0, 100.0, 51.0, 99.0])]
    assert cold_starts(alternating) == ()


def test_drift_halves_slope_and_confirmation_by_the_aa_cells():
    cells = [timed("base", r, v, 10.0 * r) for r, v in enumerate([100.0, 102.0, 110.0, 90.0, 80.0])]
    d = drift_check(cells, "base")
    g = d.of(("prose", 1))
    assert g.drift == pytest.approx(85.0 / 101.0 - 1.0) and g.cells == 5  # early 2 (mean 101), late 2 (mean 85)
    assert g.control_drift is None and not g.confirmed
    assert d.bias(("prose", 1), 100.0) is None  # nothing confirms it: never used to judge
    # the A/A server sees the same fall (-20 %): confirmed; the bias is |slope| x offset
    cells += [timed("base-again", r, v, 10.0 * r + 5) for r, v in enumerate([100.0, 80.0])]
    g = drift_check(cells, "base").of(("prose", 1))
    assert g.control_drift == pytest.approx(-0.2) and g.confirmed
    times = [0.0, 10.0, 20.0, 30.0, 40.0]
    logs = [math.log(v) for v in (100.0, 102.0, 110.0, 90.0, 80.0)]
    tm, lm = sum(times) / 5, sum(logs) / 5
    slope = sum((t - tm) * (y - lm) for t, y in zip(times, logs, strict=True)) / sum((t - tm) ** 2 for t in times)
    assert g.slope_per_s == pytest.approx(slope, rel=1e-9)
    assert drift_check(cells, "base").bias(("prose", 1), -5.0) == pytest.approx(abs(slope) * 5.0)
    # an A/A drift of the other sign, or under half, does not confirm
    opposite = cells[:5] + [timed("base-again", r, v, 10.0 * r + 5) for r, v in enumerate([100.0, 120.0])]
    assert not drift_check(opposite, "base").of(("prose", 1)).confirmed
    assert drift_check([timed("base", 0, 100.0, 0.0)], "base").largest is None


def test_interleaving_keeps_a_confirmed_drift_from_blocking_a_real_effect():
    """The machine slows by 30 % over the run, shared by every server; pairs are 10 s apart, so the drift can move a
    ratio by |slope| x 10 s, far below a +20 % effect: faster. The same drift across blocks 300 s apart blocks it."""
    cells = []
    for r, f in enumerate([1.0, 1.0, 0.7, 0.7]):
        t = 100.0 * r
        cells += [timed("base", r, 100.0 * f, t), timed("base-again", r, 100.5 * f, t + 10)]
        cells += [timed("ngram", r, 120.0 * f * (1 + 0.002 * r), t + 20)]
    j = judge(cells, "base")
    assert j.drift.largest.confirmed and j.drift.largest.drift == pytest.approx(-0.3)
    assert j.get("ngram", "prose", 1).verdict == "faster"
    # counterbalanced blocks: the baseline's block early (drifting -10 %, the A/A server too), n-gram's ~1000 s later
    blocks = [timed("base", r, v, 10.0 * r) for r, v in enumerate([100.0, 100.0, 90.0, 90.0])]
    blocks += [timed("base-again", r, v, 10.0 * r + 5) for r, v in enumerate([100.0, 100.0, 90.0, 90.0])]
    blocks += [timed("ngram", r, 85.0, 1000.0 + 10.0 * r) for r in range(4)]
    j = judge(blocks, "base")
    ng = j.get("ngram", "prose", 1)
    assert ng.high < 1.0 and ng.verdict == "undetermined"
    offsets = [t - b for t, b in zip((1000, 1010, 1020, 1030), (30, 20, 10, 0), strict=True)]
    bias = j.drift.bias(("prose", 1), sum(offsets) / 4)
    assert bias > abs(ng.gain) and [(r.code, r.figure) for r in ng.reasons] == [("DRIFT", pytest.approx(bias))]


def test_the_floor_is_the_aa_control_of_the_comparisons_own_group():
    aa = [("prose", 1, 3, 1.01), ("prose", 2, 3, 0.88), ("code", 1, 1, 1.5)]
    f = aa_floor(aa, ("prose", 1))
    assert (f.value, f.workload, f.level, f.rounds) == (pytest.approx(0.01), "prose", 1, 3)
    assert aa_floor(aa, ("code", 1)) is None  # one A/A round: no figure to judge by
    run = aa_floor(aa, None)
    assert (run.value, run.level) == (pytest.approx(0.12), 2)  # the run's floor, as the report prints it


def test_an_effect_inside_its_groups_aa_floor_is_undetermined_and_the_aa_control_is_never_faster():
    cells = []
    for r, (again, fast) in enumerate([(104.0, 105.0), (106.0, 106.0), (105.0, 104.0)]):
        t = 100.0 * r
        cells += [timed("base", r, 100.0, t), timed("base-again", r, again, t + 20), timed("ngram", r, fast, t + 40)]
    j = judge(cells, "base")
    aa, ng = j.get("base-again", "prose", 1), j.get("ngram", "prose", 1)
    assert aa.low > 1.0 and aa.control  # its interval excludes 1, yet it is the noise floor, not a win
    assert aa.verdict == "undetermined" and [r.code for r in aa.reasons] == ["AA_EXCLUDES_ONE"]
    assert aa.reasons[0].figure == pytest.approx(aa.speedup - 1.0)
    assert ng.low > 1.0 and ng.verdict == "undetermined"
    assert [(r.code, round(r.figure, 4)) for r in ng.reasons] == [("AA_FLOOR", round(aa.speedup - 1.0, 4))]
    assert ng.why.startswith(f"effect {ng.gain * 100:+.1f} % is inside the A/A noise floor +-")


def test_a_drift_note_tells_too_few_controls_from_none():
    """New-user trial (2026-12-06): with 2 rounds and the A/A round 0 left out as a cold start, the drift note said
    "no A/A or sentinel cells to confirm it" of a run that had A/A cells; it now counts them."""
    from specscope.report.verdicts import drift_notes

    cells = [timed("base", r, v, 30.0 * r) for r, v in enumerate([100.0, 102.0, 110.0, 90.0])]
    cold = [timed("base-again", 0, 60.0, 5.0), timed("base-again", 1, 101.0, 35.0), timed("base-again", 2, 100.0, 65.0)]
    d = drift_check(cells + cold[:2], "base", cold_starts(cells + cold[:2]))
    g = d.of(("prose", 1))
    assert (g.control_drift, g.control_cells) == (None, 2)  # the A/A round 0 is a cold start: one left, no drift
    (note,) = drift_notes(judge(cells + cold[:2], "base"))[0][-1:]
    assert (
        "2 A/A or sentinel cell(s) there, too few to confirm it (two are needed once cold starts are left out)" in note
    )
    (note,) = drift_notes(judge(cells, "base"))[0][-1:]
    assert (
        "no A/A or sentinel cells to confirm it" in note
        and drift_check(cells, "base").of(("prose", 1)).control_cells == 0
    )


def test_short_answers_in_early_rounds_are_no_drift():
    """Rounds take other prompts: rounds 0-1 answered in 26 tokens, rounds 2-3 in 128, at the same TTFT 0.2 s and TPOT
    10 ms. Aggregate tok/s reads 26 / 0.45 = 57.8 early and 128 / 1.47 = 87.1 late, a +50.7 % drift of a machine that
    did not change (the quick profile's `repeat` showed +29.5 % so); per request at one prompt and answer length (the
    mean: 77 tokens out, 100 in) every cell is 77 / (0.2 + 76 x 0.01) = 80.2 tok/s: no drift. A TPOT that really
    grows (10 -> 12.5 ms) is still read, at the same reference request."""

    def cell_(r: int, tokens: int, tpot_s: float) -> CellSummary:
        t = 0.2 + (tokens - 1) * tpot_s
        return cell(
            "base", "prose", 1, r, tokens / t, output_tokens=tokens, duration_s=t, ttft_p50_s=0.2,
            tpot_p50_s=tpot_s, prompt_tokens_mean=100.0, started_at_s=10.0 * r, ended_at_s=10.0 * r + t,
        )  # fmt: skip

    steady = [cell_(r, n, 0.010) for r, n in enumerate([26, 26, 128, 128])]
    assert [round(c.output_tok_s or 0, 1) for c in steady] == [57.8, 57.8, 87.1, 87.1]
    g = drift_check(steady, "base").of(("prose", 1))
    assert g.metric == "request_tok_s" and g.drift == pytest.approx(0.0, abs=1e-12) and abs(g.slope_per_s) < 1e-12
    slower = [cell_(r, n, s) for r, (n, s) in enumerate([(26, 0.010), (128, 0.010), (26, 0.0125), (128, 0.0125)])]
    g = drift_check(slower, "base").of(("prose", 1))
    assert g.drift == pytest.approx((0.2 + 76 * 0.010) / (0.2 + 76 * 0.0125) - 1.0)  # -16.5 %
    # a cell without TPOT: the group falls back to the speed figure (aggregate tok/s), and says so
    untimed = [*steady[:3], dataclasses.replace(steady[3], tpot_p50_s=None)]
    g = drift_check(untimed, "base").of(("prose", 1))
    assert g.metric == "output_tok_s" and g.drift == pytest.approx(87.1 / 57.8 - 1.0, rel=1e-3)

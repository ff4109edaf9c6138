"""Advice: mix-weighted choice, the verdict rule on mixes, crossovers, SLO and acceptance placement (hand-computed)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from cells import summary

from serverfacts import run_facts
from specscope.errors import ConfigError
from specscope.report.advice import advise
from specscope.stats.choices import Traffic
from specscope.stats.crossovers import find_crossovers, place_acceptance
from specscope.stats.goodput import SloTargets
from specscope.stats.mix import parse_mix

JITTER = (-0.001, 0.0, 0.001)  # symmetric: the mean over 3 rounds is exactly the table value

# seed 000 aggregate tok/s (base, MTP, DFlash) at N=1, with MTP prose at N=8 / 12 shaped like the seed's flip
TABLE = {
    ("prose", 1): (12.6, 16.6, 16.3),
    ("code", 1): (12.6, 20.4, 27.3),
    ("edit", 1): (12.4, 24.7, 101.5),
    ("prose", 8): (100.0, 105.0, 60.0),
    ("code", 8): (100.0, 140.0, 120.0),
    ("edit", 8): (95.0, 180.0, 400.0),
    ("prose", 12): (140.0, 124.0, 70.0),
    ("code", 12): (140.0, 180.0, 130.0),
    ("edit", 12): (130.0, 230.0, 300.0),
}
ACCEPT = {"mtp": {"prose": 0.475, "code": 0.763, "edit": 1.0}, "dflash": {"prose": 0.063, "code": 0.187, "edit": 0.827}}


def _cell(config, workload, conc, rep, tok_s, ttft_p95_s=0.5, tpot_p95_s=0.02):
    k = {"mtp": 2, "dflash": 15}.get(config)
    counters = None
    if k:
        rate = ACCEPT[config][workload]
        counters = {
            "drafts": 1000.0,
            "draft_tokens": 1000.0 * k,
            "accepted_tokens": 1000.0 * k * rate,
            "accepted_per_position": [],
        }
    return summary(
        config,
        workload,
        conc,
        rep,
        tok_s,
        output_tokens=512 * conc,
        duration_s=10.0,
        stream_tok_s=(),
        ttft_p50_s=0.2,
        ttft_p95_s=ttft_p95_s,
        tpot_p50_s=None,
        tpot_p95_s=tpot_p95_s,
        counters=counters,
    )


def _run(ttft_dflash_12=0.5, tpot_mtp_12=0.02):
    cells = []
    for (wl, conc), vals in TABLE.items():
        for cfg, v in zip(("base", "mtp", "dflash"), vals, strict=True):
            for r, e in enumerate(JITTER):
                ttft = ttft_dflash_12 if (cfg, conc) == ("dflash", 12) else 0.5
                tpot = tpot_mtp_12 if (cfg, conc) == ("mtp", 12) else 0.02
                sign = 1 if cfg == "base" else -1  # opposite drift: per-round ratios differ, means stay exact
                cells.append(_cell(cfg, wl, conc, r, v * (1 + sign * e), ttft, tpot))
    return cells


def _smix(cfg_idx, conc, mix):
    base_t = sum(m / TABLE[(w, conc)][0] for w, m in mix.items())
    cfg_t = sum(m / TABLE[(w, conc)][cfg_idx] for w, m in mix.items())
    return base_t / cfg_t


def test_parse_mix_normalises_says_so_and_rejects_bad_entries():
    shares = parse_mix("prose=2,code=3,edit=5")
    assert shares.shares == pytest.approx({"prose": 0.2, "code": 0.3, "edit": 0.5})
    assert shares.note == "the --mix shares sum to 10, not 1; normalised to prose=0.20, code=0.30, edit=0.50"
    # issue 24: --mix prose=0.5,code=0.3 was silently renormalised to 0.62 / 0.37
    assert parse_mix("prose=0.5,code=0.3").note.endswith("sum to 0.8, not 1; normalised to prose=0.62, code=0.37")
    assert parse_mix("prose=0.2,code=0.3,edit=0.5").note == ""
    for bad in ("prose", "prose=-1", "prose=x", "prose=1,prose=2", "prose=0", "prose=inf"):
        with pytest.raises(ConfigError):
            parse_mix(bad)


def test_mix_weighted_choice_at_one_stream():
    mix = {"prose": 0.2, "code": 0.3, "edit": 0.5}
    adv = advise(_run(), mix, concurrency=1, server_facts=run_facts({"dflash": {"num_speculative_tokens": 15}}))
    (lv,) = adv.choices.levels
    assert _smix(2, 1, mix) == pytest.approx(2.8386, abs=1e-4)  # DFlash on this mix
    assert _smix(1, 1, mix) == pytest.approx(1.7024, abs=1e-4)  # MTP on this mix
    assert lv.config == "dflash" and adv.ks["dflash"] == 15
    # the rounds' jitter cancels in the geometric mean: exactly the table's S_mix
    assert lv.comparison.speedup == pytest.approx(_smix(2, 1, mix), rel=1e-12)
    assert lv.comparison.low < lv.comparison.speedup < lv.comparison.high and lv.comparison.verdict == "faster"
    # all prose: MTP (+31.7 %) edges out DFlash (+29.4 %)
    (lv_prose,) = advise(_run(), {"prose": 1.0}, concurrency=1).choices.levels
    assert lv_prose.config == "mtp"
    assert lv_prose.comparison.speedup == pytest.approx(16.6 / 12.6, rel=1e-12)


def test_per_workload_winners_and_noise_rule():
    adv = advise(_run(), {"prose": 1.0})
    by = {lv.level: lv for lv in adv.choices.levels}
    assert by[1].per_workload == {"prose": "mtp", "code": "dflash", "edit": "dflash"}
    assert by[8].per_workload == {"prose": "mtp", "code": "mtp", "edit": "dflash"}
    assert by[12].per_workload == {"prose": "base", "code": "mtp", "edit": "dflash"}
    assert by[12].config == "base" and by[12].reason.startswith("no config is faster than the baseline (mtp: slower")
    # the choice flips from MTP to base between 8 and 12 streams
    assert {"from_config": "mtp", "to_config": "base", "below_level": 8, "above_level": 12} in adv.choices.flips


def test_noisy_rounds_are_undetermined_and_not_advised():
    cells = [c for c in _run() if c.concurrency == 1 and c.workload == "prose" and c.config == "base"]
    cells += [_cell("mtp", "prose", 1, r, v) for r, v in enumerate((11.0, 14.5, 12.4))]  # ratios 0.87, 1.15, 0.98
    (lv,) = advise(cells, {"prose": 1.0}).choices.levels
    mtp = next(m for m in lv.candidates if m.config == "mtp")
    assert mtp.verdict == "undetermined" and [r.code for r in mtp.reasons] == ["INTERVAL_INCLUDES_ONE"]
    assert lv.config == "base" and lv.comparison is None


def test_crossover_interpolated_in_log2_concurrency():
    s8, s12 = 105.0 / 100.0, 124.0 / 140.0
    t = (s8 - 1) / (s8 - s12)
    expected = 2 ** (3 + t * (math.log2(12) - 3))
    adv = advise(_run(), {"prose": 1.0})
    (x,) = [c for c in adv.crossovers if c.config == "mtp" and c.workload == "prose"]
    assert (x.below_level, x.above_level, x.direction, x.unit) == (8, 12, "faster->slower", "streams")
    assert x.at == pytest.approx(expected)
    assert x.at == pytest.approx(9.05, abs=0.01)


def test_a_crossover_needs_the_verdict_to_flip_not_the_sign():
    """The tester's run (/tmp/nubench adv.text): ``twin`` (the baseline's twin server) read 0.998x and 1.001x,
    both ``equivalent``, and advise printed "twin on the mix: slower->faster near 1.2 streams". A sign change inside
    the noise is no crossover; a flip between faster and slower is, across levels without a verdict between them."""
    assert find_crossovers([(1, 0.998, "equivalent"), (2, 1.001, "equivalent")], "twin", None) == []
    assert find_crossovers([(1, 1.2, "faster"), (2, 0.9, "undetermined")], "a", None) == []
    assert find_crossovers([(2, 0.9, "undetermined"), (4, 1.1, "faster")], "a", "code") == []
    assert find_crossovers([(1, 1.2, "faster"), (2, 1.3, "faster")], "a", None) == []
    (x,) = find_crossovers([(4, 0.9, "slower"), (1, 1.2, "faster"), (2, 1.01, "equivalent")], "a", "code")
    assert (x.below_level, x.above_level, x.direction) == (1, 4, "faster->slower")  # the equivalent level passed over
    assert x.at == pytest.approx(2 ** (2 * 0.2 / 0.3))  # log2 1 = 0 to log2 4 = 2, crossing at t = 0.2 / 0.3


def test_a_crossover_on_a_rate_axis_is_placed_in_requests_per_second():
    from specscope.stats.groups import LevelAxis

    axis = LevelAxis("rate", ((1, 2.0), (2, 8.0)))
    (x,) = find_crossovers([(1, 1.1, "faster"), (2, 0.9, "slower")], "a", None, axis)
    assert (x.unit, x.at) == ("req/s", pytest.approx(4.0))  # halfway between log2 2 and log2 8


def test_slo_excludes_a_config_whose_ttft_is_too_long():
    mix = {"edit": 1.0}
    (lv,) = advise(_run(ttft_dflash_12=30.0), Traffic(mix, slo=SloTargets(ttft_s=2.0)), concurrency=12).choices.levels
    assert lv.config == "mtp"
    dfl = next(m for m in lv.candidates if m.config == "dflash")
    assert not dfl.eligible
    (lv_free,) = advise(_run(ttft_dflash_12=30.0), mix, concurrency=12).choices.levels
    assert lv_free.config == "dflash"


def test_slo_tpot_target_means_what_bench_means_a_p95_tpot_bound():
    """``--slo`` takes the names bench takes (issue 37: one meaning per flag). A pick's p95 TPOT must meet the
    TPOT target: dflash's 60 ms breaks a 50 ms target at 12 streams, mtp's 20 ms meets it."""
    mix = {"edit": 1.0}
    run = _run(tpot_mtp_12=0.02)
    (free,) = advise(run, mix, concurrency=12).choices.levels
    assert free.config == "dflash"
    slow_dflash = [replace(c, tpot_p95_s=0.06) if (c.config, c.concurrency) == ("dflash", 12) else c for c in run]
    (lv,) = advise(slow_dflash, Traffic(mix, slo=SloTargets(tpot_s=0.05)), concurrency=12).choices.levels
    assert lv.config == "mtp"
    assert not next(m for m in lv.candidates if m.config == "dflash").eligible
    both = advise(slow_dflash, Traffic(mix, slo=SloTargets(ttft_s=0.1, tpot_s=0.05)), concurrency=12).choices
    assert both.levels == () and both.no_pick.startswith("no config meets the TTFT SLO of 100ms at any level")


def test_overall_is_equal_time_at_each_level_on_tok_s():
    """Issue 33: the overall pick is a traffic that spends the same time at each level, so its aggregate is tok/s
    summed over the levels (never a geometric mean of speedups). On this table the two disagree: DFlash's large
    ratios at one stream win the geometric mean (about 1.7x against 1.5x), MTP's tok/s at 8 and 12 win the time."""
    mix = {"prose": 0.2, "code": 0.3, "edit": 0.5}
    adv = advise(_run(), mix)

    def h(i, c):  # the mix rate at level c: token-weighted harmonic mean of the workloads' tok/s
        return 1.0 / sum(m / TABLE[(w, c)][i] for w, m in mix.items())

    equal_time = {i: sum(h(i, c) for c in (1, 8, 12)) / sum(h(0, c) for c in (1, 8, 12)) for i in (1, 2)}
    geomean = {i: math.exp(sum(math.log(_smix(i, c, mix)) for c in (1, 8, 12)) / 3) for i in (1, 2)}
    assert geomean[2] > geomean[1] and equal_time[1] > equal_time[2]  # the two averages pick differently here
    o = adv.choices.overall
    assert o.config == "mtp" and o.comparison.verdict == "faster"
    assert o.comparison.speedup == pytest.approx(equal_time[1], rel=1e-12)  # symmetric jitter cancels per round
    assert o.comparison.low <= equal_time[1] <= o.comparison.high
    assert "equal time at each level" in o.reason


def test_acceptance_placement_like_the_seed():
    cells = _run()
    near_prose = place_acceptance(cells, 0.06, "dflash")
    assert near_prose.nearest == "prose" and near_prose.mix == {"prose": 1.0}
    near_edit = place_acceptance(cells, 0.83, "dflash")
    assert near_edit.nearest == "edit" and near_edit.mix == {"edit": 1.0}
    mid = place_acceptance(cells, 0.47, "dflash")
    t = (0.47 - 0.187) / (0.827 - 0.187)
    assert mid.mix == pytest.approx({"code": 1 - t, "edit": t})
    assert mid.nearest == "code"
    assert "code-like" in mid.text
    with pytest.raises(ConfigError):
        place_acceptance(cells, 0.5)  # two drafting configs: which one?
    adv = advise(cells, acceptance=0.83, acceptance_config="dflash", concurrency=1)
    assert adv.placement.nearest == "edit" and adv.choices.levels[0].config == "dflash"


def test_bad_inputs():
    with pytest.raises(ConfigError):
        advise(_run(), {"chat": 1.0})
    with pytest.raises(ConfigError):
        advise(_run(), {"prose": 1.0}, concurrency=5)
    with pytest.raises(ConfigError):
        place_acceptance(_run(), 1.5, "dflash")


def test_no_mix_is_equal_shares_as_report_assumes_and_says_so():
    """No mix, level mix or acceptance: report's default, equal token shares over the run's workloads (was a
    refusal, exit 2, while report picked for equal shares: two answers for one run)."""
    assumed = advise(_run())
    third = 1.0 / 3.0
    given = advise(_run(), {"prose": third, "code": third, "edit": third})

    def picks(a):  # level, config, verdict, speedup
        return [
            (lv.level, lv.config, lv.to_dict()["verdict"], round(lv.to_dict()["speedup"], 12))
            for lv in a.choices.levels
        ]

    assert picks(assumed) == picks(given) and len(picks(given)) == 3
    assert [n for n in assumed.notes if n.startswith("no --mix")] == [
        "no --mix, --level-mix or --acceptance: equal token shares over the run's workloads "
        "(as report assumes: --mix code=1,edit=1,prose=1); pass --mix for your traffic"
    ]
    assert not any(n.startswith("no --mix") for n in given.notes)


def _control(factor: float = 1.0, jitter: tuple[float, ...] = (0.001, 0.0, -0.001)) -> list:
    """``base-again``: the baseline's table values x ``factor``, with its own per-round jitter."""
    return [
        summary("base-again", wl, conc, r, factor * TABLE[(wl, conc)][0] * (1 + e), counters=None)
        for (wl, conc) in TABLE
        for r, e in enumerate(jitter)
    ]


def test_the_aa_control_is_never_advised():
    """A ``base-again`` control that agrees with the baseline (+-0.2 %) is not a candidate: the choice and its
    speedup are those of the run without it."""
    mix = {"prose": 0.2, "code": 0.3, "edit": 0.5}
    (with_control,) = advise(_run() + _control(), mix, concurrency=1).choices.levels
    (without,) = advise(_run(), mix, concurrency=1).choices.levels
    assert with_control.config == without.config == "dflash"
    assert with_control.comparison.speedup == pytest.approx(without.comparison.speedup)
    assert "base-again" not in with_control.per_workload.values()
    aa = next(m for m in with_control.candidates if m.config == "base-again")  # shown, never picked
    assert aa.verdict == "equivalent"


def test_a_mix_win_inside_the_aa_floor_is_undetermined():
    """MTP on prose at N=8 is faster by 5.0 % (105 vs 100 tok/s, interval clear of 1). An A/A control reading 10 %
    above the baseline in every round puts that effect inside the A/A floor of its level: the baseline is advised,
    and MTP's mix and per-workload verdicts say why."""
    mix = {"prose": 1.0}
    (plain,) = advise(_run(), mix, concurrency=8).choices.levels
    assert plain.config == "mtp" and plain.comparison.speedup == pytest.approx(1.05)
    adv = advise(_run() + _control(1.10), mix, concurrency=8)
    (lv,) = adv.choices.levels
    assert lv.config == "base" and lv.reason.startswith("no config is faster than the baseline (mtp: undetermined")
    mtp = next(m for m in lv.candidates if m.config == "mtp")
    assert mtp.speedup == pytest.approx(1.05) and mtp.low > 1.0  # faster by its interval alone
    assert mtp.verdict == "undetermined" and [r.code for r in mtp.reasons] == ["AA_FLOOR"]
    assert mtp.reasons[0].figure == pytest.approx(0.10, abs=1e-3)
    # per workload, the comparisons' verdicts: prose inside its group's floor; code (+40 %) and edit (4.2x) beyond it
    assert lv.per_workload == {"prose": "base", "code": "mtp", "edit": "dflash"}
    assert adv.choices.overall.config == "base"


def _timed(config, rep, tok_s, mid_s, status="ok"):
    return summary(config, "prose", 1, rep, tok_s, started_at_s=mid_s - 1.0, ended_at_s=mid_s + 1.0, status=status)


def test_mix_pairs_cells_by_time_like_the_report():
    # base round 1 is degraded; mtp round 1 ran next to base round 2, so the report pairs (mtp 0, base 0) and
    # (mtp 1, base 2): 2 rounds where pairing by repeat index would find only round 0
    cells = [
        _timed("base", 0, 100.0, 1005.0),
        _timed("base", 1, 50.0, 1015.0, status="degraded"),
        _timed("base", 2, 101.0, 1025.0),
        _timed("mtp", 0, 95.0, 1004.0),
        _timed("mtp", 1, 94.6, 1026.0),
    ]
    adv = advise(cells, {"prose": 1.0})
    rep = adv.judgement.get("mtp", "prose", 1)
    assert rep.rounds == 2
    assert rep.speedup == pytest.approx(math.sqrt(95.0 / 100.0 * 94.6 / 101.0), rel=1e-12)
    (lv,) = adv.choices.levels
    (m,) = [c for c in lv.candidates if c.config == "mtp"]
    # a one-workload mix is the comparison itself: the same rounds, speedup, interval and verdict
    assert (m.rounds, m.verdict) == (rep.rounds, rep.verdict) == (2, "undetermined")
    assert (m.speedup, m.low, m.high) == (pytest.approx(rep.speedup), pytest.approx(rep.low), pytest.approx(rep.high))


def test_an_undetermined_mix_candidate_says_why():
    cells = [_timed("base", 0, 100.0, 1005.0), _timed("mtp", 0, 120.0, 1004.0)]
    (lv,) = advise(cells, {"prose": 1.0}).choices.levels
    (m,) = [c for c in lv.candidates if c.config == "mtp"]
    assert (m.rounds, m.low, m.high, m.verdict) == (1, None, None, "undetermined")
    assert m.why == "1 paired round: a verdict needs at least 2 (run more repeats)"


def test_an_empty_picks_table_says_why_it_is_empty():
    """A run with no paired round (its only base cell CLIENT_LIMITED) printed "Every candidate on the mix, per
    level" over nothing, a title with no row and no note (fresh-user finding); each empty table now says why."""
    from specscope.report.advice import choices_tables
    from specscope.stats.choices import Choices

    picks, candidates, *_ = choices_tables(Choices("base", {"repeat": 1.0}, (), None))
    reason = "No pick: no level has a paired round on every workload of the mix."
    assert not picks.rows and picks.note.startswith(reason)
    assert not candidates.rows and candidates.note == reason
    slo = Choices("base", {"repeat": 1.0}, (), None, no_pick="no config meets the TTFT SLO")
    assert choices_tables(slo)[1].note == "No pick: no config meets the TTFT SLO."

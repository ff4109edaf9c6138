"""Adaptive repeats: after the minimum, only unsettled comparisons get another round (pure data)."""

from __future__ import annotations

from specscope.bench.adaptive import next_round, settled
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.speedup import Speedup
from specscope.stats.summary import CellSummary


def cell(config: str, workload: str, repeat: int, tok_s: float) -> CellSummary:
    t = 100.0 * repeat
    return CellSummary(
        config, workload, 1, repeat, "ok", (), 1, 1, 48, "usage", 1.0, tok_s, (), None, None, None, None, None, None,
        (), None, None, None, started_at_s=t, ended_at_s=t + 5.0,
    )  # fmt: skip


def sp(low: float | None, high: float | None, speedup: float = 1.0, rounds: int = 3) -> Speedup:
    return Speedup("x", "base", "prose", 1, "output_tok_s", rounds, 1.0, 1.0, speedup, low, high, "wins", None, None)


def test_settled_by_half_width_or_by_a_clear_interval():
    assert settled(sp(0.97, 1.03), 0.05)  # half-width 3 %
    assert not settled(sp(0.90, 1.10), 0.05)  # 10 % and straddles 1
    assert settled(sp(1.60, 2.40, 2.0), 0.05)  # 20 % wide but far above 1.05
    assert not settled(sp(None, None), 0.05)


def test_only_the_unsettled_comparison_and_its_baseline_get_the_next_round():
    opts = BenchOptions(
        configs=("base", "draft", "ngram"), workloads=("edit", "prose"), levels=(1,), target_ci=0.05, max_repeats=4
    )
    cells = []
    for r in range(2):
        cells += [cell("base", "edit", r, 10.0), cell("draft", "edit", r, 20.0 + r)]  # clear win: needs 3 rounds
        cells += [cell("ngram", "edit", r, 10.0 + 2 * r)]  # 1.0 and 1.2: not settled
        cells += [cell("base", "prose", r, 10.0), cell("draft", "prose", r, 10.0), cell("ngram", "prose", r, 10.0)]
    done = {CellKey(c.config, c.workload, c.concurrency, c.repeat) for c in cells}
    nxt = next_round(opts, cells, done)
    # prose: 1.0 on both rounds, precise, but 2 rounds alone settle nothing (no A/A band): a third round too
    assert sorted(nxt) == [CellKey(c, w, 1, 2) for c in ("base", "draft", "ngram") for w in ("edit", "prose")]
    cells += [cell("base", "edit", 2, 10.0), cell("draft", "edit", 2, 21.0), cell("ngram", "edit", 2, 14.0)]
    cells += [cell(c, "prose", 2, 10.0) for c in ("base", "draft", "ngram")]
    done |= set(nxt)
    nxt = next_round(opts, cells, done)  # draft's win and prose settled on 3 rounds; ngram 1.0 / 1.2 / 1.4 open
    assert sorted(nxt) == [CellKey("base", "edit", 1, 3), CellKey("ngram", "edit", 1, 3)]
    # at max_repeats nothing more is asked
    cells += [cell("base", "edit", 3, 10.0), cell("ngram", "edit", 3, 10.0)]
    done |= set(nxt)
    assert next_round(opts, cells, done) == []
    assert next_round(opts.model_copy(update={"target_ci": None}), cells, done) == []


def test_an_interval_inside_the_aa_noise_band_is_settled():
    assert not settled(sp(0.93, 1.06), 0.05)  # half-width 6.5 %, straddles 1, no A/A band measured
    assert settled(sp(0.93, 1.06), 0.05, band=0.08)  # inside 1 +- 8 %: within noise at the run's noise
    # reaches past the band with an effect (5 %) beyond half of it (4 %): may still become a win
    assert not settled(sp(0.93, 1.09, 1.05), 0.05, band=0.08)
    assert not settled(sp(None, None), 0.05, band=0.5)


def test_a_win_or_loss_the_aa_band_overrules_is_not_settled():
    # measured 2026-12-01 (load ~10): draft on code at 2 rounds 0.49x [0.48x, 0.53x], A/A band +-85 %: the report says
    # "within noise", the fixed 6-round design (band +-48 %) "loses"; more rounds re-measure the band
    loss = sp(0.478, 0.525, 0.493)
    assert settled(loss, 0.05)  # no A/A control: a clear loss
    assert not settled(loss, 0.05, band=0.851)
    assert settled(loss, 0.05, band=0.30)  # effect 50.7 % beyond the band: loses, settled
    assert not settled(sp(1.01, 1.05, 1.03), 0.05, band=0.04)  # precise, but its 3 % effect is inside the band
    assert settled(sp(1.01, 1.05, 1.03), 0.05, band=0.02)


def test_any_interval_inside_half_the_aa_band_is_settled():
    # measured 2026-12-01: n-gram (0 drafts) on code at 2 rounds 1.24x [1.15x, 1.33x] against an A/A band of +-67 %;
    # the fixed design's 6-round band was +-39 %, its verdict "within noise"
    assert settled(sp(1.154, 1.334, 1.239), 0.05, band=0.674)  # 33.4 % <= 0.5 x 67.4 %
    assert not settled(sp(1.154, 1.334, 1.239), 0.05, band=0.60)  # reaches past half the band: a gated win
    assert not settled(sp(0.478, 0.525, 0.493), 0.05, band=0.851)  # draft: 52.2 % > 0.5 x 85.1 %, keeps going


def test_a_do_nothing_config_stops_at_the_aa_band_and_the_aa_control_rides_along():
    opts = BenchOptions(
        configs=("base", "ngram", "draft"), workloads=("prose",), levels=(1,), aa=True, target_ci=0.05, max_repeats=6
    )
    cells = []
    for r, (b, aa, ng, dr) in enumerate([(10.0, 10.8, 10.5, 13.0), (10.0, 9.2, 9.6, 12.2), (10.0, 10.0, 10.0, 12.6)]):
        cells += [cell("base", "prose", r, b), cell("base-again", "prose", r, aa)]
        cells += [cell("ngram", "prose", r, ng), cell("draft", "prose", r, dr)]
    done = {CellKey(c.config, c.workload, c.concurrency, c.repeat) for c in cells}
    # A/A ratios 1.08, 0.92, 1.0 (band +-8 %); ngram 1.05, 0.96, 1.0: wider than 5 % but inside the band; draft
    # 1.22-1.30 on 3 rounds: a win beyond the band
    assert next_round(opts, cells, done) == []
    # ngram 1.05, 0.80, 0.95 (0.933x): past the band, its effect 6.7 % beyond half of it (4 %), so one more round
    cells[6], cells[10] = cell("ngram", "prose", 1, 8.0), cell("ngram", "prose", 2, 9.5)
    nxt = next_round(opts, cells, done)
    assert sorted(nxt) == [CellKey(c, "prose", 1, 3) for c in ("base", "base-again", "ngram")]


def test_two_rounds_settle_a_win_or_a_loss_only_on_a_quiet_run():
    # measured 2026-12-01: n-gram on code (0 drafts) 1.47x [1.31x, 1.69x] after 2 rounds against a +-20 % A/A band
    assert not settled(sp(1.312, 1.685, 1.472, rounds=2), 0.05, band=0.20)
    assert settled(sp(1.312, 1.685, 1.472, rounds=3), 0.05, band=0.20)
    assert not settled(sp(0.384, 0.415, 0.402, rounds=2), 0.05)  # no A/A control: a clear loss waits for round 3
    # quiet run B of 2026-12-02 (benchmarks/RESULTS.md): draft on prose 0.256x [0.254x, 0.259x] after 2 rounds, A/A
    # band +-8 % (above the 5 % target): beyond two bands (0.84), the fixed design's "loses"; a third round wasted
    assert settled(sp(0.254, 0.259, 0.256, rounds=2), 0.05, band=0.08)
    assert not settled(sp(1.312, 1.685, 1.472, rounds=2), 0.05, band=0.20)  # 1.31 < 1 + 2 x 0.20: waits
    assert settled(sp(0.97, 1.03, rounds=3), 0.05)  # within noise by a precise interval on 3 rounds
    # ... not on 2: n-gram on edit at N=2 (quiet run D, 2026-12-02) read 0.982x [0.950x, 1.014x] after 2 rounds, A/A
    # band +-2.9 %, and won after 6 (1.10x [1.01x, 1.21x]); its effect 1.8 % is beyond half the band (1.45 %)
    assert not settled(sp(0.950, 1.014, 0.982, rounds=2), 0.05, band=0.029)
    assert settled(sp(1.154, 1.334, 1.239, rounds=2), 0.05, band=0.674)  # inside half the band: within noise


def test_a_quiet_run_settles_a_clear_loss_after_two_rounds():
    """The quiet fresh-clone run of 2026-12-02 (benchmarks/RESULTS.md): A/A band about +-1 %, draft on code
    0.39x after 2 rounds: the fixed design's verdict, no third round needed; a +-6 % band (above the 5 % target)
    still asks for one."""
    loss = sp(0.39, 0.40, 0.395, rounds=2)
    assert settled(loss, 0.05, band=0.012)
    assert settled(loss, 0.05, band=0.05)  # a band at the target is still quiet
    assert not settled(sp(0.86, 0.90, 0.88, rounds=2), 0.05, band=0.06)  # above the target: within 2 bands, 3 rounds
    assert settled(sp(0.86, 0.875, 0.868, rounds=2), 0.05, band=0.06)  # the whole interval beyond 2 bands (0.88)
    assert not settled(loss, 0.05)  # no A/A control: the noise is unknown, three rounds
    # quiet, but an effect inside the band is still not a verdict
    assert not settled(sp(1.005, 1.015, 1.01, rounds=2), 0.05, band=0.012)


def test_within_noise_stops_when_its_effect_is_inside_half_the_band():
    """Futility: an interval that contains 1 and whose effect is inside half the A/A band cannot become a win or a
    loss against the band the fixed design measures (about half of a 2-round band). Measured on the quiet machine
    2026-12-02 (run C, benchmarks/RESULTS.md): n-gram on prose, 0.951x [0.751x, 1.165x] after 2 rounds, band
    +-20.1 %; the fixed 6-round verdict was ``within noise``."""
    ngram = sp(0.751, 1.165, 0.951, rounds=2)
    assert settled(ngram, 0.05, band=0.201)  # effect 4.9 % <= 10.05 %
    assert not settled(ngram, 0.05, band=0.09)  # effect 4.9 % > 4.5 %: the interval is wider than the band too
    assert not settled(ngram, 0.05)  # no A/A control: no band to judge the effect by
    # n-gram on prose at N=2 in the same run: 0.915x [0.780x, 1.057x] against +-10.5 %: 8.5 % > 5.25 %, more rounds
    assert not settled(sp(0.780, 1.057, 0.915, rounds=2), 0.05, band=0.105)


def test_a_win_or_loss_the_drift_overrules_is_not_settled():
    """The report overrules a win or a loss no larger than the run's drift; so does the stop rule."""
    from specscope.stats.noise import DriftCheck

    loss = sp(0.80, 0.90, 0.85, rounds=4)  # clear of 1 - 5 %, effect -15 %
    assert settled(loss, 0.05, band=0.10)
    assert settled(loss, 0.05, band=0.10, drift=DriftCheck(0.12, ("prose", 1), 8))
    assert not settled(loss, 0.05, band=0.10, drift=DriftCheck(0.16, ("prose", 1), 8))

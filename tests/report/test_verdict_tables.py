"""The comparisons table, aggregate / decode rates side by side, the drift alarm and the adaptive note."""

from __future__ import annotations

from cells import summary

from specscope.report.tables import RunCells
from specscope.report.throughput import rates_table
from specscope.report.verdicts import comparisons, comparisons_table, design_note, drift_notes, verdict_lines


def at(cfg: str, rep: int, tok_s: float, t_s: float):
    return summary(cfg, "prose", 1, rep, tok_s, started_at_s=t_s, ended_at_s=t_s + 4.0)


def test_comparisons_explain_every_verdict():
    cells = []
    for r, (b, again, ng) in enumerate([(10.0, 10.2, 10.1), (10.0, 9.8, 9.9), (10.0, 10.0, 10.0)]):
        cells += [
            at("base", r, b, 30.0 * r),
            at("base-again", r, again, 30.0 * r + 10),
            at("ngram", r, ng, 30.0 * r + 20),
        ]
    judged, drift = comparisons(RunCells.of(cells, "base"))
    t = comparisons_table(judged, "base")
    assert t.headers == [
        "config",
        "workload",
        "N (streams)",
        "rounds",
        "speedup (x)",
        "interval",
        "verdict",
        "why",
    ]
    aa, ng = t.rows
    assert aa[:4] == ["base-again", "prose", "1", "3"] and aa[6] == "within noise"
    assert aa[5] == "bootstrap range over 3 rounds (coverage below 95%)"
    assert aa[7].startswith("A/A control (the baseline measured twice): the noise floor is +-")
    assert (
        ng[6] == "within noise" and ng[7].startswith("the interval [") and ng[7].endswith("contains 1; only 3 rounds")
    )
    # the headline answers for every comparison: the within-noise ngram too, with its interval
    assert verdict_lines(judged) == [
        f"base-again on prose at N=1: {aa[4]} ({aa[7]})",
        f"within noise: ngram prose N=1 {ng[4].removesuffix(' within noise')}",
    ]
    # base and base-again in time order: early (10.0, 10.2, 10.0) against late (9.8, 10.0, 10.0) -> 1.3 %; no effect
    # is reported (both within noise), so no alarm
    notes, alarms = drift_notes(judged, drift, "base")
    assert notes == [
        "drift: baseline tok/s moved 1.3 % between the early and the late half of the run "
        "(largest on prose at N=1; 6 baseline-side cells)"
    ]
    assert alarms == []


def test_rates_side_by_side_and_the_adaptive_note():
    cells = [at("base", 0, 20.0, 0.0), at("base", 1, 30.0, 10.0), at("draft", 0, 40.0, 20.0)]
    t = rates_table(RunCells.of(cells, "base"))
    # base: aggregate mean 25.0; decode 1 / tpot, tpot = 1 / tok_s -> mean 25.0; TTFT 0.05 s
    assert t.rows == [["prose", "1", "25.0 / 25.0 (TTFT 0.050 s)", "40.0 / 40.0 (TTFT 0.050 s)"]]
    assert design_note(cells, {"target_ci": None}) == []
    note = design_note(cells, {"target_ci": 0.05, "max_repeats": 6})
    # 3 cells of 4.0 s each; fixed: 6 rounds x 4.0 s for each of the 2 (config, workload, N)
    assert note == [
        "adaptive repeats (target 5.0 %): 3 cells, 12.0 s of cell time; the fixed design (6 rounds of every cell) "
        "would take about 48.0 s. Rounds per cell: base/prose/N=1: 2, draft/prose/N=1: 1"
    ]


def test_the_headline_groups_many_within_noise_comparisons_per_config():
    cells = []
    for w in ("prose", "edit"):
        for n in (1, 2, 4):
            up = 10.4 if (w, n) == ("edit", 4) else 10.2  # edit N=4: (10.4 + 9.8) / 20 = 1.01x, else 1.00x
            cells += [summary("base", w, n, r, 10.0) for r in (0, 1)]
            cells += [summary("ngram", w, n, 0, up), summary("ngram", w, n, 1, 9.8)]
    cells.append(summary("draft", "prose", 1, 0, 20.0))  # 1 round: no interval
    judged, _ = comparisons(RunCells.of(cells, "base"))
    assert verdict_lines(judged) == [
        "within noise: ngram on 6 comparisons (prose N=1,2,4; edit N=1,2,4), 1.00x to 1.01x",
        "undetermined: draft prose N=1 2.00x (1 round)",
    ]


def test_the_headline_says_when_the_a_a_spread_overruled_a_win():
    tok_s = {"base": (10.0, 10.0, 10.0), "base-again": (10.5, 9.5, 10.0), "ngram": (10.2, 10.4, 10.3)}
    cells = [summary(cfg, "prose", 1, r, v) for cfg, vs in tok_s.items() for r, v in enumerate(vs)]
    judged, _ = comparisons(RunCells.of(cells, "base"))
    # A/A: per-round ratios 1.05, 0.95, 1.00 -> spread +-5 %; ngram 1.03x [1.02x, 1.04x] excludes 1, but +3 % < 5 %
    assert verdict_lines(judged)[1:] == ["within noise: ngram prose N=1 1.03x [1.02x, 1.04x] (A/A spread)"]
    assert judged[1].why == "effect +3.0 % is inside the A/A spread +-5.0 %"

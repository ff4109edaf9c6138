"""The comparisons table, aggregate / decode rates side by side, the drift alarm and the adaptive note."""

from __future__ import annotations

import json

from cells import summary

from specscope.config import RunOptions
from specscope.report.document import Document, Section
from specscope.report.render import json_document
from specscope.report.tables import RunCells
from specscope.report.throughput import rates_table
from specscope.report.verdicts import comparisons_table, design_note, drift_notes, verdict_lines


def at(cfg: str, rep: int, tok_s: float, t_s: float):
    return summary(cfg, "prose", 1, rep, tok_s, started_at_s=t_s, ended_at_s=t_s + 4.0)


def test_comparisons_explain_every_verdict_with_numbers():
    cells = []
    for r, (b, again, ng) in enumerate([(10.0, 10.2, 10.1), (10.0, 9.8, 9.9), (10.0, 10.0, 10.0)]):
        cells += [
            at("base", r, b, 30.0 * r),
            at("base-again", r, again, 30.0 * r + 10),
            at("ngram", r, ng, 30.0 * r + 20),
        ]
    j = RunCells.of(cells, "base").judgement
    t = comparisons_table(j)
    assert t.headers == [
        "config",
        "workload",
        "N (streams)",
        "rounds",
        "speedup (x)",
        "low (x)",
        "high (x)",
        "interval",
        "verdict",
        "why",
    ]
    aa, ng = t.rows
    assert aa[:4] == ["base-again", "prose", "1", "3"] and aa[8] == "undetermined"
    assert aa[7] == "95% t-interval on log ratios (3 rounds)"
    assert aa[9].startswith("the interval [") and aa[9].endswith("contains 1 and reaches beyond +-2.0 %")
    # the bounds are numbers in the table's values, not only in the text
    values = t.to_dict()["values"]
    assert values[1][5] == j.get("ngram", "prose", 1).low and isinstance(values[1][6], float)
    assert values[1][8] == "undetermined" and ng[8] == "undetermined"
    # the headline answers for every comparison: the A/A control, and the undetermined ngram with its interval
    assert verdict_lines(j) == [
        f"A/A control base-again on prose at N=1: {aa[4]} ({aa[9]})",
        f"ngram on prose at N=1: {ng[4]}",
    ]
    # the baseline's own cells hold still (10.0): no drift, and the A/A cells' -2 % does not make one
    notes, alarms = drift_notes(j)
    assert notes == [
        "drift: baseline tok/s per request (at one prompt and answer length) moved +0.0 % between the early and the "
        "late half of the run after warm-up (largest on prose at N=1; 3 baseline cells; not shown by the A/A or "
        "sentinel cells, so not used to judge)"
    ]
    assert alarms == []


def test_rates_side_by_side_and_the_adaptive_note():
    cells = [at("base", 0, 20.0, 0.0), at("base", 1, 30.0, 10.0), at("draft", 0, 40.0, 20.0)]
    t = rates_table(RunCells.of(cells, "base"))
    # base: aggregate mean 25.0; decode 1 / tpot, tpot = 1 / tok_s -> mean 25.0; TTFT 0.05 s
    assert t.rows == [["prose", "1", "25.0 / 25.0 (TTFT 0.050 s)", "40.0 / 40.0 (TTFT 0.050 s)"]]
    assert design_note(cells, RunOptions.from_stored({"target_ci": None})) == []
    note = design_note(cells, RunOptions.from_stored({"target_ci": 0.05, "max_repeats": 6}))
    # 3 cells of 4.0 s each; fixed: 6 rounds x 4.0 s for each of the 2 (config, workload, N)
    assert note == [
        "adaptive repeats (target 5.0 %): 3 cells, 12.0 s of cell time; the fixed design (6 rounds of every cell) "
        "would take about 48.0 s. Rounds per cell: base/prose N=1: 2, draft/prose N=1: 1"
    ]


def test_the_headline_groups_many_equivalent_comparisons_per_config():
    cells = []
    for w in ("prose", "edit"):
        for n in (1, 2, 4):
            up = 10.04 if (w, n) == ("edit", 4) else 10.02
            cells += [summary("base", w, n, r, 10.0) for r in (0, 1, 2)]
            cells += [summary("ngram", w, n, r, v) for r, v in enumerate((up, 9.98, 10.0))]
    cells.append(summary("draft", "prose", 1, 0, 20.0))  # 1 round: no interval
    j = RunCells.of(cells, "base").judgement
    assert verdict_lines(j) == [
        "ngram on 6 comparisons (prose N=1,2,4; edit N=1,2,4): 1.00x to 1.00x equivalent",
        "draft on prose at N=1: 2.00x (1 round) undetermined (ROUNDS_DROPPED)",  # base's rounds 1 and 2 are unpaired
    ]


def test_the_headline_says_when_the_aa_floor_held_a_verdict_back():
    tok_s = {"base": (10.0, 10.0, 10.0), "base-again": (10.5, 10.6, 10.55), "ngram": (10.4, 10.5, 10.45)}
    cells = [summary(cfg, "prose", 1, r, v) for cfg, vs in tok_s.items() for r, v in enumerate(vs)]
    j = RunCells.of(cells, "base").judgement
    ng = j.get("ngram", "prose", 1)
    # A/A 1.055x: two identical servers read 5.5 % apart; ngram +4.5 % excludes 1 but is inside that floor
    assert ng.low > 1.0 and ng.verdict == "undetermined" and [r.code for r in ng.reasons] == ["AA_FLOOR"]
    assert verdict_lines(j)[1] == (
        f"ngram on prose at N=1: 1.04x [{ng.low:.2f}x, {ng.high:.2f}x] undetermined (AA_FLOOR)"
    )


def test_the_judgement_in_json_has_numbers():
    cells = [summary(c, "prose", 1, r, v) for c, vs in {"base": (10, 10), "mtp": (13, 13.2)}.items()
             for r, v in enumerate(vs)]  # fmt: skip
    j = RunCells.of(cells, "base").judgement
    doc = json.loads(json_document(Document("t", [Section("s", "s")], j.to_dict())))
    (c,) = doc["comparisons"]
    assert isinstance(c["low"], float) and isinstance(c["high"], float) and c["verdict"] == "faster"
    assert c["method"] == "t_log_ratio" and c["reasons"] == [] and doc["judgement_schema"] == 4
    assert doc["choices"]["levels"][0]["config"] == "mtp"

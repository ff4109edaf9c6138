"""Every table of a report that shows a speedup shows the same one (issue 12, "Reports that explain themselves"):
with a degraded round, the throughput table's ``vs base`` column used to be the ratio of the means over all ok
rounds (125 / 100 = 1.25x) while the speedup and comparisons tables paired rounds nearest in time and left the
degraded round's partner out (geometric mean of 130/100 and 120/110 = 1.19x). Hand-made cells with exact values."""

from __future__ import annotations

import math

from cells import summary

from serverfacts import manifest
from specscope.report.build import RunData, build_document
from specscope.report.tables import RunCells

CONFIG = "ngram-k2"  # on the k axis too, so the speedup-by-k table shows it
# (base tok/s, config tok/s) per round; the config's round 2 is degraded
ROUNDS = [(100.0, 130.0), (110.0, 120.0), (90.0, 140.0)]
PAIRED = math.sqrt(130.0 / 100.0 * 120.0 / 110.0)  # 1.1909: rounds 0 and 1 only
# the 95 % t-interval on the two log ratios: mean +- t(0.975, 1 df) x |l1 - l2| / 2
_L = (math.log(1.3), math.log(120.0 / 110.0))
_H = math.tan(math.pi * 0.475) * abs(_L[0] - _L[1]) / 2
INTERVAL = f"[{math.exp(sum(_L) / 2 - _H):.2f}x, {math.exp(sum(_L) / 2 + _H):.2f}x]"


def _cells():
    out = []
    for r, (b, x) in enumerate(ROUNDS):
        t = 1000.0 + 10 * r  # each config cell runs 2 s after its round's baseline cell
        out.append(summary("base", "prose", 2, r, b, started_at_s=t, ended_at_s=t + 1))
        bad = dict(status="degraded", reasons=("STREAM_DEGRADED(degraded:no [DONE])",)) if r == 2 else {}
        out.append(summary(CONFIG, "prose", 2, r, x, started_at_s=t + 2, ended_at_s=t + 3, **bad))
    return out


def _speedup_cells(doc) -> dict[str, str]:
    """table key -> the text of its cell that holds the config's speedup (a column in x)."""
    found = {}
    for t in doc.tables:
        for col_i, col in enumerate(t.columns):
            if col.unit != "x":
                continue
            for row in t.rows:
                text = row[col_i]
                if text and text[0].isdigit() and (CONFIG in col.name or CONFIG in row or "ngram" in row):
                    found.setdefault(t.key, text)  # the first x column: the speedup (low / high follow it)
    return found


def test_every_table_shows_the_paired_speedup_of_the_speedup_table():
    doc = build_document([RunData("r", manifest(baseline="base"), _cells())])
    found = _speedup_cells(doc)
    # the candidates table: the mix of the run's one workload is the comparison itself
    assert set(found) == {"throughput:prose", "speedup", "comparisons", "speedup-by-k", "candidates"}
    assert f"{PAIRED:.2f}x" == "1.19x"
    assert all(text.startswith("1.19x") for text in found.values()), found
    # the interval and verdict too, wherever they are shown
    # two rounds that agree on the sign are not sure of it: undetermined
    assert INTERVAL == "[0.39x, 3.63x]"
    assert found["speedup"] == found["comparisons"] == found["speedup-by-k"] == f"1.19x {INTERVAL} undetermined"
    (throughput,) = [t for t in doc.tables if t.key == "throughput:prose"]
    # the tok/s columns stay the means over every ok round: 100 for base (3 rounds), 125 for the config (2)
    assert throughput.rows == [["2", "100.0", "125.0", "1.19x"]]


def test_speedups_are_computed_once_per_run():
    rc = RunCells.of(_cells(), "base")
    assert rc.judgement is rc.judgement  # cached: every table reads this one judgement
    s = rc.speedup(CONFIG, "prose", 2)
    assert s is not None and s.rounds == 2 and abs(s.speedup - PAIRED) < 1e-12
    assert rc.speedup(CONFIG, "prose", 4) is None
    assert RunCells.of([c for c in _cells() if c.config == "base"], "base").judgement is None


def test_the_comparison_of_runs_says_its_ratio_is_not_the_paired_speedup():
    """Two runs side by side: their ratio (mean of one run over the other's) is labelled as what it is."""
    first = RunData("first", manifest(baseline="base"), _cells())
    second = RunData("second", manifest(baseline="base"), [summary("base", "prose", 2, r, 120.0) for r in range(2)])
    doc = build_document([first, second])
    (compare,) = [t for t in doc.tables if t.key == "compare"]
    # base prose N=2: 120 / mean(100, 110, 90) = 1.20x
    assert [r for r in compare.rows if r[2] == "base"] == [["prose", "2", "base", "100.0", "120.0", "1.20x"]]
    assert compare.note.startswith("vs first: the ratio of the two runs' mean tok/s over ok rounds, not a paired")

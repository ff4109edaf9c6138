"""A report that does not contradict itself (issue 12 item 5, found by a new user): a stored run whose comparisons
rest on 2 and 3 rounds, read back through ``specscope report RUN -f json``.

* every table names its interval for the rounds its rows rest on (never "95 %" on 2-3 rounds, never a count that is
  wrong for a row);
* the headline answers for every comparison, within-noise ones included;
* every table, chart and verdict line shows the one paired speedup, which here differs from the ratio of the means
  over all ok rounds (125 / 100 = 1.25x against the paired (130 + 120) / (100 + 110) = 1.19x).

Cells are stored as facts (:func:`factmaker.cell_facts`) with the wall-clock instants a bench run records.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from factmaker import cell_facts
from specscope.store import create_run

# tok/s per round; each round runs base at t, base-again at t+2, ngram at t+4 and ngram-k2 at t+6 (t = 20 s x round)
TOK_S = {
    "base": (100.0, 110.0, 90.0),
    "base-again": (101.0, 108.0, 92.0),  # the A/A control: 3 rounds
    "ngram": (100.0, 111.0, 89.0),  # 0 drafts on prose: the same computation as base, 3 rounds
    "ngram-k2": (130.0, 120.0, 140.0),  # its round 2 is degraded: 2 paired rounds
}
PAIRED = (130.0 + 120.0) / (100.0 + 110.0)  # 1.1905
MEANS = (130.0 + 120.0) / 2 / ((100.0 + 110.0 + 90.0) / 3)  # 1.25: the ratio of means over every ok round


def _run(tmp_path: Path) -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "baseline": "base"})
    for offset_s, (cfg, rounds) in enumerate(TOK_S.items()):
        for r, tok_s in enumerate(rounds):
            bad = ("STREAM_DEGRADED(degraded:no [DONE])",) if (cfg, r) == ("ngram-k2", 2) else ()
            cell = cell_facts(cfg, "prose", 1, r, tok_s, reasons=bad)
            start_s = 1_000.0 + 20.0 * r + 2.0 * offset_s
            run.save_cell(replace(cell, client={"clock": {"started_at_s": start_s, "ended_at_s": start_s + 1.0}}))
    run.close()
    return tmp_path / "run"


def _report(run: Path) -> dict:
    r = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run), "-f", "json"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_report_names_every_interval_for_its_rounds_and_shows_one_speedup(tmp_path):
    doc = _report(_run(tmp_path))
    (section,) = [s for s in doc["sections"] if s["key"].startswith("run:")]
    tables = {t["key"]: t for t in section["tables"]}
    text = json.dumps(doc)
    assert "95 %" not in text and "95% CI" not in text  # 2-3 rounds: no "95 %" anywhere

    speedup = tables["speedup"]
    assert speedup["title"] == (
        "Speedup vs base (aggregate tok/s, paired bootstrap interval: bootstrap range over 2-3 rounds "
        "(coverage below 95%), verdict)"
    )
    assert speedup["note"].endswith(
        "Rounds per comparison: 2 paired rounds: ngram-k2; 3 paired rounds: base-again, ngram."
    )
    assert "2-3 rounds: the interval ends are near the extreme per-round ratios" in speedup["note"]
    assert "speedup vs base (x)" in [f"{c['name']} ({c['unit']})" for c in tables["speedup-by-k"]["columns"]]
    assert (
        "paired bootstrap interval (range of 2 per-round ratios; rounds: each row's count)"
        in (tables["speedup-by-k"]["note"])
    )
    comp = {row[0]: row for row in tables["comparisons"]["rows"]}
    assert comp["base-again"][3:6] == ["3", comp["base-again"][4], "bootstrap range over 3 rounds (coverage below 95%)"]
    assert comp["ngram"][3] == "3" and comp["ngram"][6] == "within noise"
    assert comp["ngram-k2"][3:7] == ["2", "1.19x [1.09x, 1.30x] wins", "range of 2 per-round ratios", "wins"]

    # one figure for ngram-k2 everywhere: the paired 1.19x, not the ratio of the means 1.25x
    assert f"{PAIRED:.2f}x" == "1.19x" and f"{MEANS:.2f}x" == "1.25x"
    assert tables["throughput:prose"]["rows"] == [["1", "100.0", "100.3", "1.00x", "100.0", "1.00x", "125.0", "1.19x"]]
    assert tables["throughput:prose"]["values"][0][-1] == comp_value(tables["comparisons"], "ngram-k2")
    assert abs(tables["throughput:prose"]["values"][0][-1] - PAIRED) < 1e-6  # tok/s from ns instants
    assert tables["speedup"]["rows"][0][-1] == comp["ngram-k2"][4] == tables["speedup-by-k"]["rows"][0][4]
    (heat,) = [c for c in section["charts"] if c["name"] == "speedup_heatmap"]
    # the heatmap greys a group with a degraded cell instead of showing any ratio; the others: the paired figure
    assert {p["title"]: p["grid_text"] for p in heat["panels"]} == {
        "base-again vs base": [["1.00x~"]],
        "ngram vs base": [["1.00x~"]],
        "ngram-k2 vs base": [["deg"]],
    }
    assert "1.25x" not in text

    # the headline: the A/A control, the win, and the within-noise ngram on prose
    assert section["verdicts"][1:] == [
        "ngram-k2 on prose at N=1: 1.19x [1.09x, 1.30x] wins",
        f"within noise: ngram prose N=1 {comp['ngram'][4].removesuffix(' within noise')}",
    ]
    assert section["verdicts"][0].startswith("base-again on prose at N=1: ") and "A/A control" in section["verdicts"][0]


def comp_value(table: dict, config: str) -> float:
    """The typed speedup of ``config`` in the comparisons table (column 4, x)."""
    (row,) = [v for v in table["values"] if v[0] == config]
    return row[4]

"""A report that does not contradict itself (issue 12 item 5, found by a new user): a stored run whose comparisons
rest on 2 and 3 rounds, read back through ``specscope report RUN -f json``.

* every comparison names its interval's method and the rounds it rests on, and its bounds are numbers (issue 24:
  a t-interval on log ratios, which keeps its 95 % from 2 rounds, benchmarks/verdict_coverage.py);
* the headline answers for every comparison, undetermined ones included;
* every table, chart and verdict line shows the one paired speedup, which here differs from the ratio of the means
  over all ok rounds (125 / 100 = 1.25x against the paired sqrt(130/100 x 120/110) = 1.19x).

Cells are stored as facts (:func:`factmaker.cell_facts`) with the wall-clock instants a bench run records.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from factmaker import cell_facts
from specscope.records import ClientFacts
from specscope.store import create_run

# tok/s per round; each round runs base at t, base-again at t+2, ngram at t+4 and ngram-k2 at t+6 (t = 20 s x round)
TOK_S = {
    "base": (100.0, 110.0, 90.0),
    "base-again": (101.0, 108.0, 92.0),  # the A/A control: 3 rounds
    "ngram": (100.0, 111.0, 89.0),  # 0 drafts on prose: the same computation as base, 3 rounds
    "ngram-k2": (130.0, 120.0, 140.0),  # its round 2 is degraded: 2 paired rounds
}
PAIRED = (130.0 / 100.0 * 120.0 / 110.0) ** 0.5  # 1.1909
MEANS = (130.0 + 120.0) / 2 / ((100.0 + 110.0 + 90.0) / 3)  # 1.25: the ratio of means over every ok round


def _run(tmp_path: Path) -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "baseline": "base"})
    for offset_s, (cfg, rounds) in enumerate(TOK_S.items()):
        for r, tok_s in enumerate(rounds):
            bad = ("STREAM_DEGRADED(degraded:no [DONE])",) if (cfg, r) == ("ngram-k2", 2) else ()
            cell = cell_facts(cfg, "prose", 1, r, tok_s, reasons=bad)
            start_s = 1_000.0 + 20.0 * r + 2.0 * offset_s
            run.save_cell(
                replace(
                    cell,
                    client=ClientFacts.from_dict({"clock": {"started_at_s": start_s, "ended_at_s": start_s + 1.0}}),
                )
            )
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
    assert "bootstrap" not in text  # no interval that cannot keep its promise

    speedup = tables["speedup"]
    assert speedup["title"] == (
        "Speedup vs base (aggregate tok/s, geometric mean of paired ratios, 95% interval, verdict)"
    )
    assert speedup["note"].endswith(
        "Rounds per comparison: 2 paired rounds: ngram-k2; 3 paired rounds: base-again, ngram."
    )
    assert "speedup vs base (x)" in [f"{c['name']} ({c['unit']})" for c in tables["speedup-by-k"]["columns"]]
    assert "95% t-interval on log ratios and verdict (rounds: each row's count)" in tables["speedup-by-k"]["note"]
    comp = {row[0]: row for row in tables["comparisons"]["rows"]}
    assert comp["base-again"][3] == "3" and comp["base-again"][7] == "95% t-interval on log ratios (3 rounds)"
    assert comp["ngram"][3] == "3" and comp["ngram"][8] == "undetermined"
    # 2 rounds that agree (1.30x, 1.09x) are not a verdict: the interval says how little 2 rounds know
    assert comp["ngram-k2"][3:5] == ["2", "1.19x [0.39x, 3.63x] undetermined"]
    assert comp["ngram-k2"][7:9] == ["95% t-interval on log ratios (2 rounds)", "undetermined"]
    assert comp["ngram-k2"][9].endswith("; 1 round(s) dropped as degraded, failed or unpaired")
    (k2,) = [c for c in doc["comparisons"] if c["config"] == "ngram-k2"]
    assert (k2["rounds"], k2["dropped"], k2["method"]) == (2, 1, "t_log_ratio")
    assert [r["code"] for r in k2["reasons"]] == ["INTERVAL_INCLUDES_ONE", "ROUNDS_DROPPED"]
    assert abs(k2["low"] - 0.391) < 5e-4 and abs(k2["high"] - 3.628) < 5e-4

    # one figure for ngram-k2 everywhere: the paired 1.19x, not the ratio of the means 1.25x
    assert f"{PAIRED:.2f}x" == "1.19x" and f"{MEANS:.2f}x" == "1.25x"
    assert tables["throughput:prose"]["rows"] == [["1", "100.0", "100.3", "1.00x", "100.0", "1.00x", "125.0", "1.19x"]]
    assert tables["throughput:prose"]["values"][0][-1] == comp_value(tables["comparisons"], "ngram-k2")
    assert abs(tables["throughput:prose"]["values"][0][-1] - PAIRED) < 1e-6  # tok/s from ns instants
    assert tables["speedup"]["rows"][0][-1] == comp["ngram-k2"][4] == tables["speedup-by-k"]["rows"][0][4]
    (heat,) = [c for c in section["charts"] if c["name"] == "speedup_heatmap"]
    # the heatmap shows the judged paired figure everywhere, that of a group with a degraded round too (the round is
    # dropped by the judgement, said in the comparison's row): it was grey "deg", a verdict of the chart's own
    assert {p["title"]: p["grid_text"] for p in heat["panels"]} == {
        "base-again vs base": [["1.00x~"]],
        "ngram vs base": [["1.00x~"]],
        "ngram-k2 vs base": [["1.19x~"]],
    }
    assert "1.25x" not in text

    # the headline: the A/A control, then every undetermined comparison with its interval
    assert section["verdicts"][1:] == [
        f"ngram on prose at N=1: {comp['ngram'][4]}",
        "ngram-k2 on prose at N=1: 1.19x [0.39x, 3.63x] undetermined (ROUNDS_DROPPED)",  # its degraded round, named
    ]
    assert section["verdicts"][0].startswith("A/A control base-again on prose at N=1: ")


def comp_value(table: dict, config: str) -> float:
    """The typed speedup of ``config`` in the comparisons table (column 4, x)."""
    (row,) = [v for v in table["values"] if v[0] == config]
    return row[4]

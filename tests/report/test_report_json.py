"""``report -f json`` carries the judgement as numbers (issue 24, "Structured output"): its keys are the ones
docs/report-json.md documents, old runs still read, and ``--min-effect`` re-judges a stored run."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from doc_tables import documented_tables
from factmaker import cell_facts, schema1_run
from specscope.records import ClientFacts
from specscope.store import create_run


def _run(tmp_path: Path, min_effect: float | None = None) -> Path:
    """base, draft (+4 %, tight) and the A/A control x prose, code x N=1,2 x 3 rounds, cells 2 s apart."""
    options = {"configs": ["base", "draft"], "aa": True} | ({} if min_effect is None else {"min_effect": min_effect})
    run = create_run(tmp_path / "run", {"kind": "bench", "baseline": "base", "options": options})
    t = 1000.0
    for r, e in enumerate((-0.002, 0.0, 0.002)):
        for w in ("prose", "code"):
            for n in (1, 2):
                for cfg, v in (("base", 100.0), ("base-again", 100.0 * (1 - e)), ("draft", 104.0 * (1 + e))):
                    cell = cell_facts(cfg, w, n, r, v * n)
                    run.save_cell(
                        replace(
                            cell, client=ClientFacts.from_dict({"clock": {"started_at_s": t, "ended_at_s": t + 1.0}})
                        )
                    )
                    t += 2.0
    run.save_server_facts("draft", {"kind": "vllm", "recipe": {"method": "draft", "num_speculative_tokens": 4}})
    run.close()
    return tmp_path / "run"


def _json(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "specscope", *args, "-f", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_every_key_is_the_documented_one(tmp_path):
    run = _run(tmp_path)
    doc = _json("report", str(run))
    adv = _json("advise", str(run), "--level-mix", "1=0.5,2=0.5")
    # the later tables (a file's or dataset's rows) are checked on real runs: tests/integration/test_rows_sent.py
    top, comparison, noise, choices, pick, level_mix, advice, judged_alarm, *_ = documented_tables()
    assert set(doc) == top
    assert all(set(c) == comparison for c in doc["comparisons"]) and len(doc["comparisons"]) == 8
    assert set(doc["noise"]) == noise
    assert set(doc["choices"]) == choices
    assert all(set(lv) == pick for lv in [*doc["choices"]["levels"], doc["choices"]["overall"]])
    assert set(adv["choices"]["level_mix"]) == level_mix
    assert set(adv) == advice | {"schema", "title", "headline", "alarms", "sections"}
    assert doc["schema"] == "specscope.report/3" and doc["judgement_schema"] == 4
    assert adv["judged_alarms"] == doc["judged_alarms"]
    assert all(set(a) == judged_alarm for a in doc["judged_alarms"])


def test_the_numbers_are_numbers_and_the_verdicts_come_from_the_closed_set(tmp_path):
    doc = _json("report", str(_run(tmp_path)))
    by = {(c["config"], c["workload"], c["level"]): c for c in doc["comparisons"]}
    draft = by[("draft", "prose", 1)]
    assert draft["verdict"] == "faster" and draft["rounds"] == 3 and draft["method"] == "t_log_ratio"
    assert draft["speedup"] == pytest.approx(1.04, rel=1e-5) and draft["low"] < 1.04 < draft["high"]
    assert draft["gain"] == pytest.approx(draft["speedup"] - 1, abs=1e-15) and draft["reasons"] == []
    aa = by[("base-again", "prose", 1)]
    assert aa["control"] is True and aa["verdict"] == "equivalent"
    assert {c["verdict"] for c in doc["comparisons"]} <= {"faster", "slower", "equivalent", "undetermined"}
    floors = [abs(c["speedup"] - 1) for c in doc["comparisons"] if c["control"]]
    assert doc["noise"]["aa_floor"]["value"] == pytest.approx(max(floors), abs=1e-12)
    assert doc["min_effect"] == 0.02  # no min_effect in the manifest: the default
    assert [lv["config"] for lv in doc["choices"]["levels"]] == ["draft", "draft"]


def test_min_effect_rejudges_a_stored_run_and_the_manifests_is_used(tmp_path):
    run = _run(tmp_path)
    strict = _json("report", str(run), "--min-effect", "0.05")
    (draft,) = [c for c in strict["comparisons"] if (c["config"], c["workload"], c["level"]) == ("draft", "prose", 1)]
    # +4 % with an interval inside +-5 %: no difference that matters at this minimum effect
    assert strict["min_effect"] == 0.05 and draft["verdict"] == "equivalent" and draft["high"] < 1.05
    mid = _json("report", str(run), "--min-effect", "0.039")  # beyond 3.9 %, but the interval reaches past it
    (draft,) = [c for c in mid["comparisons"] if (c["config"], c["workload"], c["level"]) == ("draft", "prose", 1)]
    assert draft["verdict"] == "faster"
    stored = _json("report", str(_run(tmp_path / "b", min_effect=0.05)))
    assert stored["min_effect"] == 0.05
    assert {c["verdict"] for c in stored["comparisons"] if c["config"] == "draft"} == {"equivalent"}


def test_an_old_schema_1_run_still_reads(tmp_path):
    doc = _json("report", str(schema1_run(tmp_path)))
    assert doc["schema"] == "specscope.report/3" and doc["min_effect"] == 0.02
    (c,) = doc["comparisons"]
    assert (c["config"], c["rounds"], c["verdict"]) == ("ngram", 0, "undetermined")
    assert [r["code"] for r in c["reasons"]] == ["TOO_FEW_ROUNDS", "CLIENT_LIMITED"]

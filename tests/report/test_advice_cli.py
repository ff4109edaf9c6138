"""``specscope advise`` on a stored run: text and JSON, acceptance placement, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from factmaker import cell_facts
from specscope.store import create_run

# base / draft tok/s per (workload, streams): the draft wins on edit everywhere, on prose only at 1 stream
TABLE = {("prose", 1): (10.0, 13.0), ("prose", 4): (40.0, 34.0), ("edit", 1): (10.0, 25.0), ("edit", 4): (40.0, 70.0)}
ACCEPT = {"prose": 0.3, "edit": 0.9}


def _cell(cfg, wl, conc, rep, tok_s):
    counters = None
    if cfg == "draft":
        counters = {
            "drafts": 100.0,
            "draft_tokens": 400.0,
            "accepted_tokens": 400.0 * ACCEPT[wl],
            "accepted_per_position": [],
        }
    return cell_facts(cfg, wl, conc, rep, tok_s, ttft_s=0.1, counters=counters)


def _run(tmp_path: Path) -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench"})
    for (wl, conc), (b, d) in TABLE.items():
        for r, e in enumerate((-0.01, 0.0, 0.01)):
            for cfg, v, sign in (("base", b, 1), ("draft", d, -1)):
                run.save_cell(_cell(cfg, wl, conc, r, v * (1 + sign * e)))
    run.save_server_facts("draft", {"draft_max": 4})
    run.close()
    return tmp_path / "run"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=120)


def test_advise_json_names_the_measured_winner_in_every_cell(tmp_path):
    r = _cli("advise", str(_run(tmp_path)), "--mix", "prose=0.5,edit=0.5", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    by = {lv["concurrency"]: lv for lv in doc["levels"]}
    assert by[1]["per_workload"] == {"prose": "draft", "edit": "draft"}
    assert by[4]["per_workload"] == {"prose": "base", "edit": "draft"}
    # mix at 4 streams: (0.5/40 + 0.5/40) / (0.5/34 + 0.5/70) = 1.1442 -> the draft still wins on this mix
    assert by[4]["config"] == "draft" and by[4]["k"] == 4
    assert by[4]["speedup"] == pytest.approx((0.5 / 40 + 0.5 / 40) / (0.5 / 34 + 0.5 / 70))
    (x,) = [c for c in doc["crossovers"] if c["workload"] == "prose"]
    assert (x["below_level"], x["above_level"], x["direction"]) == (1, 4, "wins->loses")


def test_advise_text_and_acceptance(tmp_path):
    run = _run(tmp_path)
    r = _cli("advise", str(run), "--acceptance", "0.35", "--max-concurrency", "4")
    assert r.returncode == 0, r.stderr
    assert "acceptance 0.35 on draft is prose-like" in r.stdout
    assert "overall: base" in r.stdout  # mostly prose at 4 streams: the draft loses


def test_advise_bad_input_exit_2(tmp_path):
    run = _run(tmp_path)
    for args in (
        ("--mix", "chat=1"),
        ("--mix", "prose=1", "--max-concurrency", "3"),
        (),
        ("--mix", "prose=1", "--slo", "ttft=soon"),
    ):
        r = _cli("advise", str(run), *args)
        assert r.returncode == 2, (args, r.stdout)
        assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr


def test_advise_raises_the_broken_head_alarm_in_text_and_json(tmp_path):
    from bench_run import make_run

    run = make_run(tmp_path / "mtp-run")  # mtp accepts 1 % on prose over 400 draft rounds
    r = _cli("advise", str(run), "--mix", "prose=1", "-f", "json")
    assert r.returncode == 0, r.stderr
    (alarm,) = json.loads(r.stdout)["alarms"]
    assert (alarm["code"], alarm["config"], alarm["workload"]) == ("ACCEPTANCE_NEAR_ZERO", "mtp", "prose")
    assert alarm["fixes"][0] == "specscope audit org/model-NVFP4"
    assert "enable_weights_track" in alarm["fixes"][1]
    r = _cli("advise", str(run), "--mix", "prose=1")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "ALARM ACCEPTANCE_NEAR_ZERO (mtp on prose): mtp acceptance 1.0% over 400 draft rounds" in text
    assert "specscope audit org/model-NVFP4" in text


def test_advise_names_its_interval_for_the_rounds_it_rests_on(tmp_path):
    """3 rounds: a bootstrap range, not a "95% CI" (issue 12: the column was headed "95% CI" on 2-3 rounds)."""
    run = _run(tmp_path)
    label = "bootstrap range over 3 rounds (coverage below 95%)"
    doc = json.loads(_cli("advise", str(run), "--mix", "prose=0.5,edit=0.5", "--format", "json").stdout)
    assert [(lv["rounds"], lv["interval"]) for lv in doc["levels"]] == [(3, label), (3, label)]
    assert (doc["overall"]["config"], doc["overall"]["rounds"], doc["overall"]["interval"]) == ("draft", 3, label)
    r = _cli("advise", str(run), "--mix", "prose=0.5,edit=0.5")
    assert r.returncode == 0, r.stderr
    assert "95% CI" not in r.stdout and f"interval: {label}\n" in r.stdout

"""``specscope advise`` on a stored run: its four formats, the same picks as ``report``, acceptance placement, bad
input, a baseline read from the manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from factmaker import cell_facts
from hangguard import HANG_S
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


def _run(tmp_path: Path, base: str = "base") -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "baseline": base})
    for (wl, conc), (b, d) in TABLE.items():
        for r, e in enumerate((-0.01, 0.0, 0.01)):
            for cfg, v, sign in ((base, b, 1), ("draft", d, -1)):
                run.save_cell(_cell(cfg, wl, conc, r, v * (1 + sign * e)))
    run.save_server_facts("draft", {"draft_max": 4})
    run.close()
    return tmp_path / "run"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def test_advise_json_names_the_measured_winner_in_every_cell(tmp_path):
    r = _cli("advise", str(_run(tmp_path)), "--mix", "prose=0.5,edit=0.5", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    by = {lv["level"]: lv for lv in doc["choices"]["levels"]}
    assert by[1]["per_workload"] == {"prose": "draft", "edit": "draft"}
    assert by[4]["per_workload"] == {"prose": "base", "edit": "draft"}
    # mix at 4 streams: (0.5/40 + 0.5/40) / (0.5/34 + 0.5/70) = 1.1442 -> the draft is still faster on this mix
    assert by[4]["config"] == "draft" and by[4]["verdict"] == "faster" and doc["k"]["draft"] == 4
    assert by[4]["speedup"] == pytest.approx((0.5 / 40 + 0.5 / 40) / (0.5 / 34 + 0.5 / 70), rel=1e-9)
    assert isinstance(by[4]["low"], float) and by[4]["low"] < by[4]["speedup"] < by[4]["high"]
    (x,) = [c for c in doc["crossovers"] if c["workload"] == "prose"]
    assert (x["below_level"], x["above_level"], x["direction"]) == (1, 4, "faster->slower")


def test_advise_and_report_give_the_same_pick_and_gain_for_the_same_mix(tmp_path):
    run = _run(tmp_path)
    adv = json.loads(_cli("advise", str(run), "--mix", "prose=0.5,edit=0.5", "-f", "json").stdout)
    rep = json.loads(_cli("report", str(run), "--mix", "prose=0.5,edit=0.5", "-f", "json").stdout)
    assert adv["choices"]["levels"] == rep["choices"]["levels"]
    assert adv["choices"]["overall"] == rep["choices"]["overall"]
    assert [(lv["config"], lv["gain"]) for lv in rep["choices"]["levels"]] == [
        ("draft", pytest.approx((0.5 / 10 + 0.5 / 10) / (0.5 / 13 + 0.5 / 25) - 1, rel=1e-9)),
        ("draft", pytest.approx((0.5 / 40 + 0.5 / 40) / (0.5 / 34 + 0.5 / 70) - 1, rel=1e-9)),
    ]
    # every comparison of the report has its interval as numbers
    assert all(isinstance(c["low"], float) and isinstance(c["high"], float) for c in rep["comparisons"])
    # the crossover sentence is on both text screens, word for word (report printed it in JSON only, 2026-12-05)
    mix = ("--mix", "prose=0.5,edit=0.5", "--width", "300")
    lines = [_cli(cmd, str(run), *mix).stdout.splitlines() for cmd in ("advise", "report")]
    crossing = [[ln for ln in text if "faster->slower near" in ln] for text in lines]
    assert crossing[0] and crossing[0] == crossing[1]


def test_advise_reads_the_baseline_from_the_manifest_and_has_the_reports_formats(tmp_path):
    run = _run(tmp_path, base="vanilla")
    r = _cli("advise", str(run), "--mix", "prose=0.5,edit=0.5", "-f", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["baseline"] == "vanilla" and doc["choices"]["levels"][0]["config"] == "draft"
    assert doc["choices"]["levels"][1]["per_workload"] == {"prose": "vanilla", "edit": "draft"}
    md = _cli("advise", str(run), "--mix", "prose=0.5,edit=0.5", "-f", "markdown")
    assert md.returncode == 0 and "### Picks vs vanilla for the mix prose=0.50, edit=0.50" in md.stdout
    page = tmp_path / "advice.html"
    html = _cli("advise", str(run), "--mix", "prose=0.5,edit=0.5", "-f", "html", "-o", str(page))
    assert html.returncode == 0, html.stderr
    assert html.stdout.strip() == str(page) and "Picks vs vanilla" in page.read_text()
    # a mix that does not sum to 1 is normalised, and the output says so
    r = _cli("advise", str(run), "--mix", "prose=0.5,edit=0.3", "-f", "json")
    assert (
        "the --mix shares sum to 0.8, not 1; normalised to prose=0.62, edit=0.37"
        in json.loads(r.stdout)["choices"]["notes"]
    )


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
        ("--mix", "prose=1", "--slo", "ttft=soon"),
        ("--mix", "prose=1", "--slo", "itl=20ms"),
    ):
        r = _cli("advise", str(run), *args)
        assert r.returncode == 2, (args, r.stdout)
        assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr


def test_advise_raises_the_broken_head_alarm_in_text_and_json(tmp_path):
    from bench_run import make_run

    run = make_run(tmp_path / "mtp-run")  # mtp accepts 0.8 % on prose over 260 verify steps
    r = _cli("advise", str(run), "--mix", "prose=1", "-f", "json")
    assert r.returncode == 1, r.stderr  # a problem found, as report, counters and serve --parse-log say it
    alarm = next(a for a in json.loads(r.stdout)["alarms"] if a["code"] == "ACCEPTANCE_NEAR_ZERO")
    assert (alarm["code"], alarm["config"], alarm["workload"]) == ("ACCEPTANCE_NEAR_ZERO", "mtp", "prose")
    assert alarm["fixes"][0] == "specscope audit org/model-NVFP4"
    assert "enable_weights_track" in alarm["fixes"][1]
    r = _cli("advise", str(run), "--mix", "prose=1")
    assert r.returncode == 1, r.stderr
    text = " ".join(r.stdout.split())
    assert "ALARM ACCEPTANCE_NEAR_ZERO (mtp on prose): mtp acceptance 0.8% over 260 verify steps" in text
    assert "specscope audit org/model-NVFP4" in text


def test_advise_names_its_interval_for_the_rounds_it_rests_on(tmp_path):
    """3 rounds: a t-interval on log ratios named with its rounds, in JSON and in the text."""
    run = _run(tmp_path)
    label = "95% t-interval on log ratios (3 rounds)"
    doc = json.loads(_cli("advise", str(run), "--mix", "prose=0.5,edit=0.5", "--format", "json").stdout)
    cands = [m for lv in doc["choices"]["levels"] for m in lv["candidates"]]
    assert [(m["rounds"], m["interval"]) for m in cands] == [(3, label), (3, label)]
    overall = doc["choices"]["overall"]
    assert (overall["config"], overall["rounds"], overall["verdict"]) == ("draft", 3, "faster")
    r = _cli("advise", str(run), "--mix", "prose=0.5,edit=0.5")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert "overall: draft, equal-time mix speedup " in text and f"({label}, faster)" in text


def test_a_level_paired_on_some_workloads_of_the_mix_names_the_ones_without(tmp_path, capsys, monkeypatch):
    """base and mtp imported from vLLM at N=2 (workload ``imported``), and a base-only SGLang file (workload
    ``sharegpt``, N=4): the default mix covers both workloads, so N=2 has no pick. advise said ``N=2: no paired
    rounds`` while its own headline gave mtp's paired 1.61x at N=2 (fresh-user finding, user59): the note names the
    workload of the mix that has no paired round there."""
    from clirun import cli, vllm_import_run
    from paths import DATA

    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    sglang = DATA / "imports" / "sglang_base.jsonl"
    assert cli(["import", sglang, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, out, _ = cli(["advise", run], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert "mtp on imported at N=2 1.61x" in out
    assert (
        "note: N=2: no paired rounds on sharegpt (paired on imported); a pick needs every workload of the mix "
        "paired (--mix imported=1 picks on what is paired)" in " ".join(out.split())
    ), out
    assert "note: N=4: no paired rounds\n" in out


def test_a_level_mix_with_no_pick_at_any_level_says_so_in_the_policy_line(tmp_path, capsys, monkeypatch):
    """``advise RUN --level-mix 2=0.6,4=0.4`` on a run with no level paired on every workload of the mix printed
    ``Dynamic policy (each level's pick): : — tok/s`` (fresh-user finding, user59): the empty policy is said in words,
    with why, and no rate is shown for it."""
    from clirun import cli, vllm_import_run
    from paths import DATA

    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    sglang = DATA / "imports" / "sglang_base.jsonl"
    assert cli(["import", sglang, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, out, _ = cli(["advise", run, "--level-mix", "2=0.6,4=0.4"], capsys, monkeypatch, tmp_path)
    text = " ".join(out.split())
    assert code == 0
    assert "): :" not in text
    assert (
        "Dynamic policy (each level's pick): none, no level of the level mix has a pick (no level has a paired round "
        "on every workload of the mix)." in text
    ), out

"""One judgement, every screen the same (issue 33): ``report`` and ``advise`` on the same stored run give the same
verdicts and picks, whatever the run's order, drift and sentinel cells."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from factmaker import cell_facts
from hangguard import HANG_S
from specscope.records import ClientFacts
from specscope.store import create_run

T0_S = 1_800_000_000.0  # wall clock of the run's first cell (s since the epoch)
SLOPE_PER_S = 0.0002  # the machine speeds up 0.02 % a second: 4 % over the 200 s between the two blocks


def _timed(cfg: str, rep: int, at_s: float, tok_s: float):
    cell = cell_facts(cfg, "prose", 1, rep, tok_s)
    return replace(
        cell, client=ClientFacts.from_dict({"clock": {"started_at_s": T0_S + at_s, "ended_at_s": T0_S + at_s + 5.0}})
    )


def _machine(at_s: float) -> float:
    """What the baseline server gives at ``at_s`` s into the run (tok/s)."""
    return 100.0 * math.exp(SLOPE_PER_S * at_s)


def blocks_run_with_drift(path: Path) -> Path:
    """A run in counterbalanced blocks (every base cell, then every mtp cell) whose baseline drifts up, a drift its
    sentinel cells (``base~sentinel``, measured across the run) confirm. mtp reads +3 % over base's mean, its
    pairs about 200 s apart: a confirmed slope of 0.02 %/s can move such pairs by 4 %, more than the effect."""
    run = create_run(path, {"kind": "bench", "baseline": "base"})
    for rep, at_s in enumerate((0.0, 20.0, 40.0, 60.0)):
        run.save_cell(_timed("base", rep, at_s, _machine(at_s) * (1.0 + 0.001 * (-1) ** rep)))
    base_mean = sum(_machine(t) for t in (0.0, 20.0, 40.0, 60.0)) / 4
    for rep, at_s in enumerate((200.0, 220.0, 240.0, 260.0)):
        run.save_cell(_timed("mtp", rep, at_s, 1.03 * base_mean * (1.0 - 0.001 * (-1) ** rep)))
    for rep, at_s in enumerate((100.0, 180.0, 280.0, 300.0)):
        run.save_cell(_timed("base~sentinel", rep, at_s, _machine(at_s)))
    run.close()
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def test_blocks_run_whose_drift_the_sentinels_confirm_is_undetermined_in_report_and_advise(tmp_path):
    run = str(blocks_run_with_drift(tmp_path / "run"))
    rep = _cli("report", run, "-f", "json")
    adv = _cli("advise", run, "--mix", "prose=1", "-f", "json")
    assert rep.returncode == 0 and adv.returncode == 0, rep.stderr + adv.stderr
    report, advice = json.loads(rep.stdout), json.loads(adv.stdout)
    (cmp,) = [c for c in report["comparisons"] if c["config"] == "mtp"]
    assert cmp["verdict"] == "undetermined" and [r["code"] for r in cmp["reasons"]] == ["DRIFT"]
    assert report["noise"]["drift"]["confirmed"] is True
    for doc in (report, advice):
        (level,) = doc["choices"]["levels"]
        assert (level["config"], level["verdict"]) == ("base", "baseline"), level
        (cand,) = level["candidates"]
        assert (cand["config"], cand["verdict"]) == ("mtp", "undetermined")
    # the drift alarm is decided once, in the judgement, and both screens carry and print it
    assert report["judged_alarms"] == advice["judged_alarms"]
    (alarm,) = report["judged_alarms"]
    assert (alarm["code"], alarm["config"], alarm["where"]) == ("DRIFT", "base", [["mtp", "prose", 1]])
    assert [a["code"] for a in report["alarms"]] == [a["code"] for a in advice["alarms"]] == ["DRIFT"]
    text = " ".join(_cli("advise", run, "--mix", "prose=1").stdout.split())
    assert "overall: base; no config is faster than the baseline (mtp: undetermined 1.03x" in text
    assert (
        "ALARM DRIFT (base): drift: baseline tok/s per request (at one prompt and answer length) moved +0.8 %" in text
    )


# a published comparison: three methods at 1, 2 and 4 streams, one measurement per cell (tok/s)
TABLE_CSV = """config,workload,concurrency,repeat,output_tok_s
none,chat,1,0,10.0
none,chat,2,0,18.0
none,chat,4,0,35.0
eagle,chat,1,0,16.0
eagle,chat,2,0,26.0
eagle,chat,4,0,38.0
ngram,chat,1,0,13.0
ngram,chat,2,0,22.0
ngram,chat,4,0,45.0
"""


def test_a_table_with_one_measurement_per_cell_gets_its_picks_labelled_unjudged(tmp_path):
    table = tmp_path / "table.csv"
    table.write_text(TABLE_CSV)
    args = ("advise", "--from-csv", str(table), "--baseline", "none", "--level-mix", "1=0.6,4=0.4")
    r = _cli(*args, "-f", "json")
    assert r.returncode == 0, r.stderr
    choices = json.loads(r.stdout)["choices"]
    u = choices["unjudged"]
    assert [(p["level"], p["config"], p["tok_s"], p["baseline_tok_s"]) for p in u["levels"]] == [
        (1, "eagle", 16.0, 10.0),
        (2, "eagle", 26.0, 18.0),
        (4, "ngram", 45.0, 35.0),
    ]
    # a level mix is a time share: its aggregate is tok/s weighted by the share of time at each level
    assert (u["static"], u["static_tok_s"], u["baseline_tok_s"]) == ("ngram", 0.6 * 13 + 0.4 * 45, 0.6 * 10 + 0.4 * 35)
    assert (u["dynamic"], u["dynamic_tok_s"]) == ({"1": "eagle", "4": "ngram"}, 0.6 * 16 + 0.4 * 45)
    assert "repeat rows in --from-csv" in u["needs"]
    # the judged pick stays the baseline (nothing has two rounds), and its sentence names the figures' own ranking
    assert [lv["config"] for lv in choices["levels"]] == ["none", "none", "none"]
    assert (
        "unjudged, the figures rank eagle first (16.0 tok/s against the baseline's 10.0"
        in choices["levels"][0]["reason"]
    )
    text = " ".join(_cli(*args, "--width", "200").stdout.split())
    # the verdict line names its shares of time, and its figure is the best other candidate's, named
    assert (
        "level mix (N=1 60%, N=4 40% of wall time): static pick none (judged); unjudged, the figures rank ngram first"
        in text
    )
    # the level-mix table's title and its dynamic policy say both too (they named the baseline alone)
    assert "of wall time): static pick none (judged; unjudged, the figures rank ngram first)" in text
    assert "(judged; unjudged, by the figures: N=1 -> eagle, N=4 -> ngram: 27.6 tok/s)" in text
    assert "unjudged static policy: ngram at 25.8 tok/s time-weighted (none: 20.0)" in text
    assert "unjudged dynamic policy: N=1 -> eagle, N=4 -> ngram: 27.6 tok/s time-weighted" in text
    # the unjudged table's note: one sentence per policy, not two run together ('(none: 20.0) unjudged dynamic')
    assert "(none: 20.0); unjudged dynamic policy: N=1 -> eagle, N=4 -> ngram: 27.6 tok/s time-weighted." in text


def _interleaved_win(path: Path) -> Path:
    """base and mtp alternating, 4 rounds at 1 stream on prose and code: mtp +20 % on code, +0.5 % on prose."""
    run = create_run(path, {"kind": "bench", "baseline": "base"})
    at_s = 0.0
    for rep, e in enumerate((-0.004, 0.0, 0.004, 0.001)):
        for wl, gain in (("prose", 1.005), ("code", 1.2)):
            for cfg, v in (("base", 50.0), ("mtp", 50.0 * gain * (1 + e))):
                cell = cell_facts(cfg, wl, 1, rep, v)
                clock = {"started_at_s": T0_S + at_s, "ended_at_s": T0_S + at_s + 5.0}
                run.save_cell(replace(cell, client=ClientFacts.from_dict({"clock": clock})))
                at_s += 10.0
    run.close()
    return path


def test_every_report_format_opens_with_the_headline_from_the_judgement(tmp_path):
    run = str(_interleaved_win(tmp_path / "run"))
    doc = json.loads(_cli("report", run, "-f", "json").stdout)
    (code,) = [c for c in doc["comparisons"] if c["workload"] == "code"]
    assert code["verdict"] == "faster"
    figure = f"{code['speedup']:.2f}x [{code['low']:.2f}x, {code['high']:.2f}x] faster"
    first = f"pick per workload vs base: code N=1: mtp {figure}; elsewhere (prose N=1) base: no config is judged faster"
    # prose alone picks base, the mix of both picks mtp: the headline names the mix's pick too, with its figure
    (lv,) = doc["choices"]["levels"]
    assert lv["config"] == "mtp"
    mix = f"pick for the mix code=0.50, prose=0.50 vs base: N=1 mtp {lv['speedup']:.2f}x [{lv['low']:.2f}x, "
    assert doc["headline"][0] == first and doc["headline"][1].startswith(mix) and len(doc["headline"]) == 2
    text = _cli("report", run, "--width", "300").stdout
    assert text.splitlines()[0] == f"headline: {first}"
    md = _cli("report", run, "-f", "markdown").stdout.splitlines()
    assert md[2] == f"**headline: {first}**"
    page = tmp_path / "r.html"
    assert _cli("report", run, "-f", "html", "-o", str(page)).returncode == 0
    html = page.read_text()
    assert html.index('<p class="headline"><strong>headline') < html.index("<section")
    # nothing faster: the headline says so, with the verdicts' reasons
    drift_run = str(blocks_run_with_drift(tmp_path / "drift"))
    for args in (("report", drift_run), ("advise", drift_run, "--mix", "prose=1")):
        out = json.loads(_cli(*args, "-f", "json").stdout)
        assert out["headline"] == [
            "nothing is judged to beat the baseline base: of 1 comparison: 1 undetermined (DRIFT 1)"
        ]


NOISY_CSV = """config,workload,concurrency,repeat,output_tok_s
base,chat,1,0,100.0
base,chat,1,1,100.0
base,chat,1,2,100.0
mtp,chat,1,0,60.0
mtp,chat,1,1,250.0
mtp,chat,1,2,130.0
base,chat,2,0,180.0
mtp,chat,2,0,240.0
"""


def test_unjudged_advice_names_the_levels_short_of_rounds_and_calls_the_others_noise(tmp_path):
    """N=2 has one round (too few); N=1 has three that disagree (an interval of [0.2x, 6x]): the headline names N=2
    alone, and N=1's sentence asks for a narrower interval, not for 'at least 2 paired rounds' it already has
    (fresh-user finding, 2026-12-05)."""
    table = tmp_path / "noisy.csv"
    table.write_text(NOISY_CSV)
    r = _cli("advise", "--from-csv", str(table), "--mix", "chat=1", "-f", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    choices = doc["choices"]
    assert choices["unjudged"]["short_levels"] == [2]
    by = {lv["level"]: lv["reason"] for lv in choices["levels"]}
    assert "to judge: a narrower interval: the rounds disagree" in by[1] and "at least 2 paired rounds" not in by[1]
    assert "to judge: at least 2 paired rounds" in by[2]
    text = _cli("advise", "--from-csv", str(table), "--mix", "chat=1", "--width", "250").stdout
    assert "unjudged (too few rounds to judge at N=2; point estimates only)" in text


def _failed(cell):
    """``cell`` with every stream failed (an http 503 each): the cell is not ok and its round drops out."""
    bad = tuple(
        replace(s, status="failed", reason="http 503", output_tokens=None, token_source="missing") for s in cell.streams
    )
    return replace(cell, streams=bad)


def _judged_levels_short_overall(path: Path) -> Path:
    """base, mtp (+5 %) and ngram (+10 %) at N=1 and N=4, 3 interleaved rounds; ngram's N=1 cell of round 0 and base's
    N=4 cell of round 2 failed. Each level keeps 2 or 3 paired rounds (ngram faster at both), but only round 1 has
    ngram and base at every level: ngram's overall (equal time at each level) rests on 1 round."""
    run = create_run(path, {"kind": "bench", "baseline": "base"})
    at_s = 0.0
    for rep in range(3):
        for n in (1, 4):
            for cfg, gain in (("base", 1.0), ("mtp", 1.05), ("ngram", 1.10)):
                cell = cell_facts(cfg, "prose", n, rep, 100.0 * n * gain * (1 + 0.003 * ((7 * rep + len(cfg)) % 3 - 1)))
                if (cfg, n, rep) in (("ngram", 1, 0), ("base", 4, 2)):
                    cell = _failed(cell)
                run.save_cell(
                    replace(
                        cell,
                        client=ClientFacts.from_dict(
                            {"clock": {"started_at_s": T0_S + at_s, "ended_at_s": T0_S + at_s + 5.0}}
                        ),
                    )
                )
                at_s += 6.0
    run.close()
    return path


def test_headline_calls_unjudged_only_what_was_not_judged(tmp_path):
    """Every level was judged (ngram faster at N=1 and N=4); only the overall pick lacked rounds for ngram. The headline
    said 'unjudged (too few rounds to judge; point estimates only): the figures rank first N=1 ngram, N=4 ngram',
    calling the two judged picks unjudged and never naming what was unjudged: the overall, where the judged pick is
    mtp and the figures rank ngram first (fresh-user finding, 2026-12-05)."""
    run = str(_judged_levels_short_overall(tmp_path / "run"))
    for args in (("report", run), ("advise", run, "--mix", "prose=1")):
        doc = json.loads(_cli(*args, "-f", "json").stdout)
        levels = {lv["level"]: (lv["config"], lv["verdict"]) for lv in doc["choices"]["levels"]}
        assert levels == {1: ("ngram", "faster"), 4: ("ngram", "faster")}
        assert doc["choices"]["overall"]["config"] == "mtp"
        assert doc["choices"]["unjudged"]["overall_short"] is True
        # one statement: the point estimates qualify the judged picks they follow, never a line of their own
        (line,) = doc["headline"]
        first, unjudged = line.split("; unjudged ", 1)
        assert first.startswith("pick per workload vs base: prose N=1: ngram")
        assert unjudged.startswith("(too few rounds to judge over the levels; point estimates only):")
        assert "N=1 ngram" not in unjudged and "N=4 ngram" not in unjudged
        assert "overall ngram (1.10x; the judged overall pick is mtp)" in unjudged


def test_an_imported_run_says_its_rounds_are_paired_by_import_order_everywhere(tmp_path):
    """Imported result files carry no interleaving: every comparison says 'rounds paired by order, not interleaved'
    and the imports table's note says the rounds are paired by import order, while the comparisons table's title and
    the throughput note said 'cells paired nearest in time' on the same screen (fresh-user finding, 2026-12-05)."""
    run = tmp_path / "run"
    data = Path(__file__).resolve().parents[1] / "data" / "imports"
    for config in ("base", "mtp"):
        files = [str(data / f"vllm_{config}_r{i}.json") for i in (0, 1)]
        assert _cli("import", *files, "--config", config, "--out", str(run)).returncode == 0
    doc = json.loads(_cli("report", str(run), "-f", "json").stdout)
    (cmp,) = doc["comparisons"]
    assert [r["code"] for r in cmp["reasons"]] == ["NOT_INTERLEAVED"]
    titles = {t["key"]: t for s in doc["sections"] for t in s["tables"]}
    assert titles["comparisons"]["title"] == "Comparisons with base (rounds paired by import order, not interleaved)"
    assert "nearest in time" not in titles["throughput:imported"]["note"]
    assert "rounds paired by import order" in titles["throughput:imported"]["note"]
    text = " ".join(_cli("report", str(run), "--width", "200").stdout.split())
    assert "nearest in time" not in text


def test_the_aa_control_is_never_called_an_eligible_pick(tmp_path):
    """The quick run's A/A control (base-again) is listed among the candidates so its floor can be read, and is never
    picked; the candidates table said 'eligible: yes' beside it, as for a config that could be shipped (fresh-user
    finding, 2026-12-05)."""
    from quickrun import make_quick_run

    run = str(make_quick_run(tmp_path / "run"))
    for args in (("report", run), ("advise", run, "--mix", "code=1,edit=1,prose=1")):
        doc = json.loads(_cli(*args, "-f", "json").stdout)
        aa = [m for lv in doc["choices"]["levels"] for m in lv["candidates"] if m["config"] == "base-again"]
        assert aa and all(m["control"] is True for m in aa)
        (table,) = [t for sec in doc["sections"] for t in sec["tables"] if t["key"] == "candidates"]
        rows = [r for r in table["rows"] if r[1] == "base-again"]
        assert rows and all(r[-1] == "no (A/A control)" for r in rows), rows
        assert all(r[-1] == "yes" for r in table["rows"] if r[1] != "base-again")


def test_an_imported_run_of_one_file_per_config_is_told_how_imports_get_judged(tmp_path):
    """One imported result file per config is one round: the picks are unjudged, and what would judge them must be
    something an importer can do (more result files per config, each a repeat), not only 'bench --repeats'; with one
    level the headline names that level's point-estimate pick once, not again as 'overall' (fresh-user finding,
    2026-12-05)."""
    run = tmp_path / "run"
    data = Path(__file__).resolve().parents[1] / "data" / "imports"
    for config in ("base", "spec"):
        assert (
            _cli("import", str(data / f"aiperf_{config}_r0.json"), "--config", config, "--out", str(run)).returncode
            == 0
        )
    doc = json.loads(_cli("report", str(run), "-f", "json").stdout)
    needs = doc["choices"]["unjudged"]["needs"]
    assert "specscope import: each file of a config is a repeat" in needs
    # nothing judged, so the point estimates are part of that one statement (not a second, competing line)
    (line,) = doc["headline"]
    assert line.startswith("nothing is judged to beat the baseline base: ") and line.endswith(
        "; unjudged (too few rounds to judge at N=2; point estimates only): the figures rank first N=2 spec"
    ), line


def test_a_short_level_whose_figures_rank_the_baseline_first_is_not_named_as_unjudged(tmp_path):
    """One imported file per config, the speculative one slower: the judged pick is the baseline, and so is the best
    point estimate. The headline added 'unjudged (...): the figures rank first N=2 base', the judged pick repeated as
    unjudged (docs/report-json.md: never), as though the point estimates said something the verdict did not (new-user
    finding, 2026-12-06)."""
    run = tmp_path / "run"
    data = Path(__file__).resolve().parents[1] / "data" / "imports"
    for file, config in (("aiperf_spec_r0.json", "base"), ("aiperf_base_r0.json", "spec")):  # spec: the slower one
        assert _cli("import", str(data / file), "--config", config, "--out", str(run)).returncode == 0
    for args in (("report", str(run)), ("advise", str(run))):
        doc = json.loads(_cli(*args, "-f", "json").stdout)
        assert doc["choices"]["unjudged"]["levels"][0]["config"] == "base"  # the table still shows the estimate
        (line,) = doc["headline"]
        assert line == (
            "nothing is judged to beat the baseline base: of 1 comparison: 1 undetermined (TOO_FEW_ROUNDS 1, "
            "NOT_INTERLEAVED 1; 1 has two reasons)"
        ), line


def test_a_dynamic_policy_of_one_config_everywhere_says_why_the_static_pick_differs(tmp_path):
    """ngram is judged faster at N=1 and at N=4, so the dynamic policy is ngram at every level, which is the static
    policy 'ngram'; the static pick was mtp (ngram's level mix rests on the 1 round with every level ok) with nothing
    saying why, and the unjudged line asked for 'at least 2 paired rounds per cell', which every cell has (fresh-user
    finding, 2026-12-05)."""
    run = str(_judged_levels_short_overall(tmp_path / "run"))
    doc = json.loads(_cli("advise", run, "--mix", "prose=1", "--level-mix", "1=0.5,4=0.5", "-f", "json").stdout)
    c = doc["choices"]
    assert c["level_mix"]["choice"] == "mtp" and set(c["level_mix"]["dynamic"].values()) == {"ngram"}
    assert any(n.startswith("the dynamic policy is ngram at every level") and "1 round" in n for n in c["notes"])
    needs = c["unjudged"]["needs"]
    assert "every level" in needs and "per cell" not in needs


def _rate_run(path: Path) -> Path:
    """base and mtp (+10 %) in an open loop at 4 and 8 requests/s (stored as levels 1 and 2: the rates' positions),
    3 interleaved rounds."""
    run = create_run(path, {"kind": "bench", "baseline": "base", "options": {"rates": [4.0, 8.0]}})
    at_s = 0.0
    for rep in range(3):
        for level, rate in ((1, 4.0), (2, 8.0)):
            for cfg, gain in (("base", 1.0), ("mtp", 1.1)):
                cell = cell_facts(cfg, "prose", level, rep, 100.0 * level * gain * (1 + 0.002 * (rep - 1)))
                client = {
                    "clock": {"started_at_s": T0_S + at_s, "ended_at_s": T0_S + at_s + 5.0},
                    "open_loop": {"rate_per_s": rate, "arrival": "poisson"},
                }
                run.save_cell(replace(cell, client=ClientFacts.from_dict(client)))
                at_s += 6.0
    run.close()
    return path


def test_advise_max_concurrency_on_an_open_loop_run_is_refused_not_read_as_a_rate(tmp_path):
    """An open loop's levels are its rates' positions: 'advise RUN --max-concurrency 1' advised at 4 req/s (level 1),
    a concurrency the user asked for answered at a request rate (fresh-user finding, 2026-12-05)."""
    run = str(_rate_run(tmp_path / "run"))
    doc = json.loads(_cli("report", run, "-f", "json").stdout)
    assert doc["headline"][0].startswith("pick per workload vs base: prose 4 req/s: mtp")
    r = _cli("advise", run, "--mix", "prose=1", "--max-concurrency", "1")
    assert r.returncode == 2, r.stdout
    err = " ".join(r.stderr.split())
    assert "open loop" in err and "4 req/s, 8 req/s" in err
    assert f"fix: specscope advise {run} --mix prose=1" in err


def test_a_pick_on_imported_cells_says_its_rounds_were_paired_by_order(tmp_path):
    """The comparison says '4 imported cell(s): rounds paired by order, not interleaved'; the pick and the candidates
    table built on the same rounds said nothing of it (why: —) (fresh-user finding, 2026-12-05)."""
    run = tmp_path / "run"
    data = Path(__file__).resolve().parents[1] / "data" / "imports"
    for config in ("base", "mtp"):
        files = [str(data / f"vllm_{config}_r{i}.json") for i in (0, 1)]
        assert _cli("import", *files, "--config", config, "--out", str(run)).returncode == 0
    for args in (("report", str(run)), ("advise", str(run), "--mix", "imported=1")):
        doc = json.loads(_cli(*args, "-f", "json").stdout)
        levels = doc["choices"]["levels"] + [doc["choices"]["overall"]]
        for lv in levels:
            (cand,) = lv["candidates"]
            assert cand["verdict"] == "faster"
            assert [r["code"] for r in cand["reasons"]] == ["NOT_INTERLEAVED"], cand["reasons"]


def test_the_level_mix_verdict_line_carries_its_own_figure(tmp_path):
    """advise --level-mix printed two verdict lines, 'overall: mtp, equal-time mix speedup ...' with figures and
    'level mix: static pick mtp' without any: the level mix's own judged figure (its shares of time) was only in a
    table, so the two lines read as one verdict with two answers (2026-12-06). Each line now names its weighting and
    its figure, equal to the level-mix table's."""
    run = str(_judged_levels_short_overall(tmp_path / "run"))
    args = ("advise", run, "--mix", "prose=1", "--level-mix", "1=0.5,4=0.5")
    doc = json.loads(_cli(*args, "-f", "json").stdout)
    m = doc["choices"]["level_mix"]["comparison"]
    assert doc["choices"]["level_mix"]["choice"] == "mtp" and m["config"] == "mtp" and m["verdict"] == "faster"
    text = " ".join(_cli(*args, "--width", "250").stdout.split())
    want = (
        "level mix (N=1 50%, N=4 50% of wall time): static pick mtp (judged); unjudged, the figures rank ngram first, "
        f"time-weighted speedup {m['speedup']:.2f}x [{m['low']:.2f}x, {m['high']:.2f}x]"
    )
    assert want in text, text
    assert "overall: " in text and "equal-time mix speedup" in text

"""``advise --level-mix`` and ``--from-csv`` (issue 14, "Advice"; issue 24: one rule for every pick) on
tests/data/advise/one_repeat.csv: exact figures.

At 60 % of the time 1 stream and 40 % 4 streams: base 0.6*50 + 0.4*180 = 102, mtp 0.6*90 + 0.4*160 = 118,
eagle 0.6*80 + 0.4*200 = 128 tok/s; per user (median stream rate) base 48, mtp 70, eagle 68 tok/s. One repeat has
no interval, so no config can be called faster: the pick is the baseline, the figures are shown. The same table
measured 3 times (+-0.1 %) picks eagle statically (faster: 128 / 102), mtp at N=1 and eagle at N=4 dynamically.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cellmaker import cell
from typer.testing import CliRunner

from specscope.cli import app
from specscope.errors import ConfigError
from specscope.report.advice import advise
from specscope.stats.choices import Traffic
from specscope.stats.csv_cells import read_cells_csv
from specscope.stats.mix import parse_level_mix

CSV = Path(__file__).parent.parent / "data" / "advise" / "one_repeat.csv"
MIX_1_4 = {1: 0.6, 4: 0.4}


def test_parse_level_mix():
    shares = parse_level_mix("1=3,4=1")
    assert shares.shares == {1: 0.75, 4: 0.25} and shares.note.startswith("the --level-mix shares sum to 4, not 1")
    for bad in ("1=0.6,x=0.4", "0=1", "1=-1", "1=0.5,1=0.5", "1=0"):
        with pytest.raises(ConfigError):
            parse_level_mix(bad)


def test_one_repeat_shows_the_figures_and_picks_no_config():
    cells = read_cells_csv(CSV)
    assert len(cells) == 6 and cells[2].acceptance_rate == 0.72 and cells[1].stream_tok_s == (45.0,) * 4
    lm = advise(cells, Traffic(level_mix=MIX_1_4)).choices.level_mix
    assert lm.static == pytest.approx({"base": 102.0, "mtp": 118.0, "eagle": 128.0}, rel=1e-12)
    assert lm.per_user == pytest.approx({"base": 48.0, "mtp": 70.0, "eagle": 68.0}, rel=1e-12)
    assert lm.choice == "base" and lm.dynamic == {1: "base", 4: "base"}
    assert lm.comparison.config == "eagle" and lm.comparison.verdict == "undetermined"  # the best other, and why
    assert [r.code for r in lm.comparison.reasons] == ["TOO_FEW_ROUNDS"]
    assert lm.per_user_choice == "mtp"


def _three_rounds():
    rows = {("base", 1): 50.0, ("base", 4): 180.0, ("mtp", 1): 90.0, ("mtp", 4): 160.0}
    rows |= {("eagle", 1): 80.0, ("eagle", 4): 200.0}
    return [
        cell(cfg, "prose", n, r, v * (1 + e), stream_tok_s=(v / n,) * n)
        for (cfg, n), v in rows.items()
        for r, e in enumerate((-0.001, 0.0, 0.001))
    ]


def test_the_level_mix_and_the_per_level_picks_agree_and_say_why_they_differ_from_the_overall_pick():
    adv = advise(_three_rounds(), Traffic(level_mix=MIX_1_4))
    c = adv.choices
    lm = c.level_mix
    assert lm.choice == "eagle" and lm.comparison.verdict == "faster"
    assert lm.comparison.speedup == pytest.approx(128.0 / 102.0, rel=1e-5)
    by = {lv.level: lv.config for lv in c.levels}
    assert by == {1: "mtp", 4: "eagle"} and lm.dynamic == by  # the dynamic policy is each level's own pick
    assert lm.dynamic_tok_s == pytest.approx(0.6 * 90.0 + 0.4 * 200.0, rel=1e-5)
    assert lm.dynamic_gain == pytest.approx(134.0 / 128.0 - 1, rel=1e-5)
    # overall (each level the same weight): mtp 1.8 x 0.889 vs eagle 1.6 x 1.111, geometric means 1.265 vs 1.333
    assert c.overall.config == "eagle"
    # at 90 % of the time on one stream the level mix picks mtp, and says why the overall pick differs
    c9 = advise(_three_rounds(), Traffic(level_mix={1: 0.9, 4: 0.1})).choices
    assert c9.level_mix.choice == "mtp" and c9.overall.config == "eagle"
    assert any(n.startswith("the level mix picks mtp and the overall pick is eagle") for n in c9.notes)


def test_unmeasured_level_is_a_config_error():
    with pytest.raises(ConfigError) as ei:
        advise(read_cells_csv(CSV), Traffic(level_mix={1: 0.5, 8: 0.5}))
    assert "concurrency 8" in str(ei.value.one_line())


def test_cli_from_csv_level_mix_text_and_json():
    res = CliRunner().invoke(app, ["advise", "--from-csv", str(CSV), "--level-mix", "1=0.6,4=0.4"])
    assert res.exit_code == 0, res.output
    assert "Level mix (N=1 60%, N=4 40% of wall time): static pick base" in res.output
    res = CliRunner().invoke(app, ["advise", "--from-csv", str(CSV), "--level-mix", "1=0.6,4=0.4", "-f", "json"])
    doc = json.loads(res.output)
    lm = doc["choices"]["level_mix"]
    assert lm["choice"] == "base" and lm["static"]["eagle"] == pytest.approx(128.0)
    assert lm["dynamic"] == {"1": "base", "4": "base"}


def test_cli_from_csv_with_a_mix_runs_on_one_repeat():
    res = CliRunner().invoke(app, ["advise", "--from-csv", str(CSV), "--mix", "prose=1", "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert [lv["level"] for lv in doc["choices"]["levels"]] == [1, 4]


def test_bad_csv_is_one_line(tmp_path):
    bad = tmp_path / "r.csv"
    bad.write_text("config,workload,concurrency,repeat,output_tok_s\nbase,prose,two,0,50\n")
    with pytest.raises(ConfigError) as ei:
        read_cells_csv(bad)
    assert ei.value.one_line().startswith("bad concurrency in the CSV") and f"{bad}:2" in ei.value.one_line()
    (tmp_path / "h.csv").write_text("config,workload\nbase,prose\n")
    with pytest.raises(ConfigError) as ei:
        read_cells_csv(tmp_path / "h.csv")
    assert "'concurrency'" in ei.value.one_line()

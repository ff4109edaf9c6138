"""``advise --level-mix`` and ``--from-csv`` (issue 14, "Advice") on tests/data/advise/one_repeat.csv: exact figures.

At 60 % of the time 1 stream and 40 % 4 streams: base 0.6*50 + 0.4*180 = 102, mtp 0.6*90 + 0.4*160 = 118,
eagle 0.6*80 + 0.4*200 = 128 tok/s; the dynamic policy (mtp at 1, eagle at 4) 0.6*90 + 0.4*200 = 134 tok/s;
per user (median stream rate) base 48, mtp 70, eagle 68 tok/s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app
from specscope.errors import ConfigError
from specscope.stats.csv_cells import read_cells_csv
from specscope.stats.level_mix import level_mix_advice, parse_level_mix

CSV = Path(__file__).parent.parent / "data" / "advise" / "one_repeat.csv"


def test_parse_level_mix():
    assert parse_level_mix("1=3,4=1") == {1: 0.75, 4: 0.25}
    for bad in ("1=0.6,x=0.4", "0=1", "1=-1", "1=0.5,1=0.5", "1=0"):
        with pytest.raises(ConfigError):
            parse_level_mix(bad)


def test_static_dynamic_and_per_user_exact():
    cells = read_cells_csv(CSV)
    assert len(cells) == 6 and cells[2].acceptance_rate == 0.72 and cells[1].stream_tok_s == (45.0,) * 4
    adv = level_mix_advice(cells, parse_level_mix("1=0.6,4=0.4"))
    assert adv.static == pytest.approx({"base": 102.0, "mtp": 118.0, "eagle": 128.0}, rel=1e-12)
    assert adv.static_choice == "eagle"
    assert adv.dynamic == {1: "mtp", 4: "eagle"}
    assert adv.dynamic_tok_s == pytest.approx(134.0, rel=1e-12)
    assert adv.dynamic_gain == pytest.approx(134.0 / 128.0 - 1, rel=1e-12)
    assert adv.per_user == pytest.approx({"base": 48.0, "mtp": 70.0, "eagle": 68.0}, rel=1e-12)
    assert adv.per_user_choice == "mtp" and adv.repeats == 1
    assert adv.notes[0] == "no interval (1 repeat): point estimates"
    assert adv.notes[1].startswith("the per-user view prefers mtp (each stream faster) while the throughput view")


def test_unmeasured_level_is_a_config_error():
    with pytest.raises(ConfigError) as ei:
        level_mix_advice(read_cells_csv(CSV), {1: 0.5, 8: 0.5})
    assert "concurrency 8" in str(ei.value.one_line())


def test_cli_from_csv_level_mix_text_and_json():
    res = CliRunner().invoke(app, ["advise", "--from-csv", str(CSV), "--level-mix", "1=0.6,4=0.4"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[1] == "static choice: eagle at 128.0 tok/s (time-weighted)"
    assert "dynamic policy: 1 streams -> mtp, 4 streams -> eagle: 134.0 tok/s (+4.7% vs static)" in lines
    assert "per-user view: mtp at 70.0 tok/s per stream (time-weighted median stream rate)" in lines
    res = CliRunner().invoke(app, ["advise", "--from-csv", str(CSV), "--level-mix", "1=0.6,4=0.4", "-f", "json"])
    doc = json.loads(res.output)
    assert doc["static_choice"] == "eagle" and doc["dynamic"] == {"1": "mtp", "4": "eagle"}


def test_cli_from_csv_with_a_mix_runs_on_one_repeat():
    res = CliRunner().invoke(app, ["advise", "--from-csv", str(CSV), "--mix", "prose=1", "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert [lv["concurrency"] for lv in doc["levels"]] == [1, 4]


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

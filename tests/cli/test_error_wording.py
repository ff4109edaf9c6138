"""Error lines a new user met: what was found, what was expected (the list, the bound), and a fix that fits."""

from __future__ import annotations

import json

import pytest

from clirun import cli
from paths import DATA

RUN = DATA / "runs" / "schema1"
COUNTERS = DATA / "counters" / "llamacpp_after.prom"


@pytest.mark.parametrize(
    ("argv", "wanted", "unwanted"),
    [
        (["report", RUN, "-f", "yaml"], "expected: one of text, markdown, json, html;", "is not one of"),
        (["counters", COUNTERS, COUNTERS, "--timeout", "0"], "invalid value for --timeout", "a number and a unit"),
        (
            ["predict", "--bytes-per-step", "0", "--bandwidth", "1GB/s"],
            "invalid value for --bytes-per-step",
            "with a unit",
        ),
        (["report", RUN, "--min-effect", "100%"], "(below 100%)", "as a percentage"),
        (
            ["predict", *("--bytes-per-step", "1GB", "--bandwidth", "1GB/s", "--per-position", "0.5"),
             *("--draft-bytes", "0", "--lm-head-bytes", "-5GB")],
            "invalid value for --lm-head-bytes",
            "a byte size must",
        ),
        (["predict"], "fix: specscope predict --bytes-per-step", "\n\n"),
        (["advise", "--from-csv", DATA], "it is a folder", "\n\n"),
    ],
)  # fmt: skip
def test_error_lines(argv, wanted, unwanted, tmp_path, capsys, monkeypatch):
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and wanted in err and unwanted not in err, err
    assert "fix:" in err and len(err.strip().splitlines()) == 1


def test_a_bare_number_above_one_still_suggests_the_percentage(tmp_path, capsys, monkeypatch):
    code, _, err = cli(["report", RUN, "--min-effect", "5"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "(5 as a percentage: 5%)" in err


def test_duplicate_and_folder_workloads_say_which(tmp_path, capsys, monkeypatch):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hi"}\n')
    argv = ["bench", "--workload", f"a={prompts}", "--workload", f"a={prompts}"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "workload name 'a' is given twice" in err
    code, _, err = cli(["bench", "--workload", f"x={tmp_path}"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "workload file is a folder" in err and "not found" not in err


def test_an_import_file_lacking_a_field_names_it(tmp_path, capsys, monkeypatch):
    doc = json.loads((DATA / "imports" / "vllm_mtp_r0.json").read_text())
    del doc["duration"]
    bad = tmp_path / "nodur.json"
    bad.write_text(json.dumps(doc))
    code, _, err = cli(["import", bad, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "looks like vllm-bench-serve but lacks: duration" in err

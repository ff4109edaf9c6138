"""What a fresh user ran into after round 3 (the small ones): ``--mix ,prose=1`` accepted with its empty item, an
advise headline that blamed pairing when the TTFT SLO was the reason, an unknown recipe whose fix was to edit the
installed package, ``predict`` on a baseline-only run speaking of a fitted overhead, help that says a default twice
or names a kind ``TEXT``, and ``--workload NAME=FILE.jsonl.gz`` refused while ``--trace`` reads gzip."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from clirun import cli
from quickrun import make_quick_run


@pytest.fixture
def quick_run(tmp_path: Path) -> Path:
    return make_quick_run(tmp_path / "run")


def _error(argv: list[object], capsys, monkeypatch, tmp_path: Path) -> str:
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--mix", ",prose=1"),
        ("--mix", "prose=0.5,,code=0.5"),
        ("--mix", "prose=1,"),
        ("--level-mix", "1=0.5,,2=0.5"),
        ("--level-mix", ",1=1"),
    ],
)
def test_an_empty_item_of_a_mix_is_refused_like_every_list(option, value, quick_run, capsys, monkeypatch, tmp_path):
    err = _error(["advise", quick_run, option, value], capsys, monkeypatch, tmp_path)
    assert f"{option} has an empty item" in err and "found: " in err and "expected: " in err and "fix: " in err, err


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--mix", "prose", "--mix takes NAME=VALUE items"),
        ("--mix", "prose=1,prose=2", "--mix names 'prose' twice"),
        ("--mix", "prose=-1", "a share of the --mix"),
        ("--mix", "prose=inf", "a share of the --mix"),
        ("--mix", "prose=0", "a --mix needs a positive share"),
        ("--level-mix", "x=1", "a level of the --level-mix"),
        ("--level-mix", "0=1", "a level of the --level-mix"),
        ("--level-mix", "1=x", "a share of the --level-mix"),
    ],
)
def test_odd_mix_values_are_still_refused(option, value, needle, quick_run, capsys, monkeypatch, tmp_path):
    err = _error(["advise", quick_run, option, value], capsys, monkeypatch, tmp_path)
    assert needle in err, err


def test_a_mix_that_does_not_sum_to_one_is_still_normalised_and_said(quick_run, capsys, monkeypatch, tmp_path):
    code, out, err = cli(
        ["advise", quick_run, "--mix", "prose=2,code=2", "--width", "200"], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    assert "the --mix shares sum to 4, not 1; normalised to prose=0.50, code=0.50" in out


def test_no_pick_under_an_slo_names_the_slo_and_the_best_ttft(quick_run, capsys, monkeypatch, tmp_path):
    argv = ["advise", quick_run, "--mix", "prose=1", "--slo", "ttft=1us"]
    code, out, err = cli([*argv, "--width", "200"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if "no recommendation" in x]
    # prose's TTFT is 0.12 s per stream at N=1 in the quick run (every config): the best p95 measured
    assert "no config meets the TTFT SLO of 1us at any level" in line and "best p95 TTFT measured: 120ms" in line
    assert "paired round" not in line, line
    code, out, err = cli([*argv, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    (section,) = [s for s in doc["sections"] if s["key"] == "advice"]
    assert any("no config meets the TTFT SLO of 1us at any level" in n for n in section["notes"]), section["notes"]
    assert not any("paired round" in n for n in section["notes"]), section["notes"]


def test_an_unknown_recipe_lists_the_known_ones_close_first_and_names_recipes_file(capsys, monkeypatch, tmp_path):
    err = _error(["serve", "ngram"], capsys, monkeypatch, tmp_path)
    expected = err.split("; expected: ", 1)[1].split("; fix: ", 1)[0]
    assert re.match(r"ngram4, ", expected.split(": ", 1)[1]) and "cpu-ngram" in expected, err
    fix = err.split("; fix: ", 1)[1]
    assert "--recipes" in fix and "recipes.toml" not in fix.replace("my-recipes.toml", ""), err
    assert "src/specscope" not in err and "site-packages" not in err, err
    err = _error(["serve", "nope"], capsys, monkeypatch, tmp_path)
    assert "base, cpu-base" in err and "--recipes" in err, err


def test_an_unknown_recipe_of_a_users_file_says_to_add_it_there(capsys, monkeypatch, tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('[recipes.mine]\nmodel = "Qwen/Qwen3-8B"\n')
    err = _error(["serve", "nope", "--recipes", mine], capsys, monkeypatch, tmp_path)
    assert "mine" in err and f"add [recipes.nope] to {mine}" in err, err


def test_predict_on_a_baseline_only_run_says_there_is_nothing_to_predict(capsys, monkeypatch, tmp_path):
    run = make_quick_run(tmp_path / "base-only", only=("base", "base-again"))
    err = _error(["predict", run, "--bytes-per-step", "270898432"], capsys, monkeypatch, tmp_path)
    assert "no speculative config to predict" in err and "in-sample" not in err, err
    assert "base, base-again" in err, err


def _option_lines(command: list[str], capsys, monkeypatch, tmp_path: Path) -> list[str]:
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = cli([*command, "--help"], capsys, monkeypatch, tmp_path)
    assert code == 0
    return [x for x in out.splitlines() if re.match(r"[│|]\s+--", x)]


@pytest.mark.parametrize(
    "command",
    [["predict"], ["counters"], ["serve"], ["advise"], ["report"], ["audit"], ["surgery", "patch-config"]],
)
def test_help_says_each_default_once_and_names_each_kind(command, capsys, monkeypatch, tmp_path):
    lines = _option_lines(command, capsys, monkeypatch, tmp_path)
    assert lines
    twice = [x for x in lines if re.search(r"\(default:? [^)]*\)", x) and "[default:" in x]
    assert twice == [], twice
    if command == ["predict"]:
        text = [x for x in lines if re.search(r"--(fit-k|compare)\s+TEXT\b", x)]
        assert text == [], text
        assert any(re.search(r"--fit-k\s+K=TOK/S,\.\.\.", x) for x in lines), lines


def _gz(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode()))
    return path


def test_a_gzipped_workload_file_is_read_like_a_gzipped_trace(tmp_path: Path) -> None:
    from specscope.workload.userfile import load_prompt_file

    plain = tmp_path / "mine.jsonl"
    plain.write_text('{"prompt": "hi there"}\n{"prompt": "write code"}\n')
    gz = _gz(tmp_path / "mine.jsonl.gz", plain.read_text())
    assert [p.messages for p in load_prompt_file("mine", gz)] == [p.messages for p in load_prompt_file("mine", plain)]
    renamed = _gz(tmp_path / "prompts.txt", "one\ntwo\n")  # by its magic bytes, whatever its name
    assert len(load_prompt_file("t", renamed)) == 2


def test_a_gzip_bomb_workload_is_refused_by_its_decompressed_size(tmp_path: Path, monkeypatch) -> None:
    from specscope.errors import ConfigError
    from specscope.workload import userfile

    monkeypatch.setattr(userfile, "MAX_FILE_BYTES", 10_000)
    bomb = _gz(tmp_path / "bomb.jsonl.gz", "a" * 1_000_000)
    assert bomb.stat().st_size < 10_000
    with pytest.raises(ConfigError) as info:
        userfile.load_prompt_file("b", bomb)
    text = info.value.one_line()
    assert "larger than the limit" in text and "decompressed" in text and "at most 10,000 bytes" in text, text
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b'{"prompt": "hi"}\n' * 100)[:40])
    with pytest.raises(ConfigError) as info:
        userfile.load_prompt_file("b", broken)
    assert "damaged gzip" in info.value.one_line(), info.value.one_line()


def test_bench_takes_a_gzipped_workload_file(capsys, monkeypatch, tmp_path):
    from specscope.truth import TruthScript, TruthServer

    gz = _gz(tmp_path / "mine.jsonl.gz", '{"prompt": "hi there"}\n{"prompt": "write code"}\n')
    with TruthServer(TruthScript()) as ts:
        argv = ["bench", "--server", f"base={ts.base_url}", "--workload", f"mine={gz}", "--max-concurrency", "1"]
        argv += ["--repeats", "1", "--max-tokens", "4", "--out", tmp_path / "runs", "-f", "json", "-o", tmp_path / "r"]
        code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
        log = ts.served()
    assert code == 0, err
    assert "[1/1] base/mine/" in err, err
    from sent_rows import assert_rows_sent, only_run

    texts = {"line 1": "hi there", "line 2": "write code"}
    assert assert_rows_sent(only_run(tmp_path / "runs"), log, texts) == {"base/mine/c1/r0": 2}
    from specscope.store import open_run

    with open_run(next((tmp_path / "runs").glob("run-*"))) as run:
        streams = [s for r in run.cells() for s in r.streams]
    # both prompts of the gzipped file were sent and answered (every row once per repeat; the cell itself may be
    # CLIENT_LIMITED under load)
    assert len(streams) == 2 and all(s.status == "ok" for s in streams), err
    assert sorted(s.prompt_id for s in streams) == ["mine-0001", "mine-0002"]

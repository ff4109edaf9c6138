"""What a fresh user ran into, reading only README.md and docs/cli.md (round 3): help paragraphs broken mid-line,
the ``--api-key`` placeholder masked as a secret, the A/A control given a draft overhead by ``predict``, and
``advise`` errors whose fix was not a command that runs on the run at hand."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from clirun import cli
from quickrun import make_quick_run
from specscope.store import create_run


def _fix_of(err: str) -> list[str]:
    """The command line after ``fix:`` of a one-line error, as argv without the leading ``specscope``."""
    fix = err.strip().split("; fix: ", 1)[1]
    argv = shlex.split(fix)
    assert argv[0] == "specscope", err
    return argv[1:]


@pytest.fixture
def quick_run(tmp_path: Path) -> Path:
    return make_quick_run(tmp_path / "run")


@pytest.mark.parametrize(
    ("command", "sentence"),
    [
        ("bench", "configs base, ngram-k8, draft and the A/A control"),
        ("counters", "counters that contradict each other (more tokens accepted than drafted"),
        ("advise", "unknown workload in --mix, unmeasured --max-concurrency or --level-mix level"),
    ],
)
def test_help_paragraphs_are_not_broken_where_the_source_wraps(command, sentence, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = cli([command, "--help"], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert any(sentence in line for line in out.splitlines()), out


def test_the_api_key_placeholder_in_help_is_not_masked(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "200")
    _, out, _ = cli(["bench", "--help"], capsys, monkeypatch, tmp_path)
    (line,) = [x for x in out.splitlines() if "--api-key" in x]
    assert "KEY" in line and "***" not in line, line


def test_api_key_in_a_run_file_is_refused_in_words_a_person_can_read(capsys, monkeypatch, tmp_path):
    f = tmp_path / "run.toml"
    f.write_text('api-key = "sk-abcdefgh123"\n')
    code, _, err = cli(["bench", "--run-file", f, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "'api-key' is not a run-file key" in err and "on the command line as --api-key KEY" in err, err
    assert "sk-abcdefgh123" not in err


def test_a_real_key_after_the_flag_is_still_masked():
    from specscope.redact import redact_text

    assert redact_text("vllm serve m --api-key Secret0123abc") == "vllm serve m --api-key ***"
    assert redact_text("--api-key KEY or --api-key $OPENAI_API_KEY") == "--api-key KEY or --api-key $OPENAI_API_KEY"


def test_predict_gives_the_aa_control_no_draft_overhead(quick_run, capsys, monkeypatch, tmp_path):
    argv = ["predict", quick_run, "--bytes-per-step", "270898432"]
    code, out, _ = cli([*argv, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0
    doc = json.loads(out)
    assert "base-again" not in doc["models"] and "base-again" not in doc["curves"]
    again = [c for c in doc["cells"] if c["config"] == "base-again"]
    assert again and all(c["k"] == 0 and c["tokens_per_step"] == 1.0 for c in again)
    code, out, _ = cli([*argv, "--width", "200"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "base-again: draft overhead" not in out
    for cfg, model in doc["models"].items():  # a line only for an overhead fitted on drafts (never a 0.000 ms)
        assert (f"{cfg}: draft overhead" in out) is (model["draft_overhead_s"] is not None), cfg


def _error(argv: list[object], capsys, monkeypatch, tmp_path: Path) -> str:
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    "extra",
    [
        ["--level-mix", "1=0.6,4=0.4"],
        ["--level-mix", "0=1"],
        ["--mix", "prose=1", "--max-concurrency", "3"],
        ["--acceptance", "0.5", "--acceptance-config", "nope"],
    ],
)
def test_every_advise_error_fix_runs_on_the_run(extra, quick_run, capsys, monkeypatch, tmp_path):
    err = _error(["advise", quick_run, *extra], capsys, monkeypatch, tmp_path)
    fix = _fix_of(err)
    assert str(quick_run) in fix, err
    code, out, err2 = cli(fix, capsys, monkeypatch, tmp_path)
    assert code == 0, (err, err2)
    assert "Picks vs base" in out


def test_advise_without_a_mix_picks_what_report_picks(quick_run, capsys, monkeypatch, tmp_path):
    """``advise RUN`` alone assumes report's equal shares and says so; its headline is report's, line for line."""
    code, out, err = cli(["advise", quick_run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    _, report_out, _ = cli(["report", quick_run], capsys, monkeypatch, tmp_path)

    def headline(text: str) -> list[str]:
        return [ln for ln in text.split("\n\n", 1)[0].splitlines()]

    assert headline(out) == headline(report_out) and headline(out)[0].startswith("headline: ")
    assert "note: no --mix, --level-mix or --acceptance: equal token shares" in " ".join(out.split())


def test_advise_on_an_interrupted_run_says_to_resume_it(tmp_path, capsys, monkeypatch):
    full = make_quick_run(tmp_path / "full")
    from specscope.store import open_run

    src = open_run(full)
    part = create_run(tmp_path / "part", {**src.manifest, "finished": False, "cells_done": 8})
    for cell in src.cells():
        if cell.key.config == "base":
            part.save_cell(cell)
    part.close()
    src.close()
    err = _error(["advise", tmp_path / "part", "--mix", "prose=1"], capsys, monkeypatch, tmp_path)
    assert f"fix: specscope bench --resume {tmp_path / 'part'}" in err, err


@pytest.mark.parametrize(("name", "start"), [("r.htm", "<!DOCTYPE html>"), ("r.markdown", "# ")])
def test_long_suffixes_of_html_and_markdown_pick_their_format(name, start, quick_run, capsys, monkeypatch, tmp_path):
    code, out, err = cli(["report", quick_run, "-o", tmp_path / name], capsys, monkeypatch, tmp_path)
    assert code == 0 and out.strip() == str(tmp_path / name), err
    assert (tmp_path / name).read_text().lstrip().startswith(start)


def test_a_capitals_only_secret_is_still_masked():
    """Only names that say what they stand for (KEY, API_KEY, NEW_TOKEN) or shell variables pass unmasked."""
    from specscope.redact import redact_text

    assert redact_text("--api-key ABCDEFGHIJKLMNOP") == "--api-key ***"
    assert redact_text("--api-key MYSECRETVALUE") == "--api-key ***"
    assert redact_text("--api-key API_KEY --hf-token $HF_TOKEN") == "--api-key API_KEY --hf-token $HF_TOKEN"

"""Issue 29, "Resume and concurrency": options given with ``--resume`` that differ from the run's are refused
(exit 2 naming them), options equal to the run's are accepted (``--baseline base`` on a run whose baseline is
``base``). The run here is finished, so an accepted resume measures nothing and needs no server."""

from __future__ import annotations

import pytest

from clirun import cli
from run_damage import small_run, snapshot


@pytest.fixture
def finished_run(tmp_path):
    return small_run(tmp_path / "run")


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--request-rate", "1,2"], "--request-rate"),
        (["--profile", "card"], "--profile"),
        (["--workload", "mine={prompts}"], "--workload"),
        (["--target-ci", "0.05"], "--target-ci"),
    ],
)
def test_resume_refuses_an_option_that_differs_from_the_run(extra, named, finished_run, tmp_path, capsys, monkeypatch):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hello"}\n')
    before = snapshot(finished_run)
    argv = ["bench", "--resume", finished_run, *[a.format(prompts=prompts) for a in extra]]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert err.startswith("error: options given with --resume differ from the run's") and named in err, err
    assert snapshot(finished_run) == before


def test_resume_accepts_the_runs_own_baseline(finished_run, tmp_path, capsys, monkeypatch):
    code, out, err = cli(["bench", "--resume", finished_run, "--baseline", "base"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "differ" not in err and "ngram" in out


def test_resuming_a_finished_run_says_nothing_was_left_to_run(finished_run, tmp_path, capsys, monkeypatch):
    """`bench --resume RUN` on a finished run reprinted the report with exit 0 and no word that nothing ran
    (fresh-user finding, 2026-12-06). It now says so on stderr before the report: 8 of the 8 planned cells."""
    code, _out, err = cli(["bench", "--resume", finished_run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "nothing to run: 8 of 8 planned cells are measured\n" in err, err

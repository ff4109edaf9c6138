"""Issue 29, "Reading writes": report / advise / predict open a run read-only, never change it, and a damaged run
gives exit 2 naming the table or field (or a report), never an internal error (exit 3)."""

from __future__ import annotations

import shutil

import pytest

from clirun import cli
from run_damage import DAMAGE, damage, small_run, snapshot

COMMANDS = {
    "report": ["report", "{run}", "-f", "json"],
    "advise": ["advise", "{run}", "--mix", "prose=1"],
    "predict": ["predict", "{run}", "--bytes-per-step", "1GB", "--bandwidth", "100GB/s"],
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return small_run(tmp_path_factory.mktemp("pristine") / "run")


def test_report_of_a_run_without_its_cells_table_is_refused_and_the_run_is_unchanged(
    pristine, tmp_path, capsys, monkeypatch
):
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    damage(run, "cells table dropped")
    before = snapshot(run)
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "table cells" in err and "fix:" in err
    assert snapshot(run) == before  # no table re-created, no -wal / -shm left behind


def test_reading_leaves_every_byte_of_an_intact_run_as_it_was(pristine, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    before = snapshot(run)
    for argv in COMMANDS.values():
        code, _out, _err = cli([a.format(run=run) for a in argv], capsys, monkeypatch, tmp_path)
        assert code in (0, 1)
    assert snapshot(run) == before


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_a_hand_edited_run_is_exit_2_naming_what_is_wrong_or_a_report(name, pristine, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    damage(run, name)
    before = snapshot(run)
    named = DAMAGE[name][2]
    for command, argv in COMMANDS.items():
        code, _out, err = cli([a.format(run=run) for a in argv], capsys, monkeypatch, tmp_path)
        assert code in (0, 1, 2), (command, err)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("error: "), (command, err)
            assert named in err, (command, err)
    assert snapshot(run) == before

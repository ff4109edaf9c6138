"""Issue 29, "Reading writes": report / advise / predict open a run read-only, never change it, and a damaged run
gives exit 2 naming the table or field (or a report), never an internal error (exit 3)."""

from __future__ import annotations

import json
import shutil
import sqlite3

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


def _with_wal_only(pristine, run, edit: str) -> None:
    """``run``: a copy of ``pristine`` whose last transaction (``edit``) lives in ``run.sqlite-wal`` with no
    ``-shm`` beside it, as a folder copied (or a process killed) while a writer held it open."""
    live = run.parent / "live"
    shutil.copytree(pristine, live)
    db = sqlite3.connect(live / "run.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute(edit)
    db.commit()
    shutil.copytree(live, run, ignore=shutil.ignore_patterns("*-shm"))
    db.close()
    assert (run / "run.sqlite-wal").stat().st_size > 0 and not (run / "run.sqlite-shm").exists()


def test_a_wal_without_its_shm_is_read_and_nothing_is_written_into_the_run(pristine, tmp_path, capsys, monkeypatch):
    # issue 37 (R-faults): SQLite opened mode=ro on a -wal without -shm made the -shm inside the run it read
    run = tmp_path / "run"
    edit = 'UPDATE server_facts SET facts_json=\'{"command_line": "llama-server FROM_THE_WAL"}\''
    _with_wal_only(pristine, run, edit)
    before = snapshot(run)
    for argv in COMMANDS.values():
        code, out, err = cli([a.format(run=run) for a in argv], capsys, monkeypatch, tmp_path)
        assert code in (0, 1), err
        if argv[0] == "report":
            assert "FROM_THE_WAL" in out  # the committed transaction in the -wal is read
    assert snapshot(run) == before  # no -shm made, the -wal left as it was


@pytest.mark.parametrize("key", ["k", "num_speculative_tokens", "draft_max"])
def test_a_stored_k_past_any_draft_length_is_no_k_and_every_reader_reads_the_run(
    key, pristine, tmp_path, capsys, monkeypatch
):
    # issue 37: server facts {"k": 10**30} (hand-edited, or a record imported with it) made report exit 3
    # (OverflowError comparing it with the acceptance length) and predict build a list of 10**30 zeros (a hang)
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    db = sqlite3.connect(run / "run.sqlite")
    db.execute("UPDATE server_facts SET facts_json=?", (json.dumps({key: 10**30}),))
    db.commit()
    db.close()
    # -o a folder: the run holds several profiles, and a FILE.json takes one (export --to profile's -o rule)
    argv = [*COMMANDS.values(), ["export", "{run}", "--to", "profile", "-o", str(tmp_path / "profiles")]]
    for command in argv:
        code, _out, err = cli([a.format(run=run) for a in command], capsys, monkeypatch, tmp_path)
        assert code in (0, 1), (command, err)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("drafts", "1" + "0" * 400),
        ("draft_tokens", "1" + "0" * 400),
        ("accepted_tokens", "1" + "0" * 400),
        ("generation_tokens", "1" + "0" * 400),
        ("drafts", "NaN"),
        ("draft_tokens", "NaN"),
        ("accepted_per_position", "[8, 1" + "0" * 400 + "]"),
    ],
)
def test_a_stored_counter_that_is_no_count_is_refused_by_every_reader_naming_it(
    field, value, pristine, tmp_path, capsys, monkeypatch
):
    # issue 37: a stored counter of 400 digits (or NaN drafts) made report, advise, predict and export --to profile
    # exit 3 (OverflowError / "cannot convert float NaN to integer"); a live scrape never stores one (a counter is a
    # finite number from 0 to below 2**63, client.metrics), so the run was edited: exit 2 naming the field
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    db = sqlite3.connect(run / "run.sqlite")
    # a textual edit, so that a number past a float stays as written
    rows = db.execute("SELECT rowid, after_json FROM cells WHERE after_json IS NOT NULL").fetchall()
    for rowid, text in rows:
        doc = {**json.loads(text), field: "@@"}
        db.execute("UPDATE cells SET after_json=? WHERE rowid=?", (json.dumps(doc).replace('"@@"', value), rowid))
    db.commit()
    db.close()
    # -o a folder: the run holds several profiles, and a FILE.json takes one (export --to profile's -o rule)
    argv = [*COMMANDS.values(), ["export", "{run}", "--to", "profile", "-o", str(tmp_path / "profiles")]]
    for command in argv:
        code, _out, err = cli([a.format(run=run) for a in command], capsys, monkeypatch, tmp_path)
        assert code == 2 and field in err and "after_json" in err, (command, err)

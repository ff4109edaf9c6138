"""Stored keys this specscope does not read are named in the report (issue 37: "a field you do not understand is a
named warning"), not passed over in silence; a run of this version gets no such note."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clirun import cli
from run_damage import small_run


def _edit(run: Path, *statements: str) -> None:
    db = sqlite3.connect(run / "run.sqlite")
    with db:
        for s in statements:
            db.execute(s)
    db.close()


def test_no_note_on_a_run_of_this_version(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    run = small_run(tmp_path / "run")
    code, out, err = cli(["report", str(run)], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "not read" not in out


def test_unknown_server_and_client_keys_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    run = small_run(tmp_path / "run")
    _edit(
        run,
        "UPDATE server_facts SET facts_json=json_set(facts_json, '$.gpu_clock_mhz', 1410, '$.power_w', 300)",
        # every cell but the first gets one unknown key; the first gets none
        "UPDATE cells SET client_json=json_set(coalesce(client_json, '{}'), '$.future_figure', 7) "
        "WHERE rowid > (SELECT min(rowid) FROM cells)",
    )
    cells = sqlite3.connect(run / "run.sqlite").execute("SELECT count(*) FROM cells").fetchone()[0]
    code, out, err = cli(["report", str(run), "--width", "400"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "server facts of ngram: 'gpu_clock_mhz', 'power_w' not read" in out
    assert f"cell client facts: 'future_figure' not read (in {cells - 1} of {cells} cells)" in out
    code, out, err = cli(["report", str(run), "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    notes = [n for s in doc["sections"] for n in s.get("notes", [])]
    assert any(n.startswith("server facts of ngram: 'gpu_clock_mhz', 'power_w' not read") for n in notes)
    assert doc["server_facts"]["ngram"]["gpu_clock_mhz"] == 1410  # kept as stored

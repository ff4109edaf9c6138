"""A top-level manifest key this specscope does not know (a newer specscope's, or a hand edit) is a named note and
the run is still read; the keys the reader needs are still checked; writing to such a run (``--resume``) is refused
by name, as a newer version's bench option is (``stored_bench_options``): this version cannot keep its meaning."""

from __future__ import annotations

import json

import pytest

from clirun import cli
from run_damage import small_run
from specscope.store import open_run
from specscope.store.manifest import ManifestError


def _add(run_dir, **keys):
    path = run_dir / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **keys}), encoding="utf-8")


def test_report_reads_a_run_with_a_newer_key_and_names_it(capsys, monkeypatch, tmp_path):
    run_dir = small_run(tmp_path / "r")
    _add(run_dir, colour="red", power_draw={"w": 300})
    code, out, err = cli(["report", run_dir, "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    flat = " ".join(out.split())
    assert "manifest.json: 'colour', 'power_draw' not read" in flat
    code, out, err = cli(["report", run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert json.loads(out)["manifest"]["colour"] == "red"  # kept as stored


def test_a_needed_key_is_still_checked(tmp_path):
    run_dir = small_run(tmp_path / "r")
    _add(run_dir, colour="red", cells_done="many")
    with pytest.raises(ManifestError) as e:
        open_run(run_dir)
    assert "cells_done: Input should be a valid integer" in e.value.one_line()


def test_writing_to_it_is_refused_by_name(tmp_path):
    run_dir = small_run(tmp_path / "r")
    _add(run_dir, colour="red")
    with pytest.raises(ManifestError) as e:
        open_run(run_dir, writable=True)
    line = e.value.one_line()
    assert "this specscope does not know: colour" in line and "fix: continue the run with the specscope" in line


@pytest.mark.parametrize("options", [None, {}])
def test_a_bench_run_that_stores_no_options_is_refused_on_resume_by_name(capsys, monkeypatch, tmp_path, options):
    # probed 2026-12-07: `options: null` in a bench run's manifest was read as the defaults, so --resume refused the
    # quick profile's configs ("invalid value for --configs; found: base,ngram,draft; expected: one of x")
    run_dir = small_run(tmp_path / "r")
    _add(run_dir, options=options)
    code, _, err = cli(["bench", "--resume", run_dir], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"error: {run_dir}/manifest.json stores no bench options; found: options: {options}" in err
    assert "fix: start a new run with the options given again by hand" in err

"""``specscope report D`` (and ``advise D``) where D is bench's ``--out`` folder, the run made inside it: the error
said only "D is not a run folder; found: missing manifest.json, run.sqlite" and never named the run inside. It now
says what it found (no manifest in D, the run folders inside), what it expected (a run folder) and the command on
each run folder, its path quoted as a shell word (:func:`specscope.textsafe.shell_word`)."""

from __future__ import annotations

import shutil

import pytest

from clirun import cli
from quickrun import make_quick_run
from specscope.errors import StoreError
from specscope.store import open_run


def test_the_out_folder_names_its_runs_in_the_fix(tmp_path, capsys, monkeypatch):
    out = tmp_path / "runs"
    run = make_quick_run(out / "run-20261202-100000", only=("base",), repeats=1, stop_after=2)
    code, _, err = cli(["report", out], capsys, monkeypatch, tmp_path)
    assert (code, err.strip()) == (
        2,
        f"error: {out} is not a run folder: it holds 1 run folder(s); found: no manifest.json in {out}; the run "
        "folder(s) inside: run-20261202-100000; expected: a run folder (manifest.json and run.sqlite), as bench makes "
        f"inside its --out folder; fix: name the run folder: `specscope report {run}`",
    )
    assert cli(["report", run], capsys, monkeypatch, tmp_path)[0] == 0  # the fix runs
    shutil.copytree(run, out / "run 2")  # a second run, whose name the shell must see quoted
    code, _, err = cli(["advise", out], capsys, monkeypatch, tmp_path)
    assert code == 2 and err.strip().endswith(
        f"the run folder(s) inside: run 2, run-20261202-100000; expected: a run folder (manifest.json and run.sqlite), "
        f"as bench makes inside its --out folder; fix: name the run folder: `specscope advise '{out}/run 2'` or "
        f"`specscope advise {run}`"
    )
    # any other reader of a run (export, predict, bench --resume: open_run) names the folders to pass
    with pytest.raises(StoreError) as info:
        open_run(out)
    assert info.value.fix == f"pass the run folder itself: '{out}/run 2', {run}"

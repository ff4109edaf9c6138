"""Issue 37 (R-faults): a run folder whose ``manifest.json`` (or a gate run's ``gate.json``) is a FIFO or a link to
``/dev/zero`` is refused by name at once: ``report`` hung on the FIFO and ate memory on ``/dev/zero``. Each command
runs in a child process, so a hang is a failed test, not a stuck suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from run_damage import small_run

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _specscope(*argv: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    cmd = [sys.executable, "-m", "specscope", *map(str, argv)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=HANG_S)


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _zero(p: Path) -> None:
    p.symlink_to("/dev/zero")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return small_run(tmp_path_factory.mktemp("pristine") / "run")


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("command", ["report", "advise"])
def test_a_manifest_that_is_not_a_regular_file_is_refused_by_name(pristine, tmp_path, make, command):
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    (run / "manifest.json").unlink()
    make(run / "manifest.json")
    extra = ["-f", "json"] if command == "report" else ["--mix", "prose=1"]
    res = _specscope(command, run, *extra)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (
        f"error: {run} is not a run folder; found: manifest.json is not a regular file; expected: manifest.json and "
        "run.sqlite; fix: pass a folder that `specscope bench` or `specscope import` created (bench makes its runs "
        "inside its --out folder, default ./runs; import writes the --out folder itself)\n"
    )


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
def test_a_gate_run_whose_gate_json_is_not_a_regular_file_is_refused_by_name(tmp_path, make):
    folder = tmp_path / "gate-run"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"kind": "gate", "schema_version": 2}')
    make(folder / "gate.json")
    res = _specscope("report", folder, "-f", "json")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith(f"error: gate run folder has unreadable JSON; found: {folder}: ")
    assert "not a regular file" in res.stderr and res.stderr.count("\n") == 1

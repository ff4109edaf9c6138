"""Issue 37: a plan the run refuses is refused before the run folder exists, and the dry run refuses it too.

``bench --configs base,synth --k 2`` was refused only when ``synth-k2``'s server was about to start, after the run
folder (manifest, database, ``logs/base.log``) had been made; ``--configs base,draft-k2000 --dry-run`` exited 0
although the run refuses ``draft-k2000`` (k is bounded at :data:`specscope.kaxis.K_MAX`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli, one_error


@pytest.mark.parametrize(
    "argv",
    [
        ["--configs", "base,synth", "--k", "2"],
        ["--configs", "base,synth-k2"],
        ["--configs", "base,draft-k2000"],
        ["--configs", "base,bogus"],
    ],
)
def test_refused_before_the_run_folder(argv: list[str], capsys, monkeypatch, tmp_path: Path) -> None:
    out = tmp_path / "D"
    code, _, err = cli(
        ["bench", *argv, "--workloads", "edit", "--max-concurrency", "1", "--out", out], capsys, monkeypatch, tmp_path
    )
    assert code == 2, err
    one_error(err)
    assert "run folder:" not in err
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--configs", "base,draft-k2000"], "invalid value for --configs; found: draft-k2000; expected: one of base,"),
        (["--configs", "base,bogus"], "invalid value for --configs; found: bogus; expected: one of base,"),
        (["--configs", "base,synth", "--k", "2"], "config 'synth' cannot be run at draft length 2"),
    ],
)
def test_dry_run_refuses_as_the_run_does(argv: list[str], says: str, capsys, monkeypatch, tmp_path: Path) -> None:
    code, out, err = cli(["bench", *argv, "--workloads", "edit", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2, out + err
    assert one_error(err).startswith(f"error: {says}"), err
    assert out == ""


def test_synth_at_its_own_length_still_runs_dry(capsys, monkeypatch, tmp_path: Path) -> None:
    code, out, err = cli(
        ["bench", "--configs", "base,synth-k3", "--workloads", "edit", "--dry-run"], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    assert "workload edit" in out

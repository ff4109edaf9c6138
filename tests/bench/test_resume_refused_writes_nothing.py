"""A refused ``bench --resume`` leaves the run folder as it was: no lock file, nothing changed (the refusals are
checked on a read-only open before the writer's lock is taken)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli, one_error
from quickrun import make_quick_run


def _listing(run: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in run.iterdir()}


@pytest.mark.parametrize(
    ("argv", "named"),
    [(["--repeats", "3"], "--repeats"), (["--max-concurrency", "8"], "--max-concurrency 8 (run has")],
)
def test_a_refused_resume_creates_no_lock_and_changes_nothing(argv, named, capsys, monkeypatch, tmp_path):
    run = make_quick_run(tmp_path / "r")
    (run / ".specscope.lock").unlink(missing_ok=True)
    before = _listing(run)
    code, _, err = cli(["bench", "--resume", str(run), *argv], capsys, monkeypatch, tmp_path)
    assert code == 2 and named in one_error(err)
    assert _listing(run) == before  # no .specscope.lock, no file touched

"""Locks and logs never reach outside the run folder (issue 37, L1-L3): a lock file that is a symbolic link or a
FIFO, and a ``logs/`` that is a link, are refused with the fix (exit 2 through the CLI), and nothing is written
through them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from run_damage import small_run
from specscope.errors import StoreError
from specscope.store import open_run
from specscope.store.lock import LOCK_NAME

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _resume(run_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    cmd = [sys.executable, "-m", "specscope", "bench", "--resume", str(run_dir)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S, env=env)


def test_a_lock_that_is_a_link_is_refused_and_its_target_untouched(tmp_path):
    run_dir = small_run(tmp_path / "run")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (run_dir / LOCK_NAME).unlink()
    (run_dir / LOCK_NAME).symlink_to(victim)
    res = _resume(run_dir)
    assert res.returncode == 2, res.stderr
    assert "a symbolic link" in res.stderr and f"remove {run_dir / LOCK_NAME}" in res.stderr
    assert "Traceback" not in res.stderr
    assert victim.read_text() == "keep me\n"


def test_a_lock_that_is_a_fifo_is_refused(tmp_path):
    run_dir = small_run(tmp_path / "run")
    (run_dir / LOCK_NAME).unlink()
    os.mkfifo(run_dir / LOCK_NAME)
    res = _resume(run_dir)
    assert res.returncode == 2, res.stderr
    assert "is not a regular file" in res.stderr and "Traceback" not in res.stderr


def test_logs_that_are_a_link_are_refused(tmp_path):
    run_dir = small_run(tmp_path / "run")
    outside = tmp_path / "outside"
    outside.mkdir()
    (run_dir / "logs").rmdir()
    (run_dir / "logs").symlink_to(outside)
    with open_run(run_dir, writable=True) as run, pytest.raises(StoreError) as info:
        run.log_path("base.log")
    assert info.value.found == "a symbolic link" and "logs" in str(info.value)
    assert list(outside.iterdir()) == []


def test_a_log_name_held_by_a_link_is_not_reused(tmp_path):
    run_dir = small_run(tmp_path / "run")
    (run_dir / "logs" / "base.log").symlink_to(tmp_path / "nowhere.txt")  # a dangling link: exists() is False
    with open_run(run_dir, writable=True) as run:
        path = run.log_path("base.log")
    assert path.parent == run_dir / "logs" and path.name.startswith("base.") and path.name != "base.log"
    assert path.suffix == ".log" and not path.exists()


def test_a_run_database_that_is_a_link_is_never_written_through(tmp_path, capsys, monkeypatch):
    """`import --out RUN` and `bench --resume RUN` add to a run; a ``run.sqlite`` that is a symbolic link to a file
    outside the folder would take the writes there. Both refuse it by name with the fix, and the file is unchanged."""
    from clirun import cli
    from paths import DATA
    from specscope.store import DB_NAME

    run = tmp_path / "run"
    imports = DATA / "imports"
    code, _, _ = cli(
        ["import", imports / "sglang_base.jsonl", "--config", "base", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0
    outside = tmp_path / "elsewhere.sqlite"
    (run / DB_NAME).rename(outside)
    (run / DB_NAME).symlink_to(outside)
    before = outside.read_bytes()
    args = ["import", imports / "sglang_eagle.jsonl", "--config", "eagle", "--out", run]
    code, _, err = cli(args, capsys, monkeypatch, tmp_path)
    assert code == 2 and f"{DB_NAME} is a symbolic link (to {outside})" in err and "cp --remove-destination" in err
    res = _resume(run)  # refused before any write (an imported run is never resumed; checked read-only first)
    assert res.returncode == 2 and "is an imported run: it cannot be resumed" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert outside.read_bytes() == before

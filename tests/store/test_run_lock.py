"""Issue 29, "Resume and concurrency": one writer per run folder (an OS lock held for the run's life; a second
writer is refused naming the holder's pid), and run folders that never collide, even within one second."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hangguard import HANG_S
from run_damage import small_run
from specscope.errors import StoreError
from specscope.store import create_run, open_run

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _holder(run_dir: Path) -> subprocess.Popen:
    """A second process that opens ``run_dir`` for writing and waits (stdin closed ends it)."""
    code = textwrap.dedent(
        f"""
        import sys
        from specscope.store import open_run
        run = open_run({str(run_dir)!r}, writable=True)
        print("locked", flush=True)
        sys.stdin.read()
        run.close()
        """
    )
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_writer_is_refused_naming_the_holders_pid(tmp_path):
    run_dir = small_run(tmp_path / "run")
    holder = _holder(run_dir)
    try:
        with pytest.raises(StoreError) as info:
            open_run(run_dir, writable=True)
        line = info.value.one_line()
        assert f"pid {holder.pid}" in line and "fix:" in line
        with open_run(run_dir) as reader:  # reading is never refused
            assert len(reader.done_keys()) == 8
    finally:
        holder.communicate("", timeout=HANG_S)
    with open_run(run_dir, writable=True) as again:  # released when the holder ends
        assert len(again.done_keys()) == 8


def test_bench_resume_while_another_holds_the_run_exits_2_naming_its_pid(tmp_path, capsys, monkeypatch):
    from clirun import cli

    run_dir = small_run(tmp_path / "run")
    holder = _holder(run_dir)
    try:
        code, _out, err = cli(["bench", "--resume", run_dir], capsys, monkeypatch, tmp_path)
    finally:
        holder.communicate("", timeout=HANG_S)
    assert code == 2 and err.count("\n") == 1
    assert f"pid {holder.pid}" in err and str(run_dir) in err


def test_two_runs_created_in_one_second_under_one_name_get_two_folders(tmp_path):
    first = create_run(tmp_path / "runs" / "run-20261203-120000", {"kind": "bench"}, unique=True)
    second = create_run(tmp_path / "runs" / "run-20261203-120000", {"kind": "bench"}, unique=True)
    try:
        assert first.path != second.path and first.path.parent == second.path.parent
        assert (first.path / "manifest.json").is_file() and (second.path / "manifest.json").is_file()
    finally:
        first.close()
        second.close()


def test_an_exact_folder_is_never_shared(tmp_path):
    first = create_run(tmp_path / "r", {"kind": "bench"})
    try:
        with pytest.raises(StoreError):
            create_run(tmp_path / "r", {"kind": "bench"})
    finally:
        first.close()


def test_import_into_a_locked_run_says_to_run_the_import_again_not_bench_resume(tmp_path, capsys, monkeypatch):
    """``specscope import FILE --out RUN`` while another process writes RUN was told to ``specscope bench --resume
    RUN`` once it ends (fresh-user finding, user59): an imported run cannot be resumed; the fix is to run the
    refused command again."""
    from clirun import cli, vllm_import_run
    from paths import DATA

    run_dir = vllm_import_run(tmp_path, capsys, monkeypatch)
    holder = _holder(run_dir)
    try:
        sglang = DATA / "imports" / "sglang_base.jsonl"
        code, _out, err = cli(["import", sglang, "--config", "base", "--out", run_dir], capsys, monkeypatch, tmp_path)
    finally:
        holder.communicate("", timeout=HANG_S)
    assert code == 2 and err.count("\n") == 1, err
    assert f"pid {holder.pid}" in err
    assert "fix: wait for that process to end (or stop it), then run this command again" in err
    assert "bench --resume" not in err

"""Issue 29 "Done when": two ``bench --resume`` of one run: the second exits 2 naming the first's pid, and no cell
is measured twice; two ``bench`` started together with one ``--out`` get a folder each (truth server)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")
OPTS = BenchOptions(configs=("base",), workloads=("prose",), levels=(1,), repeats=3, max_tokens=8, aa=False)
FAST = ResponsePlan(output_tokens=8, finish_reason="length")
SLOW = ResponsePlan(output_tokens=8, finish_reason="length", inter_chunk_ms=500)  # ~4 s per request


def _specscope(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}
    cmd = [sys.executable, "-m", "specscope", *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait_for_lock_holder(run_dir: Path, pid: int, timeout_s: float = HANG_S) -> None:
    """Until process ``pid`` holds the run's lock (it writes its pid into the lock file once it has it)."""
    from specscope.store.lock import LOCK_NAME

    deadline = time.monotonic() + timeout_s
    lock = run_dir / LOCK_NAME
    while not (lock.is_file() and lock.read_text().startswith(f"pid {pid}:")):
        assert time.monotonic() < deadline, "the first resume never took the run's lock"
        time.sleep(0.05)


def test_a_second_resume_of_a_running_run_exits_2_and_no_cell_is_measured_twice(tmp_path):
    with TruthServer(TruthScript(default=FAST)) as truth:
        run_dir = run_bench(OPTS, servers={"base": truth.base_url}, run_dir=tmp_path / "run")
        db = sqlite3.connect(run_dir / "run.sqlite")  # forget two of the three cells: a killed run
        db.execute("DELETE FROM cells WHERE repeat > 0")
        db.execute("DELETE FROM streams WHERE repeat > 0")
        db.commit()
        db.close()
        truth.set_script(TruthScript(default=SLOW))
        served_before = len(truth.served())
        first = _specscope("bench", "--resume", str(run_dir))
        _wait_for_lock_holder(run_dir, first.pid)
        # the first holds the lock, stopped, until the second has answered: a second CLI start that a loaded machine
        # stretched past the first's ~16 s of requests would otherwise find the run free (issue 37)
        first.send_signal(signal.SIGSTOP)
        try:
            second = _specscope("bench", "--resume", str(run_dir))
            out2, err2 = second.communicate(timeout=HANG_S)
        finally:
            first.send_signal(signal.SIGCONT)
        out1, err1 = first.communicate(timeout=HANG_S)
        served = len(truth.served()) - served_before
    assert first.returncode == 0, err1
    assert second.returncode == 2, err2
    errors = [line for line in err2.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"pid {first.pid}" in errors[0], err2
    with open_run(run_dir) as run:
        keys = sorted((c.key.repeat, len(c.streams)) for c in run.cells())
        assert keys == [(0, 1), (1, 1), (2, 1)] and run.manifest["finished"] is True
    assert served == 2 * 2  # the first resume alone: a warm-up and one stream for each of the two cells


def test_two_runs_started_together_with_one_out_folder_get_a_folder_each(tmp_path):
    opts = ["--configs", "base", "--workloads", "prose", "--levels", "1", "--repeats", "1", "--max-tokens", "8"]
    with TruthServer(TruthScript(default=FAST)) as truth:
        args = ["bench", "--server", f"base={truth.base_url}", *opts, "--no-aa", "--out", str(tmp_path / "runs")]
        procs = [_specscope(*args) for _ in range(2)]
        results = [p.communicate(timeout=HANG_S) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    folders = sorted((tmp_path / "runs").iterdir())
    assert len(folders) == 2
    for folder in folders:
        with open_run(folder) as run:
            assert len(run.cells()) == 1 and run.manifest["finished"] is True

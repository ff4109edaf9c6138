"""Ctrl-C during `specscope bench`: exit 130 and one line naming the run folder and the --resume command."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration


def _cells_in(db):
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    except sqlite3.Error:
        return 0


def _signal_after_first_cell(
    argv: list[str], out: Path, sig: signal.Signals
) -> tuple[subprocess.Popen[str], list[Path], str]:
    """Start ``argv``, wait (at most HANG_S) until its run database holds a cell, send ``sig``; (process, databases,
    stderr) once it ended."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        dbs = list(out.glob("run-*/run.sqlite"))
        if dbs and _cells_in(dbs[0]) >= 1:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail(f"no cell was committed within {HANG_S} s")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=HANG_S)
    return proc, dbs, err


def test_sigint_names_the_folder_to_resume(tmp_path):
    # 12 tokens, one per chunk, 40 ms apart: about 0.5 s per stream; 20 cells, so the run is still going after one cell
    # even when the machine is slow to let this loop see it
    slow = ResponsePlan(output_tokens=12, tokens_per_chunk=1, inter_chunk_ms=40.0, finish_reason="length")
    with TruthServer(TruthScript(default=slow)) as ts:
        argv = [
            sys.executable,
            "-m",
            "specscope",
            "bench",
            "--server",
            f"mtp={ts.base_url}",
            "--workloads",
            "prose",
            "--max-concurrency",
            "1",
            "--repeats",
            "20",
            "--max-tokens",
            "12",
            "--out",
            str(tmp_path),
        ]
        proc, dbs, err = _signal_after_first_cell(argv, tmp_path, signal.SIGINT)
    run_dir = dbs[0].parent
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert (
        f"interrupted: finished cells are kept in {run_dir}; finish with: specscope bench --resume {run_dir}\n" in err
    )
    assert 1 <= _cells_in(dbs[0]) < 20


def test_sigterm_ends_like_ctrl_c_and_the_run_resumes(tmp_path):
    """``kill PID`` (SIGTERM, as ``timeout`` and job schedulers send it) during a bench run: the cells done are kept,
    the manifest says how far it got, one "interrupted" line names the resume command, exit 143, no traceback from
    the process or its gauge sampler; then ``--resume`` finishes the run."""
    import json

    slow = ResponsePlan(output_tokens=12, tokens_per_chunk=1, inter_chunk_ms=40.0, finish_reason="length")
    with TruthServer(TruthScript(default=slow)) as ts:
        argv = [sys.executable, "-m", "specscope", "bench", "--server", f"mtp={ts.base_url}", "--workloads", "prose"]
        argv += ["--max-concurrency", "1", "--repeats", "6", "--max-tokens", "12", "--out", str(tmp_path)]
        proc, dbs, err = _signal_after_first_cell(argv, tmp_path, signal.SIGTERM)
        run_dir = dbs[0].parent
        assert proc.returncode == 143, err
        assert "Traceback" not in err and "BrokenPipeError" not in err, err
        line = f"interrupted (SIGTERM): finished cells are kept in {run_dir}; finish with: specscope bench --resume "
        assert err.endswith(line + f"{run_dir}\n"), err
        manifest = json.loads((run_dir / "manifest.json").read_text())
        done = _cells_in(dbs[0])
        assert manifest["finished"] is False and manifest["cells_done"] == done and 1 <= done < 6
        resumed = subprocess.run(
            [sys.executable, "-m", "specscope", "bench", "--resume", str(run_dir), "-f", "json"],
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((run_dir / "manifest.json").read_text())["finished"] is True and _cells_in(dbs[0]) == 6

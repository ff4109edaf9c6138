"""Settings files given as FIFOs or devices (issue 37, F1-F3): ``bench --run-file``, ``gate --run-file`` and
``truth-server --script`` refuse a FIFO (which would block the read forever) and ``/dev/zero`` (which would be read
until memory runs out) at once, with exit 2 and one line naming what the path is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

COMMANDS = {
    "bench": (["bench", "--run-file"], "cannot read the run file"),
    "gate": (["gate", "--run-file"], "cannot read the gate profile"),
    "truth-server": (["truth-server", "--script"], "cannot read the script file"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("special", "kind"), [("fifo", "a FIFO"), ("/dev/zero", "a device")])
def test_a_special_file_is_refused_at_once(tmp_path, command, special, kind):
    path = tmp_path / "settings"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path = Path(special)
    args, message = COMMANDS[command]
    env = {**os.environ, "PYTHONPATH": SRC}
    res = subprocess.run(
        [sys.executable, "-m", "specscope", *args, str(path)], capture_output=True, text=True, timeout=60, env=env
    )
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"error: {message}; found: {path}: {kind}, not a regular file;")
    assert "Traceback" not in res.stderr

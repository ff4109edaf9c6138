"""Settings files given as FIFOs or devices (issue 37, F1-F3): ``bench --run-file``, ``gate --run-file`` and
``truth-server --script`` refuse a FIFO (which would block the read forever) and ``/dev/zero`` (which would be read
until memory runs out) at once, with exit 2 and one line naming what the path is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S

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
        [sys.executable, "-m", "specscope", *args, str(path)], capture_output=True, text=True, timeout=HANG_S, env=env
    )
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"error: {message}; found: {path}: {kind}, not a regular file;")
    assert "Traceback" not in res.stderr


def test_a_settings_file_above_the_limit_says_so_by_its_size(tmp_path):
    """Above 4 MiB a settings file is refused by its size before a byte is read (the file is sparse): the one
    refusal of :func:`specscope.readfile.read_user_file`, ``the run file is larger than the limit`` (before: the
    size under ``cannot read the run file``)."""
    path = tmp_path / "run.toml"
    with path.open("wb") as fh:
        fh.truncate(4 * 2**20 + 1)
    env = {**os.environ, "PYTHONPATH": SRC}
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--run-file", str(path)], capture_output=True, text=True,
        timeout=HANG_S, env=env,
    )  # fmt: skip
    assert res.returncode == 2, res.stderr
    assert res.stderr == (
        f"error: the run file is larger than the limit; found: {path}: 4,194,305 bytes; expected: at most 4,194,304 "
        "bytes; fix: a run file is a few KiB of TOML: write one with: specscope bench --print-run-file > run.toml\n"
    )

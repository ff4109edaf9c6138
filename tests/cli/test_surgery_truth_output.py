"""``surgery`` and ``truth-server`` take the output options every other command takes (mend 63 items 2 and 4).

``surgery compare`` prints a table but refused ``--width``; the surgery subcommands and ``truth-server`` had
``-f/--format`` but no ``-o/--output FILE``. They now use the one declarations in :mod:`specscope.cli.options`
(``WidthOption``, ``OutputOption``): ``--width N`` sets the table's width, ``-o FILE`` writes what would be printed
(its format from the suffix unless ``-f``), never into the checkpoint read.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from clirun import cli, one_error
from hangguard import HANG_S
from paths import DATA

CKPT = DATA / "cases" / "C11" / "checkpoint"  # read-only here: -o into it is refused


def test_surgery_compare_takes_width(tmp_path, capsys, monkeypatch):
    ckpt = CKPT
    code, out, err = cli(["surgery", "compare", ckpt, ckpt, "--width", "60"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    table = [line for line in out.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and {len(line) for line in table} == {60}


def test_surgery_compare_and_extract_write_to_o(tmp_path, capsys, monkeypatch):
    ckpt = CKPT
    code, printed, _ = cli(["surgery", "compare", ckpt, ckpt, "--width", "300"], capsys, monkeypatch, tmp_path)
    target = tmp_path / "cmp.txt"
    code, out, err = cli(
        ["surgery", "compare", ckpt, ckpt, "--width", "300", "-o", target], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    assert out == f"{target}\n" and target.read_text() == printed
    # the suffix picks the format, as for report
    code, out, err = cli(["surgery", "compare", ckpt, ckpt, "-o", tmp_path / "cmp.json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert {r["identical"] for r in json.loads((tmp_path / "cmp.json").read_text())} == {True}
    # a writing subcommand: its plan and result (the progress stays on stderr)
    plan = tmp_path / "plan.json"
    argv = ["surgery", "extract", ckpt, "--out", tmp_path / "x", "--dry-run", "-o", plan]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out == f"{plan}\n" and json.loads(plan.read_text())["dry_run"] is True
    # never into the checkpoint it reads
    code, _, err = cli(["surgery", "compare", ckpt, ckpt, "-o", ckpt / "cmp.txt"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "--output" in one_error(err)
    assert not (ckpt / "cmp.txt").exists()


def test_truth_server_writes_its_address_to_o(tmp_path):
    target = tmp_path / "url.json"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen(
        [sys.executable, "-m", "specscope", "truth-server", "--port", str(port), "-o", str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + HANG_S
        while not target.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert target.exists(), p.stderr.read() if p.poll() is not None else "no file"
        assert json.loads(target.read_text()) == {"base_url": f"http://127.0.0.1:{port}"}
    finally:
        p.terminate()
        out, err = p.communicate(timeout=HANG_S)
    assert out == f"{target}\n", err

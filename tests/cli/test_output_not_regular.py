"""``-o`` naming a FIFO, a device or a socket (``-o /dev/null``, ``-o /dev/stdout``: a careless way to discard or
print) is refused, exit 2, with nothing written: the atomic write renamed its temporary file over it, so the FIFO
(and, run as root, the device node /dev/null itself) became a regular file holding the report, and the command said
it had written it, exit 0. Found by attack48 (``specscope report RUN -o /dev/full -f json`` replaced /dev/full)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from clirun import cli, one_error
from paths import CASES
from quickrun import make_quick_run


@pytest.mark.parametrize("via_link", [False, True])
@pytest.mark.parametrize("command", ["report", "audit"])
def test_output_onto_a_fifo_is_refused(command, via_link, capsys, monkeypatch, tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    target = fifo
    if via_link:
        target = tmp_path / "link.json"
        target.symlink_to(fifo)
    source = make_quick_run(tmp_path / "r") if command == "report" else CASES / "C06" / "checkpoint"
    code, out, err = cli([command, source, "-o", target, "-f", "json"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and out == "", err
    assert line.startswith(f"error: --output is not a file to write; found: {target}: a FIFO"), line
    assert "fix: " in line and "> " in line, line
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and (not via_link or target.is_symlink())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left


def test_output_onto_a_link_to_a_file_writes_that_file_and_keeps_the_link(capsys, monkeypatch, tmp_path):
    # issue 37: `audit CK -o link.json` (link.json -> common/a.json) replaced the link with a regular file and left
    # common/a.json old; the file the link leads to now gets the report and the link stays
    (tmp_path / "common").mkdir()
    real = tmp_path / "common" / "a.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to("common/a.json")
    code, _out, err = cli(
        ["audit", CASES / "C06" / "checkpoint", "-o", link, "-f", "json"], capsys, monkeypatch, tmp_path
    )
    assert code in (0, 1), err
    assert link.is_symlink() and os.readlink(link) == "common/a.json" and real.read_text().startswith("{")


def test_profile_onto_a_link_into_a_missing_folder_makes_that_folder(capsys, monkeypatch, tmp_path):
    # attack50: `export RUN --to profile -o p.json` with p.json -> nowhere/x.json (a link whose folder is missing)
    # was exit 3 (FileNotFoundError from the temporary file in nowhere/); the folder of the file written is made, as
    # `report RUN -o p.txt` makes it, and named
    from clirun import vllm_import_run

    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    link = tmp_path / "p.json"
    link.symlink_to("nowhere/x.json")
    code, out, err = cli(["export", run, "--to", "profile", "-o", link], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert f"note: made the folder {tmp_path / 'nowhere'} for --output" in err
    assert link.is_symlink() and json.loads((tmp_path / "nowhere" / "x.json").read_text())["measured"] is True

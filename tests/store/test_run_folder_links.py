"""A run folder (``--out``) that is a dangling symbolic link or a link loop is refused by name (issue 37).

``ln -s /nonexist2/x d; specscope import F --config s --out d`` said ``found: FileExistsError: File exists`` (and
the same for ``ln -s loop loop; --out loop``): Python's exception text, naming neither the link nor what to do.
The refusal comes from :func:`specscope.store.run.create_run`, so bench, import and export all say it.
"""

from __future__ import annotations

import os

from clirun import cli, one_error
from paths import DATA

FILE = DATA / "imports" / "vllm_mtp_r0.json"


def test_dangling_link_is_named_with_its_target(tmp_path, capsys, monkeypatch):
    link = tmp_path / "d"
    target = tmp_path / "nonexist2" / "x"
    os.symlink(target, link)
    code, _, err = cli(["import", FILE, "--config", "s", "--out", link], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert "FileExistsError" not in line and "File exists" not in line, line
    assert f"found: {link} is a symbolic link to {target}, which does not exist;" in line, line
    assert "fix: " in line and f"mkdir -p {target}" in line, line


def test_dangling_link_above_the_folder_is_named(tmp_path, capsys, monkeypatch):
    link = tmp_path / "d"
    target = tmp_path / "gone"
    os.symlink(target, link)
    code, _, err = cli(["import", FILE, "--config", "s", "--out", link / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert f"found: {link} is a symbolic link to {target}, which does not exist;" in line, line


def test_link_loop_is_named(tmp_path, capsys, monkeypatch):
    loop = tmp_path / "loop"
    os.symlink("loop", loop)
    code, _, err = cli(["import", FILE, "--config", "s", "--out", loop], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert "FileExistsError" not in line, line
    assert f"found: {loop} is a symbolic link loop (it leads back to itself);" in line, line
    assert f"fix: remove the link (rm {loop}) or pass --out another folder" in line, line

"""A run folder is made by `specscope bench` or by `specscope import`: every screen that names its maker says both.

New-user finding (2026-12-06): after `specscope import ... --out IMPORTED`, `specscope report MISSING` answered
"fix: pass a folder that `specscope bench` created" and `advise --help` called RUN "A run folder written by
`specscope bench`", though `import` had just written one and `export --help` said "`specscope bench` or `specscope
import`".
"""

from __future__ import annotations

from clirun import cli, one_error


def test_a_missing_run_folder_names_import_as_a_maker(tmp_path, capsys, monkeypatch):
    code, _, err = cli(["report", tmp_path / "missing"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).endswith("fix: pass a folder that `specscope bench` or `specscope import` created"), err


def test_advise_and_report_help_name_import(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    _, out, _ = cli(["advise", "--help"], capsys, monkeypatch, tmp_path)
    assert "A run folder written by `specscope bench` or `specscope import`." in out
    _, out, _ = cli(["report", "--help"], capsys, monkeypatch, tmp_path)
    assert "Run folder(s) made by specscope bench, import or gate." in out

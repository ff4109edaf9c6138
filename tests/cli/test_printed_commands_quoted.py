"""Commands specscope prints with a path in them paste into a shell as they are (issue 37).

A folder name with a space (``--out 'a b'``) was printed bare: ``judge the run with: specscope report a b`` names two
folders ``a`` and ``b``. Every printed command quotes its paths (:func:`specscope.textsafe.shell_word`), so that
``shlex.split`` of it gives back the real folder.
"""

from __future__ import annotations

import shlex

from clirun import cli, one_error
from paths import DATA


def _command_after(text: str, lead: str) -> list[str]:
    """The words of the command printed after ``lead`` (to the end of its line or a ``;``)."""
    tail = text.split(lead, 1)[1].splitlines()[0]
    return shlex.split(tail.split("`")[0])


def test_import_prints_report_command_with_quoted_folder(tmp_path, capsys, monkeypatch):
    out = tmp_path / "a b"
    code, stdout, err = cli(
        ["import", DATA / "imports" / "vllm_mtp_r0.json", "--config", "s", "--out", out], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    assert _command_after(stdout, "judge the run with: ") == ["specscope", "report", str(out)]


def test_export_fix_quotes_the_run_folder(tmp_path, capsys, monkeypatch):
    out = tmp_path / "a b"
    cli(["import", DATA / "imports" / "vllm_mtp_r0.json", "--config", "s", "--out", out], capsys, monkeypatch, tmp_path)
    code, _, err = cli(["export", out, "--to", "profile"], capsys, monkeypatch, tmp_path)
    assert code == 2
    words = _command_after(one_error(err), "fix: ")
    assert words[:3] == ["specscope", "export", str(out)]


def test_report_mix_fix_quotes_the_run_folder(tmp_path, capsys, monkeypatch):
    out = tmp_path / "a b"
    cli(["import", DATA / "imports" / "vllm_mtp_r0.json", "--config", "s", "--out", out], capsys, monkeypatch, tmp_path)
    code, _, err = cli(["report", out, "--mix", "nosuch=1"], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert f"specscope report {shlex.quote(str(out))}" in line, line


def test_advise_mix_fix_quotes_the_run_folder(tmp_path, capsys, monkeypatch):
    out = tmp_path / "a b"
    cli(["import", DATA / "imports" / "vllm_mtp_r0.json", "--config", "s", "--out", out], capsys, monkeypatch, tmp_path)
    code, _, err = cli(["advise", out, "--mix", "nosuch=1", "--baseline", "s"], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert f"specscope advise {shlex.quote(str(out))}" in line, line


def test_advise_second_config_fix_quotes_the_run_folder(tmp_path, capsys, monkeypatch):
    out = tmp_path / "a b"
    cli(["import", DATA / "imports" / "vllm_mtp_r0.json", "--config", "s", "--out", out], capsys, monkeypatch, tmp_path)
    code, _, err = cli(["advise", out, "--baseline", "s"], capsys, monkeypatch, tmp_path)
    assert code == 2
    words = _command_after(one_error(err), "fix: ")
    assert words[:4] == ["specscope", "bench", "--like", str(out)], words

"""Inputs a careless user or an attacker hands specscope, probed command by command (issue 37's edges): each is
exit 2 with what was found, what was expected and the fix, never exit 3, a hang, or a run made unreadable.

Inputs are built inside each test from tests/data (SOURCES.md) with the one thing under test changed."""

from __future__ import annotations

from clirun import cli


def _one_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def test_an_import_file_that_is_one_integer_of_100000_digits_is_refused(tmp_path, capsys, monkeypatch):
    # json.loads raises a plain ValueError (int max str digits) for it, not JSONDecodeError: exit 3 before
    path = tmp_path / "result.json"
    path.write_text("9" * 100_000)
    code, _, err = cli(["import", path, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "is not a result file" in _one_error(err) and "digits" in err
    assert not (tmp_path / "run").exists()


def test_an_import_jsonl_line_with_an_integer_of_100000_digits_is_refused(tmp_path, capsys, monkeypatch):
    path = tmp_path / "result.jsonl"
    path.write_text('{"a": 1}\n{"a": ' + "9" * 100_000 + "}\n")
    code, _, err = cli(["import", path, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "line 2" in _one_error(err)

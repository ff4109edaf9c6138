"""``predict --overhead 7.5`` (a bare number) is refused naming the unit meant (7.5ms), not read as 7.5 seconds."""

from __future__ import annotations

from clirun import cli, one_error

ROOFLINE = [
    "predict",
    "--bytes-per-step",
    "17.61GB",
    "--bandwidth",
    "273GB/s",
    "--per-position",
    "0.8,0.6",
    "--draft-bytes",
    "0.85GB",
]


def test_a_bare_overhead_is_refused_naming_milliseconds(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*ROOFLINE, "--overhead", "7.5"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and not out
    assert "found: 7.5" in line and "fix: write the unit: --overhead 7.5ms" in line, line
    assert "1s" not in line


def test_an_overhead_with_its_unit_is_read(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*ROOFLINE, "--overhead", "7.5ms"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "note: draft overhead 7.500 ms per drafted token, given (--overhead)" in out


def test_a_bare_zero_overhead_is_none(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*ROOFLINE, "--overhead", "0"], capsys, monkeypatch, tmp_path)
    assert code == 0, err

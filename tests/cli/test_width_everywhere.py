"""``--width N`` sets the width of text tables in every command that prints one (README: "Text tables fit the
terminal; to a file or a pipe they are 120 characters wide (`--width N`)"), with the one meaning of the option spec.

Finding (2026-12-07): `specscope serve --parse-log LOG --width 150` and `specscope gate ... --width 150` exited 2
(no such option) although both print rich tables.
"""

from __future__ import annotations

from pathlib import Path

from clirun import cli
from specscope.gate.model import GateRun, GateVerdict

LOG = Path(__file__).parent.parent / "data" / "engines" / "logs" / "vllm_0102_throughput_dp2.log"


def _table_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if any(c in line for c in "│┃━─")]


def test_serve_parse_log_takes_width(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    code, wide, err = cli(["serve", "--parse-log", LOG], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    assert max(len(line) for line in _table_lines(wide)) > 50  # the default (120 in a pipe) is wider than 50
    code, narrow, err = cli(["serve", "--parse-log", LOG, "--width", "50"], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    assert _table_lines(narrow) and max(len(line) for line in _table_lines(narrow)) <= 50


def test_width_out_of_bounds_is_refused_by_the_spec_wording(tmp_path, capsys, monkeypatch):
    for argv in (["serve", "--parse-log", LOG], ["gate", "--server", "http://127.0.0.1:9", "--out", tmp_path / "r"]):
        code, out, err = cli([*argv, "--width", "5"], capsys, monkeypatch, tmp_path)
        assert code == 2 and "--width" in err and "No such option" not in err, err
        assert not (tmp_path / "r").exists()


def test_width_without_parse_log_is_refused_by_serve(tmp_path, capsys, monkeypatch):
    code, out, err = cli(["serve", "--width", "150", "--list"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "--width needs --parse-log" in err, err


def test_gate_table_takes_width(tmp_path, capsys):
    from specscope.cli.gate import _print_run

    names = ("base-" + "x" * 50, "mtp-" + "y" * 50)  # the natural table is wider than 120
    verdicts = tuple(GateVerdict("arithmetic", n, 0, 2, False, "0 of 2 answers right") for n in names)
    run = GateRun(tuple({"name": n} for n in names), (), (), verdicts)
    _print_run(run, tmp_path, "text", 60)
    lines = _table_lines(capsys.readouterr().out)
    assert lines and max(len(line) for line in lines) <= 60
    _print_run(run, tmp_path, "text", 300)
    lines = _table_lines(capsys.readouterr().out)
    assert max(len(line) for line in lines) > 120

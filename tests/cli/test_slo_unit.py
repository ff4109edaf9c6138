"""A bare number as an SLO duration (``--slo tpot=50``) is refused naming the unit meant (``tpot=50ms``), in every
command that takes --slo (advise, bench), never read as 50 seconds.

Finding (2026-12-07): `advise RUN --slo tpot=50` read tpot=50 as 50 s; `predict --overhead 7.5` already refused a
bare number (tests/cli/test_overhead_unit.py), SLOs did not.
"""

from __future__ import annotations

from clirun import cli, one_error
from quickrun import make_quick_run

BENCH = ["bench", "--server", "x=http://127.0.0.1:9", "--dry-run"]


def _advise(tmp_path):
    run = tmp_path / "run"
    make_quick_run(run)
    return ["advise", run]


def test_advise_refuses_a_bare_slo_naming_milliseconds(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*_advise(tmp_path), "--slo", "tpot=50"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and not out, line
    assert "found: tpot=50" in line and "fix: write the unit: --slo tpot=50ms" in line, line


def test_bench_refuses_a_bare_slo_naming_milliseconds(tmp_path, capsys, monkeypatch):
    argv = [*BENCH, "--out", tmp_path / "runs", "--slo", "ttft=2s,tpot=50"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and not out, line
    assert "found: tpot=50" in line and "fix: write the unit: --slo tpot=50ms" in line, line
    assert not (tmp_path / "runs").exists()


def test_slos_with_their_units_are_read(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*_advise(tmp_path), "--slo", "ttft=2s,tpot=50ms"], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    argv = [*BENCH, "--out", tmp_path / "runs", "--slo", "ttft=2s,tpot=50ms"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err

"""``gate --print-run-file`` prints the gate profile: every gate's budgets, merged from ``--run-file`` and the limits
(tests/gate/test_gate_print_run_file.py). ``--gate`` chooses gates to run, which is no part of the profile: given with
``--print-run-file`` it was left out silently (exit 0); the pair is refused (exit 2, found / expected / fix), as bench
refuses options that would be ignored. Found by attack48."""

from __future__ import annotations

import pytest

from clirun import cli, one_error


@pytest.mark.parametrize(
    ("extra", "flag"),
    [(["--gate", "arithmetic"], "--gate"), (["--run-file", "{toml}", "--gate", "arithmetic"], "--gate")],
)
def test_print_run_file_refuses_a_choice_of_gates(extra, flag, capsys, monkeypatch, tmp_path):
    toml = tmp_path / "mine.toml"
    toml.write_text("[request]\ntemperature = 0.5\n")
    argv = ["gate", "--print-run-file", *[a.format(toml=toml) for a in extra]]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and out == "", err
    assert line.startswith(f"error: --print-run-file and {flag} cannot be given together; found: "), line
    assert line.endswith("; fix: drop --gate to print the profile, or drop --print-run-file to run those gates"), line


def test_print_run_file_alone_prints_the_default(capsys, monkeypatch, tmp_path):
    code, out, err = cli(["gate", "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "[request]" in out and err == ""

"""``gate --print-run-file`` prints the default gate profile and nothing else; given with an option that changes
the profile (``--run-file``, ``--gate``, ``--limit``, ``--max-tokens``, ``--context-tokens``) it printed the default
anyway, exit 0, so ``gate --run-file mine.toml --print-run-file`` showed budgets the run would not use. Such a pair
is refused (exit 2, found / expected / fix), as bench refuses options that would be ignored. Found by attack48."""

from __future__ import annotations

import pytest

from clirun import cli, one_error


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--run-file", "{toml}"], "--run-file"),
        (["--gate", "arithmetic"], "--gate"),
        (["--limit", "2"], "--limit"),
        (["--max-tokens", "64"], "--max-tokens"),
        (["--context-tokens", "128"], "--context-tokens"),
    ],
)
def test_print_run_file_refuses_a_profile_option(extra, flag, capsys, monkeypatch, tmp_path):
    toml = tmp_path / "mine.toml"
    toml.write_text("[request]\ntemperature = 0.5\n")
    argv = ["gate", "--print-run-file", *[a.format(toml=toml) for a in extra]]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and out == "", err
    assert line.startswith(f"error: --print-run-file and {flag} cannot be given together; found: "), line
    assert "fix: drop --print-run-file" in line, line


def test_print_run_file_alone_prints_the_default(capsys, monkeypatch, tmp_path):
    code, out, err = cli(["gate", "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "[request]" in out and err == ""

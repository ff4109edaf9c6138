"""One wording for a value an option refuses, whichever command took it (issue 37): ``-f yaml`` and an
out-of-bounds number read ``error: invalid value for FLAG; found: X; expected: Y; fix: Z`` with exit 2, in
``bench`` (its own option spec) as in every other command (typer's checks), and nothing is asked of a server."""

from __future__ import annotations

import pytest

from clirun import cli, one_error

DEAD = "http://127.0.0.1:9"  # nothing listens: a command that reached a server would say "cannot be reached"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["bench", "--server", f"base={DEAD}", "--dry-run"], "one of text, markdown, json, html"),
        (["report", "x"], "one of text, markdown, json, html"),
        (["advise", "x"], "one of text, markdown, json, html"),
        (["gate"], "one of text, markdown, json"),
        (["predict", "x"], "one of text, json"),
        (["counters", "a", "b"], "one of text, json"),
        (["audit", "x"], "one of text, json"),
    ],
)
def test_an_unknown_format_reads_the_same_in_every_command(argv, expected, capsys, monkeypatch, tmp_path):
    code, out, err = cli([*argv, "-f", "yaml"], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    assert one_error(err) == (
        f"error: invalid value for --format; found: yaml; expected: {expected}; fix: e.g. --format text"
    )


@pytest.mark.parametrize(
    ("argv", "flag", "found", "bound", "fix"),
    [
        (["bench", "--server", f"base={DEAD}", "--dry-run"], "--max-tokens", "0", "a value >= 1", "1 or more"),
        (["bench", "--server", f"base={DEAD}", "--dry-run"], "--repeats", "0", "a value >= 1", "1 or more"),
        (["gate"], "--max-tokens", "0", "a value >= 1", "1 or more"),
        (["gate"], "--limit", "0", "a value >= 1", "1 or more"),
        (["predict", "x"], "--max-k", "99", "a value <= 64", "64 or less"),
    ],
)
def test_an_out_of_bounds_value_reads_the_same_in_every_command(
    argv, flag, found, bound, fix, capsys, monkeypatch, tmp_path
):
    code, out, err = cli([*argv, flag, found], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    line = f"error: invalid value for {flag}; found: {found}; expected: {bound}; fix: give {flag} {fix}"
    assert one_error(err) == line

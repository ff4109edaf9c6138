"""Issue 37: a number option's refusal names the character it found, the range it expected, and the fix.

``bench --k 3²`` said "--k takes comma-separated whole numbers; found: 3²; expected: e.g. 1,2,4; fix: give
integers" (no character, no bound, no command); ``--k 1_0`` and ``--max-concurrency +3`` were read as 10 and 3.
"""

from __future__ import annotations

import pytest

from clirun import cli, one_error

SERVER = ["--server", "x=http://127.0.0.1:9"]


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--k", "3²"],
            "error: --k takes comma-separated whole numbers; found: 3² (the character '²', U+00B2, is not a digit "
            "0-9); expected: comma-separated whole numbers 1..1024 in digits 0-9, e.g. 1,2,4; fix: write each number "
            "in digits 0-9: --k 1,2,4",
        ),
        (
            ["--max-concurrency", "1,3²"],
            "error: --max-concurrency takes comma-separated whole numbers; found: 1,3² (the character '²', U+00B2, is "
            "not a digit 0-9); expected: comma-separated whole numbers 1..4096 in digits 0-9, e.g. 1,2,4; fix: write "
            "each number in digits 0-9: --max-concurrency 1,2,4",
        ),
        (["--k", "1_0"], "error: --k takes comma-separated whole numbers; found: 1_0 (the character '_', U+005F,"),
        (["--max-concurrency", "+3"], "error: --max-concurrency takes comma-separated whole numbers; found: +3 (the "),
        (["--repeats", "1_0"], "error: --repeats takes a whole number; found: 1_0 (the character '_', U+005F, is not"),
        (["--repeats", "3²"], "error: --repeats takes a whole number; found: 3² (the character '²', U+00B2, is not"),
        (["--request-rate", "3²"], "error: --request-rate takes a positive rate; found: 3² (the character '²', U+00B2"),
        (["--temperatures", "0,٠.٥"], "error: --temperatures takes comma-separated numbers; found: 0,٠.٥ (the "),
    ],
)
def test_the_character_is_named(argv, line, capsys, monkeypatch, tmp_path):
    code, _, err = cli(["bench", *argv, "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).startswith(line), err


def test_the_bound_is_kaxis_own():
    from specscope.bench.spec import by_flag
    from specscope.config import MAX_LEVEL
    from specscope.kaxis import K_MAX

    flags = by_flag()
    assert flags["--k"].bounds == (1, K_MAX) and flags["--max-concurrency"].bounds == (1, MAX_LEVEL)

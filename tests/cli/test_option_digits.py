"""A number typed with other scripts' digits (``٣``, Arabic-Indic three; ``١٢٠``) is refused by every command as the
other commands already did: Python's ``int()`` and ``float()`` read them, so ``bench --max-tokens ٣`` ran with 3
while ``gate --max-tokens ٣`` was refused (2026-12-06, issue 37's "every command speaks the same options")."""

from __future__ import annotations

import pytest

from clirun import cli, one_error
from specscope.errors import ConfigError
from specscope.values import parse_float_list, parse_int_list, parse_width, stray_character

SERVER = ["--server", "x=http://127.0.0.1:9"]  # nothing answers: a value read past the options ends at the server


@pytest.mark.parametrize(
    ("flag", "value", "line"),
    [
        ("--max-tokens", "٣", "error: --max-tokens takes token counts; found: ٣ (the character"),
        ("--seed", "٣", "error: --seed takes a whole number; found: ٣ (the character"),
        ("--repeats", "٣", "error: --repeats takes a whole number; found: ٣ (the character"),
        ("--max-concurrency", "١,٢", "error: --max-concurrency takes comma-separated whole numbers; found: ١,٢ (the"),
        ("--temperature", "٠.٥", "error: --temperature takes a number; found: ٠.٥ (the character"),
        ("--temperatures", "٠.٥", "error: --temperatures takes comma-separated numbers; found: ٠.٥ (the"),
    ],
)
def test_bench_refuses_other_scripts_digits(flag, value, line, capsys, monkeypatch, tmp_path):
    code, _, err = cli(["bench", *SERVER, flag, value, "--out", tmp_path], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).startswith(line)


def test_the_list_and_width_parsers_refuse_them():
    for parse, text in ((parse_int_list, "٣"), (parse_float_list, "٠.٥"), (parse_int_list, "1,٢")):
        with pytest.raises(ConfigError):
            parse(text, "--x")
    with pytest.raises(ConfigError):
        parse_width("١٢٠")
    assert parse_int_list("1,2", "--x") == (1, 2) and parse_width("120") == 120


@pytest.mark.parametrize("value", ["nan", "1.5", "", "٣"])
def test_gate_says_what_bench_says_of_a_number_that_is_not_whole(value, capsys, monkeypatch, tmp_path):
    # 2026-12-06: gate's expected was pydantic's sentence ("Input should be a valid integer, unable to parse string
    # as an integer") where bench's is "a whole number"; since 2026-12-07 both read it with the one token-count parser
    code, _, err = cli(["gate", *SERVER, "--max-tokens", value], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    code, _, err = cli(["bench", *SERVER, "--max-tokens", value, "--out", tmp_path], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert line == one_error(err)
    found = stray_character(value, "0123456789kK ")
    assert line == (
        f"error: --max-tokens takes token counts; found: {found}; expected: a whole number of tokens 1 to "
        "1000000, 1k = 1024 tokens, e.g. 2k or 1500; fix: e.g. --max-tokens 2k"
    )


@pytest.mark.parametrize(
    ("flag", "value", "line"),
    [
        # 2026-12-06: "error: --api-key *** a value; found: ''; expected: KEY" (the mask ate the verb) and no fix
        (
            "--api-key",
            "",
            "error: an empty value for --api-key; found: ''; expected: KEY; fix: give a value after "
            "--api-key, or leave the option out",
        ),
        (
            "--api-key",
            " ",
            "error: an empty value for --api-key; found: ' '; expected: KEY; fix: give a value after "
            "--api-key, or leave the option out",
        ),
        # ... "error: --server takes text items; found: ['']; expected: NAME=URL" with an empty fix
        (
            "--server",
            "",
            "error: an empty value for --server; found: ['']; expected: NAME=URL; fix: give a value "
            "after --server, or leave the option out",
        ),
    ],
)
def test_bench_names_an_empty_value_with_a_fix(flag, value, line, capsys, monkeypatch, tmp_path):
    argv = ["bench", *([] if flag == "--server" else SERVER), flag, value, "--out", tmp_path]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == line


@pytest.mark.parametrize("value", ["", " "])
def test_gate_refuses_an_empty_api_key_as_bench_does(value, capsys, monkeypatch, tmp_path):
    # 2026-12-06: gate --api-key "" ran without a key (and " " sent "Bearer  "), where bench refuses both
    code, _, err = cli(["gate", *SERVER, "--api-key", value], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        f"error: an empty value for --api-key; found: {value!r}; expected: KEY; fix: give a value after --api-key, "
        "or leave the option out"
    )

"""A refused value's example comes from the caller's own choices (errors.value_fix(choices=)), never read back out
of the "one of a, b" wording (as did-you-mean takes them since mend59)."""

from __future__ import annotations

from clirun import cli, one_error
from specscope.errors import ConfigError, value_fix


def test_the_example_is_the_first_choice_whatever_the_wording():
    e = ConfigError.invalid_value("--mode", "zz", "a mode this build knows ('fast', 'slow')", choices=("fast", "slow"))
    assert e.fix == "e.g. --mode fast"
    assert value_fix("--mode", "one of 'fast', 'slow'", "see --help", choices=("fast", "slow")) == "e.g. --mode fast"


def test_one_of_wording_without_choices_gives_no_example_read_from_it():
    assert value_fix("--mode", "one of fast, slow", "see --help") == "see --help"


def test_a_format_not_written_names_the_first_format(tmp_path, capsys, monkeypatch):
    code, _, err = cli(["report", tmp_path, "-f", "yaml"], capsys, monkeypatch, tmp_path)
    assert code == 2 and one_error(err).endswith("fix: e.g. --format text"), err

"""``--min-effect`` (issue 24): a bench option recorded in the manifest, checked like the others on --resume."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from specscope.bench.resume import check_resume_options
from specscope.bench.runner import judged_options
from specscope.cli import app
from specscope.config import BenchOptions, profile_options
from specscope.errors import ConfigError
from specscope.stats.verdict import DEFAULT_MIN_EFFECT


def test_default_and_given_and_bounds():
    assert BenchOptions().min_effect is None  # the judging rule's default, one home: stats/verdict.py
    assert profile_options("quick", min_effect=0.05).min_effect == 0.05
    assert judged_options(profile_options("quick", min_effect=0.05)).min_effect == 0.05
    assert DEFAULT_MIN_EFFECT == 0.02
    assert judged_options(profile_options("quick")).model_dump()["min_effect"] == 0.02  # what the manifest records
    with pytest.raises(ConfigError) as e:
        profile_options("quick", min_effect=-0.1)
    assert "--min-effect" in e.value.one_line()


def test_resume_refuses_a_different_min_effect(tmp_path):
    stored = {"options": judged_options(BenchOptions(configs=("base", "ngram"))).model_dump(mode="json")}
    check_resume_options(stored, {"min_effect": 0.02}, tmp_path)  # the run's own value: fine
    with pytest.raises(ConfigError) as e:
        check_resume_options(stored, {"min_effect": 0.05}, tmp_path)
    assert "--min-effect 0.05 (run has 0.02)" in e.value.one_line()


def test_the_commands_take_it():
    for cmd in ("bench", "report", "advise"):
        r = CliRunner().invoke(app, [cmd, "--help"], env={"COLUMNS": "200"})
        assert r.exit_code == 0 and "--min-effect" in r.output, cmd
    r = CliRunner().invoke(app, ["bench", "--min-effect", "-1"])
    assert isinstance(r.exception, ConfigError)  # exit 2 through specscope's main (one error line)
    assert r.exception.message == "--min-effect takes a fraction from 0 to below 1"  # the one fraction parser

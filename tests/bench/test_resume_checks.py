"""specscope.bench.resume: options given with --resume (the check generated from the option spec)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.bench.resume import check_resume_options
from specscope.config import BenchOptions
from specscope.errors import ConfigError

OPTIONS = BenchOptions(configs=("base",), workloads=("prose",), levels=(1, 2), repeats=1).model_dump(mode="json")
#: a run made by this version: its options, the options it was given and its client mode
MANIFEST = {
    "options": OPTIONS,
    "run_options": {"profile": "quick", "launch": "embedded", "max_concurrency": [2, 1], "configs": ["base"]},
    "client": {"busy_poll": False},
}


def _refused(given: dict, manifest: dict = MANIFEST) -> str:
    with pytest.raises(ConfigError) as err:
        check_resume_options(manifest, given, Path("runs/r"))
    return str(err.value)


def test_the_same_values_in_another_spelling_are_accepted():
    check_resume_options(MANIFEST, {"max_concurrency": [1, 2], "repeats": 1, "configs": ["base"]}, Path("r"))


def test_each_differing_option_is_named_with_both_values():
    msg = _refused({"max_concurrency": [8], "max_tokens": 50, "repeats": 1})
    assert "--max-concurrency 8 (run has 2,1)" in msg and "--max-tokens 50 (run has 96)" in msg
    assert "--repeats" not in msg


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"request_rate": [1.0, 2.0]}, "--request-rate 1,2 (run has none)"),
        ({"profile": "card"}, "--profile card (run has quick)"),
        ({"workload": ["mine=prompts.jsonl"]}, "--workload mine=prompts.jsonl (run has none)"),
        ({"target_ci": 0.05}, "--target-ci 0.05 (run has none)"),
        ({"busy_poll": True}, "--busy-poll (run has --no-busy-poll)"),
        ({"aa": False}, "--no-aa (run has --aa)"),
        ({"like": "runs/other"}, "--like (not with --resume)"),
    ],
)
def test_a_different_matrix_load_or_client_mode_is_refused(given: dict, named: str) -> None:
    manifest = {**MANIFEST, "options": {**OPTIONS, "aa": True}}
    assert named in _refused(given, manifest)


def test_the_runs_own_baseline_and_free_options_are_accepted():
    check_resume_options(MANIFEST, {"baseline": "base", "read_timeout": 30.0, "out": "x", "format": "json"}, Path("r"))
    assert "--baseline ngram (run has base)" in _refused({"baseline": "ngram"})


def test_a_run_made_before_run_records_is_checked_on_its_options_only():
    old = {"options": OPTIONS, "client": {}}
    check_resume_options(old, {"max_concurrency": [2, 1], "baseline": "base"}, Path("r"))
    assert "--max-concurrency 4 (run has 1,2)" in _refused({"max_concurrency": [4]}, old)
    assert "--profile quick (run made before run records: cannot check)" in _refused({"profile": "quick"}, old)


def test_a_different_start_timeout_is_accepted():
    """``--start-timeout`` bounds a server's start, not a figure: a resume may wait longer (or less) than the run."""
    made = {**MANIFEST, "run_options": {**MANIFEST["run_options"], "start_timeout": 120.0}}
    check_resume_options(made, {"start_timeout": 900.0}, Path("r"))

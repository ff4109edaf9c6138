"""specscope.bench.resume: options given with --resume, the finished flag, the cells --retry-failed redoes."""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.bench.resume import check_resume_options
from specscope.config import BenchOptions
from specscope.errors import ConfigError

STORED = BenchOptions(configs=("base",), workloads=("prose",), levels=(1, 2), repeats=1).model_dump(mode="json")


def test_the_same_values_in_another_spelling_are_accepted():
    check_resume_options(STORED, {"levels": (2, 1), "repeats": 1, "configs": ("base",)}, Path("r"))


def test_each_differing_option_is_named_with_both_values():
    with pytest.raises(ConfigError) as err:
        check_resume_options(STORED, {"levels": (8,), "max_tokens": 50, "repeats": 1}, Path("runs/r"))
    msg = str(err.value)
    assert "--levels 8 (run has 1,2)" in msg and "--max-tokens 50 (run has 96)" in msg and "--repeats" not in msg

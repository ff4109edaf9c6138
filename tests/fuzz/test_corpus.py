"""The corpus of past fuzz crashes (``tests/fuzz/corpus/BOUNDARY/*.bin``) replayed as regression tests, plus a short
seeded run of every boundary whose owner has made it clean (the full size is ``make fuzz``, tests/fuzz/runner.py).

Each corpus file is a case as ``tests/fuzz/boundaries.py`` builds it (the raw input of that boundary); the runner
writes every new failing case there. A file passes when the boundary's check passes: the entry point returned or
raised a documented error (SpecscopeError), and any JSON it printed is strict JSON.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from .boundaries import BOUNDARIES

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("*/*.bin"))
#: boundaries run for SMOKE_CASES seeded cases in the default suite (`make fuzz` runs them at full size)
SMOKE = [
    "sse_events",
    "per_request_metrics",
    "log_lines",
    "metrics_text",
    "workload_rows",
    "run_folder_rows",
    "cli_arguments",
    "checkpoint_json_headers",
    "gguf_headers",
    "result_files",
]
SMOKE_CASES = 150


def test_the_corpus_covers_the_boundaries_fixed_here():
    assert {p.parent.name for p in FILES} >= {"run_folder_rows", "workload_rows", "cli_arguments", "metrics_text"}


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_a_past_crash_stays_fixed(path):
    BOUNDARIES[path.parent.name].check(path.read_bytes())


@pytest.mark.parametrize("name", SMOKE)
def test_a_short_seeded_run_finds_nothing(name):
    boundary = BOUNDARIES[name]
    for i in range(SMOKE_CASES):
        boundary.check(boundary.make(random.Random(f"smoke:{name}:{i}")))

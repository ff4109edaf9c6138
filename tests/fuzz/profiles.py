"""Hypothesis profiles for the parser fuzz suites (imported by the suites; not a conftest).

``fast`` (default): a few hundred examples per parser, a few seconds each, part of the default test run.
``deep``: >= 100,000 examples per parser; select it with ``SPECSCOPE_FUZZ=deep`` (``benchmarks/fuzz_deep.py``
runs it and writes the counts to ``benchmarks/RESULTS.md``). Each suite records how many cases it ran in
``FUZZ_COUNTS`` (parser name -> cases) so the deep runner can report them.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FAST_EXAMPLES = 300
DEEP_EXAMPLES = 100_000

settings.register_profile(
    "fuzz-fast",
    max_examples=FAST_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz-deep",
    max_examples=DEEP_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

PROFILE = "fuzz-deep" if os.environ.get("SPECSCOPE_FUZZ") == "deep" else "fuzz-fast"

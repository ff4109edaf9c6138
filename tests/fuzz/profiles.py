"""Hypothesis profiles for the parser fuzz suites (imported by the suites; not a conftest).

``fast`` (default): a few hundred examples per parser, a few seconds each, part of the default test run.
``deep``: >= 100,000 cases per parser; select it with ``SPECSCOPE_FUZZ=deep`` (``benchmarks/fuzz_deep.py``
runs it and writes the counts to ``benchmarks/RESULTS.md``). Each suite records how many cases it ran in
``FUZZ_COUNTS`` (parser name -> cases) so the deep runner can report them.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FAST_EXAMPLES = 300
#: deep: hypothesis examples per parser, each also run through MUTATIONS random mutations (see strategies.mutate):
#: 2,500 x (1 + 40) = 102,500 parser calls, affordable on a shared 2-core machine (hypothesis' own cost per
#: example is ~10-30 ms here, the parsers' ~0.02-2 ms).
DEEP_EXAMPLES = int(os.environ.get("SPECSCOPE_FUZZ_EXAMPLES", "2500"))

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

DEEP = os.environ.get("SPECSCOPE_FUZZ") == "deep"
PROFILE = "fuzz-deep" if DEEP else "fuzz-fast"
#: mutated variants of every hypothesis example (0 in the fast profile).
MUTATIONS = 40 if DEEP else 0

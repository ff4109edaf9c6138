"""The one low-acceptance rule for a learned draft head, shared by a run's report and a server log (issues 13, 26).

A quantized checkpoint whose MTP / EAGLE / draft head was never loaded drafts from garbage: no exception, no log line,
only an acceptance rate near zero. A method that drafts with a learned head (``mtp``, ``eagle``/``eagle3``,
``dflash``, ``medusa``, a draft model; not ``ngram`` or ``suffix``, whose acceptance is legitimately low on fresh text)
is alarmed when it accepts under :data:`NEAR_ZERO` of its drafted tokens over at least :data:`MIN_DRAFTS` verify steps.
An unknown method (a log without its config line, an external server) is treated as a head: silence is not a pass.
"""

from __future__ import annotations

import math
import re

__all__ = ["FAR_BELOW", "HEAD_METHODS", "MIN_DRAFTS", "NEAR_ZERO", "low_acceptance_alarm"]

NEAR_ZERO = 0.05  # acceptance rate (fraction) below which a learned draft head is presumed broken
FAR_BELOW = 0.1  # fraction of the same method's best acceptance on another workload
MIN_DRAFTS = 50  # verify steps that carried a draft: fewer are too few to call
HEAD_METHODS = re.compile(r"mtp|eagle|dflash|draft|medusa", re.IGNORECASE)


def low_acceptance_alarm(method: str | None, rate: float | None, drafts: float | None) -> str | None:
    """``LOW_ACCEPTANCE(...)`` when a head (or an unknown method) accepts under :data:`NEAR_ZERO` over at least
    :data:`MIN_DRAFTS` drafts, else None (an n-gram or suffix drafter, too few drafts, no rate, or a non-finite
    figure, which a NaN counter gives)."""
    if rate is None or drafts is None or not (math.isfinite(rate) and math.isfinite(drafts)) or drafts < MIN_DRAFTS:
        return None
    if method is not None and not HEAD_METHODS.search(method):
        return None
    if rate >= NEAR_ZERO:
        return None
    who = method or "unknown method"
    return f"LOW_ACCEPTANCE({who} accepts {rate:.1%} of drafted tokens over {drafts:,.0f} drafts, < {NEAR_ZERO:.0%})"

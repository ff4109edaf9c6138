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

__all__ = [
    "FELL_TO",
    "FAR_BELOW",
    "MODEL_FREE_METHODS",
    "MIN_DRAFTS",
    "MIN_WINDOWS_FOR_FALL",
    "acceptance_fell",
    "accepting_nothing_advice",
    "NEAR_ZERO",
    "is_low_acceptance",
    "learned_head",
    "low_acceptance_alarm",
    "low_acceptance_bound_alarm",
]

NEAR_ZERO = 0.05  # acceptance rate (fraction) below which a learned draft head is presumed broken
FAR_BELOW = 0.1  # fraction of the same method's best acceptance on another workload
FELL_TO = 0.5  # the later half of a log's windows at or under this share of the earlier half's rate: a fall
MIN_WINDOWS_FOR_FALL = 4  # fewer windows are too few to split into halves
MIN_DRAFTS = 50  # verify steps that carried a draft: fewer are too few to call
# The drafters that need no trained weights (vLLM ``ngram`` / ``ngram_gpu`` / ``suffix``, llama.cpp ``ngram-*``,
# SGLang's lookahead / n-gram, prompt lookup): their acceptance is legitimately low on text that does not repeat.
MODEL_FREE_METHODS = re.compile(r"n-?gram|suffix|lookup|lookahead", re.IGNORECASE)


def learned_head(method: str | None) -> bool:
    """True for a method that drafts with learned weights: every method that is not model-free
    (:data:`MODEL_FREE_METHODS`: vLLM's ``mlp_speculator``, a head this list does not know), and an unknown method
    (None): silence is not a pass. (Before 2026-12-05 only a list of head names counted, and ``mlp_speculator``
    accepting 4.7 % raised no alarm.)"""
    return method is None or MODEL_FREE_METHODS.search(method) is None


#: where a server's own count of drafted and accepted tokens is read, for any method
_LOG_CHECK = "the server log's SpecDecoding lines (specscope serve --parse-log FILE)"


def accepting_nothing_advice(method: str | None) -> tuple[str, tuple[str, ...]]:
    """(likely cause, checks) of a drafter that drafted and accepted nothing (or far too little), by its ``method``:
    a model-free drafter (:data:`MODEL_FREE_METHODS`) has no weights to audit, it copies what the prompt or the answer
    already holds, so its prompts repeated nothing; a learned head is audited (``specscope audit MODEL``); an unknown
    method (None) gets both. The last check is always the server log's own count."""
    if method is not None and not learned_head(method):
        return (
            f"{method} has no weights to check: it drafts by copying what the prompt or the answer already holds, and "
            "these prompts repeated nothing it matched",
            ("a workload whose prompts repeat text (--workloads repeat or edit)", _LOG_CHECK),
        )
    if method is not None:
        return f"a draft head ({method}) that is not loaded or does not match the target", (
            "specscope audit MODEL",
            _LOG_CHECK,
        )
    return (
        "a draft head that is not loaded or does not match the target, or an n-gram drafter whose prompts repeat "
        "nothing",
        ("specscope audit MODEL", "a workload whose prompts repeat text (--workloads repeat or edit)", _LOG_CHECK),
    )


def is_low_acceptance(method: str | None, rate: float | None, drafts: float | None) -> bool:
    """The rule (module docstring): a head (or an unknown method) accepting under :data:`NEAR_ZERO` of its drafted
    tokens (``rate``, fraction, bonus token excluded) over at least :data:`MIN_DRAFTS` verify steps (``drafts``);
    False for an n-gram or suffix drafter, too few drafts, no rate, or a non-finite figure (a NaN counter)."""
    if rate is None or drafts is None or not (math.isfinite(rate) and math.isfinite(drafts)) or drafts < MIN_DRAFTS:
        return False
    return learned_head(method) and rate < NEAR_ZERO


def low_acceptance_bound_alarm(method: str | None, at_most: float | None, steps: float, where: str) -> str | None:
    """The rule on an upper bound of the rate (``at_most``) over at least ``steps`` verify steps, for statistics that
    print no counts (``where``: what they are, e.g. "60 SGLang windows"): sound, since the rate is below the bound."""
    if at_most is None or not is_low_acceptance(method, at_most, steps):
        return None
    who = method or "unknown method"
    return (
        f"LOW_ACCEPTANCE({who} accepts at most {at_most:.1%} of drafted tokens in every one of {where} "
        f"(at least {steps:,.0f} verify steps), < {NEAR_ZERO:.0%})"
    )


def low_acceptance_alarm(method: str | None, rate: float | None, drafts: float | None) -> str | None:
    """``LOW_ACCEPTANCE(...)`` when :func:`is_low_acceptance`, else None."""
    if rate is None or drafts is None or not is_low_acceptance(method, rate, drafts):
        return None
    who = method or "unknown method"
    return f"LOW_ACCEPTANCE({who} accepts {rate:.1%} of drafted tokens over {drafts:,.0f} drafts, < {NEAR_ZERO:.0%})"


def acceptance_fell(windows: list[tuple[int, float, float, bool]], who: str = "") -> str | None:
    """``ACCEPTANCE_FELL(...)`` when the acceptance of a log's later windows fell to :data:`FELL_TO` or less of its
    earlier windows', else None. ``windows``: (line number, rate, weight, is_bound) in log order, one per window that
    drafted: the rate is the window's own (accepted / drafted, weight its drafted tokens) or, for a window that prints
    no counts, its upper bound (weight 1, ``is_bound``). The windows are split into halves by order (the earlier half
    the smaller when odd) and each half's rate is the weighted mean. A pooled figure hides such a fall (sglang issue
    #30763: 73 % at first, 19 % past 32K of context); fewer than :data:`MIN_WINDOWS_FOR_FALL` windows say nothing.
    ``who``: the engine (rank) the windows belong to, named first when given."""
    if len(windows) < MIN_WINDOWS_FOR_FALL:
        return None
    half = len(windows) // 2
    parts = (windows[:half], windows[half:])
    rates = [sum(r * w for _, r, w, _ in p) / sum(w for _, _, w, _ in p) for p in parts]
    if not all(math.isfinite(r) for r in rates) or rates[0] <= 0 or rates[1] > FELL_TO * rates[0]:
        return None
    bound = "at most " if any(b for *_, b in windows) else ""
    said = "; ".join(f"lines {p[0][0]}-{p[-1][0]}: {bound}{r:.1%}" for p, r in zip(parts, rates, strict=True))
    share = rates[1] / rates[0]
    named = f"{who}: " if who else ""
    what = "upper bound of the rate" if bound else "rate"
    return (
        f"ACCEPTANCE_FELL({named}the later half of {len(windows)} windows is at {share:.0%} of the earlier half's "
        f"{what}: {said}; the pooled figure hides the fall (a longer context, a changed workload, or a drafter "
        f"that degrades while serving))"
    )

"""Verify steps derived from a cell's generated- and accepted-token counters: the one place the rule lives.

Counting rule (vLLM ``v1/spec_decode/metrics.py``: ``num_drafts`` counts the verify steps that drafted, and each
verify step emits 1 + its accepted tokens; a request's first token is sampled from the prefill forward, not by a
verify step, and llama.cpp samples it the same way after prompt processing): over a cell,

    verify steps = generated tokens - accepted tokens - requests that produced a first token

Inputs: a :class:`~specscope.stats.summary.CellSummary` (its counter delta, tokens; its stream counts, requests).
The request count is the cell's streams when every one ended ok, or its ok streams when the failed ones carried no
tokens (``failed_output_tokens`` 0); otherwise (failed streams with tokens, or a cell that does not record them) it
is not known and the steps are None: never guessed.
"""

from __future__ import annotations

import math

from specscope.stats.summary import CellSummary

__all__ = ["first_token_requests", "verify_steps"]


def first_token_requests(cell: CellSummary) -> int | None:
    """Requests of ``cell`` that produced a first token (requests), None when the cell does not say."""
    if cell.streams_ok == cell.streams:
        return cell.streams
    if cell.failed_output_tokens == 0:
        return cell.streams_ok  # the failed streams carried no token: no prefill token of theirs in the counter
    return None


def verify_steps(cell: CellSummary) -> float | None:
    """Verify steps of ``cell`` (steps): counter ``generation_tokens`` - ``accepted_tokens`` - the requests that
    produced a first token (:func:`first_token_requests`; the module's rule). None when the counters lack either
    count, a count is no number, or the request count is not known."""
    k = cell.counters
    requests = first_token_requests(cell)
    if k is None or "generation" not in k.present or requests is None:
        return None
    if k.generation_tokens is None or k.accepted_tokens is None:
        return None
    steps = float(k.generation_tokens) - float(k.accepted_tokens) - requests
    return steps if math.isfinite(steps) else None

"""Acceptance split into the reasoning phase and the answer phase, from per-request per-step data.

A stream's verify step ``i`` drafts ``draft_per_step[i]`` tokens and emits ``accepted_per_step[i] + 1``
tokens (the accepted drafts and the bonus token). The reasoning phase is the first
``usage.completion_tokens_details.reasoning_tokens`` tokens of the answer; a step belongs to the phase of
its first emitted token. Without per-step data or without a reasoning count, a stream contributes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.records import StreamRecord

__all__ = ["phase_counts"]

_KEYS = ("reasoning_draft_tokens", "reasoning_accepted_tokens", "answer_draft_tokens", "answer_accepted_tokens")


def phase_counts(streams: Sequence[StreamRecord]) -> dict[str, int] | None:
    """Draft and accepted tokens (tokens) per phase summed over ``streams``; None when no stream has the data."""
    out = dict.fromkeys(_KEYS, 0)
    seen = False
    for s in streams:
        if not s.accepted_per_step or s.reasoning_tokens is None:
            continue
        seen = True
        emitted = 0
        for drafted, accepted in zip(s.draft_per_step, s.accepted_per_step, strict=True):
            phase = "reasoning" if emitted < s.reasoning_tokens else "answer"
            out[f"{phase}_draft_tokens"] += drafted
            out[f"{phase}_accepted_tokens"] += accepted
            emitted += accepted + 1
    return out if seen else None

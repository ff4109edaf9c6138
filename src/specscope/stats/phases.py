"""Acceptance split into the reasoning phase and the answer phase, from per-request per-step data (issue 26).

Input per stream: the server's ordered per-step arrays (verify step ``i`` drafts ``draft_per_step[i]`` tokens and
emits ``accepted_per_step[i] + 1``: the accepted drafts and the bonus token; vLLM ``detailed``), the reasoning-token
count ``usage.completion_tokens_details.reasoning_tokens`` (the first R output tokens are the reasoning phase) and
``usage.completion_tokens``.

Token-boundary rule: a step belongs to the phase of its first emitted token. Tokens emitted outside verify steps
(``completion_tokens - sum(accepted + 1)``: the first token, sampled at prefill, and any decode step that drafted
nothing and is not listed) are placed before the first step. The split is ``exact`` when that count is 0 or 1 (every
decode step after the first token is listed); with more, where the unlisted steps fell is unknown and the split is
marked not exact. Without per-step arrays or without a reasoning count a stream contributes nothing (the split is
unknown, never guessed from wall time or token shares).

Per phase: verify steps (``drafts``), drafted and accepted tokens, and per-position accepted counts (a step that
accepted a drafts accepted positions 1..a: drafts are accepted as a prefix); rate, length and per-position
acceptance come from the one formula home, :func:`specscope.stats.acceptance.acceptance_view`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specscope.records import StreamRecord
from specscope.stats.acceptance import acceptance_view

__all__ = ["phase_acceptance", "phase_counts"]

_KEYS = ("reasoning_draft_tokens", "reasoning_accepted_tokens", "answer_draft_tokens", "answer_accepted_tokens")
_PHASES = ("reasoning", "answer")


def _steps(s: StreamRecord) -> list[tuple[str, int, int]] | None:
    """(phase, drafted, accepted) per verify step of ``s``; None when ``s`` cannot be split."""
    if not s.accepted_per_step or s.reasoning_tokens is None or len(s.draft_per_step) != len(s.accepted_per_step):
        return None
    emitted = _outside(s) or 0
    out = []
    for drafted, accepted in zip(s.draft_per_step, s.accepted_per_step, strict=True):
        out.append(("reasoning" if emitted < s.reasoning_tokens else "answer", drafted, accepted))
        emitted += accepted + 1
    return out


def _outside(s: StreamRecord) -> int | None:
    """Output tokens not emitted by a listed verify step, None without a token count or with a negative one."""
    if s.output_tokens is None:
        return None
    n = s.output_tokens - sum(a + 1 for a in s.accepted_per_step)
    return n if n >= 0 else None


def phase_counts(streams: Sequence[StreamRecord]) -> dict[str, int] | None:
    """Draft and accepted tokens (tokens) per phase summed over ``streams``; None when no stream has the data."""
    out = dict.fromkeys(_KEYS, 0)
    seen = False
    for s in streams:
        steps = _steps(s)
        if steps is None:
            continue
        seen = True
        for phase, drafted, accepted in steps:
            out[f"{phase}_draft_tokens"] += drafted
            out[f"{phase}_accepted_tokens"] += accepted
    return out if seen else None


def phase_acceptance(streams: Sequence[StreamRecord]) -> dict[str, Any] | None:
    """Per phase (``reasoning``, ``answer``): ``drafts`` (verify steps), ``draft_tokens``, ``accepted_tokens``,
    ``accepted_per_position``, and from them ``acceptance_rate``, ``acceptance_length``, ``acceptance_per_position``;
    plus ``streams`` (split), ``exact`` (see the module doc) and ``rule``. None when no stream can be split."""
    counts = {p: [0, 0, 0] for p in _PHASES}  # drafts, drafted, accepted
    positions: dict[str, list[int]] = {p: [] for p in _PHASES}
    n, exact = 0, True
    for s in streams:
        steps = _steps(s)
        if steps is None:
            continue
        n += 1
        outside = _outside(s)
        exact = exact and outside is not None and outside <= 1
        for phase, drafted, accepted in steps:
            c, pos = counts[phase], positions[phase]
            c[0], c[1], c[2] = c[0] + 1, c[1] + drafted, c[2] + accepted
            pos.extend([0] * (accepted - len(pos)))
            for i in range(accepted):
                pos[i] += 1
    if not n:
        return None
    out: dict[str, Any] = {"streams": n, "exact": exact, "rule": "a step belongs to the phase of its first token"}
    for phase in _PHASES:
        drafts, drafted, accepted = counts[phase]
        view = acceptance_view(drafts, drafted, accepted, positions[phase])
        out[phase] = {
            "drafts": drafts,
            "draft_tokens": drafted,
            "accepted_tokens": accepted,
            "accepted_per_position": positions[phase],
            "acceptance_rate": view.acceptance_rate,
            "acceptance_length": view.acceptance_length,
            "acceptance_per_position": list(view.unconditional),
        }
    return out

"""One cell's per-request speculative records pooled, and the drafting the server really did (issue 26).

Input: the cell's :class:`~specscope.records.SpecRequest` records (one per response that carried speculative fields,
filled by :mod:`specscope.client.spec_fields`, engine-neutral) and the window reading of its ``/metrics``
(:class:`~specscope.records.SpecWindow`). Output: plain JSON-able dicts stored on the cell summary.

Pooling rules: a total is the sum over the responses that report that count, and is None when none does (never 0);
it says over how many responses it rests (``*_requests``). The accepted-count histogram is the sum of the responses'
histograms keyed by accepted drafts per step (no fixed k: variable-length and tree drafting fit); the draft-length
histogram comes from per-step arrays (vLLM ``detailed``).

Draft lengths as run (:func:`drafting_as_run`): the k a server really used is read from what it did, beside the k it
was configured with: the largest per-step draft (per-step arrays), the number of positions its per-position
counters carry, the mean draft tokens per draft. An acceptance length above ``configured k + 1`` cannot come from
k-token drafts: it is a finding about the reader or the configuration (``ACCEPT_LENGTH_ABOVE_K``), never printed
silently (the embedded llama.cpp n-gram config: k = 8 configured, 11.67 tokens per step over 13 positions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from specscope.records import SpecCounters, SpecRequest, SpecWindow
from specscope.stats.acceptance import acceptance_length

__all__ = ["drafting_as_run", "pool_requests", "window_doc"]


def _total(values: list[int | None]) -> tuple[int | None, int]:
    seen = [v for v in values if v is not None]
    return (sum(seen) if seen else None), len(seen)


def pool_requests(specs: Sequence[SpecRequest]) -> dict[str, Any] | None:
    """The cell's per-request totals, or None when no response carried speculative fields.

    Keys: ``engines`` / ``shapes`` (sorted, distinct), ``requests`` (responses with a record), ``accepted_tokens``,
    ``draft_tokens``, ``verify_steps`` (sums or None) with ``*_requests`` (how many responses each rests on),
    ``histogram`` (``{accepted drafts j: steps}``, string keys for JSON), ``histogram_steps`` (its sum),
    ``draft_lengths`` (``{drafted tokens: steps}`` from per-step arrays): each None when no response sent one (absent,
    never an empty figure), ``configured_k`` (distinct values seen),
    ``warnings`` (each response's named reasons, counted: ``CODE(detail) x N``).
    """
    if not specs:
        return None
    accepted, n_acc = _total([s.accepted_tokens for s in specs])
    drafted, n_dr = _total([s.draft_tokens for s in specs])
    steps, n_st = _total([s.verify_steps for s in specs])
    hist: Counter[int] = Counter()
    lengths: Counter[int] = Counter()
    for s in specs:
        for j, n in s.histogram:
            hist[j] += n
        lengths.update(s.draft_per_step)
    sent_hist = any(s.histogram for s in specs)
    warnings = Counter(w for s in specs for w in s.warnings)
    return {
        "engines": sorted({s.engine for s in specs}),
        "shapes": sorted({s.shape for s in specs}),
        "requests": len(specs),
        "accepted_tokens": accepted,
        "accepted_tokens_requests": n_acc,
        "draft_tokens": drafted,
        "draft_tokens_requests": n_dr,
        "verify_steps": steps,
        "verify_steps_requests": n_st,
        "histogram": {str(j): hist[j] for j in sorted(hist)} if sent_hist else None,
        "histogram_steps": sum(hist.values()) if sent_hist else None,
        "draft_lengths": {str(k): lengths[k] for k in sorted(lengths)} if lengths else None,
        "configured_k": sorted({s.configured_k for s in specs if s.configured_k is not None}),
        "warnings": [w if n == 1 else f"{w} x {n}" for w, n in warnings.items()],
    }


def drafting_as_run(
    configured_k: int | None,
    *,
    pooled: Mapping[str, Any] | None = None,
    counters: SpecCounters | None = None,
) -> dict[str, Any]:
    """The drafting the server really did, beside its configured k.

    Args:
        configured_k: the k the server was started with (recipe / engine config), None when not known.
        pooled: :func:`pool_requests` of the cell, if any.
        counters: the cell's counter delta, if any.

    Returns:
        ``configured_k``; ``max_draft_per_step`` (largest drafted tokens in one step, from per-step arrays);
        ``positions`` (per-position counters the server keeps); ``mean_draft_tokens`` (draft tokens / drafts);
        ``acceptance_length`` (1 + accepted / drafts, counters, else per-request totals); ``findings``
        (``ACCEPT_LENGTH_ABOVE_K``, ``DRAFT_ABOVE_K``).
    """
    out: dict[str, Any] = {"configured_k": configured_k, "findings": []}
    lengths = {int(k): n for k, n in ((pooled or {}).get("draft_lengths") or {}).items()}
    out["max_draft_per_step"] = max(lengths) if lengths else None
    c = counters if counters is not None else SpecCounters()
    out["positions"] = len(c.accepted_per_position) or None
    drafts, drafted, accepted = c.drafts, c.draft_tokens, c.accepted_tokens
    if not drafts and pooled:
        drafts, drafted = pooled.get("verify_steps"), pooled.get("draft_tokens")
        accepted = pooled.get("accepted_tokens")
    out["mean_draft_tokens"] = drafted / drafts if drafts and drafted is not None else None
    out["acceptance_length"] = acceptance_length(accepted, drafts)
    if configured_k is not None:
        length = out["acceptance_length"]
        if length is not None and length > configured_k + 1 + 1e-9:
            out["findings"].append(
                f"ACCEPT_LENGTH_ABOVE_K(acceptance length {length:.2f} > configured k {configured_k} + 1: the server "
                f"drafted more than k per step, or the configured k is not the one it ran)"
            )
        widths = [x for x in (out["max_draft_per_step"], out["positions"]) if x is not None]
        if widths and max(widths) > configured_k:
            out["findings"].append(
                f"DRAFT_ABOVE_K(the server drafted or counted {max(widths)} positions, configured k {configured_k})"
            )
    return out


def window_doc(window: SpecWindow) -> dict[str, Any]:
    """The window reading as stored on a cell summary: ``engine_kind``, ``state``, ``statement``, ``alarm``,
    ``warnings``."""
    return {
        "engine_kind": window.engine_kind,
        "state": window.state,
        "statement": window.statement,
        "alarm": window.alarm,
        "warnings": list(window.warnings),
    }

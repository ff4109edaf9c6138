"""Endpoints that drain on read: each ``GET`` returns what happened since the previous one (TensorRT-LLM's JSON
``/metrics`` iteration stats and ``/perf_metrics``). A reading is a :class:`DrainedSlice`, a delta, never a running
total; disjoint slices are pooled into one window (:func:`pool_slices`), and a gap in the iteration numbers between
or inside slices is named (iterations another reader took, or the engine's bounded queue dropped)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from specscope.records import SpecCounters

__all__ = ["DrainedSlice", "iteration_gaps", "pool_slices"]


@dataclass(frozen=True)
class DrainedSlice:
    """One drained reading.

    Attributes:
        endpoint: what was read (``"iteration stats"``, ``"per-request perf metrics"``).
        counts: the slice's counts as a delta (``SpecCounters``; a count no item carried is None).
        items: items in the body (iterations or requests).
        iterations: the iteration numbers the items carry, in body order (empty for per-request bodies).
        idle: items left out as idle (iterations with no active request).
        reasons: named reasons (``WRONG_TYPE``, ``ADP_DUPLICATE``, ``REQUESTS_WITHOUT_SPEC`` ...).
        running: requests active at the slice's last iteration (None: no iteration said).
        waiting: requests queued at the slice's last iteration (None: no iteration said).
    """

    endpoint: str
    counts: SpecCounters
    items: int
    iterations: tuple[int, ...] = ()
    idle: int = 0
    reasons: tuple[str, ...] = ()
    running: float | None = None
    waiting: float | None = None


def iteration_gaps(numbers: Sequence[int]) -> tuple[str, ...]:
    """``ITERATIONS_LOST(a..b)`` for each run of iteration numbers missing between consecutive numbers (sorted)."""
    out = []
    ordered = sorted(set(numbers))
    for prev, nxt in zip(ordered, ordered[1:], strict=False):
        if nxt > prev + 1:
            lost = f"{prev + 1}" if nxt == prev + 2 else f"{prev + 1}..{nxt - 1}"
            out.append(f"ITERATIONS_LOST({lost}: {nxt - prev - 1} iterations read by another client or dropped)")
    return tuple(out)


def _add(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else a + b


def pool_slices(slices: Sequence[DrainedSlice]) -> tuple[SpecCounters, tuple[str, ...]]:
    """The window of disjoint slices: their counts summed (None only where no slice had the count), the gauges of
    the last slice that had them, and every slice's reasons plus the iteration gaps across all of them.

    Returns:
        ``(counts, reasons)``; ``counts.present`` is the union of the slices'.
    """
    total = SpecCounters()
    reasons: list[str] = []
    numbers: list[int] = []
    for s in slices:
        c = s.counts
        total = dataclasses.replace(
            total,
            drafts=_add(total.drafts, c.drafts),
            draft_tokens=_add(total.draft_tokens, c.draft_tokens),
            accepted_tokens=_add(total.accepted_tokens, c.accepted_tokens),
            generation_tokens=_add(total.generation_tokens, c.generation_tokens),
            present=total.present | c.present,
            engine_kind=c.engine_kind or total.engine_kind,
            running=s.running if s.running is not None else total.running,
            waiting=s.waiting if s.waiting is not None else total.waiting,
        )
        reasons.extend(r for r in s.reasons if r not in reasons)
        numbers.extend(s.iterations)
    idle = sum(s.idle for s in slices)
    if idle:
        reasons.append(f"IDLE_ITERATIONS({idle} left out: no active request)")
    return total, tuple(reasons) + iteration_gaps(numbers)

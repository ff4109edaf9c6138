"""Counter deltas between two ``/metrics`` snapshots of one server, per engine, with restarts detected.

Pure arithmetic over :class:`specscope.records.SpecCounters`; the scraping and parsing live in
``specscope.client.metrics``.

Rules (issue 14, "Counters"):

- Deltas are taken per ``engine`` label *before* summing (vLLM data parallel), so a restart of one engine
  is seen even when the sum still rises.
- An engine restarted between the scrapes when one of its counters went down or its ``*_created`` time
  moved. Its window is left out (listed in ``reset_engines``); the
  cell's figure is the sum over the engines that did not restart. ``reset`` is set only when no engine is
  left to count.
- A series absent before and present after starts from 0 (llama.cpp creates its speculative and
  per-position series only after its first speculative request); ``present`` is the "after" scrape's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from specscope.records import SpecCounters

__all__ = ["CounterChecks", "counter_checks", "counters_delta", "sum_counters"]

_COUNTS = ("drafts", "draft_tokens", "accepted_tokens", "generation_tokens", "prompt_tokens")


def _diff(before: float | None, after: float | None) -> tuple[float | None, bool]:
    """after - before for one counter; absent before: from 0; on a decrease, a restart: the increase is
    ``after`` (Prometheus ``increase()`` rule)."""
    if after is None:
        return None, False
    if before is None:
        return after, False
    if after < before:
        return after, True
    return after - before, False


def _delta_one(before: SpecCounters, after: SpecCounters) -> SpecCounters:
    """The delta of one series set (one engine, or the whole server when there are no engine labels)."""
    reset = before.created is not None and after.created is not None and before.created != after.created
    vals: dict[str, float | None] = {}
    for name in _COUNTS:
        vals[name], r = _diff(getattr(before, name), getattr(after, name))
        reset |= r
    n = max(len(before.accepted_per_position), len(after.accepted_per_position))
    b = before.accepted_per_position + (0.0,) * (n - len(before.accepted_per_position))  # (n,)
    a = after.accepted_per_position + (0.0,) * (n - len(after.accepted_per_position))  # (n,)
    per_pos: list[float] = []
    for x, y in zip(b, a, strict=True):
        v, r = _diff(x, y)
        per_pos.append(v or 0.0)
        reset |= r
    return SpecCounters(
        drafts=vals["drafts"] or 0.0,
        draft_tokens=vals["draft_tokens"] or 0.0,
        accepted_tokens=vals["accepted_tokens"] or 0.0,
        accepted_per_position=tuple(per_pos),
        generation_tokens=vals["generation_tokens"],
        prompt_tokens=vals["prompt_tokens"],
        present=after.present,
        reset=reset,
    )


def _add_opt(x: float | None, y: float | None) -> float | None:
    return y if x is None else x if y is None else x + y


def sum_counters(parts: list[SpecCounters]) -> SpecCounters:
    """The sum of several engines' deltas (per position padded with 0); ``present`` is the union."""
    out = SpecCounters()
    for p in parts:
        n = max(len(out.accepted_per_position), len(p.accepted_per_position))
        pos = [0.0] * n
        for seq in (out.accepted_per_position, p.accepted_per_position):
            for i, v in enumerate(seq):
                pos[i] += v
        out = SpecCounters(
            drafts=out.drafts + p.drafts,
            draft_tokens=out.draft_tokens + p.draft_tokens,
            accepted_tokens=out.accepted_tokens + p.accepted_tokens,
            accepted_per_position=tuple(pos),
            generation_tokens=_add_opt(out.generation_tokens, p.generation_tokens),
            prompt_tokens=_add_opt(out.prompt_tokens, p.prompt_tokens),
            present=out.present | p.present,
        )
    return out


def counters_delta(before: SpecCounters, after: SpecCounters) -> SpecCounters:
    """The counters' increase between two snapshots of the same server.

    Without ``engine`` labels, one series set: a counter that went down (or a ``*_created`` that moved)
    means the server restarted: ``reset=True`` and, for that counter, the value after the restart
    (Prometheus' ``increase()`` convention), which is NOT the cell's true count; callers must mark such a
    cell. With ``engine`` labels, each engine's delta is in ``engines`` with its own ``reset``; the
    restarted ones are listed in ``reset_engines`` and the top-level figures sum the others (``reset`` only
    when all restarted). An engine absent before starts from 0; one absent after restarted. Gauges
    (``running``, ``waiting``) are ``None`` on a delta.

    Args:
        before: snapshot taken before the cell.
        after: snapshot taken after the cell.

    Returns:
        A :class:`SpecCounters` delta (counts in tokens, ``drafts`` in verify steps).
    """
    if not before.engines and not after.engines:
        return _delta_one(before, after)
    per: dict[str, SpecCounters] = {}
    for e in sorted(set(before.engines) | set(after.engines)):
        b = before.engines.get(e, SpecCounters())
        a = after.engines.get(e)
        per[e] = SpecCounters(reset=True) if a is None else _delta_one(b, a)
    valid = [d for d in per.values() if not d.reset]
    gone = tuple(e for e, d in per.items() if d.reset)
    total = sum_counters(valid) if valid else _delta_one(before, after)
    return dataclasses.replace(total, engines=per, reset_engines=gone, reset=not valid)


@dataclass(frozen=True, slots=True)
class CounterChecks:
    """Consistency of one delta: ``k`` = draft tokens per draft when it is a whole number (fixed-k methods,
    e.g. MTP / EAGLE with ``num_speculative_tokens=k``), else ``None``; ``reasons`` lists the violations."""

    k: int | None
    reasons: tuple[str, ...]


def counter_checks(delta: SpecCounters) -> CounterChecks:
    """Check a delta: the per-position accepted counts sum to the accepted total (``PER_POSITION_SUM``),
    and no more draft tokens were proposed than ``drafts`` x the number of positions (``DRAFT_TOKENS_OVER_K``).

    Args:
        delta: from :func:`counters_delta` (counts in tokens, ``drafts`` in verify steps).
    """
    reasons: list[str] = []
    per_pos = delta.accepted_per_position
    if per_pos and abs(sum(per_pos) - delta.accepted_tokens) > 1e-9:
        reasons.append(f"PER_POSITION_SUM(sum {sum(per_pos):g} != accepted {delta.accepted_tokens:g})")
    if per_pos and delta.draft_tokens > delta.drafts * len(per_pos):
        reasons.append(f"DRAFT_TOKENS_OVER_K(draft tokens {delta.draft_tokens:g} > drafts x {len(per_pos)})")
    k = None
    if delta.drafts > 0 and delta.draft_tokens % delta.drafts == 0:
        k = int(delta.draft_tokens // delta.drafts)
    return CounterChecks(k, tuple(reasons))

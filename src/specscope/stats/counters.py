"""Counter deltas between two ``/metrics`` snapshots of one server (Prometheus ``increase()`` rule on a reset).

Pure arithmetic over :class:`specscope.records.SpecCounters`; the scraping and parsing live in
``specscope.client.metrics``.
"""

from __future__ import annotations

from specscope.records import SpecCounters

__all__ = ["counters_delta"]


def _diff(before: float | None, after: float | None) -> tuple[float | None, bool]:
    """after - before for one counter; on a decrease, a restart: the increase is ``after`` (Prometheus rule)."""
    if before is None or after is None:
        return None, False
    if after < before:
        return after, True
    return after - before, False


def counters_delta(before: SpecCounters, after: SpecCounters) -> SpecCounters:
    """The counters' increase between two snapshots of the same server.

    A counter that went down means the server restarted between the scrapes: the result has
    ``reset=True`` and, for that counter, the value after the restart (Prometheus' ``increase()``
    convention), which is NOT the cell's true count; callers must mark such a cell. Gauges
    (``running``, ``waiting``) are ``None`` on a delta. ``present`` is the intersection.

    Args:
        before: snapshot taken before the cell.
        after: snapshot taken after the cell.

    Returns:
        A :class:`SpecCounters` delta (counts in tokens, ``drafts`` in verify steps).
    """
    reset = False
    vals: dict[str, float | None] = {}
    for name in ("drafts", "draft_tokens", "accepted_tokens", "generation_tokens", "prompt_tokens"):
        v, r = _diff(getattr(before, name), getattr(after, name))
        vals[name] = v
        reset |= r
    n = max(len(before.accepted_per_position), len(after.accepted_per_position))
    b = before.accepted_per_position + (0.0,) * (n - len(before.accepted_per_position))  # (n,)
    a = after.accepted_per_position + (0.0,) * (n - len(after.accepted_per_position))  # (n,)
    per_pos = []
    for x, y in zip(b, a):
        v, r = _diff(x, y)
        per_pos.append(v)
        reset |= r
    return SpecCounters(
        drafts=vals["drafts"] or 0.0,
        draft_tokens=vals["draft_tokens"] or 0.0,
        accepted_tokens=vals["accepted_tokens"] or 0.0,
        accepted_per_position=tuple(per_pos),
        generation_tokens=vals["generation_tokens"],
        prompt_tokens=vals["prompt_tokens"],
        running=None,
        waiting=None,
        present=before.present & after.present,
        reset=reset,
    )

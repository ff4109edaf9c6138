"""Per-stream acceptance distributions and the pooled accepted-length histogram (issue 16).

- Per stream: each response's accepted / drafted tokens from the server's per-response fields (llama.cpp
  ``timings``, vLLM ``metrics.speculative_decoding``, SGLang ``meta_info``), pooled over the usable cells of a
  config x workload: min / p05 / p50 / p95 / max (numpy linear percentiles). Path ``per_request``.
- Pooled accepted-length histogram from the per-position counters (path ``counter_delta``): of ``drafts`` verify
  steps, ``per_pos[j-1] - per_pos[j]`` accepted exactly j tokens (prefix acceptance), ``drafts - per_pos[0]``
  accepted none, and ``per_pos[k-1]`` all k.
- Both paths' pooled acceptance rates side by side; when both exist and differ by more than
  :data:`AGREE_TOL` (rounding of a 3-decimal rate), the group gets a reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from specscope.stats.acceptance import acceptance_rate
from specscope.stats.groups import usable
from specscope.stats.summary import CellSummary
from specscope.stats.timeline import percentile

__all__ = ["AGREE_TOL", "StreamAcceptance", "stream_acceptance", "accepted_length_histogram"]

#: Largest difference between the per-request and the counter acceptance rate taken as rounding (fraction).
AGREE_TOL = 5e-4


@dataclass(frozen=True)
class StreamAcceptance:
    """Acceptance of one config x workload by path.

    Attributes:
        streams: responses with per-response speculative fields.
        quantiles: per-stream acceptance min, p05, p50, p95, max (fractions); ``()`` without streams.
        per_request_rate: pooled accepted / drafted over those responses (fraction) or None.
        counter_rate: pooled accepted / drafted of the counter deltas (fraction) or None.
        histogram: steps that accepted exactly 0, 1, ..., k drafted tokens (from the counters), ``()`` if unknown.
        reason: why the two paths disagree, ``""`` when they agree or only one exists.
    """

    streams: int
    quantiles: tuple[float, ...]
    per_request_rate: float | None
    counter_rate: float | None
    histogram: tuple[float, ...]
    reason: str = ""


def accepted_length_histogram(drafts: float, per_position: Iterable[float]) -> tuple[float, ...]:
    """Steps that accepted exactly j = 0..k drafted tokens, from ``drafts`` and the per-position counts."""
    pos = [float(p) for p in per_position]
    if not pos or drafts <= 0:
        return ()
    return (drafts - pos[0], *(pos[j - 1] - pos[j] for j in range(1, len(pos))), pos[-1])


def _quantiles(values: list[float]) -> tuple[float, ...]:
    if not values:
        return ()
    return tuple(float(percentile(values, q) or 0.0) for q in (0, 5, 50, 95, 100))


def stream_acceptance(summaries: Iterable[CellSummary]) -> dict[tuple[str, str], StreamAcceptance]:
    """Per config x workload: the per-stream distribution, both paths' rates, the histogram and any reason."""
    groups: dict[tuple[str, str], list[CellSummary]] = {}
    for c in summaries:
        if usable(c) and (c.stream_acceptance or c.per_request_draft_tokens or (c.counters and c.counters.drafts)):
            groups.setdefault((c.config, c.workload), []).append(c)
    out = {}
    for key, cells in groups.items():
        values = [v for c in cells for v in c.stream_acceptance]
        pr_draft = sum(c.per_request_draft_tokens or 0 for c in cells)
        pr_acc = sum(c.per_request_accepted_tokens or 0 for c in cells)
        counted = [k for k in (c.counters for c in cells) if k is not None and k.drafts]
        drafts = sum(float(k.drafts or 0) for k in counted)
        c_draft = sum(float(k.draft_tokens or 0) for k in counted)
        c_acc = sum(float(k.accepted_tokens or 0) for k in counted)
        width = max((len(k.accepted_per_position) for k in counted), default=0)
        per_pos = [sum(float((k.accepted_per_position or (0.0,) * width)[i]) for k in counted) for i in range(width)]
        pr_rate = acceptance_rate(pr_acc, pr_draft)
        c_rate = acceptance_rate(c_acc, c_draft)
        reason = ""
        if pr_rate is not None and c_rate is not None and abs(pr_rate - c_rate) > AGREE_TOL:
            reason = (
                f"per-request {pr_rate:.3f} != counters {c_rate:.3f}: the counters also count requests outside "
                "these streams (warm-up, other clients) or a response under-reports its drafts"
            )
        out[key] = StreamAcceptance(
            len(values), _quantiles(values), pr_rate, c_rate, accepted_length_histogram(drafts, per_pos), reason
        )
    return out

"""A cell's output-token total and where it came from (issue 14, "Streams").

Tokens come from each stream's ``usage.completion_tokens`` (``"usage"``), never from SSE chunk counts. Streams
that carried no usage get their tokens from the server's generated-token counter delta over the cell
(the counter each adapter declares into ``generation_tokens``: ``specscope.adapters.<engine>.metrics``) only where
the arithmetic is exact:

    delta - (usage of the streams that had it) = (tokens of the ok / degraded streams without usage)
                                               + (tokens the failed streams without usage made the server generate)

Each unknown term is bounded: a stream that received ``c`` non-empty token chunks generated at least ``c`` tokens
(every chunk a server sends carries at least one new token) and at most the request's ``max_tokens`` (a server
never generates more); a failed stream that received no token and was ended by the server (nothing but
``data: [DONE]``: ``EMPTY_STREAM``, or an HTTP error status) generated 0. The counted streams' total is then
known to lie in ``[max(rest - hi_failed, lo_counted), min(rest - lo_failed, hi_counted)]``; when that interval is
one number the cell's tokens are exact and the source is ``"counter_delta"``. A stream that stopped early after a
few chunks of a longer answer leaves the interval open: the cell keeps the usage total, the source ``"missing"``
and the reason ``TOKENS_UNKNOWN`` with the interval, never 0 for the missing streams. A counter reset or an
unknown delta leaves every missing count unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from specscope.records import StreamRecord

__all__ = ["CellTokens", "cell_tokens", "generated_bounds"]


@dataclass(frozen=True, slots=True)
class CellTokens:
    """A cell's output tokens (tokens), their source and the reasons to flag the cell."""

    output_tokens: int
    source: Literal["usage", "missing", "counter_delta"]
    reasons: tuple[str, ...] = ()


def generated_bounds(stream: StreamRecord, max_tokens: int | None) -> tuple[int, int | None]:
    """Tokens the server generated for a stream without usage: (at least, at most; ``None``: no upper bound).

    At least one token per non-empty content or reasoning chunk received; at most ``max_tokens`` (the request's
    limit; ``None`` when unknown). A failed stream with no token that the server itself ended (``EMPTY_STREAM``:
    nothing but ``data: [DONE]``; an HTTP error status) generated exactly 0.
    """
    chunks = stream.content_chunks + stream.reasoning_chunks
    served_nothing = stream.reason == "EMPTY_STREAM" or (stream.http_status not in (None, 200))
    if stream.status == "failed" and stream.first_token_ns is None and served_nothing:
        return 0, 0
    return chunks, max_tokens


def cell_tokens(
    streams: Sequence[StreamRecord], generation_delta: float | None, reset: bool, max_tokens: int | None = None
) -> CellTokens:
    """The cell's output tokens.

    Args:
        streams: the cell's streams.
        generation_delta: the server's generated-token counter delta over the cell (tokens), ``None`` if unknown.
        reset: a counter went down between the scrapes (the delta is not the cell's count).
        max_tokens: the largest ``max_tokens`` of the cell's requests (tokens), ``None`` if not stored.

    Returns:
        ``"usage"`` when every stream carried usage; ``"counter_delta"`` when the ok / degraded streams that lacked
        usage have an exactly known total (module doc); else ``"missing"`` with the usage total of the streams
        that had it.
    """
    usage_total = sum(s.output_tokens or 0 for s in streams)
    lacking = [s for s in streams if s.output_tokens is None]
    if streams and not lacking:
        return CellTokens(usage_total, "usage")
    counted = [s for s in lacking if s.status != "failed"]
    delivered = [s for s in lacking if s.first_token_ns is not None]
    if not delivered and not counted:
        return CellTokens(usage_total, "missing")
    unknown = f"TOKENS_UNKNOWN({len(delivered)} streams with tokens, no usage)"
    if generation_delta is None or reset or generation_delta != int(generation_delta) or not counted:
        return CellTokens(usage_total, "missing", (unknown,))
    rest = int(generation_delta) - usage_total
    lo, hi = _interval(rest, counted, [s for s in lacking if s.status == "failed"], max_tokens)
    if lo == hi:
        return CellTokens(usage_total + lo, "counter_delta")
    if lo > hi:
        return CellTokens(
            usage_total,
            "missing",
            (f"{unknown[:-1]}; the counter delta does not add up: at least {lo}, at most {hi})",),
        )
    return CellTokens(usage_total, "missing", (f"{unknown[:-1]}; the ok ones made {lo}..{hi} of the counter delta)",))


def _interval(
    rest: int, counted: Sequence[StreamRecord], failed: Sequence[StreamRecord], max_tokens: int | None
) -> tuple[int, int]:
    """Bounds of the counted streams' total (tokens): ``rest`` (the delta less the usage tokens) less what the failed
    streams generated, within the counted streams' own bounds."""
    c_bounds = [generated_bounds(s, max_tokens) for s in counted]
    f_bounds = [generated_bounds(s, max_tokens) for s in failed]
    lo_c = sum(b[0] for b in c_bounds)
    hi_c = None if any(b[1] is None for b in c_bounds) else sum(b[1] or 0 for b in c_bounds)
    lo_f = sum(b[0] for b in f_bounds)
    hi_f = None if any(b[1] is None for b in f_bounds) else sum(b[1] or 0 for b in f_bounds)
    lo = max(lo_c, rest - hi_f) if hi_f is not None else lo_c
    upper = rest - lo_f
    hi = upper if hi_c is None else min(upper, hi_c)
    return lo, hi

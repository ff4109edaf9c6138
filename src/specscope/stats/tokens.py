"""A cell's output-token total and where it came from (issue 14, "Streams").

Tokens come from each stream's ``usage.completion_tokens`` (``"usage"``), never from SSE chunk counts. A
stream that finished normally but carried no usage gets its tokens from the server's generated-token counter
delta over the cell (``vllm:generation_tokens_total`` / ``llamacpp:tokens_predicted_total``) when that delta
can be attributed to it: it is the only stream that delivered tokens without usage, the delta is known and
no counter reset happened; the source is then ``"counter_delta"``. Otherwise its tokens stay unknown
(``"missing"``, reason ``TOKENS_UNKNOWN``), never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from specscope.records import StreamRecord

__all__ = ["CellTokens", "cell_tokens"]


@dataclass(frozen=True, slots=True)
class CellTokens:
    """A cell's output tokens (tokens), their source and the reasons to flag the cell."""

    output_tokens: int
    source: Literal["usage", "missing", "counter_delta"]
    reasons: tuple[str, ...] = ()


def cell_tokens(streams: Sequence[StreamRecord], generation_delta: float | None, reset: bool) -> CellTokens:
    """The cell's output tokens.

    Args:
        streams: the cell's streams.
        generation_delta: the server's generated-token counter delta over the cell (tokens), ``None`` if unknown.
        reset: a counter went down between the scrapes (the delta is not the cell's count).

    Returns:
        ``"usage"`` when every stream carried usage; ``"counter_delta"`` when exactly one ok stream that delivered
        tokens lacked usage and the delta gives its count (delta - the others' usage, at least 1 token);
        else ``"missing"`` with the usage total of the streams that had it.
    """
    usage_total = sum(s.output_tokens or 0 for s in streams)
    lacking = [s for s in streams if s.output_tokens is None]
    if streams and not lacking:
        return CellTokens(usage_total, "usage")
    delivered = [s for s in lacking if s.first_token_ns is not None]
    if not delivered:
        return CellTokens(usage_total, "missing")
    if len(delivered) == 1 and delivered[0].status == "ok" and generation_delta is not None and not reset:
        rest = generation_delta - usage_total
        if rest >= 1 and rest == int(rest):
            return CellTokens(usage_total + int(rest), "counter_delta")
    return CellTokens(usage_total, "missing", (f"TOKENS_UNKNOWN({len(delivered)} streams with tokens, no usage)",))

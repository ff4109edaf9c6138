"""The cell's token total when some streams carry no usage: exact from the counter delta or an open interval
(issue 14, "Streams"; :mod:`specscope.stats.tokens`). Hand-made stream records, exact figures."""

from __future__ import annotations

from specscope.records import StreamRecord
from specscope.stats.tokens import cell_tokens, generated_bounds


def stream(chunks: int, usage: int | None, status: str = "ok", reason: str | None = None, http: int = 200):
    return StreamRecord(
        prompt_id="p",
        intended_ns=0,
        send_ns=0,
        first_token_ns=1 if chunks else None,
        first_content_ns=1 if chunks else None,
        last_token_ns=2 if chunks else None,
        end_ns=3,
        content_chunks=chunks,
        reasoning_chunks=0,
        output_tokens=usage,
        prompt_tokens=None,
        token_source="usage" if usage is not None else "missing",
        finish_reason="stop" if status == "ok" else None,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        http_status=http,
    )


EMPTY = stream(0, None, "failed", "EMPTY_STREAM")
HTTP_503 = stream(0, None, "failed", "http 503", http=503)
TIMEOUT = stream(0, None, "failed", "timeout")


def test_bounds_of_each_shape():
    assert generated_bounds(EMPTY, 12) == (0, 0)  # the server ended it with nothing: it generated nothing
    assert generated_bounds(HTTP_503, 12) == (0, 0)
    assert generated_bounds(TIMEOUT, 12) == (0, 12)  # the server may still have generated up to max_tokens
    assert generated_bounds(stream(2, None, "failed", "STOPPED_EARLY"), 12) == (2, 12)
    assert generated_bounds(stream(3, None), None) == (3, None)


def test_exact_when_the_failed_streams_generated_a_known_count():
    ok_no_usage, normal = stream(3, None), stream(4, 12)
    # the [DONE]-only stream generated 0, the normal one 12: the ok stream without usage made 24 - 12 = 12
    got = cell_tokens([EMPTY, ok_no_usage, normal], 24, False, 12)
    assert (got.output_tokens, got.source, got.reasons) == (24, "counter_delta", ())
    # two ok streams without usage: their total is exact (the cell's figure), 30 - 12 = 18
    both = cell_tokens([HTTP_503, stream(5, None), stream(6, None), normal], 30, False, 12)
    assert (both.output_tokens, both.source, both.reasons) == (30, "counter_delta", ())
    # a stream that stopped early after max_tokens one-token chunks generated exactly max_tokens
    full_early = stream(12, None, "failed", "STOPPED_EARLY")
    got = cell_tokens([EMPTY, full_early, ok_no_usage], 24, False, 12)
    assert (got.output_tokens, got.source) == (12, "counter_delta")


def test_open_interval_stays_missing_with_its_bounds():
    early = stream(2, None, "failed", "STOPPED_EARLY")
    got = cell_tokens([EMPTY, early, stream(3, None)], 20, False, 12)
    assert (got.output_tokens, got.source) == (0, "missing")
    assert got.reasons == (
        "TOKENS_UNKNOWN(2 streams with tokens, no usage; the ok ones made 8..12 of the counter delta)",
    )
    # without max_tokens nothing bounds the stopped-early stream from above: 3..18
    assert (
        cell_tokens([early, stream(3, None)], 20, False, None).reasons[0].endswith("made 3..18 of the counter delta)")
    )
    # a timed-out request may have generated tokens the counters saw: not exact either
    assert cell_tokens([TIMEOUT, stream(3, None)], 12, False, 12).source == "missing"


def test_no_delta_a_reset_or_an_impossible_delta():
    pair = [stream(3, None), stream(4, 12)]
    assert cell_tokens(pair, None, False, 12).reasons == ("TOKENS_UNKNOWN(1 streams with tokens, no usage)",)
    assert cell_tokens(pair, 24, True, 12).source == "missing"
    # the delta leaves 1 token for a stream that received 3 chunks: the counters and the stream disagree
    bad = cell_tokens(pair, 13, False, 12)
    assert (bad.source, bad.reasons) == (
        "missing",
        ("TOKENS_UNKNOWN(1 streams with tokens, no usage; the counter delta does not add up: at least 3, at most 1)",),
    )
    got = cell_tokens([stream(4, 12)], 12, False, 12)
    assert (got.output_tokens, got.source) == (12, "usage")

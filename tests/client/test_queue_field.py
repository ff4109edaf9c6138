"""The per-response queue wait (``StreamRecord.queue_s``) through :func:`parse_capture` from raw SSE bytes, in the
shapes the engines send (pure parsing: the live shape is checked against the truth server in
tests/truth/test_truth_queue.py)."""

from __future__ import annotations

import json
from pathlib import Path

from specscope.client.events import BadEvent, Chunk, decode_event
from specscope.client.parse import RawCapture, parse_capture
from specscope.client.spec_fields import per_response_queue_s

MS = 1_000_000


def ev(obj) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"


def queue_s(obj: dict) -> float | None:
    """``per_response_queue_s`` of one chunk, decoded through the typed event boundary as the parser does."""
    chunk = decode_event(json.dumps(obj).encode())
    assert isinstance(chunk, Chunk), chunk
    return per_response_queue_s(chunk.metrics)


def capture(*events: bytes) -> RawCapture:
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=2)
    raw.chunks = [(10 * MS * (i + 1), e) for i, e in enumerate(events)]
    raw.end_ns = 10 * MS * (len(events) + 1)
    return raw


TOKENS = [ev({"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]}) for t in ("a", "b")]
FINISH = ev({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
# vLLM 0.32.0 with --enable-per-request-metrics: the final usage chunk (choices: []) with top-level metrics,
# keys in PerRequestMetrics order (vllm/entrypoints/generate/base/protocol.py:122-129)
VLLM_METRICS = {
    "time_to_first_token_ms": 12.5,
    "generation_time_ms": 40.0,
    "queue_time_ms": 1250.0,
    "mean_itl_ms": 40.0,
    "tokens_per_second": 38.1,
}


def test_vllm_queue_time_ms_becomes_queue_s():
    usage_chunk = ev({"choices": [], "usage": USAGE, "metrics": VLLM_METRICS})
    r = parse_capture(capture(*TOKENS, FINISH, usage_chunk, ev(b"[DONE]")))
    assert (r.status, r.output_tokens, r.queue_s) == ("ok", 2, 1.25)


def test_a_real_vllm_usage_chunk():
    """vLLM 0.32.0 CPU, --enable-per-request-metrics (tests/data/SOURCES.md): queue_time_ms 0.0462 ms."""
    line = (Path(__file__).parent.parent / "data" / "vllm" / "usage_chunk_per_request_metrics_0.32.0.txt").read_text()
    chunk = json.loads(line.strip().removeprefix("data: "))
    assert list(chunk["metrics"]) == list(VLLM_METRICS)  # the field order this file's hand-made chunk uses
    assert queue_s(chunk) == 0.046229000872699544 / 1000
    r = parse_capture(capture(*TOKENS, FINISH, line.strip().encode() + b"\n\n", ev(b"[DONE]")))
    assert (r.status, r.output_tokens, r.queue_s) == ("ok", 5, 0.046229000872699544 / 1000)


def test_queue_zero_is_kept_and_spec_only_metrics_give_none():
    zero = {**VLLM_METRICS, "queue_time_ms": 0.0}
    assert queue_s({"choices": [], "metrics": zero}) == 0.0
    spec_only = {"speculative_decoding": {"num_draft_tokens": 4, "num_accepted_draft_tokens": 3}}
    assert queue_s({"choices": [], "metrics": spec_only}) is None


def test_llamacpp_timings_have_no_queue_field_and_nothing_is_derived():
    timings = {"prompt_n": 3, "prompt_ms": 21.0, "predicted_n": 2, "predicted_ms": 40.0, "draft_n": 0}
    fin = ev({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "usage": USAGE, "timings": timings})
    r = parse_capture(capture(*TOKENS, fin, ev(b"[DONE]")))
    assert (r.status, r.output_tokens, r.queue_s) == ("ok", 2, None)


def test_malformed_queue_values():
    """A negative or absent wait is no wait (None); a value of the wrong type never reaches the reader: the typed
    boundary turns the event into a BAD_EVENT naming the field, and the stream says so."""
    for absent in (-1.0, None):
        assert queue_s({"metrics": {"queue_time_ms": absent}}) is None
    assert queue_s({}) is None
    for bad, got in (("12", "str"), (True, "bool"), ([1], "array")):
        decoded = decode_event(json.dumps({"metrics": {"queue_time_ms": bad}}).encode())
        assert decoded == BadEvent(f"Expected `float | null`, got `{got}` - at `$.metrics.queue_time_ms`")
    decoded = decode_event(b'{"metrics": "x"}')
    assert isinstance(decoded, BadEvent) and "`$.metrics`" in decoded.what
    usage_chunk = ev({"choices": [], "usage": USAGE, "metrics": {**VLLM_METRICS, "queue_time_ms": "12"}})
    r = parse_capture(capture(*TOKENS, FINISH, usage_chunk, ev(b"[DONE]")))
    assert (r.status, r.queue_s, r.output_tokens) == ("degraded", None, None)
    assert r.reason == (
        "BAD_EVENT(1 events; first: Expected `float | null`, got `str` - at `$.metrics.queue_time_ms`); no usage; "
        "short without stop"
    )

"""The per-response queue wait (``StreamRecord.queue_s``) through :func:`parse_capture` from raw SSE bytes, in the
shapes the engines send (pure parsing: the live shape is checked against the truth server in
tests/truth/test_truth_queue.py)."""

from __future__ import annotations

import json
from pathlib import Path

from specscope.client.parse import RawCapture, parse_capture
from specscope.client.spec_fields import per_response_queue_s

MS = 1_000_000


def ev(obj) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"


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
    assert per_response_queue_s(chunk) == 0.046229000872699544 / 1000
    r = parse_capture(capture(*TOKENS, FINISH, line.strip().encode() + b"\n\n", ev(b"[DONE]")))
    assert (r.status, r.output_tokens, r.queue_s) == ("ok", 5, 0.046229000872699544 / 1000)


def test_queue_zero_is_kept_and_spec_only_metrics_give_none():
    zero = {**VLLM_METRICS, "queue_time_ms": 0.0}
    assert per_response_queue_s({"choices": [], "metrics": zero}) == 0.0
    spec_only = {"speculative_decoding": {"num_draft_tokens": 4, "num_accepted_draft_tokens": 3}}
    assert per_response_queue_s({"choices": [], "metrics": spec_only}) is None


def test_llamacpp_timings_have_no_queue_field_and_nothing_is_derived():
    timings = {"prompt_n": 3, "prompt_ms": 21.0, "predicted_n": 2, "predicted_ms": 40.0, "draft_n": 0}
    fin = ev({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "usage": USAGE, "timings": timings})
    r = parse_capture(capture(*TOKENS, fin, ev(b"[DONE]")))
    assert (r.status, r.output_tokens, r.queue_s) == ("ok", 2, None)


def test_malformed_queue_values_are_ignored():
    for bad in (-1.0, "12", True, None):
        assert per_response_queue_s({"metrics": {"queue_time_ms": bad}}) is None
    assert per_response_queue_s({"metrics": "x"}) is None and per_response_queue_s({}) is None

"""SSE parsing and stream classification on the recorded cases C13 and C14 (pure parsing: captured bytes
with the cases' arrival times are replayed into parse_capture)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paths import CASES, FIXTURES
from specscope.client.parse import ParseOptions, RawCapture, parse_capture, parse_sse_capture
from specscope.client.stream import prepare_body

MS = 1_000_000
KEEP_TEXT = ParseOptions(keep_text=True)


def _replay(timeline: Path, max_tokens: int | None, *, split: int | None = None) -> RawCapture:
    """Each timeline event arrives as its own read at t_ms (send at 0); ``split`` cuts each event's bytes in two."""
    raw = RawCapture("p", intended_ns=0, send_ns=0, http_status=200, max_tokens=max_tokens, options=KEEP_TEXT)
    for line in timeline.read_text().splitlines():
        ev = json.loads(line)
        data = (ev["line"] + "\n\n").encode()
        t = int(ev["t_ms"] * MS)
        if split:
            raw.chunks.append((t - 1, data[:split]))
            raw.chunks.append((t, data[split:]))
        else:
            raw.chunks.append((t, data))
        raw.end_ns = t
    return raw


@pytest.mark.parametrize("split", [None, 7, 100])
def test_c13_multi_token_chunks(split):
    rec = parse_capture(_replay(CASES / "C13" / "stream.timeline.jsonl", 64, split=split))
    assert rec.output_tokens == 9
    assert rec.token_source == "usage"
    assert rec.content_chunks == 3
    assert rec.ttft_ns == 200 * MS
    assert rec.last_token_ns == 300 * MS
    assert rec.e2e_ns == 303 * MS
    assert rec.tpot_ns == pytest.approx(12.5 * MS)
    assert rec.output_tokens / (rec.e2e_ns / 1e9) == pytest.approx(29.70, abs=0.005)
    assert rec.finish_reason == "stop"
    assert rec.status == "ok" and rec.reason is None
    assert rec.text == "Hello there, how are you doing today?"
    assert rec.prompt_tokens == 12


def test_c13_raw_sse_file_events():
    data = (CASES / "C13" / "stream.sse").read_bytes()
    events = parse_sse_capture([(5, data[:33]), (6, data[33:])])
    assert len(events) == 7
    assert events[-1][1].data == "[DONE]"
    assert events[0][0] == 6  # completed by the second read


def test_c14_a_reasoning_then_content():
    rec = parse_capture(_replay(CASES / "C14" / "A_reasoning_then_content.timeline.jsonl", 256))
    assert rec.ttft_ns == 150 * MS
    assert rec.first_content_ns == 1900 * MS
    assert rec.output_tokens == 60
    assert rec.tpot_ns / MS == pytest.approx(30.508, abs=0.0005)
    assert rec.e2e_ns == 1953 * MS
    assert rec.reasoning_chunks == 2 and rec.content_chunks == 2
    assert rec.reasoning_text == "Okay, 91 = 7 x 13"
    assert rec.status == "ok"


def test_c14_b_reasoning_only_length():
    rec = parse_capture(_replay(CASES / "C14" / "B_reasoning_only_length.timeline.jsonl", 32))
    assert rec.status == "ok"
    assert rec.ttft_ns == 140 * MS
    assert rec.first_content_ns is None
    assert rec.output_tokens == 32
    assert rec.tpot_ns / MS == pytest.approx(24.516, abs=0.0005)
    assert rec.e2e_ns == 903 * MS
    assert rec.finish_reason == "length"
    assert rec.reasoning_text == "Let me check divisibility by 2, 3, 5 and 7"
    # mean TTFT over A and B
    a = parse_capture(_replay(CASES / "C14" / "A_reasoning_then_content.timeline.jsonl", 256))
    assert (a.ttft_ns + rec.ttft_ns) / 2 == 145 * MS


def test_llamacpp_final_chunk_timings_kept():
    final = (FIXTURES / "llamacpp_chat_completion_final_chunk_with_draft_timings.json").read_text().strip()
    tok = json.dumps({"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]})
    raw = RawCapture(
        "p",
        0,
        0,
        http_status=200,
        max_tokens=1000,
        chunks=[(1, f"data: {tok}\n\n".encode()), (2, f"data: {final}\n\ndata: [DONE]\n\n".encode())],
        end_ns=3,
    )
    rec = parse_capture(raw)
    assert rec.server_draft_tokens == 604
    assert rec.server_accepted_tokens == 515
    assert rec.output_tokens == 665
    assert rec.status == "ok"


def test_vllm_per_request_spec_metrics_kept():
    m = json.loads((FIXTURES / "vllm_per_request_spec_decode_metrics_example.json").read_text())
    tok = {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}
    usage = {"choices": [], "usage": {"completion_tokens": 5, "prompt_tokens": 3}, **m}
    body = f"data: {json.dumps(tok)}\n\ndata: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode()
    rec = parse_capture(RawCapture("p", 0, 0, http_status=200, max_tokens=10, chunks=[(1, body)], end_ns=2))
    assert rec.server_draft_tokens == 129
    assert rec.server_accepted_tokens == 10


def test_prepare_body_forces_streaming_usage():
    b = json.loads(prepare_body({"messages": [], "stream_options": {"continuous_usage_stats": False}}))
    assert b["stream"] is True
    assert b["stream_options"] == {"continuous_usage_stats": False, "include_usage": True}

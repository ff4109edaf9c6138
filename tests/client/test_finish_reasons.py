"""Each finish reason the engines send, read by name through a real stream from the truth server.

vLLM's finish reasons (``vllm/v1/request.py`` ``_FINISHED_REASON_MAP``; ``FinishReason`` in
``vllm/v1/engine/__init__.py``: STOP, LENGTH, ABORT, ERROR, REPETITION, lower-cased on the wire): ``stop``, ``length``,
``abort``, ``error`` and ``repetition`` (``SamplingParams.repetition_detection``: ``check_stop`` in
``vllm/v1/core/sched/utils.py`` ends the request ``FINISHED_REPETITION``); the chat layer adds ``tool_calls``. SGLang
sends ``stop``, ``length`` and ``abort``; llama.cpp's server ``stop``, ``length`` and ``tool_calls``.
"""

from __future__ import annotations

import json

import pytest

from specscope.adapters.openai.endpoints import COMPLETIONS, RESPONSES
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth import ResponsePlan, TruthScript, TruthServer


def _one(finish: str | None, output_tokens: int = 5) -> tuple[str, str | None, int | None, str | None]:
    plan = ResponsePlan(output_tokens=output_tokens, finish_reason=finish, role_ms=0, prompt_tokens=3)
    body = {"model": "m", "max_tokens": 16, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with TruthServer(TruthScript(default=plan)) as ts:
        (rec,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", body)], 1, ClientSettings(workers=1)))
    return rec.status, rec.reason, rec.output_tokens, rec.finish_reason


@pytest.mark.parametrize(
    ("finish", "want"),
    [
        # vLLM's repetition detector ended the generation, a rule the request asked for: a finished answer, as
        # ``stop`` (before: degraded, "short without stop")
        ("repetition", ("ok", None, 5, "repetition")),
        # vLLM's FINISHED_ERROR: a request-level internal error; the generation did not complete (as ``abort``)
        ("error", ("failed", "ABORTED(finish_reason error)", 5, "error")),
        ("abort", ("failed", "ABORTED(finish_reason abort)", 5, "abort")),
        # a finish reason no engine is known to send is named, not read as a short answer
        ("content_filter", ("degraded", "UNKNOWN_FINISH(finish_reason content_filter)", 5, "content_filter")),
        ("stop", ("ok", None, 5, "stop")),
        # length before max_tokens (16): the server's own length limit (vLLM's check_stop also ends a request
        # FINISHED_LENGTH_CAPPED at num_tokens >= max_model_len) cut it; once read as "short without stop"
        (
            "length",
            (
                "degraded",
                "SERVER_LENGTH_LIMIT(finish_reason length at 5 of max_tokens 16: the server's own length limit cut "
                "the answer, e.g. prompt + answer at its context length)",
                5,
                "length",
            ),
        ),
    ],
)
def test_each_known_finish_reason_is_read_by_name(finish: str, want: tuple) -> None:
    assert _one(finish) == want


@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
def test_a_server_that_ignores_stream_true_is_named(hot_path: str) -> None:
    """A server that answers ``stream: true`` with one JSON ``chat.completion`` body (no SSE event at all) read as
    ``EMPTY_STREAM``. Now it is named; its usage is kept (the server generated those tokens) and there is no first
    token: the answer came whole, so TTFT is absent, never 0."""
    plan = ResponsePlan(output_tokens=5, unstreamed=True, prompt_tokens=3)
    body = {"model": "m", "max_tokens": 16, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with TruthServer(TruthScript(default=plan)) as ts:
        settings = ClientSettings(workers=1, hot_path=hot_path)
        (rec,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", body)], 1, settings))
    assert (rec.status, rec.reason) == ("failed", "NOT_STREAMED(one chat.completion body, no event stream)")
    assert (rec.output_tokens, rec.prompt_tokens, rec.finish_reason, rec.token_source) == (5, 3, "stop", "usage")
    assert (rec.first_token_ns, rec.last_token_ns, rec.content_chunks) == (None, None, 0)


@pytest.mark.parametrize("hot_path", ["wire", "aiohttp"])
def test_a_whole_answer_longer_than_4_kib_keeps_its_usage(hot_path: str) -> None:
    """A whole ``chat.completion`` body of 3000 tokens (~6 KB: its usage at the end, past the first 4 KiB that were
    once all that was kept of a body with no SSE event, so its tokens read absent) keeps its usage: the whole body is
    read, up to ``max_event_bytes`` (past which the body is cut ``RUNAWAY``, as any unfinished event)."""
    plan = ResponsePlan(output_tokens=3000, unstreamed=True, prompt_tokens=3)
    body = {"model": "m", "max_tokens": 4000, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with TruthServer(TruthScript(default=plan)) as ts:
        settings = ClientSettings(workers=1, hot_path=hot_path)
        (rec,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", body)], 1, settings))
    assert rec.bytes_received > 4096
    assert (rec.status, rec.reason) == ("failed", "NOT_STREAMED(one chat.completion body, no event stream)")
    assert (rec.output_tokens, rec.prompt_tokens, rec.finish_reason, rec.token_source) == (3000, 3, "stop", "usage")


def test_a_whole_answer_past_max_event_bytes_is_a_runaway() -> None:
    """The bound on what is held of a body with no SSE event: ``max_event_bytes`` (the same budget as one
    unfinished event), past which the stream is cut and named, not read."""
    from specscope.client.parse import ParseOptions, RawCapture, parse_capture

    body = json.dumps(
        {"id": "x", "object": "text_completion", "choices": [{"index": 0, "text": "y " * 5000}],
         "usage": {"completion_tokens": 5000, "prompt_tokens": 3}}
    ).encode()  # fmt: skip
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=None, options=ParseOptions(max_event_bytes=8192))
    raw.chunks, raw.end_ns = [(1_000, body[:6000]), (2_000, body[6000:])], 3_000
    r = parse_capture(raw)
    assert (r.status, r.reason) == ("failed", "RUNAWAY(an unfinished SSE event over max_event_bytes 8192)")
    assert (r.output_tokens, r.token_source) == (None, "missing")


@pytest.mark.parametrize(
    ("endpoint", "want"),
    [
        (COMPLETIONS, ("NOT_STREAMED(one text_completion body, no event stream)", 5, "stop")),
        # a Responses body: its usage in the Responses names (``input_tokens`` / ``output_tokens``), its finish from
        # its ``status`` (``completed`` -> ``stop``); once read as absent
        (RESPONSES, ("NOT_STREAMED(one response body, no event stream)", 5, "stop")),
    ],
)
def test_each_endpoints_whole_answer_is_named(endpoint: str, want: tuple) -> None:
    plan = ResponsePlan(output_tokens=5, unstreamed=True, prompt_tokens=3)
    body = {"model": "m", "max_tokens": 16, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with TruthServer(TruthScript(default=plan, apis=[endpoint])) as ts:
        settings = ClientSettings(workers=1, endpoint=endpoint)
        (rec,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", body)], 1, settings))
    assert (rec.status, rec.first_token_ns) == ("failed", None)
    assert (rec.reason, rec.output_tokens, rec.finish_reason) == want


def test_a_whole_responses_body_keeps_input_output_and_reasoning_tokens() -> None:
    """A whole ``response`` body's ``usage.input_tokens`` / ``output_tokens`` /
    ``output_tokens_details.reasoning_tokens`` are read (they once were unread: tokens absent)."""
    plan = ResponsePlan(output_tokens=7, unstreamed=True, prompt_tokens=4, reasoning_tokens=2)
    body = {"model": "m", "max_output_tokens": 16, "stream": True, "input": "hi"}
    with TruthServer(TruthScript(default=plan, apis=[RESPONSES])) as ts:
        settings = ClientSettings(workers=1, endpoint=RESPONSES)
        (rec,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", body)], 1, settings))
    assert (rec.status, rec.reason) == ("failed", "NOT_STREAMED(one response body, no event stream)")
    assert (rec.prompt_tokens, rec.output_tokens, rec.reasoning_tokens, rec.token_source) == (4, 7, 2, "usage")

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
        ("length", ("degraded", "short without stop", 5, "length")),  # length before max_tokens (16)
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


def test_a_whole_answer_longer_than_the_kept_body_is_named_without_its_usage() -> None:
    """Only the first 4 KiB of a body with no SSE event are kept: a long whole answer is still named by its
    ``object``, its usage (at the body's end) absent, not 0."""
    from specscope.client.parse import ERROR_BODY_BYTES, ParseOptions, RawCapture, parse_capture

    body = json.dumps(
        {"id": "x", "object": "text_completion", "choices": [{"index": 0, "text": "y " * ERROR_BODY_BYTES}],
         "usage": {"completion_tokens": 4096, "prompt_tokens": 3}}
    ).encode()  # fmt: skip
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=None, options=ParseOptions())
    raw.chunks, raw.end_ns = [(1_000, body[:3000]), (2_000, body[3000:])], 3_000
    r = parse_capture(raw)
    assert (r.status, r.reason) == ("failed", "NOT_STREAMED(one text_completion body, no event stream)")
    assert (r.output_tokens, r.finish_reason, r.first_token_ns, r.token_source) == (None, None, None, "missing")


@pytest.mark.parametrize(
    ("endpoint", "want"),
    [
        (COMPLETIONS, ("NOT_STREAMED(one text_completion body, no event stream)", 5, "stop")),
        # a Responses body's usage is ``output_tokens`` under ``usage`` and it has no ``choices``: both stay absent
        (RESPONSES, ("NOT_STREAMED(one response body, no event stream)", None, None)),
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

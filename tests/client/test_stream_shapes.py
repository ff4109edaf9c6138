"""Broken stream shapes through :func:`parse_capture` from raw SSE bytes (issue 14, "Streams"): exact status and
reason for each, with the arrival instants that the records keep."""

from __future__ import annotations

import json

from specscope.client.parse import ParseOptions, RawCapture, parse_capture

MS = 1_000_000


def ev(obj) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"


def delta(text: str | None = None, finish: str | None = None) -> dict:
    d = {} if text is None else {"content": text}
    return {"choices": [{"index": 0, "delta": d, "finish_reason": finish}]}


USAGE = {"choices": [], "usage": {"completion_tokens": 2, "prompt_tokens": 3}}


def capture(*events: bytes, status: int = 200, error: str | None = None) -> RawCapture:
    raw = RawCapture("p", 0, 0, http_status=status, max_tokens=2, error=error, options=ParseOptions(keep_text=True))
    raw.chunks = [(10 * MS * (i + 1), e) for i, e in enumerate(events)]
    raw.end_ns = 10 * MS * (len(events) + 1)
    return raw


def test_done_only_is_an_empty_stream():
    r = parse_capture(capture(ev(b"[DONE]")))
    assert (r.status, r.reason, r.first_token_ns, r.output_tokens, r.token_source) == (
        "failed",
        "EMPTY_STREAM",
        None,
        None,
        "missing",
    )


def test_clean_close_after_deltas_without_terminal_event_is_stopped_early():
    r = parse_capture(capture(ev(delta("a")), ev(delta("b"))))
    assert (r.status, r.reason) == ("failed", "STOPPED_EARLY")
    assert (r.first_token_ns, r.last_token_ns, r.end_ns, r.content_chunks, r.text) == (
        10 * MS,
        20 * MS,
        30 * MS,
        2,
        "ab",
    )


def test_finished_without_usage_is_ok_with_unknown_tokens():
    r = parse_capture(capture(ev(delta("a")), ev(delta("b")), ev(delta(finish="stop")), ev(b"[DONE]")))
    assert (r.status, r.reason, r.output_tokens, r.token_source, r.finish_reason) == (
        "ok",
        None,
        None,
        "missing",
        "stop",
    )


def test_usage_in_a_chunk_with_empty_choices_is_read():
    r = parse_capture(capture(ev(delta("a")), ev(delta("b", finish="stop")), ev(USAGE), ev(b"[DONE]")))
    assert (r.status, r.output_tokens, r.prompt_tokens, r.token_source) == ("ok", 2, 3, "usage")


def test_a_transport_error_is_not_taken_for_a_clean_close():
    r = parse_capture(capture(ev(delta("a")), error="connection dropped"))
    assert (r.status, r.reason) == ("degraded", "connection dropped; no [DONE]; no usage; short without stop")
    r = parse_capture(capture(error="connection dropped"))
    assert (r.status, r.reason) == ("failed", "connection dropped; no [DONE]; no usage; short without stop")


def _with_usage(text: str, n: int) -> dict:
    """A content chunk carrying cumulative usage, as vLLM sends every chunk with --enable-force-include-usage and
    stream_options.continuous_usage_stats (vllm/entrypoints/openai/chat_completion/serving.py)."""
    return {**delta(text), "usage": {"prompt_tokens": 3, "completion_tokens": n, "total_tokens": 3 + n}}


def test_running_usage_is_not_a_terminal_event():
    """Issue 26: a stream cut mid-way whose every chunk carried usage is failed (STOPPED_EARLY), not degraded."""
    r = parse_capture(capture(ev(_with_usage("a", 1)), ev(_with_usage("b", 2))))
    assert (r.status, r.reason, r.output_tokens) == ("failed", "STOPPED_EARLY", 2)
    full = parse_capture(
        capture(ev(_with_usage("a", 1)), ev(_with_usage("b", 2)), ev(delta(finish="length")), ev(USAGE), ev(b"[DONE]"))
    )
    assert (full.status, full.reason, full.output_tokens) == ("ok", None, 2)


# An in-stream error event ends a generation that did not complete: the request failed, whatever came before it
# (vllm-project/vllm PR #57519, sgl-project/sglang PR #38868: an error after partial output was counted a success,
# its partial tokens and short latency in the figures). vLLM's shape: after an exception in the stream generator,
# ``data: {"error": {...}}`` then ``data: [DONE]`` (vllm/entrypoints/openai/serving_chat.py,
# ``create_streaming_error_response``); SGLang's is the same envelope.
VLLM_ERROR = {"error": {"message": "EngineCore encountered an issue.", "type": "InternalServerError", "code": 500}}
# llama.cpp's server before PR #16109 (e.g. b5630, issue ggml-org/llama.cpp#14566) wrote its stream error as an SSE
# field of its own, ``error: {...}``, then ``data: [DONE]`` (tools/server/server.cpp, server_sent_event(sink,
# "error", ...)): a WHATWG decoder ignores the unknown field, and the server's message was lost.
LLAMACPP_ERROR = (
    b'error: {"code":400,"message":"the request exceeds the available context size, try increasing it",'
    b'"type":"exceed_context_size_error"}\n\n'
)
CONTEXT = "server error: the request exceeds the available context size, try increasing it"


def test_a_server_error_event_after_tokens_fails_the_stream():
    r = parse_capture(capture(ev(delta("a")), ev(delta("b")), ev(VLLM_ERROR), ev(b"[DONE]")))
    assert (r.status, r.reason) == ("failed", "server error: EngineCore encountered an issue.")
    # what arrived is still recorded (2 content chunks, first at 10 ms), only the request is not a success
    assert (r.first_token_ns, r.last_token_ns, r.content_chunks, r.output_tokens) == (10 * MS, 20 * MS, 2, None)


def test_a_server_error_event_before_any_token_fails_the_stream():
    role = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
    r = parse_capture(capture(ev(role), ev(VLLM_ERROR), ev(b"[DONE]")))
    assert (r.status, r.reason, r.first_token_ns) == ("failed", "server error: EngineCore encountered an issue.", None)
    r = parse_capture(capture(ev(VLLM_ERROR)))  # and no [DONE]: that is named too
    assert (r.status, r.reason) == ("failed", "server error: EngineCore encountered an issue.; no [DONE]")


def test_llamacpps_error_field_is_the_servers_error():
    r = parse_capture(capture(LLAMACPP_ERROR, ev(b"[DONE]")))
    assert (r.status, r.reason, r.first_token_ns) == ("failed", CONTEXT, None)
    # after tokens, and with the error and [DONE] in one read (the fast path's input until the error line)
    r = parse_capture(capture(ev(delta("a")), ev(delta("b")), LLAMACPP_ERROR + ev(b"[DONE]")))
    assert (r.status, r.reason, r.content_chunks, r.first_token_ns) == ("failed", CONTEXT, 2, 10 * MS)
    # a value that is not JSON is the message as written
    r = parse_capture(capture(b"error: out of memory\r\n\r\n", ev(b"[DONE]")))
    assert (r.status, r.reason) == ("failed", "server error: out of memory")


def _tool(args: str, first: bool = False) -> dict:
    """A tool-call delta in vLLM's streamed shape (vllm/entrypoints/openai/protocol.py ``DeltaToolCall``)."""
    call: dict = {"index": 0, "function": {"arguments": args}}
    if first:
        call = {
            "index": 0,
            "id": "chatcmpl-tool-1",
            "type": "function",
            "function": {"name": "lookup", "arguments": ""},
        }
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}


def test_a_tool_call_only_answer_has_its_first_token_at_the_first_tool_call_delta():
    """oh-my-pi PR #12213 (half the agentic turns had no TTFT: the first output was a tool call), vllm-project/vllm
    issue #27485 (tool-call streams mis-timed by vllm bench serve): TTFT is the first generated token of any channel,
    a tool call's included; no content ever comes, so the first content (TTFO) stays absent."""
    role = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
    usage = {"choices": [], "usage": {"completion_tokens": 9, "prompt_tokens": 3}}
    r = parse_capture(
        capture(
            ev(role),  # 10 ms: no token
            ev(_tool("", first=True)),  # 20 ms: the call's id and name
            ev(_tool('{"city": ')),  # 30 ms
            ev(_tool('"Paris"}')),  # 40 ms
            ev(delta(finish="tool_calls")),
            ev(usage),
            ev(b"[DONE]"),
        )
    )
    assert (r.status, r.reason, r.finish_reason, r.output_tokens) == ("ok", None, "tool_calls", 9)
    assert (r.first_token_ns, r.last_token_ns, r.first_content_ns, r.content_chunks) == (20 * MS, 40 * MS, None, 0)
    assert r.tpot_ns == (40 - 20) * MS / (9 - 1)  # 2.5 ms
    # a null or empty tool_calls is no token
    empty = {"choices": [{"index": 0, "delta": {"content": None, "tool_calls": []}, "finish_reason": None}]}
    nul = {"choices": [{"index": 0, "delta": {"content": None, "tool_calls": None}, "finish_reason": None}]}
    r = parse_capture(capture(ev(empty), ev(nul), ev(delta("a")), ev(delta(finish="stop")), ev(USAGE), ev(b"[DONE]")))
    assert (r.first_token_ns, r.status) == (30 * MS, "ok")


# A proxy in front of llama-server forwarded the backend's JSON error body with no SSE framing inside its 200
# event stream, then closed it (lemonade-sdk/lemonade issue #2826): a WHATWG decoder dispatches no event, so the
# stream read as empty and the context-size message was lost.
UNFRAMED = (
    b'{"error":{"code":400,"message":"request (6009 tokens) exceeds the available context size (4096 tokens), '
    b'try increasing it","type":"exceed_context_size_error","n_prompt_tokens":6009,"n_ctx":4096}}'
)


def test_an_unframed_json_error_body_in_a_200_stream_is_the_servers_error():
    msg = "server error: request (6009 tokens) exceeds the available context size (4096 tokens), try increasing it"
    r = parse_capture(capture(UNFRAMED[:50], UNFRAMED[50:]))  # two reads, no event ever dispatched
    assert (r.status, r.reason, r.first_token_ns) == ("failed", f"{msg}; no [DONE]", None)
    # a body that is not an error stays an empty stream; so does anything once an event was dispatched
    assert parse_capture(capture(b'{"detail": "x"}')).reason == "EMPTY_STREAM"
    assert parse_capture(capture(ev(b"[DONE]"), UNFRAMED)).reason == "EMPTY_STREAM"


def test_an_abort_finish_is_a_failed_request():
    """vLLM finishes a request the engine aborted (shutdown, sleep, scale-down, an abort call) with finish reason
    ``abort`` (vllm/v1/request.py ``_FINISHED_REASON_MAP``: ``FINISHED_ABORTED`` -> ``FinishReason.ABORT``), then
    its usage and ``data: [DONE]`` at HTTP 200, so the stream looks complete (vllm-project/vllm issue #57082).
    Before: ``degraded`` (``short without stop``), its partial tokens and short latency in the cell's figures."""
    r = parse_capture(capture(ev(delta("a")), ev(delta("b")), ev(delta(finish="abort")), ev(USAGE), ev(b"[DONE]")))
    assert (r.status, r.reason, r.finish_reason, r.output_tokens) == (
        "failed",
        "ABORTED(finish_reason abort)",
        "abort",
        2,
    )
    assert (r.first_token_ns, r.last_token_ns) == (10 * MS, 20 * MS)  # what arrived is kept


# A usage that contradicts the stream it closes. sgl-project/sglang issue #3743: after the answer's content chunks,
# the finish chunk carried ``usage: {"prompt_tokens": 0, "completion_tokens": 0, ...}``; microsoft/autogen PR #3972:
# "The streamed response by default returns zero values"; OpenSecretCloud/opensecret PR #59: a proxy sent usage more
# than once, a later chunk carrying prompt tokens only. Read as the truth, 0 tokens made the stream's TPOT absent and
# its rate 0 tok/s with status ok. Such a count is no count: absent (the cell may take the server's counters), and the
# stream names what contradicted it.
def _zero_usage(completion: int, prompt: int = 3) -> dict:
    return {"choices": [], "usage": {"completion_tokens": completion, "prompt_tokens": prompt}}


def test_usage_of_zero_tokens_after_token_events_is_absent_and_named():
    r = parse_capture(
        capture(ev(delta("a")), ev(delta("b")), ev(delta(finish="stop")), ev(_zero_usage(0, 0)), ev(b"[DONE]"))
    )
    assert (r.status, r.reason, r.output_tokens, r.token_source) == (
        "degraded",
        "USAGE_CONTRADICTED(usage.completion_tokens 0 after 2 token events)",
        None,
        "missing",
    )
    assert (r.first_token_ns, r.last_token_ns, r.content_chunks) == (10 * MS, 20 * MS, 2)


def test_usage_that_falls_within_a_stream_is_absent_and_named():
    r = parse_capture(
        capture(
            ev(delta("a")),
            ev(delta("b")),
            ev(delta(finish="stop")),
            ev(_zero_usage(2)),
            ev(_zero_usage(0)),  # a second usage, prompt tokens only
            ev(b"[DONE]"),
        )
    )
    assert (r.status, r.reason, r.output_tokens, r.token_source) == (
        "degraded",
        "USAGE_CONTRADICTED(usage.completion_tokens fell from 2 to 0)",
        None,
        "missing",
    )


def test_repeated_and_running_usage_is_no_contradiction():
    """The same cumulative usage twice (langchain-ai/langchainjs PR #11457), and a role chunk's running usage of 0
    before any token (vLLM's continuous_usage_stats), are read as before."""
    twice = parse_capture(
        capture(ev(delta("a")), ev(delta("b")), ev(delta(finish="stop")), ev(USAGE), ev(USAGE), ev(b"[DONE]"))
    )
    assert (twice.status, twice.reason, twice.output_tokens) == ("ok", None, 2)
    running = parse_capture(
        capture(
            ev(_with_usage("", 0)),
            ev(_with_usage("a", 1)),
            ev(_with_usage("b", 2)),
            ev(delta(finish="length")),
            ev(USAGE),
            ev(b"[DONE]"),
        )
    )
    assert (running.status, running.reason, running.output_tokens) == ("ok", None, 2)


def test_reasoning_tokens_above_completion_tokens_contradict_the_usage():
    """BerriAI/litellm issue #24526 (PR #24546): vLLM serving Qwen3.5 streamed ``completion_tokens 64`` with
    ``completion_tokens_details.reasoning_tokens 79``; reasoning tokens are part of the completion tokens, so one of
    the two is wrong (the completion count left the reasoning out, or the reasoning count is off). TPOT over 64 tokens
    would have been read as the truth. Both counts are absent, and the stream names why."""
    usage = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    usage["usage"]["completion_tokens_details"] = {"reasoning_tokens": 5}
    r = parse_capture(capture(ev(delta("a")), ev(delta("b")), ev(delta(finish="stop")), ev(usage), ev(b"[DONE]")))
    assert (r.status, r.reason, r.output_tokens, r.reasoning_tokens, r.token_source) == (
        "degraded",
        "USAGE_CONTRADICTED(completion_tokens_details.reasoning_tokens 5 > usage.completion_tokens 2)",
        None,
        None,
        "missing",
    )


def test_running_usage_that_counts_each_chunk_alone_is_no_contradiction():
    """vllm-project/vllm PR #9357: continuous usage stats once counted each chunk's own tokens (not cumulative), so
    under speculation a later chunk may report fewer tokens than an earlier one (2, then 1); only the usage sent once
    the stream finished is compared (the final count stands)."""
    final = {"choices": [], "usage": {"completion_tokens": 3, "prompt_tokens": 3}}
    r = parse_capture(
        capture(ev(_with_usage("ab", 2)), ev(_with_usage("c", 1)), ev(delta(finish="stop")), ev(final), ev(b"[DONE]"))
    )
    assert (r.status, r.reason, r.output_tokens) == ("ok", None, 3)


# Issue 37: a usage count past the records' 64-bit bound (2**63, 1e30) is no count, not a stream past its budget:
# it was named RUNAWAY(more than 66 tokens for max_tokens 2) and the stream failed. Now it is absent, the stream is
# degraded and the reason names the field and the value found.
def test_a_usage_past_the_records_bound_is_a_bad_count_not_runaway():
    for completion, prompt, field, found in (
        (2**63, 3, "completion_tokens", 2**63),
        (10**30, 3, "completion_tokens", 10**30),
        (2, 2**63, "prompt_tokens", 2**63),
    ):
        r = parse_capture(
            capture(ev(delta("a")), ev(delta("b")), ev(delta(finish="stop")), ev(_zero_usage(completion, prompt)),
                    ev(b"[DONE]"))
        )  # fmt: skip
        assert r.status == "degraded", r.reason
        assert r.reason == f"BAD_EVENT(1 events; first: usage.{field} {found} is no count (0 to below 2**63))"
        assert getattr(r, "output_tokens" if field == "completion_tokens" else "prompt_tokens") is None

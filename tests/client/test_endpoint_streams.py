"""Each API's request dialect and stream (``specscope.adapters.openai.endpoints``), read from raw bytes by the same
:func:`parse_capture` the bench client uses: exact tokens, instants, finish reasons and statuses; and what a refused
request's reason says (the server's own message, redacted and bounded, the endpoints to try)."""

from __future__ import annotations

import json

import pytest

from specscope.adapters.openai.endpoints import (
    CHAT,
    COMPLETIONS,
    RESPONSES,
    refusal_note,
    request_body,
    server_message,
    url_endpoint,
)
from specscope.client.parse import ParseOptions, RawCapture, parse_capture
from specscope.client.stream import api_url, prepare_body

MS = 1_000_000
CHAT_BODY = {
    "model": "m",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Rename x to y."},
        {"role": "assistant", "content": "def f(y):"},
    ],
    "max_tokens": 32,
    "temperature": 0.0,
    "stream": True,
    "stream_options": {"include_usage": True},
    "chat_template_kwargs": {"enable_thinking": False},
    "continue_final_message": True,
    "add_generation_prompt": False,
    "cache_salt": "s1",
    "ignore_eos": True,
}


def test_completions_body_is_one_prompt_without_chat_fields():
    assert request_body(COMPLETIONS, CHAT_BODY) == {
        "model": "m",
        "prompt": "Be brief.\n\nRename x to y.\n\ndef f(y):",
        "max_tokens": 32,
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
        "cache_salt": "s1",
        "ignore_eos": True,
    }


def test_responses_body_is_input_items_and_max_output_tokens():
    assert request_body(RESPONSES, CHAT_BODY) == {
        "model": "m",
        "input": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Rename x to y."},
            {"role": "assistant", "content": "def f(y):"},
        ],
        "max_output_tokens": 32,
        "temperature": 0.0,
        "stream": True,
        "cache_salt": "s1",
        "ignore_eos": True,
    }
    # what goes on the wire: stream forced, no stream_options (usage rides the terminal event)
    assert "stream_options" not in json.loads(prepare_body(CHAT_BODY, RESPONSES))


def test_chat_body_is_unchanged_and_urls_follow_the_endpoint():
    assert request_body(CHAT, CHAT_BODY) == CHAT_BODY
    assert json.loads(prepare_body(CHAT_BODY)) == CHAT_BODY
    assert api_url("http://h:8000/v1/", COMPLETIONS) == "http://h:8000/v1/completions"
    assert api_url("http://h:8000", RESPONSES) == "http://h:8000/v1/responses"
    assert api_url("http://h:8000") == "http://h:8000/v1/chat/completions"


@pytest.mark.parametrize(
    "url, path",
    [
        ("http://h:8000/v1/completions", COMPLETIONS),
        ("http://h:8000/v1/chat/completions/", CHAT),
        ("http://h:8000/proxy/v1/responses", RESPONSES),
        ("http://h:8000/v1", None),
        ("http://h:8000", None),
    ],
)
def test_url_endpoint(url, path):
    assert url_endpoint(url) == path


@pytest.mark.parametrize(
    "body, message",
    [
        (b'{"error": {"message": "no template", "type": "BadRequestError", "code": 400}}', "no template"),
        (b'{"object": "error", "message": "old shape", "code": 400}', "old shape"),
        (b'{"detail": "Not Found"}', "Not Found"),
        (b"upstream\n  timed out", "upstream timed out"),
        (b"", None),
        (b'{"error": {"message": "bad key sk-abcdefghijklmnopqrstuvwx"}}', "bad key ***"),
    ],
)
def test_server_message(body, message):
    assert server_message(body) == message


def test_server_message_is_bounded():
    msg = server_message(json.dumps({"error": {"message": "word " * 100}}).encode())
    assert msg is not None and len(msg) == 200 and msg.endswith("...")


def test_refusal_note_names_the_other_endpoints_only_for_a_refused_api():
    assert refusal_note(RESPONSES, 404, b'{"detail":"Not Found"}') == (
        "on /v1/responses: Not Found; try --endpoint /v1/chat/completions or /v1/completions"
    )
    assert refusal_note(CHAT, 503, b"") == "on /v1/chat/completions"


def _resp(kind: str, **fields) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


def _end(kind: str, status: str, reason: str | None = None, out: int | None = 3, reasoning: int = 0, **more) -> bytes:
    usage = None if out is None else {"input_tokens": 7, "output_tokens": out, "total_tokens": 7 + out}
    if usage is not None:
        usage["output_tokens_details"] = {"reasoning_tokens": reasoning}
    details = None if reason is None else {"reason": reason}
    return _resp(kind, response={"status": status, "usage": usage, "incomplete_details": details, **more})


CREATED = _resp("response.created", response={"status": "in_progress", "usage": None}) + _resp(
    "response.in_progress", response={"status": "in_progress"}
)
ADDED = _resp("response.output_item.added", item={"type": "message"}) + _resp(
    "response.content_part.added", part={"type": "output_text", "text": ""}
)


def _text(t: str) -> bytes:
    return _resp("response.output_text.delta", delta=t, item_id="m", output_index=0, content_index=0)


def _parse(endpoint: str, *reads: bytes, max_tokens: int = 3, status: int = 200):
    raw = RawCapture(
        "p", 0, 0, http_status=status, max_tokens=max_tokens, options=ParseOptions(True, endpoint=endpoint)
    )
    raw.chunks = [(10 * MS * (i + 1), r) for i, r in enumerate(reads)]
    raw.end_ns = 10 * MS * (len(reads) + 1)
    return parse_capture(raw)


def test_responses_stream_incomplete_at_max_output_tokens_is_ok_at_the_length_limit():
    r = _parse(
        RESPONSES,
        CREATED,
        ADDED,
        _text("a") + _text("b"),
        _text("c"),
        _end("response.incomplete", "incomplete", "max_output_tokens"),
    )
    assert (r.status, r.reason, r.finish_reason, r.output_tokens, r.prompt_tokens, r.token_source) == (
        "ok",
        None,
        "length",
        3,
        7,
        "usage",
    )
    # TTFT at the first text (30 ms), never at response.created (10 ms) or the added events (20 ms)
    assert (r.first_token_ns, r.first_content_ns, r.last_token_ns, r.end_ns) == (30 * MS, 30 * MS, 40 * MS, 60 * MS)
    assert (r.content_chunks, r.text) == (3, "abc")


def test_responses_stream_completed_is_a_stop_and_reasoning_is_read():
    reason = _resp("response.reasoning_text.delta", delta="think")
    r = _parse(RESPONSES, CREATED, reason, _text("a"), _end("response.completed", "completed", out=2, reasoning=1))
    assert (r.status, r.reason, r.finish_reason, r.output_tokens, r.reasoning_tokens) == ("ok", None, "stop", 2, 1)
    assert (r.first_token_ns, r.first_content_ns, r.reasoning_chunks, r.reasoning_text) == (
        20 * MS,
        30 * MS,
        1,
        "think",
    )


def test_responses_stream_failed_gives_the_servers_error():
    end = _end("response.failed", "failed", out=None, error={"code": "server_error", "message": "engine died"})
    r = _parse(RESPONSES, CREATED, _text("a"), end)
    # the generation did not complete: a failed request, whatever text came before (client/status.py)
    assert (r.status, r.reason, r.finish_reason) == ("failed", "server error: engine died", None)


def test_responses_stream_error_event_and_bad_event():
    err = _resp("error", code="invalid_prompt", message="prompt too long")
    r = _parse(RESPONSES, CREATED, err)
    assert (r.status, r.reason) == ("failed", "server error: prompt too long; no terminal response event")
    bad = b'data: {"type": "response.output_text.delta", "delta": 5}\n\n'
    r = _parse(RESPONSES, CREATED, _text("a"), bad, _end("response.completed", "completed", out=1), max_tokens=1)
    assert r.status == "degraded" and r.reason.startswith("BAD_EVENT(1 events; first: Expected `str | null`, got `int`")


def test_responses_stream_without_text_or_terminal_event_fails():
    r = _parse(RESPONSES, CREATED, ADDED)
    assert (r.status, r.reason, r.first_token_ns) == ("failed", "EMPTY_STREAM", None)
    r = _parse(RESPONSES, CREATED, _text("a"), _text("b"))
    assert (r.status, r.reason, r.content_chunks) == ("failed", "STOPPED_EARLY", 2)


def test_completions_stream_reads_choice_text_and_usage():
    def chunk(text: str, finish: str | None = None) -> bytes:
        obj = {"object": "text_completion", "choices": [{"index": 0, "text": text, "finish_reason": finish}]}
        return b"data: " + json.dumps(obj).encode() + b"\n\n"

    usage = b'data: {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}}\n\n'
    r = _parse(COMPLETIONS, chunk("a"), chunk("bc"), chunk("", "length"), usage + b"data: [DONE]\n\n")
    assert (r.status, r.reason, r.output_tokens, r.finish_reason, r.text) == ("ok", None, 3, "length", "abc")
    assert (r.first_token_ns, r.last_token_ns, r.content_chunks) == (10 * MS, 20 * MS, 2)


def test_a_refused_request_keeps_the_servers_message_in_its_reason():
    body = json.dumps({"error": {"message": "As of transformers v4.44, default chat template is no longer allowed"}})
    r = _parse(CHAT, body.encode(), status=400)
    assert (r.status, r.http_status, r.first_token_ns) == ("failed", 400, None)
    assert r.reason == (
        "http 400 on /v1/chat/completions: As of transformers v4.44, default chat template is no longer allowed; "
        "try --endpoint /v1/completions or /v1/responses"
    )


def test_responses_stream_past_its_token_budget_is_cut_runaway():
    # max_tokens 1: at most 1 + 64 text events; the 66th passes the budget and is not read (as on chat)
    r = _parse(RESPONSES, CREATED, b"".join(_text("a") for _ in range(70)), max_tokens=1)
    assert (r.status, r.reason, r.content_chunks) == ("failed", "RUNAWAY(more than 65 tokens for max_tokens 1)", 65)
    lie = _end("response.completed", "completed", out=500)  # a usage past the budget is cut the same way
    r = _parse(RESPONSES, CREATED, _text("a"), lie, max_tokens=1)
    assert (r.status, r.reason, r.output_tokens) == ("failed", "RUNAWAY(more than 65 tokens for max_tokens 1)", None)

"""The typed SSE event boundary (issue 29, "One event ends the run"): well-formed JSON of the wrong shape is a named
``BAD_EVENT`` of its stream, never an exception (pure parsing: captured bytes replayed into parse_capture).

Before the boundary, each shape marked "raised" below made ``parse_capture`` raise (AttributeError / TypeError at six
places in the parser and the spec-field reader), which ``bench`` reported as "internal error" (exit 3)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specscope.client.events import BadEvent, Chunk, decode_event
from specscope.client.parse import ParseOptions, RawCapture, parse_capture

MS = 1_000_000
TOKEN = b'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n'
FINISH = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n'
USAGE = b'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n'
DONE = b"data: [DONE]\n\n"


def _stream(*events: bytes, keep_text: bool = False) -> RawCapture:
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=2, options=ParseOptions(keep_text=keep_text))
    raw.chunks = [(10 * MS * (i + 1), e) for i, e in enumerate(events)]
    raw.end_ns = 10 * MS * (len(events) + 1)
    return raw


# (the bad event's data, msgspec's description of it); "raised" = the old parser raised on it
SHAPES = {
    "choices a string (raised)": (b'{"choices":"x"}', "Expected `array | null`, got `str` - at `$.choices`"),
    "choices a number (raised)": (b'{"choices":5}', "Expected `array | null`, got `int` - at `$.choices`"),
    "a choice not an object (raised)": (b'{"choices":[1]}', "Expected `object`, got `int` - at `$.choices[0]`"),
    "content a number (raised)": (
        b'{"choices":[{"delta":{"content":5}}]}',
        "Expected `str | null`, got `int` - at `$.choices[0].delta.content`",
    ),
    "reasoning a number (raised)": (
        b'{"choices":[{"delta":{"reasoning":7}}]}',
        "Expected `str | null`, got `int` - at `$.choices[0].delta.reasoning`",
    ),
    "delta a string (raised)": (
        b'{"choices":[{"delta":"x"}]}',
        "Expected `object | null`, got `str` - at `$.choices[0].delta`",
    ),
    "delta an array": (
        b'{"choices":[{"delta":[]}]}',
        "Expected `object | null`, got `array` - at `$.choices[0].delta`",
    ),
    "finish_reason a list": (
        b'{"choices":[{"delta":{},"finish_reason":["stop"]}]}',
        "Expected `str | null`, got `array` - at `$.choices[0].finish_reason`",
    ),
    "finish_reason a number": (
        b'{"choices":[{"delta":{},"finish_reason":5}]}',
        "Expected `str | null`, got `int` - at `$.choices[0].finish_reason`",
    ),
    "usage a string": (b'{"usage":"12"}', "Expected `object | null`, got `str` - at `$.usage`"),
    "completion_tokens a string": (
        b'{"usage":{"completion_tokens":"2"}}',
        "Expected `int | null`, got `str` - at `$.usage.completion_tokens`",
    ),
    "completion_tokens a bool": (
        b'{"usage":{"completion_tokens":true}}',
        "Expected `int | null`, got `bool` - at `$.usage.completion_tokens`",
    ),
    "completion_tokens negative": (
        b'{"usage":{"completion_tokens":-3}}',
        "Expected `int` >= 0 - at `$.usage.completion_tokens`",
    ),
    "completion_tokens out of range": (
        b'{"usage":{"completion_tokens":1e400}}',
        "Number out of range - at `$.usage.completion_tokens`",
    ),
    "completion_tokens 5000 digits": (
        b'{"usage":{"completion_tokens":' + b"9" * 5000 + b"}}",
        "Integer value out of range - at `$.usage.completion_tokens`",
    ),
    "error message a list": (b'{"error":{"message":[1]}}', "Expected `str | null`, got `array` - at `$.error.message`"),
    "a JSON array": (b"[1,2]", "Expected `object`, got `array`"),
    "not JSON": (b"{oops", "JSON is malformed: object keys must be strings (byte 1)"),
    "two values": (b"{} {}", "JSON is malformed: trailing characters (byte 4)"),
    "a lone surrogate": (b'{"choices":[{"delta":{"content":"\\ud800"}}]}', "Input data was truncated"),
    "nested past the decoder's depth": (
        b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "nested too deeply to decode",
    ),
}


@pytest.mark.parametrize("name", SHAPES)
def test_a_bad_event_is_a_named_reason_and_the_stream_goes_on(name):
    bad, what = SHAPES[name]
    assert decode_event(bad) == BadEvent(what)
    r = parse_capture(_stream(TOKEN, b"data: " + bad + b"\n\n", TOKEN, FINISH, USAGE, DONE, keep_text=True))
    assert (r.status, r.reason) == ("degraded", f"BAD_EVENT(1 events; first: {what})")
    # the events around it are read as usual
    assert (r.output_tokens, r.content_chunks, r.text, r.finish_reason) == (2, 2, "aa", "length")
    assert (r.first_token_ns, r.last_token_ns) == (10 * MS, 30 * MS)


def test_an_unhashable_finish_reason_last_is_a_bad_event():
    """The old parser stored ``["stop"]`` as the finish and raised on ``finish in STOP_REASONS`` (TypeError)."""
    bad = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":["stop"]}]}\n\n'
    r = parse_capture(_stream(TOKEN, TOKEN, bad, USAGE, DONE))
    assert r.status == "degraded" and r.finish_reason is None
    # usage says max_tokens was reached, so nothing else is missing
    assert r.reason == (
        "BAD_EVENT(1 events; first: Expected `str | null`, got `array` - at `$.choices[0].finish_reason`)"
    )


def test_a_stream_of_nothing_but_bad_events_is_failed_and_counts_them():
    bad = b'data: {"choices":"x"}\n\n'
    r = parse_capture(_stream(bad, bad, b'data: {"choices":[{"delta":5}]}\n\n', DONE))
    assert r.status == "failed"
    assert r.reason == "BAD_EVENT(3 events; first: Expected `array | null`, got `str` - at `$.choices`); EMPTY_STREAM"
    assert (r.first_token_ns, r.content_chunks, r.output_tokens) == (None, 0, None)


def test_invalid_utf8_in_a_token_is_replaced_not_dropped():
    """As a text decoder with errors="replace" reads it (the stream stays ok; one character is U+FFFD)."""
    mangled = b'data: {"choices":[{"delta":{"content":"\xff"}}]}\n\n'
    r = parse_capture(_stream(TOKEN, mangled, FINISH, USAGE, DONE, keep_text=True))
    assert (r.status, r.text, r.content_chunks) == ("ok", "a\ufffd", 2)


def test_empty_data_events_carry_nothing_and_are_skipped():
    r = parse_capture(_stream(TOKEN, b"data: \n\n", b"data:\n\n", TOKEN, FINISH, USAGE, DONE))
    assert (r.status, r.reason, r.content_chunks) == ("ok", None, 2)


def test_fields_specscope_does_not_read_are_never_checked():
    """``id``, ``model``, ``logprobs``, ``tool_calls``, llama.cpp's other ``timings``: skipped whatever their type
    (here on llama.cpp's last chunk: its last token, the finish reason and ``timings``)."""
    odd = {
        "id": 5,
        "model": ["x"],
        "object": None,
        "system_fingerprint": {"a": [1]},
        "choices": [
            {
                "index": "zero",
                "delta": {"role": 3, "tool_calls": "t", "content": "b"},
                "logprobs": 7,
                "finish_reason": "length",
            }
        ],
        "timings": {"prompt_ms": "fast", "draft_n": 4, "draft_n_accepted": 3},
    }
    data = json.dumps(odd).encode()
    chunk = decode_event(data)
    assert isinstance(chunk, Chunk) and chunk.choices is not None and chunk.choices[0].delta is not None
    assert chunk.choices[0].delta.content == "b"
    r = parse_capture(_stream(TOKEN, b"data: " + data + b"\n\n", USAGE, DONE))
    assert (r.status, r.content_chunks, r.server_draft_tokens, r.server_accepted_tokens) == ("ok", 2, 4, 3)


def test_null_fields_read_as_absent():
    nulls = b'data: {"choices":null,"usage":null,"error":null,"timings":null,"metrics":null}\n\n'
    delta_null = b'data: {"choices":[{"index":0,"delta":null,"finish_reason":null}]}\n\n'
    r = parse_capture(_stream(TOKEN, nulls, delta_null, TOKEN, FINISH, USAGE, DONE))
    assert (r.status, r.reason, r.content_chunks) == ("ok", None, 2)


def test_wrong_typed_engine_fields_are_named_by_the_engine_adapters_and_the_stream_stands():
    """The engines' per-response fields are read by spec_fields' adapters, which name what does not fit
    (WRONG_TYPE on the stream's spec record) and never raise; the stream's own figures stand."""
    odd = b'data: {"choices":[],"usage":{"completion_tokens":2},"timings":{"draft_n":"4","draft_n_accepted":[1]}}\n\n'
    r = parse_capture(_stream(TOKEN, TOKEN, FINISH, odd, DONE))
    assert (r.status, r.reason, r.output_tokens) == ("ok", None, 2)
    assert r.spec is not None and (r.spec.draft_tokens, r.spec.accepted_tokens) == (None, None)
    assert [w.split("(")[0] for w in r.spec.warnings] == ["WRONG_TYPE", "WRONG_TYPE"]
    unknown = b'data: {"choices":[],"usage":{"completion_tokens":2},"speculative_tree_stats":{"nodes":4}}\n\n'
    r = parse_capture(_stream(TOKEN, TOKEN, FINISH, unknown, DONE))
    assert r.status == "ok" and r.spec is not None and r.spec.warnings == ("UNREAD_SPEC_FIELD(speculative_tree_stats)",)


def test_completions_text_is_read_as_content():
    text = b'data: {"choices":[{"index":0,"text":"hi","finish_reason":null}]}\n\n'
    r = parse_capture(_stream(text, FINISH, USAGE, DONE, keep_text=True))
    assert (r.status, r.text, r.content_chunks, r.first_content_ns) == ("ok", "hi", 1, 10 * MS)


def test_a_server_error_event_in_vllms_shape_and_as_a_string():
    vllm = b'data: {"error":{"object":"error","message":"boom","type":"BadRequestError","param":null,"code":400}}\n\n'
    r = parse_capture(_stream(TOKEN, vllm))
    assert (r.status, r.reason) == ("failed", "server error: boom; no [DONE]")
    r = parse_capture(_stream(TOKEN, b'data: {"error":"overloaded"}\n\n', DONE))
    assert (r.status, r.reason) == ("failed", "server error: overloaded")


# --------------------------------------------------------------------------------------- structured fuzzing
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
_any = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=12,
)


def _maybe(strategy: st.SearchStrategy, keys: list[str]) -> st.SearchStrategy[dict]:
    """Objects built from the keys specscope reads, each holding a value of the right shape or of any type."""
    return st.dictionaries(st.sampled_from(keys), st.one_of(strategy, _any), max_size=len(keys))


_delta = _maybe(st.text(max_size=4), ["content", "reasoning_content", "reasoning", "role", "tool_calls"])
_choice = st.fixed_dictionaries(
    {},
    optional={
        "delta": st.one_of(_delta, _any),
        "text": st.one_of(st.text(max_size=4), _any),
        "finish_reason": st.one_of(st.sampled_from(["stop", "length"]), _any),
        "meta_info": st.one_of(_maybe(st.integers(0, 9), ["spec_draft_token_num", "spec_accept_token_num"]), _any),
    },
)
_usage = _maybe(st.integers(0, 9), ["completion_tokens", "prompt_tokens", "completion_tokens_details"])
_chunk = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.one_of(st.lists(st.one_of(_choice, _any), max_size=2), _any),
        "usage": st.one_of(_usage, _any),
        "error": _any,
        "timings": st.one_of(_maybe(st.integers(0, 9), ["draft_n", "draft_n_accepted", "prompt_ms"]), _any),
        "metrics": st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "queue_time_ms": _any,
                    "speculative_decoding": _maybe(
                        st.lists(st.integers(0, 3), max_size=3),
                        ["num_draft_tokens", "num_accepted_draft_tokens", "per_step_drafted", "per_step_accepted"],
                    ),
                },
            ),
            _any,
        ),
        "meta_info": _any,
    },
)


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(st.one_of(_chunk, _any), max_size=6), st.one_of(st.none(), st.integers(0, 64)))
def test_any_value_in_any_field_read_is_a_clean_record(chunks, max_tokens):
    """Well-formed JSON with the fields specscope reads holding values of any type: never an exception; every event
    that is not a plain chunk of the right types is counted as BAD_EVENT."""
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + DONE
    raw = RawCapture("p", 0, 0, http_status=200, max_tokens=max_tokens, chunks=[(1, body)], end_ns=2)
    r = parse_capture(raw)
    assert r.status in ("ok", "degraded", "failed")
    bad = sum(isinstance(decode_event(json.dumps(c).encode()), BadEvent) for c in chunks)
    assert (f"BAD_EVENT({bad} events;" in (r.reason or "")) == (bad > 0 and not (r.reason or "").startswith("RUNAWAY"))


def test_tool_call_fragments_merge_by_index_in_stream_order() -> None:
    from specscope.client.events import merged_tool_calls

    fragments = [
        b'[{"index":0,"id":"c0","type":"function","function":{"name":"a","arguments":"{\\"x\\""}}]',
        b'[{"index":1,"id":"c1","type":"function","function":{"name":"b","arguments":""}}]',
        b'[{"index":0,"function":{"arguments":": 1}"}}]',
        b"not json",
    ]
    assert merged_tool_calls(fragments) == [
        {"id": "c0", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}},
        {"id": "c1", "type": "function", "function": {"name": "b", "arguments": ""}},
    ]

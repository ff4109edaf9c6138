"""SSE framing (specscope.client.sse): the fast path and the general path give exactly the events of httpx-sse's
WHATWG decoders (the reference, ``parse_sse_capture``), with the same arrival instants, on random bodies split at
random bytes; the held bytes stay bounded."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from specscope.client.parse import parse_sse_capture
from specscope.client.sse import SSEFramer

BIG = 1 << 30


def _framed(chunks: list[tuple[int, bytes]]) -> tuple[list[tuple[int, str]], bool]:
    framer = SSEFramer(BIG)
    out = []
    for t, data in chunks:
        for d in framer.feed(data):
            out.append((t, d.decode("utf-8", "replace") if isinstance(d, bytes) else d))
    return out, framer.general


def _reference(chunks: list[tuple[int, bytes]]) -> list[tuple[int, str]]:
    return [(t, ev.data) for t, ev in parse_sse_capture(chunks)]


def _split(body: bytes, cuts: list[int]) -> list[tuple[int, bytes]]:
    bounds = [0, *sorted({min(c, len(body)) for c in cuts}), len(body)]
    return [(1000 * i, body[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False)) if b > a]


EVENT = st.builds(
    lambda c: "data: " + json.dumps({"choices": [{"delta": {"content": c}}]}, ensure_ascii=False) + "\n\n",
    st.text(max_size=6),
)
ODD = st.sampled_from(
    [
        "data: [DONE]\n\n",
        ": keep-alive\n\n",
        "event: message\ndata: {}\n\n",
        "data: a\ndata: b\n\n",
        "data:{}\n\n",
        "data:  {}\n\n",
        "data: {}\r\n\r\n",
        "data: {}\r\r",
        "id: 7\n\n",
        "retry: 10\n\n",
        "\n",
        "data: \n\n",
        "data\n\n",
        "data: x\n\n\n",
        "data: tail-without-end",
    ]
)


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(st.one_of(EVENT, EVENT, ODD), max_size=12), st.lists(st.integers(0, 400), max_size=8))
def test_framer_gives_the_reference_events_at_the_reference_instants(parts, cuts):
    body = "".join(parts).encode()
    chunks = _split(body, cuts)
    got, _ = _framed(chunks)
    assert got == _reference(chunks)


@settings(max_examples=300, deadline=None, database=None)
@given(st.binary(max_size=200), st.lists(st.integers(0, 200), max_size=6))
def test_framer_agrees_with_the_reference_on_arbitrary_bytes(body, cuts):
    chunks = _split(body.removeprefix(b"\xef\xbb\xbf"), cuts)  # a leading BOM: see the test below
    got, _ = _framed(chunks)
    assert got == _reference(chunks)


def test_the_engines_shape_stays_on_the_fast_path():
    body = b"".join(b'data: {"choices":[{"delta":{"content":"%d"}}]}\n\n' % i for i in range(50)) + b"data: [DONE]\n\n"
    chunks = _split(body, [7, 100, 101, 2000])
    got, general = _framed(chunks)
    assert not general and got == _reference(chunks) and len(got) == 51


def test_a_leading_bom_is_dropped_as_whatwg_says():
    got, general = _framed([(1, b'\xef\xbb\xbfdata: {"a":1}\n\n')])
    assert general and got == [(1, '{"a":1}')]


def test_an_event_that_never_ends_overflows_the_bound():
    framer = SSEFramer(max_event_bytes=1024)
    assert framer.feed(b"data: " + b"x" * 1000) == [] and not framer.overflow
    assert framer.feed(b"x" * 100) == [] and framer.overflow
    general = SSEFramer(max_event_bytes=1024)
    general.feed(b": comment\r\n\r\n")  # CR: the general path
    assert general.general and not general.overflow
    general.feed(b"data: " + b"y" * 2000)
    assert general.overflow

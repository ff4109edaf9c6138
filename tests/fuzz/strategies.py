"""Hypothesis strategies shared by the parser fuzz suites: JSON trees, safetensors files, SSE and Prometheus text."""

from __future__ import annotations

import json
import struct

from hypothesis import strategies as st

DTYPES = ["F32", "F16", "BF16", "I8", "U8", "F8_E4M3", "F4", "F64", "BOOL", "XX", ""]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=20,
)


@st.composite
def tensor_entries(draw):
    """A header entry that is often valid and sometimes wrong in one field."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.lists(st.integers(min_value=-2, max_value=2**40), max_size=4))
    begin = draw(st.integers(min_value=-1, max_value=2**64))
    end = draw(st.one_of(st.integers(min_value=-1, max_value=2**64), st.just(begin)))
    entry = {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}
    return draw(st.one_of(st.just(entry), json_values))


@st.composite
def safetensors_files(draw) -> bytes:
    """Bytes of a safetensors-like file: a length prefix (right or wrong), a JSON or random header, some data."""
    kind = draw(st.sampled_from(["structured", "random", "deep", "bigint"]))
    if kind == "structured":
        names = draw(st.lists(st.text(max_size=8), max_size=4))
        obj = {n: draw(tensor_entries()) for n in names}
        if draw(st.booleans()):
            obj["__metadata__"] = draw(json_values)
        header = json.dumps(obj).encode()
    elif kind == "random":
        header = draw(st.binary(max_size=64))
    elif kind == "deep":
        depth = draw(st.integers(min_value=1, max_value=3000))
        header = ('{"a":' + "[" * depth + "]" * depth + "}").encode()
    else:
        header = ('{"a": {"dtype": "F32", "shape": [' + "9" * draw(st.integers(1, 6000)) + "]}}").encode()
    length = draw(st.one_of(st.just(len(header)), st.integers(min_value=0, max_value=2**64 - 1)))
    data = draw(st.binary(max_size=32))
    return draw(st.one_of(st.just(struct.pack("<Q", length) + header + data), st.binary(max_size=16)))


sse_lines = st.one_of(
    st.sampled_from(["data: [DONE]", "", ":", "event: error", "retry: 5", "id: 1", "data:", "data: {}"]),
    st.builds(lambda v: "data: " + json.dumps(v), json_values),
    st.builds(
        lambda c, f: (
            "data: "
            + json.dumps(
                {"choices": [{"delta": {"content": c}, "finish_reason": f}], "usage": {"completion_tokens": 3}}
            )
        ),
        st.text(max_size=5),
        st.sampled_from([None, "stop", "length", 5]),
    ),
    st.text(max_size=30),
)


@st.composite
def sse_chunks(draw) -> list[tuple[int, bytes]]:
    """An SSE body split at random byte positions, with arrival times."""
    body = "\n".join(draw(st.lists(sse_lines, max_size=10))).encode() + draw(st.binary(max_size=8))
    cuts = sorted(set(draw(st.lists(st.integers(min_value=0, max_value=len(body)), max_size=6))))
    parts, prev = [], 0
    for c in [*cuts, len(body)]:
        parts.append(body[prev:c])
        prev = c
    return [(i * 1000, p) for i, p in enumerate(parts)]


metric_names = st.sampled_from(
    [
        "vllm:spec_decode_num_drafts_total",
        "vllm:spec_decode_num_draft_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        "vllm:generation_tokens_total",
        "vllm:prompt_tokens_total",
        "vllm:num_requests_running",
        "llamacpp:n_drafted_total",
        "x",
    ]
)
metric_values = st.one_of(
    st.sampled_from(["1", "0", "-1", "NaN", "+Inf", "-Inf", "1e400", "0x10", "", "abc", "1" * 5000]),
    st.floats().map(repr),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)
metric_labels = st.one_of(
    st.just(""),
    st.builds(lambda p: '{position="' + p + '"}', st.sampled_from(["0", "1", "-1", "x", "9" * 5000, ""])),
    st.text(max_size=20).map(lambda t: "{" + t + "}"),
)


@st.composite
def prometheus_texts(draw) -> str:
    """Prometheus text 0.0.4 lines: known counters with odd values / labels, comments and garbage."""
    lines = []
    for _ in range(draw(st.integers(min_value=0, max_value=12))):
        kind = draw(st.sampled_from(["sample", "comment", "garbage"]))
        if kind == "sample":
            lines.append(f"{draw(metric_names)}{draw(metric_labels)} {draw(metric_values)}")
        elif kind == "comment":
            lines.append(draw(st.sampled_from(["# HELP x y", "# TYPE x counter", "#", "# TYPE"])))
        else:
            lines.append(draw(st.text(max_size=40)))
    return "\n".join(lines)


def mutate(data: bytes, rnd) -> bytes:
    """One random structural mutation of ``data`` (AFL-style): flip, insert, delete, duplicate, truncate, or
    splice in a nasty token (deep nesting, a 5,000-digit number, NaN, a NUL). ``rnd`` is a ``random.Random``."""
    nasty = [b"[" * 2000, b"9" * 5000, b"NaN", b"\x00", b'"', b"{", b"}", b"\n\n", b"-1", b"\xff\xfe", b"1e999"]
    op = rnd.randrange(6)
    pos = rnd.randrange(len(data) + 1)
    if op == 0 and data:
        i = rnd.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rnd.randrange(8))]) + data[i + 1 :]
    if op == 1:
        return data[:pos] + bytes([rnd.randrange(256)]) + data[pos:]
    if op == 2:
        return data[:pos] + data[pos + rnd.randrange(1, 16) :]
    if op == 3:
        return data[:pos] + data[pos : pos + rnd.randrange(1, 64)] * 2 + data[pos + 64 :]
    if op == 4:
        return data[:pos]
    return data[:pos] + rnd.choice(nasty) + data[pos:]

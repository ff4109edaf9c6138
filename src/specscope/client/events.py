"""The typed SSE event boundary: one streamed chat-completion chunk, decoded once into the fields specscope reads.

Every ``data:`` payload of a stream (other than ``[DONE]``) goes through :func:`decode_event` exactly once: msgspec
decodes the JSON bytes straight into :class:`Chunk` (C code; keys specscope does not read are skipped without
being built) and checks every field's type on the way. Whatever does not fit (not JSON, not an object, a
``choices`` that is not an array, a non-string ``content``, a non-object ``delta``, a list as ``finish_reason``, a
negative or non-integer token count, nesting too deep to decode) comes back as a :class:`BadEvent` holding msgspec's
own one-line description with the JSON path (``Expected `array | null`, got `str` - at `$.choices```); the stream it
came from gets the reason ``BAD_EVENT`` (:mod:`specscope.client.status`) and the run goes on. No code below this
module sees an unvalidated value.

Why msgspec (benchmarks/client_overhead.py ``--decode`` table, ``benchmarks/RESULTS.md``): typed decoding of a
vLLM-shaped token chunk measured 0.32-0.40 us per event against 0.68-0.76 us for ``orjson.loads`` plus the dict walk
and type checks the same fields need; batch decoding (``Decoder.decode_lines``, one JSON array) was slower than one
call per event and would merge two malformed events into one.

Fields read, by source (OpenAI chat-completions streaming as vLLM 0.32.0 serves it,
vllm/entrypoints/openai/chat_completion/protocol.py ``ChatCompletionStreamResponse`` / ``DeltaMessage``; llama.cpp's
server and SGLang send the same envelope):

- ``choices[i].delta.content``, ``.reasoning_content`` (llama.cpp, SGLang, vLLM before 0.10), ``.reasoning``
  (vLLM >= 0.10): the answer and reasoning text of one event (``str`` or ``null``);
- ``choices[i].delta.tool_calls``: only whether it is a non-empty array (a tool-call-only answer's tokens: the
  first one starts TTFT, as any channel's first token does; oh-my-pi PR #12213 found half of the agentic turns with
  no TTFT at all when only text and reasoning were timed); its items are not read;
- ``choices[i].text``: the completions API's text, read as content when ``delta`` carries none;
- ``choices[i].finish_reason``: ``str`` or ``null``;
- ``usage.completion_tokens`` / ``prompt_tokens`` / ``completion_tokens_details.reasoning_tokens``: integers >= 0;
- ``error``: an object (``message`` a string) or a string: vLLM's in-stream error
  (``OpenAIServing.create_streaming_error_response``: ``{"error": {"message", "type", "code", "param"}}``), also
  llama.cpp's ``error:`` SSE field once the framing has read it as this envelope (:mod:`specscope.client.sse`);
  a stream with one is failed (:mod:`specscope.client.status`);
- ``metrics``: only whether it is there (vLLM's per-request ``metrics`` rides the final usage chunk).

The engines' per-response speculative and timing fields (vLLM ``metrics``, SGLang ``meta_info`` / ``sglext``, llama.cpp
``timings``, per-choice stats of vLLM and TensorRT-LLM, spec-named fields nobody knows) have their own readers, the
engine adapters (``specscope.adapters.<engine>.per_response``, through :mod:`specscope.client.spec_fields`), which
check each field they read and name what does not fit (``WRONG_TYPE``, ``UNREAD_SPEC_FIELD``: a reason on the
stream's spec record, the stream's figures stand); the parser
hands them an event decoded a second time into plain objects when it carries ``metrics``, or is a final or
non-token event whose bytes name ``spec`` or ``draft`` (:meth:`specscope.client.parse.StreamParser._engine_fields`).

Ignored on purpose (skipped, never type-checked): ``id``, ``object``, ``created``, ``model``, ``system_fingerprint``,
``choices[i].index`` (specscope sends ``n = 1``), ``delta.role`` (a role-only chunk carries no token),
the items of ``delta.tool_calls`` and ``logprobs`` (not measured), ``stop_reason``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec

__all__ = [
    "BadEvent",
    "Chunk",
    "Choice",
    "DECODE_ERRORS",
    "Delta",
    "ErrorInfo",
    "Usage",
    "UsageDetails",
    "carries_tool_call",
    "merged_tool_calls",
    "decode_chunk",
    "decode_event",
    "unstreamed_object",
]

Count = Annotated[int, msgspec.Meta(ge=0)]


class Delta(msgspec.Struct, gc=False):
    """``choices[i].delta``: the text one event adds (``None``: the key was absent or ``null``); ``tool_calls``
    as raw JSON bytes, unread (empty when absent): only whether it carries a call (:func:`carries_tool_call`)."""

    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: msgspec.Raw = msgspec.Raw()


def carries_tool_call(raw: msgspec.Raw) -> bool:
    """Whether a delta's raw ``tool_calls`` is a non-empty array: a fragment of a tool call the model generated
    (vLLM's ``DeltaToolCall`` items, vllm/entrypoints/openai/protocol.py: the call's id and name, then argument
    pieces). ``null``, ``[]``, absent, or a value of another type carry none."""
    b = bytes(raw).strip()
    return b.startswith(b"[") and b[1:].lstrip() != b"]"


def merged_tool_calls(fragments: Sequence[bytes]) -> list[dict[str, Any]]:
    """The whole tool calls of a streamed answer from its deltas' raw ``tool_calls`` arrays, in stream order: items
    of one ``index`` are one call (OpenAI's streamed chat chunks; vLLM's ``DeltaToolCall``): its ``id``, ``type``
    and ``function.name`` as first sent, its ``function.arguments`` the concatenation of every piece. Calls come out
    in index order as ``{"id", "type", "function": {"name", "arguments"}}`` (``type`` ``function`` when unsent).
    A fragment that is not a JSON array of objects is skipped (the stream's timing already counted it)."""
    calls: dict[int, dict[str, Any]] = {}
    for raw in fragments:
        try:
            items = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            continue
        for pos, item in enumerate(items if isinstance(items, list) else ()):
            if not isinstance(item, dict):
                continue
            index = item.get("index", pos)
            call = calls.setdefault(index if isinstance(index, int) else pos, {"arguments": []})
            fn = item.get("function")
            fn = fn if isinstance(fn, dict) else {}
            for key, value in (("id", item.get("id")), ("type", item.get("type")), ("name", fn.get("name"))):
                if isinstance(value, str) and value and key not in call:
                    call[key] = value
            if isinstance(fn.get("arguments"), str):
                call["arguments"].append(fn["arguments"])
    return [
        {
            "id": c.get("id", ""),
            "type": c.get("type", "function"),
            "function": {"name": c.get("name", ""), "arguments": "".join(c["arguments"])},
        }
        for _i, c in sorted(calls.items())
    ]


class Choice(msgspec.Struct, gc=False):
    """``choices[i]``: ``delta`` (chat), ``text`` (completions), ``finish_reason``."""

    delta: Delta | None = None
    text: str | None = None
    finish_reason: str | None = None


class UsageDetails(msgspec.Struct, gc=False):
    """``usage.completion_tokens_details``."""

    reasoning_tokens: Count | None = None


class Usage(msgspec.Struct, gc=False):
    """``usage``: token counts the server reports (tokens, integers >= 0)."""

    completion_tokens: Count | None = None
    prompt_tokens: Count | None = None
    completion_tokens_details: UsageDetails | None = None


class ErrorInfo(msgspec.Struct, gc=False):
    """``error`` as an object: its ``message``."""

    message: str | None = None


class Chunk(msgspec.Struct, gc=False):
    """One decoded event: the fields above, typed; absent keys take their defaults (``choices`` empty, others
    ``None``); a ``null`` ``choices`` reads as empty (as an absent one)."""

    choices: list[Choice] | None = None
    usage: Usage | None = None
    error: ErrorInfo | str | None = None
    metrics: msgspec.Raw = msgspec.Raw()  # empty when absent: the engine adapters read it (module doc)


class BadEvent(msgspec.Struct, gc=False, frozen=True):
    """An event that is not a :class:`Chunk`: ``what`` is msgspec's description (``Expected `str | null`, got
    `int` - at `$.choices[0].delta.content```, ``JSON is malformed: ...``) or ``nested too deeply``."""

    what: str


#: ``decode_chunk(data) -> Chunk``, raising one of :data:`DECODE_ERRORS`: the hot loop's call (a ``try`` around it
#: costs nothing when nothing is raised); :func:`decode_event` is the same with the failure turned into a value.
decode_chunk = msgspec.json.Decoder(Chunk).decode
DECODE_ERRORS = (msgspec.MsgspecError, RecursionError)


def decode_event(data: bytes | str) -> Chunk | BadEvent:
    """Decode one SSE ``data`` payload (not ``[DONE]``) into a :class:`Chunk`, or say why not.

    Bytes that are not valid UTF-8 are decoded again with U+FFFD in place of the bad bytes (as a text decoder with
    ``errors="replace"`` would have given them), so one mangled character in a token costs no event.

    Returns:
        The typed chunk, or a :class:`BadEvent` (never raises).
    """
    try:
        return decode_chunk(data)
    except msgspec.ValidationError as exc:
        return BadEvent(str(exc)[:200])
    except msgspec.DecodeError as exc:
        if isinstance(data, bytes) and "UTF-8" in str(exc):
            return decode_event(data.decode("utf-8", "replace"))
        return BadEvent(str(exc)[:200])
    except RecursionError:  # msgspec decodes nested values recursively, even the ones it skips
        return BadEvent("nested too deeply to decode")


#: the start of one whole JSON answer, its ``object`` captured: chat's ``chat.completion``, completions'
#: ``text_completion``, a Responses ``response`` (vllm/entrypoints/openai/protocol.py ``ChatCompletionResponse``,
#: ``CompletionResponse``; OpenAI's API reference names the same three)
_WHOLE_ANSWER = re.compile(rb'\s*\{.*?"object"\s*:\s*"(chat\.completion|text_completion|response)"', re.S)


def unstreamed_object(body: bytes) -> str | None:
    """The ``object`` of a 200 body that is one whole JSON answer, not an event stream (a server that ignored
    ``stream: true``), read from the body's start (it may be cut short); ``None`` for anything else."""
    m = _WHOLE_ANSWER.match(body)
    return m.group(1).decode() if m else None

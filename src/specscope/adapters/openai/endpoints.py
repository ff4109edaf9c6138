"""The OpenAI-compatible APIs ``bench --endpoint`` sends to: each one's request dialect and stream fields.

Three endpoints, as ``vllm bench serve --endpoint`` chooses them (vllm/benchmarks/lib/endpoint_request_func.py:
``async_request_openai_completions`` for ``/v1/completions``, its default, ``async_request_openai_chat_completions``
for ``/v1/chat/completions``; the Responses API from vLLM's vllm/entrypoints/openai/serving_responses.py and
``responses/simple_streaming_events.py``, and the OpenAI API reference, "Responses: streaming events"):

- ``/v1/chat/completions`` (the default): ``messages``; a stream of ``data: <chunk>`` events whose
  ``choices[0].delta.content`` / ``.reasoning`` / ``.reasoning_content`` carry the text, then a chunk with
  ``finish_reason``, a usage chunk (``stream_options.include_usage``) and ``data: [DONE]``. Read by
  :mod:`specscope.client.events`.
- ``/v1/completions``: one ``prompt`` string (``max_tokens``, ``stream_options.include_usage`` as chat); the same
  envelope with ``choices[0].text`` in place of a delta, no role chunk (vllm/entrypoints/openai/serving_completion.py
  ``completion_stream_generator``), usage chunk and ``[DONE]``. Read by :mod:`specscope.client.events` too
  (``choices[i].text``). A conversation (a later user turn after an answer) has no form here: refused.
- ``/v1/responses``: ``input`` (the messages as role/content items), ``max_output_tokens``; a stream of typed events
  (``event: <type>`` + ``data: {"type": ..., ...}``): ``response.created`` / ``response.in_progress`` /
  ``response.output_item.added`` / ``response.content_part.added`` carry no text; ``response.output_text.delta``
  (answer) and ``response.reasoning_text.delta`` (reasoning) carry it in ``delta``; the terminal event is
  ``response.completed``, ``response.incomplete`` or ``response.failed``, whose ``response`` holds ``status``
  (``completed`` / ``incomplete`` / ``failed``), ``incomplete_details.reason`` (``max_output_tokens``: the length
  limit, a success) and ``usage`` (``input_tokens``, ``output_tokens``, ``output_tokens_details.reasoning_tokens``);
  an ``error`` event carries ``message``. No ``[DONE]``: the terminal event ends the stream. Read by
  :func:`decode_responses_event` (the client's parse, :mod:`specscope.client.parse`).

TTFT is at the first event that carries generated text (never at ``response.created`` or a role chunk); tokens
come from each API's usage. Field status, per field: read (above); ignored: ``id``, ``object``, ``created``,
``model``, ``sequence_number``, ``item_id``, ``output_index``, ``content_index``, ``logprobs``, the ``*.done`` and
``*.added`` events (they repeat or announce text already counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, get_args
from urllib.parse import urlsplit

import msgspec

from specscope import strictjson
from specscope.redact import redact_text

__all__ = [
    "CHAT",
    "COMPLETIONS",
    "DEFAULT_ENDPOINT",
    "ENDPOINTS",
    "REFUSED_STATUSES",
    "RESPONSES",
    "RESPONSES_REASONING_DELTAS",
    "RESPONSES_TERMINAL",
    "RESPONSES_TEXT_DELTA",
    "Endpoint",
    "EndpointPath",
    "ResponsesEvent",
    "conversations_refusal",
    "decode_responses_event",
    "endpoint_of",
    "endpoint_url",
    "refusal_note",
    "request_body",
    "responses_finish",
    "server_message",
    "url_endpoint",
]

CHAT: Final = "/v1/chat/completions"
COMPLETIONS: Final = "/v1/completions"
RESPONSES: Final = "/v1/responses"
#: the type of an endpoint's path (a setting's field: ``ClientSettings.endpoint``, the truth script's ``apis``).
EndpointPath = Literal["/v1/chat/completions", "/v1/completions", "/v1/responses"]
#: what ``bench --endpoint`` takes, the default first.
ENDPOINTS: tuple[str, ...] = get_args(EndpointPath)
assert ENDPOINTS == (CHAT, COMPLETIONS, RESPONSES)
DEFAULT_ENDPOINT: Final = CHAT
#: HTTP statuses with which a server refuses an API it does not serve (vLLM: 400 for chat on a model with no chat
#: template, 404 for a route it lacks; 405 / 501 from proxies).
REFUSED_STATUSES = frozenset({400, 404, 405, 501})
#: most characters of a server's own error message kept with a stream.
MESSAGE_CHARS = 200


@dataclass(frozen=True)
class Endpoint:
    """One API: its path, the name of its dialect, and whether a conversation (later turns) can be sent on it."""

    path: str
    dialect: str
    conversations: bool


_ENDPOINTS = {
    CHAT: Endpoint(CHAT, "chat", True),
    COMPLETIONS: Endpoint(COMPLETIONS, "completions", False),
    RESPONSES: Endpoint(RESPONSES, "responses", False),
}


def endpoint_of(path: str) -> Endpoint:
    """The :class:`Endpoint` of ``path`` (one of :data:`ENDPOINTS`; the option spec refuses any other first).

    Raises:
        KeyError: not a known endpoint.
    """
    return _ENDPOINTS[path]


def endpoint_url(base_url: str, path: str = CHAT) -> str:
    """``ROOT/v1/...`` for a server root or an OpenAI base URL ending in ``/v1`` (``http://h:8000/v1`` +
    ``/v1/completions`` -> ``http://h:8000/v1/completions``)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    return root + path


def url_endpoint(url: str) -> str | None:
    """The API path a server URL ends with (``http://h:8000/v1/completions`` -> ``/v1/completions``; a trailing
    ``/`` is ignored), else None: such a URL names one endpoint, not the server."""
    path = urlsplit(url).path.rstrip("/")
    return next((p for p in ENDPOINTS if path.endswith(p)), None)


def _text_of(content: Any) -> str:
    """A message's content as text: a string, or the ``text`` of its ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def completions_prompt(messages: list[dict[str, Any]]) -> str:
    """The ``prompt`` of ``/v1/completions`` for one turn's messages: their texts joined with a blank line, in order
    (a system message, the user message, and a trailing assistant prefill, which the model then continues)."""
    return "\n\n".join(_text_of(m.get("content")) for m in messages)


#: chat-template fields a completions or Responses server does not take (it renders no chat template for them).
_CHAT_ONLY = ("messages", "chat_template_kwargs", "continue_final_message", "add_generation_prompt")


def request_body(path: str, chat: dict[str, Any]) -> dict[str, Any]:
    """The request body of ``path`` for a chat-completions body ``chat`` (from
    :func:`specscope.workload.chat_request`), a new dict.

    ``/v1/chat/completions``: ``chat`` as is. ``/v1/completions``: ``prompt`` = :func:`completions_prompt` of the
    messages, the chat-template fields dropped, the rest (``model``, ``max_tokens``, ``temperature``,
    ``ignore_eos``, ``cache_salt``, ``stream_options``) kept. ``/v1/responses``: ``input`` = the messages as
    ``{"role", "content"}`` items, ``max_output_tokens`` = ``max_tokens``, ``stream_options`` dropped (usage rides
    the terminal event), ``model``, ``temperature`` and the sampling extras kept."""
    if path == CHAT:
        return dict(chat)
    body = {k: v for k, v in chat.items() if k not in _CHAT_ONLY}
    messages = list(chat.get("messages") or [])
    if path == COMPLETIONS:
        body["prompt"] = completions_prompt(messages)
        return body
    body["input"] = [{"role": m.get("role"), "content": _text_of(m.get("content"))} for m in messages]
    limit = body.pop("max_completion_tokens", body.pop("max_tokens", None))
    if limit is not None:
        body["max_output_tokens"] = limit
    body.pop("stream_options", None)
    return body


def conversations_refusal(path: str) -> str | None:
    """Why conversations cannot be sent on ``path`` (None: they can, on ``/v1/chat/completions``)."""
    if endpoint_of(path).conversations:
        return None
    return f"{path} takes one prompt per request; a conversation's later turns need {CHAT}'s messages"


def server_message(body: bytes) -> str | None:
    """A refused request's own message, redacted and at most :data:`MESSAGE_CHARS` characters: ``error.message``
    (vLLM's ``ErrorResponse``, OpenAI), a root ``message`` (vLLM before 0.10: ``{"object": "error", "message"}``),
    ``detail`` (FastAPI's 404 ``{"detail": "Not Found"}``), else the body's text; None for an empty body."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        obj = strictjson.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error")
        for found in (err.get("message") if isinstance(err, dict) else err, obj.get("message"), obj.get("detail")):
            if isinstance(found, str) and found.strip():
                text = found.strip()
                break
    text = " ".join(redact_text(text).split())
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 3] + "..."


def refusal_note(path: str, http_status: int, body: bytes) -> str:
    """What a stream's reason says of a non-200 answer: ``on PATH``, the server's own message when it sent one, and
    for a refused API (:data:`REFUSED_STATUSES`) the other endpoints to try
    (``on /v1/chat/completions: Not Found; try --endpoint /v1/completions or /v1/responses``)."""
    note = f"on {path}"
    msg = server_message(body)
    if msg:
        note += f": {msg}"
    if http_status in REFUSED_STATUSES:
        others = [p for p in ENDPOINTS if p != path]
        note += f"; try --endpoint {' or '.join(others)}"
    return note


# --- the Responses stream ---------------------------------------------------------------------------------------

Count = Annotated[int, msgspec.Meta(ge=0)]

#: the event that carries answer text in ``delta``.
RESPONSES_TEXT_DELTA: Final = "response.output_text.delta"
#: the events that carry reasoning text in ``delta``.
RESPONSES_REASONING_DELTAS = frozenset({"response.reasoning_text.delta", "response.reasoning_summary_text.delta"})
#: the events that end a Responses stream (their ``response`` holds status and usage).
RESPONSES_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


class OutputDetails(msgspec.Struct, gc=False):
    """``usage.output_tokens_details``."""

    reasoning_tokens: Count | None = None


class ResponsesUsage(msgspec.Struct, gc=False):
    """``response.usage`` of a terminal event (tokens)."""

    input_tokens: Count | None = None
    output_tokens: Count | None = None
    output_tokens_details: OutputDetails | None = None


class IncompleteDetails(msgspec.Struct, gc=False):
    """``response.incomplete_details``: ``reason`` (``max_output_tokens``, ``content_filter``)."""

    reason: str | None = None


class ResponsesError(msgspec.Struct, gc=False):
    """``response.error`` of a failed response, or the ``error`` object of an error event."""

    message: str | None = None
    code: str | int | None = None


class ResponseState(msgspec.Struct, gc=False):
    """``response``: the response object an event carries (status, usage, why incomplete, error)."""

    status: str | None = None
    usage: ResponsesUsage | None = None
    incomplete_details: IncompleteDetails | None = None
    error: ResponsesError | None = None


class ResponsesEvent(msgspec.Struct, gc=False):
    """One event of a Responses stream: ``type``, ``delta`` (text events), ``response`` (lifecycle events),
    ``message`` / ``error`` (an ``error`` event)."""

    type: str = ""
    delta: str | None = None
    response: ResponseState | None = None
    message: str | None = None
    error: ResponsesError | None = None


#: ``decode_responses_event(data) -> ResponsesEvent``; raises msgspec's errors on what does not fit.
decode_responses_event = msgspec.json.Decoder(ResponsesEvent).decode


def responses_finish(state: ResponseState) -> str | None:
    """The finish reason of a terminal response, in chat's words: ``completed`` -> ``stop``; ``incomplete`` for
    ``max_output_tokens`` -> ``length`` (a success at the length limit); another incomplete reason -> that reason;
    ``failed`` or anything else -> None (the error says why)."""
    if state.status == "completed":
        return "stop"
    if state.status == "incomplete":
        reason = state.incomplete_details.reason if state.incomplete_details is not None else None
        return "length" if reason in (None, "max_output_tokens") else reason
    return None

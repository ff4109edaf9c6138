"""A Responses stream's events into a stream's parse: the typed events of ``/v1/responses`` (their fields and
sources: :mod:`specscope.adapters.openai.endpoints`) read into the same counts and instants a chat stream fills.

A text or reasoning delta is a token event (TTFT at the first; never at ``response.created`` or another lifecycle
event); the terminal event (``response.completed`` / ``response.incomplete`` / ``response.failed``) ends the stream,
standing for chat's ``[DONE]``, with its finish reason, usage and error; an ``error`` event is the server's error; an
event that does not fit its type is a ``BAD_EVENT``. The token budget (``RUNAWAY``) is checked at each delta and at
the usage, as for chat (:mod:`specscope.client.parse`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from specscope.adapters.openai.endpoints import (
    RESPONSES_REASONING_DELTAS,
    RESPONSES_TERMINAL,
    RESPONSES_TEXT_DELTA,
    ResponseState,
    decode_responses_event,
    responses_finish,
)
from specscope.client.events import DECODE_ERRORS
from specscope.records import INT_BOUND

__all__ = ["Runaway", "read_responses_events", "read_whole_response"]


class Runaway(Exception):
    """A budget was passed (the message is the ``RUNAWAY(...)`` reason); raised inside the event loop, so the normal
    path pays no check per event beyond the token count."""


class Parse(Protocol):
    """What this module fills of :class:`specscope.client.parse.StreamParser`."""

    first_token: int | None
    first_content: int | None
    last_token: int | None
    content_chunks: int
    reasoning_chunks: int
    token_events: int
    texts: list[str] | None
    rtexts: list[str] | None
    output_tokens: int | None
    prompt_tokens: int | None
    reasoning_tokens: int | None
    finish: str | None
    done: bool
    server_error: str | None
    bad_events: int
    first_bad: str | None

    @property
    def token_limit(self) -> int: ...

    def tokens_reason(self) -> str: ...


def read_responses_events(p: Parse, t: int, datas: Sequence[bytes]) -> None:
    """Take the data of the Responses events that completed at ``t`` (ns) into ``p`` (module doc).

    Raises:
        Runaway: past the token budget (``p`` holds the events up to the one that passed it).
    """
    first = p.token_events
    try:
        for d in datas:
            if d == b"[DONE]" or not d:  # not sent by vLLM or OpenAI; read as the end if a server sends it
                p.done = p.done or d == b"[DONE]"
                continue
            try:
                ev = decode_responses_event(d)
            except DECODE_ERRORS as exc:
                p.bad_events += 1
                p.first_bad = p.first_bad or str(exc)[:200]
                continue
            if ev.delta and (ev.type == RESPONSES_TEXT_DELTA or ev.type in RESPONSES_REASONING_DELTAS):
                _token(p, ev.type == RESPONSES_TEXT_DELTA, ev.delta)
            elif ev.type in RESPONSES_TERMINAL and ev.response is not None:
                _end(p, ev.response)
            elif ev.type == "error":
                msg = ev.message or (ev.error.message if ev.error is not None else None)
                p.server_error = (msg or "(no message)")[:200]
    finally:
        if p.token_events > first:
            if p.first_token is None:
                p.first_token = t
            p.last_token = t
        if p.content_chunks and p.first_content is None:
            p.first_content = t


def _token(p: Parse, answer: bool, text: str) -> None:
    p.token_events += 1
    if p.token_events > p.token_limit:
        raise Runaway(p.tokens_reason())
    if answer:
        p.content_chunks += 1
    else:
        p.reasoning_chunks += 1
    texts = p.texts if answer else p.rtexts
    if texts is not None:
        texts.append(text)


def _end(p: Parse, state: ResponseState) -> None:
    """A terminal event: ``done``, the finish reason (:func:`responses_finish`), usage and a failure's error."""
    p.done = True
    p.finish = responses_finish(state)
    if state.error is not None:
        p.server_error = (state.error.message or "(no message)")[:200]
    elif state.status == "failed":
        p.server_error = "response failed"
    usage = state.usage
    if usage is not None and usage.output_tokens is not None:
        if usage.output_tokens < INT_BOUND and usage.output_tokens > p.token_limit:  # past the bound: no count
            raise Runaway(p.tokens_reason())
        p.output_tokens = usage.output_tokens
        p.prompt_tokens = usage.input_tokens
        details = usage.output_tokens_details
        if details is not None:
            p.reasoning_tokens = details.reasoning_tokens


_decode_state = msgspec.json.Decoder(ResponseState).decode


def read_whole_response(p: Parse, body: bytes) -> None:
    """One whole Responses ``response`` body (a server that ignored ``stream: true``) into ``p``, as its terminal
    event would have filled it: finish reason, ``usage.input_tokens`` / ``output_tokens`` /
    ``output_tokens_details.reasoning_tokens``, a failure's error; a body that does not fit the type is a
    ``BAD_EVENT`` (msgspec's description with the JSON path).

    Raises:
        Runaway: ``usage.output_tokens`` past the token budget.
    """
    try:
        state = _decode_state(body)
    except DECODE_ERRORS as exc:
        p.bad_events += 1
        p.first_bad = p.first_bad or str(exc)[:200]
        return
    _end(p, state)

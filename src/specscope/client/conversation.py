"""Conversations: N at a time, each turn sent after the server's answer to the one before, with that answer in its
history (the way Spec-Bench's ``evaluation/eval.py`` and FastChat's MT-Bench generation ask turn 2).

A conversation is its first request body and the user texts of its later turns. Turn k+1's body is turn k's body
with two messages appended: the assistant's answer to turn k (the stream's concatenated ``content`` deltas,
:attr:`~specscope.records.StreamRecord.text`, which conversations ask the parser to keep: ``keep_text``; reasoning
deltas are not sent back, as chat templates drop them) and the next user turn. An answer with tool calls goes back as
OpenAI's chat API wants it: the assistant message carries ``tool_calls`` (each call's id, type, name and
concatenated arguments, :func:`~specscope.client.parse.tool_calls_of`), followed by one ``tool`` message per call
id (:data:`NO_TOOL_OUTPUT`: a benchmark runs no tools, and says so to the model rather than invent a result).
Every other field (model, ``max_tokens``, temperature, cache fields) is kept, so a conversation's turns share its
prefix-cache salt: a server may reuse the conversation's own history, as it does in service, but never another
cell's prompt.

Every turn goes on a fresh connection (llama.cpp's server closes one after a streamed answer, so a reused one
fails the next turn). Each stream records ``prompt_id`` ``"<conversation id>/t<turn>"``
(:func:`specscope.records.turn_prompt_id`). A turn whose stream failed ends its conversation (the later turns
are counted as not sent); a degraded stream with an answer goes on. Turn k's answer is parsed
(:func:`~specscope.client.parse.parse_capture`) before turn k+1 is built: a few hundred microseconds on the event
loop while the other conversations stream, the price of sending the real answer back.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from specscope.adapters.openai.endpoints import conversations_refusal
from specscope.client.checks import CheckThresholds, ClientCheck, ClientMonitor
from specscope.client.parse import parse_capture, tool_calls_of
from specscope.client.polling import busy_polling
from specscope.client.settings import ClientSettings
from specscope.client.stream import (
    capture_stream,
    chat_url,
    make_session,
    max_tokens_of,
    prepare_body,
    request_headers,
)
from specscope.errors import ConfigError
from specscope.records import StreamRecord, turn_prompt_id

__all__ = [
    "NO_TOOL_OUTPUT",
    "Conversation",
    "ConversationOutcome",
    "next_turn_body",
    "run_conversations",
    "run_conversations_checked",
]


@dataclass(frozen=True)
class Conversation:
    """One conversation: its id (the prompt id), turn 1's chat body and the user texts of turns 2..n.

    ``self_contained``: each later turn is sent as its own user message alone, after the answer to the turn before
    (AIPerf's single-turn rows of one ``session_id``: ``MESSAGE_ARRAY_WITH_RESPONSES``, no history accumulated);
    otherwise it carries the turns before it and the server's answers (a chat). ``recorded``: empty, or per later
    turn the message array sent as recorded, after the answer to the turn before, which it does not carry (AIPerf's
    AA-RWLT steps: :attr:`specscope.workload.prompt.Prompt.follow_up_messages`). ``turn_max_tokens``: empty, or each
    turn's output limit (turn 1's is the first body's), set in turn k's body in place of the first body's (AIPerf's
    per-turn ``Turn.max_tokens``).
    """

    conv_id: str
    first_body: dict[str, Any]
    follow_ups: tuple[str, ...] = ()
    self_contained: bool = False
    recorded: tuple[tuple[dict[str, Any], ...], ...] = ()
    turn_max_tokens: tuple[int, ...] = ()

    @property
    def turns(self) -> int:
        return 1 + len(self.follow_ups)


@dataclass(frozen=True)
class ConversationOutcome:
    """What happened to one conversation: turns planned and sent (a failed turn ends it)."""

    conv_id: str
    turns_planned: int
    turns_sent: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.conv_id, "turns_planned": self.turns_planned, "turns_sent": self.turns_sent}


#: the content of the ``tool`` message answering each tool call of a turn: no tool is run, and the text says so
NO_TOOL_OUTPUT = "(no tool output: this benchmark runs no tools)"


def next_turn_body(
    body: dict[str, Any], answer: str, user_text: str, tool_calls: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """Turn k+1's body: ``body`` (turn k's, not modified) with ``{"role": "assistant", "content": answer}`` and
    ``{"role": "user", "content": user_text}`` appended to its messages. With ``tool_calls`` (the answer's whole
    calls) the assistant message carries them and one ``{"role": "tool", "tool_call_id": id, "content":``
    :data:`NO_TOOL_OUTPUT` ``}`` per call follows it, before the user turn."""
    assistant: dict[str, Any] = {"role": "assistant", "content": answer}
    tools: list[dict[str, Any]] = []
    if tool_calls:
        assistant["tool_calls"] = [copy.deepcopy(c) for c in tool_calls]
        tools = [{"role": "tool", "tool_call_id": c["id"], "content": NO_TOOL_OUTPUT} for c in tool_calls]
    messages = [*body["messages"], assistant, *tools, {"role": "user", "content": user_text}]
    return {**body, "messages": messages}


async def _one(
    session: Any, url: str, conv: Conversation, settings: ClientSettings, headers: dict[str, str]
) -> tuple[list[StreamRecord], ConversationOutcome]:
    records: list[StreamRecord] = []
    body = conv.first_body
    for turn in range(1, conv.turns + 1):
        raw = await capture_stream(
            session,
            url,
            turn_prompt_id(conv.conv_id, turn),
            prepare_body(body),
            max_tokens=max_tokens_of(body),
            headers=headers,
            settings=settings,
        )
        rec = parse_capture(raw)
        records.append(rec)
        if rec.status == "failed" or turn == conv.turns:
            break
        text = conv.follow_ups[turn - 1]
        if conv.recorded:
            body = {**body, "messages": copy.deepcopy(list(conv.recorded[turn - 1]))}  # verbatim, tool calls too
        elif conv.self_contained:
            body = {**body, "messages": [{"role": "user", "content": text}]}
        else:
            body = next_turn_body(body, rec.text or "", text, tool_calls_of(raw))
        if conv.turn_max_tokens:
            key = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
            body = {**body, key: conv.turn_max_tokens[turn]}  # turn k+1's own limit
    return records, ConversationOutcome(conv.conv_id, conv.turns, len(records))


async def run_conversations(
    base_url: str, conversations: Sequence[Conversation], concurrency: int, settings: ClientSettings
) -> tuple[list[StreamRecord], list[ConversationOutcome]]:
    """Run ``conversations`` with ``concurrency`` of them in flight (the next starts when one ends).

    Returns:
        ``(streams, outcomes)``: every turn's record, conversation by conversation in the order given and turn by
        turn within one; one outcome per conversation.

    Raises:
        ConfigError: ``concurrency`` < 1 or above the client's connection limit, or an endpoint other than
            ``/v1/chat/completions`` (:func:`specscope.adapters.openai.endpoints.conversations_refusal`).
    """
    why = conversations_refusal(settings.endpoint)
    if why is not None:
        raise ConfigError(
            "conversations are sent on /v1/chat/completions only",
            found=f"--endpoint {settings.endpoint}",
            expected=why,
            fix="drop --endpoint, or run single-turn workloads on this endpoint",
        )
    if concurrency < 1 or settings.connection_limit < concurrency:
        raise ConfigError(
            "conversations need 1..connection_limit in flight",
            found=f"concurrency={concurrency}, connection_limit={settings.connection_limit}",
            expected="1 <= concurrency <= connection_limit",
            fix="pass a concurrency level within the client's connection limit",
        )
    url = chat_url(base_url)
    headers = request_headers(settings)
    settings = settings.model_copy(update={"keep_text": True})  # each answer goes back in the next turn
    results: list[tuple[list[StreamRecord], ConversationOutcome] | None] = [None] * len(conversations)
    next_i = 0
    async with busy_polling(settings.busy_poll), make_session(settings, force_close=True) as session:

        async def worker() -> None:
            nonlocal next_i
            while next_i < len(conversations):
                i = next_i
                next_i += 1
                results[i] = await _one(session, url, conversations[i], settings, headers)

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(conversations)))))
    streams = [r for got in results if got is not None for r in got[0]]
    return streams, [got[1] for got in results if got is not None]


async def run_conversations_checked(
    base_url: str,
    conversations: Sequence[Conversation],
    concurrency: int,
    settings: ClientSettings,
    thresholds: CheckThresholds | None = None,
) -> tuple[list[StreamRecord], ClientCheck, list[ConversationOutcome]]:
    """:func:`run_conversations` inside a :class:`ClientMonitor` (the client self-checks)."""
    async with ClientMonitor(settings, thresholds) as mon:
        streams, outcomes = await run_conversations(base_url, conversations, concurrency, settings)
    return streams, mon.result(streams), outcomes

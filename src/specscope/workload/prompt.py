"""The prompt record every pack produces and every client consumes, and the integer check the workload
modules share for their counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from specscope.errors import ConfigError
from specscope.readfile import MAX_LINES, TooManyLines, split_lines

__all__ = ["Prompt", "message_text", "is_int_in", "require_int_in", "file_lines"]


@dataclass(frozen=True)
class Prompt:
    """One benchmark prompt.

    Attributes:
        prompt_id: ``"<workload>-<corpus index, 3 digits>"``, e.g. ``"edit-017"``; stable for a corpus
            item across seeds (the seed changes order and variation, not which item an id names).
        workload: the pack name (``prose``, ``code``, ``edit``, ``edit-prefill``, ``repeat``).
        messages: OpenAI chat messages (``[{"role": "user", "content": ...}]``); treat as read-only,
            :func:`specscope.workload.chat_request` copies them. A row sent as recorded (AIPerf's AA-RWLT steps and
            mooncake_trace ``messages`` rows) keeps its messages verbatim: ``content`` may be null or a list of
            content parts, with ``tool_calls`` / ``tool_call_id`` / ``name`` (:func:`message_text` reads the text).
        prefill: text the assistant answer starts with (``edit-prefill``: the opening code fence and the
            module's first line; ``repeat``: its first two lines), sent as a final assistant message to be
            continued; ``None`` otherwise.
        expected_output: for ``edit`` and ``edit-prefill`` the exact renamed module (str, ends in
            ``"\\n"``); for ``repeat`` its line written out as often as asked; ``None`` for packs without one right
            answer.
        meta: pack details (seed, corpus index, form ``"plain"``/``"prefill"``, topic or rename, ...).
        follow_ups: the later user turns of a conversation (a dataset row with several turns), in order: turn
            k+1 is sent after the server's answer to turn k, with that answer in its history
            (:func:`specscope.client.conversation.next_turn_body`); empty for a single-turn prompt.
        follow_up_messages: empty, or one recorded message array per follow-up, each sent as recorded in place of
            the conversation's history, the server's answer to the turn before discarded (AIPerf's AA-RWLT steps:
            ``Turn(raw_messages=...)`` with ``discard_assistant_response``); its follow-up is then its last message's
            text, for display.
    """

    prompt_id: str
    workload: str
    messages: list[dict[str, Any]]
    prefill: str | None = None
    expected_output: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    follow_ups: tuple[str, ...] = ()
    follow_up_messages: tuple[tuple[dict[str, Any], ...], ...] = ()

    @property
    def turns(self) -> int:
        """Number of user turns: 1 + the follow-ups."""
        return 1 + len(self.follow_ups)

    @property
    def first_user_text(self) -> str:
        """The content of the first user message (what makes prompts distinct from their first tokens)."""
        return next(message_text(m) for m in self.messages if m["role"] == "user")


def message_text(message: dict[str, Any]) -> str:
    """A chat message's text: its ``content`` string, or its text parts' texts joined with a newline (vLLM's
    ``entrypoints/chat_utils.py`` joins them so), ``""`` for a null content (an assistant turn of ``tool_calls``)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))


def is_int_in(value: object, low: int | None = None, high: int | None = None) -> bool:
    """True when ``value`` is an ``int`` (not a ``bool``) within ``low..high`` (each bound inclusive, if given)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return (low is None or low <= value) and (high is None or value <= high)


def require_int_in(
    value: object, message: str, *, low: int | None = None, high: int | None = None, expected: str, fix: str
) -> None:
    """Raise :class:`ConfigError` (``message``, ``found`` the value) unless :func:`is_int_in` ``(value, low, high)``.

    Raises:
        ConfigError: ``value`` is not an int within ``low..high``.
    """
    if not is_int_in(value, low, high):
        raise ConfigError(message, found=value, expected=expected, fix=fix)


def file_lines(kind: str, path: object, text: str, fix: str) -> list[str]:
    """The lines of a line-oriented ``kind`` file (``workload``, ``trace``: :func:`specscope.readfile.split_lines`),
    refused past :data:`specscope.readfile.MAX_LINES` before any list is built, with ``fix``.

    Raises:
        ConfigError: more lines than the limit.
    """
    try:
        return split_lines(text)
    except TooManyLines as exc:
        raise ConfigError(
            f"{kind} file {path} has more lines than the limit",
            found=f"{exc.lines:,} lines",
            expected=f"at most {MAX_LINES:,} lines",
            fix=fix,
        ) from None

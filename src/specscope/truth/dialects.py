"""The three APIs the ground-truth server streams, and its refusal of the ones a script leaves out.

Wire shapes (the readers are :mod:`specscope.adapters.openai.endpoints`, whose module doc names the sources):

- ``/v1/chat/completions``: ``chat.completion.chunk`` events with ``choices[0].delta`` (see
  :mod:`specscope.truth.server`).
- ``/v1/completions``: ``text_completion`` events with ``choices[0].text``; no role chunk (vLLM's completions
  stream has none), then the finish chunk (``text: ""``), the usage chunk and ``[DONE]``, as chat. A plan's
  reasoning tokens go out as text (the completions API has no reasoning field).
- ``/v1/responses``: ``event: <type>`` + ``data: {"type": ...}`` events: ``response.created`` and
  ``response.in_progress`` (at the plan's ``role_ms``), ``response.output_item.added`` and
  ``response.content_part.added`` (no text), one ``response.output_text.delta`` (or ``response.reasoning_text.delta``)
  per token chunk, then the terminal event: ``response.completed`` (status ``completed``, finish ``stop``) or
  ``response.incomplete`` (status ``incomplete``, ``incomplete_details.reason = "max_output_tokens"``, finish
  ``length``), its ``response.usage`` = ``{input_tokens, output_tokens, total_tokens, output_tokens_details}``
  (``null`` with ``usage="absent"``); no ``[DONE]`` (a plan's ``send_done`` is ignored); a plan with
  ``finish_reason=None`` sends no terminal event.

Refusals (:attr:`~specscope.truth.script.TruthScript.apis`): an API the script does not serve answers
``refuse_status``: 404 with FastAPI's ``{"detail": "Not Found"}`` (vLLM's answer for a route it lacks), or 400 with
vLLM's ``ErrorResponse`` ``{"error": {"message", "type": "BadRequestError", "param": null, "code": 400}}`` and the
message vLLM gives a model with no chat template.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from specscope.adapters.openai.endpoints import CHAT, COMPLETIONS, RESPONSES

__all__ = [
    "event",
    "choice_event",
    "finish_choice",
    "stream_heads",
    "tool_call_delta",
    "CHAT",
    "COMPLETIONS",
    "RESPONSES",
    "NO_CHAT_TEMPLATE",
    "choice",
    "object_name",
    "prompt_text",
    "refusal",
    "responses_delta",
    "responses_event",
    "responses_start",
    "responses_end",
]

#: vLLM's 400 for chat on a tokenizer with no chat template (vllm/entrypoints/chat_utils.py, from transformers).
NO_CHAT_TEMPLATE = (
    "As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template "
    "if the tokenizer does not define one."
)


def refusal(status: int) -> dict[str, Any]:
    """The JSON body of a refused API: FastAPI's 404, else vLLM's ``ErrorResponse`` with the no-chat-template
    message."""
    if status == 404:
        return {"detail": "Not Found"}
    return {"error": {"message": NO_CHAT_TEMPLATE, "type": "BadRequestError", "param": None, "code": status}}


def prompt_text(body: dict[str, Any], *, user: bool = True) -> Any:
    """The text a request is keyed on (``by_prompt``; ``user=True``: the last *user* message) or logged with
    (``user=False``: the last message, a prefill included): of chat ``messages`` or Responses ``input`` items; a
    completions ``prompt`` or a string ``input`` as is."""
    if isinstance(body.get("prompt"), str):
        return body["prompt"]
    items = body.get("messages")
    if items is None:
        items = body.get("input")
        if isinstance(items, str):
            return items
    items = [m for m in items or [] if isinstance(m, dict) and (not user or m.get("role") == "user")]
    return items[-1].get("content") if items else None


def object_name(path: str) -> str:
    """The ``object`` of a chat or completions stream chunk."""
    return "text_completion" if path == COMPLETIONS else "chat.completion.chunk"


def choice(path: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    """One stream choice: chat's ``delta``, or completions' ``text`` (the delta's text, ``""`` for none)."""
    if path == COMPLETIONS:
        text = "".join(v for k, v in delta.items() if k != "role" and isinstance(v, str))
        return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}


def unstreamed_body(
    path: str, rid: str, model: str, text: str, finish: str | None, usage: dict[str, int], reasoning_tokens: int = 0
) -> Any:
    """The one JSON body of a response that was not streamed: chat's ``chat.completion`` (a ``message``), completions'
    ``text_completion`` (``text``) or a Responses ``response`` (``output_text``; its usage in the Responses names,
    with ``output_tokens_details.reasoning_tokens``), each with its ``usage`` (the shapes of
    ``vllm/entrypoints/openai/protocol.py`` ``ChatCompletionResponse`` / ``CompletionResponse``)."""
    if path == RESPONSES:
        out = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}]
        counts = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        }
        return _response(rid, model, "completed", {"output": out, "usage": counts})
    if path == COMPLETIONS:
        choice_: dict[str, Any] = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
    else:
        choice_ = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
    obj = "text_completion" if path == COMPLETIONS else "chat.completion"
    return {"id": rid, "object": obj, "created": 1767225600, "model": model, "choices": [choice_], "usage": usage}


def responses_event(kind: str, obj: dict[str, Any]) -> bytes:
    """One Responses SSE event: ``event: KIND`` and its ``data`` (``type`` = ``KIND``)."""
    data = json.dumps({"type": kind, **obj}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n".encode()


def _response(rid: str, model: str, status: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1767225600,
        "model": model,
        "status": status,
        "output": [],
        "incomplete_details": None,
        "usage": None,
        **(extra or {}),
    }


def responses_start(rid: str, model: str) -> bytes:
    """``response.created``, ``response.in_progress``, ``response.output_item.added`` and
    ``response.content_part.added``: the events before the first text, none of which carries any."""
    item = {"id": f"msg_{rid}", "type": "message", "role": "assistant", "content": [], "status": "in_progress"}
    part = {"type": "output_text", "text": "", "annotations": []}
    return b"".join(
        (
            responses_event("response.created", {"response": _response(rid, model, "in_progress")}),
            responses_event("response.in_progress", {"response": _response(rid, model, "in_progress")}),
            responses_event("response.output_item.added", {"output_index": 0, "item": item}),
            responses_event(
                "response.content_part.added",
                {"item_id": item["id"], "output_index": 0, "content_index": 0, "part": part},
            ),
        )
    )


def responses_delta(rid: str, reasoning: bool, text: str) -> bytes:
    """One token chunk: ``response.output_text.delta`` (answer) or ``response.reasoning_text.delta``."""
    kind = "response.reasoning_text.delta" if reasoning else "response.output_text.delta"
    return responses_event(kind, {"item_id": f"msg_{rid}", "output_index": 0, "content_index": 0, "delta": text})


def responses_end(head: dict[str, Any], finish: str, usage: dict[str, int] | None, reasoning_tokens: int) -> bytes:
    """The terminal event of the stream with event ``head`` (:func:`stream_heads`) for a chat-style ``finish``
    reason: ``length`` -> ``response.incomplete`` (status ``incomplete``, reason ``max_output_tokens``), anything
    else -> ``response.completed``; ``usage`` is chat's ``{prompt_tokens, completion_tokens}`` in the Responses
    names (None: ``usage: null``)."""
    incomplete = finish == "length"
    extra: dict[str, Any] = {}
    if incomplete:
        extra["incomplete_details"] = {"reason": "max_output_tokens"}
    if usage is not None:
        extra["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
            "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        }
    status = "incomplete" if incomplete else "completed"
    kind = "response.incomplete" if incomplete else "response.completed"
    return responses_event(kind, {"response": _response(head["id"], head["model"], status, extra)})


def event(obj: dict[str, Any]) -> bytes:
    """One ``data: <json>`` SSE event (chat and completions)."""
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def _path_of(head: dict[str, Any]) -> str:
    return COMPLETIONS if head.get("object") == "text_completion" else CHAT


def choice_event(head: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    """A chat or completions chunk (``head["object"]`` says which, :func:`choice`)."""
    return event({**head, "choices": [choice(_path_of(head), delta, finish)]})


def finish_choice(head: dict[str, Any], finish: str | None) -> dict[str, Any]:
    """The finish chunk's choice: no text, ``finish_reason``."""
    return choice(_path_of(head), {}, finish)


def tool_call_delta(rid: str, text: str, first: bool) -> dict[str, Any]:
    """A chat delta carrying ``text`` as a fragment of one tool call's arguments, in vLLM's streamed shape
    (vllm/entrypoints/openai/protocol.py ``DeltaToolCall``: ``index``, then ``id``, ``type`` and ``function.name`` on
    the call's first delta only, ``function.arguments`` pieces after)."""
    call: dict[str, Any] = {"index": 0, "function": {"arguments": text}}
    if first:
        call = {
            "index": 0,
            "id": f"chatcmpl-tool-{rid}",
            "type": "function",
            "function": {"name": "lookup", **call["function"]},
        }
    return {"tool_calls": [call]}


def stream_heads(
    path: str, rid: str, model: str, reasoning_field: str, answer_field: str = "content"
) -> dict[str, Any]:
    """``{"event": head, "token": token}``: the event head of ``path``'s stream (``object`` names the API:
    ``response``, ``text_completion``, ``chat.completion.chunk``) and its token-chunk builder
    ``token(kind, text) -> bytes`` (``kind``: ``reasoning``, ``content``, or ``first``: the answer's first chunk).
    A chat answer goes out as ``answer_field``: ``content`` text, or ``tool_calls`` argument fragments
    (:func:`tool_call_delta`; the first chunk names the call)."""
    token: Callable[[str, str], bytes]
    if path == RESPONSES:
        head: dict[str, Any] = {"id": rid, "object": "response", "model": model}

        def token(kind: str, text: str) -> bytes:
            return responses_delta(rid, kind == "reasoning", text)

        return {"event": head, "token": token}
    head = {"id": rid, "object": object_name(path), "created": 1767225600, "model": model}

    def chunk(kind: str, text: str) -> bytes:
        if kind == "reasoning":
            return choice_event(head, {reasoning_field: text})
        if answer_field == "tool_calls" and path == CHAT:
            return choice_event(head, tool_call_delta(rid, text, kind == "first"))
        return choice_event(head, {"content": text})

    return {"event": head, "token": chunk}

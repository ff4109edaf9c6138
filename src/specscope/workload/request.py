"""Turn a :class:`~specscope.workload.prompt.Prompt` into a streaming chat-completions request body.

Every body streams, asks for a final usage chunk (``stream_options.include_usage``) and turns thinking
off (``chat_template_kwargs: {"enable_thinking": false}``, as every request of seeds/000 did).

The pre-filled form (``Prompt.prefill`` set) appends ``{"role": "assistant", "content": prefill}`` as the
final message, and asks the server to continue it:

* ``openai`` / ``vllm`` / ``sglang``: ``"continue_final_message": true, "add_generation_prompt": false``
  (vLLM's chat-completions request fields; the chat template renders the assistant turn open-ended;
  SGLang's OpenAI protocol declares the same ``continue_final_message`` field; not yet run against a
  live SGLang here);
* ``llamacpp``: no extra field. llama.cpp's server treats a trailing assistant message as a prefill
  (``prefill_assistant``, on by default): it renders the conversation without that message, adds the
  generation prompt, and appends the message text; it ignores the vLLM fields. Checked with xllamacpp
  2026.10 serving SmolLM2-135M-Instruct (tests/workload/test_llamacpp_prefill.py): the prompt grows by
  the prefill's tokens; streamed deltas carry only the continuation and ``usage.completion_tokens``
  counts only generated tokens, while a *non-streaming* answer's ``message.content`` starts with the
  prefill (the server echoes it).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from specscope.errors import ConfigError
from specscope.workload.prompt import Prompt, require_int_in

__all__ = ["SERVER_KINDS", "chat_request"]

SERVER_KINDS: tuple[str, ...] = ("openai", "vllm", "sglang", "llamacpp")
_CONTINUE_FIELDS = {"continue_final_message": True, "add_generation_prompt": False}


def chat_request(
    prompt: Prompt,
    *,
    model: str,
    max_tokens: int,
    temperature: float,
    server_kind: str = "openai",
    cache_salt: str | None = None,
    thinking: bool = False,
    ignore_eos: bool = False,
) -> dict[str, Any]:
    """The JSON body (a fresh dict) for ``POST /v1/chat/completions``.

    Args:
        prompt: the prompt; its messages are deep-copied, never mutated.
        model: the served model name.
        max_tokens: generation cap in tokens, >= 1.
        temperature: sampling temperature, finite and >= 0 (0 is greedy).
        server_kind: one of :data:`SERVER_KINDS`; changes the pre-filled form and the cache fields.
        cache_salt: when given, keep the server's prefix cache from serving this request from an earlier
            one, so a repeated prompt cannot flatter a later cell: llama.cpp gets ``"cache_prompt": false``
            (its server reuses a slot's cached prompt otherwise), vLLM and other OpenAI-style servers get
            ``"cache_salt": <salt>`` (vLLM's per-request prefix-cache isolation: blocks are only shared
            between requests with the same salt; vLLM answers 400 to a salt over 128 characters or with '@',
            '/', '\\' or NUL). SGLang gets neither (no such field).
        thinking: ``chat_template_kwargs.enable_thinking`` (Qwen3-family templates; vLLM's reasoning parser
            then streams the reasoning as ``reasoning_content``); llama.cpp also gets ``reasoning_format:
            "deepseek"`` so its server separates the reasoning the same way when the template has one.
        ignore_eos: ask for exactly ``max_tokens`` (``"ignore_eos": true``, a sampling parameter of vLLM,
            llama.cpp's server and SGLang): a trace row's output length is replayed as recorded.

    Returns:
        ``{"model", "messages", "max_tokens", "temperature", "stream": True,
        "stream_options": {"include_usage": True}, "chat_template_kwargs": {"enable_thinking": False}}``
        plus, for a prefill prompt, the final assistant message and the server kind's continue fields, and for a
        row that carries tool definitions (``meta["tools"]``) its ``tools``.

    Raises:
        ConfigError: unknown ``server_kind``, ``max_tokens`` < 1, a negative or non-finite temperature,
            or an empty model name.
    """
    if server_kind not in SERVER_KINDS:
        raise ConfigError.unknown(
            "server kind",
            server_kind,
            SERVER_KINDS,
            fix="use 'openai' for vLLM and other OpenAI-compatible servers, 'llamacpp' for llama.cpp",
        )
    fix = "pass --max-tokens 64 (or any positive integer)"
    require_int_in(max_tokens, "max_tokens must be a positive integer", low=1, expected=">= 1", fix=fix)
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not math.isfinite(temperature)
        or temperature < 0
    ):
        raise ConfigError(
            "temperature must be a finite number >= 0",
            found=temperature,
            expected=">= 0",
            fix="pass --temperature 0 for greedy decoding",
        )
    if not model:
        raise ConfigError(
            "model name is empty",
            found=repr(model),
            expected="the served model name",
            fix="pass the name the server serves (see GET /v1/models)",
        )
    messages = copy.deepcopy(prompt.messages)
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": float(temperature),
        "stream": True,
        "stream_options": {"include_usage": True},
        "chat_template_kwargs": {"enable_thinking": bool(thinking)},
    }
    if prompt.meta.get("tools"):
        body["tools"] = copy.deepcopy(prompt.meta["tools"])  # a row's recorded tool definitions (workload.userfile)
    if ignore_eos:
        body["ignore_eos"] = True
    if thinking and server_kind == "llamacpp":
        body["reasoning_format"] = "deepseek"
    if prompt.prefill is not None:
        messages.append({"role": "assistant", "content": prompt.prefill})
        if server_kind != "llamacpp":
            body.update(_CONTINUE_FIELDS)
    if cache_salt is not None:
        if server_kind == "llamacpp":
            body["cache_prompt"] = False
        elif server_kind in ("openai", "vllm"):
            body["cache_salt"] = cache_salt
    return body

"""Prompts of an exact input length: ``--context-tokens 2k,8k`` (1k = 1024 tokens).

A prompt is extended, after its own text (so prompts keep distinct prefixes), with distinct real text: the
source files of Python's standard library in name order, each prompt starting at a different file, so no
prompt repeats a filler that an n-gram drafter could feed on. Tokens are counted with the server's own
tokenizer, over the whole chat-templated prompt:

* llama.cpp (``server_kind="llamacpp"``): ``POST /apply-template {"messages"}`` -> ``{"prompt"}``, then
  ``POST /tokenize {"content"}`` -> ``{"tokens": [...]}``; text is cut at a token boundary with
  ``POST /detokenize {"tokens"}`` -> ``{"content"}`` (llama.cpp server README, "API Endpoints");
* vLLM and other OpenAI-style servers: ``POST /tokenize {"model", "messages"}`` -> ``{"count", "tokens"}``
  and ``POST /detokenize {"model", "tokens"}`` -> ``{"prompt"}`` (vLLM's tokenizer API).

The extension is refined until the templated prompt is within :data:`TOLERANCE_TOKENS` of the target.
"""

from __future__ import annotations

import sysconfig
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import httpx

from specscope.errors import ConfigError, ServerError
from specscope.seam.answers import A, DetokenizeAnswer, TemplateAnswer, TokenCount, TokenIds, read_answer
from specscope.strictjson import loads
from specscope.values import parse_token_count
from specscope.workload.prompt import Prompt

__all__ = ["MAX_CONTEXT_TOKENS", "parse_context", "context_label", "ContextBuilder", "TOLERANCE_TOKENS", "source_text"]

TOLERANCE_TOKENS = 4
_LEAD = "\n\nBackground material (read it, then answer the request above):\n\n"
_MAX_ROUNDS = 6
#: the statuses of a server that has no such endpoint (refused at once: asking again cannot help)
NO_ENDPOINT = frozenset({404, 405, 501})
ANSWER_TRIES = 3  # a tokenizer endpoint's bad bodies asked again before the run is refused
_BAD_ANSWER_FIX = "check what answers in front of the server (a proxy's error page?), or drop --context-tokens"


#: the longest context a prompt is extended to, tokens: 10M (10240k), the longest context window any served model
#: advertises; past it no server takes the prompt, and ``--context-tokens 99999999999999`` asked the client to build
#: a prompt of ~4e14 characters.
MAX_CONTEXT_TOKENS = 10 * 1024 * 1024


def parse_context(text: str) -> int:
    """``"2k"`` -> 2048, ``"512"`` -> 512 (tokens), 16 to :data:`MAX_CONTEXT_TOKENS`, read by the one token-count
    parser (:func:`specscope.values.parse_token_count`). Raises ConfigError otherwise."""
    return parse_token_count(text, "--context-tokens", (16, MAX_CONTEXT_TOKENS), "2k", "no model's context is longer")


def context_label(tokens: int) -> str:
    """2048 -> ``"2k"``, 1500 -> ``"1500"``."""
    return f"{tokens // 1024}k" if tokens % 1024 == 0 else str(tokens)


@cache
def _corpus_files() -> tuple[Path, ...]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return tuple(sorted(p for p in root.glob("*.py") if p.stat().st_size > 4000))


def source_text(index: int, n_chars: int) -> str:
    """At least ``n_chars`` characters of real, non-repeating text, starting at corpus file ``index``."""
    files = _corpus_files()
    parts: list[str] = []
    size = 0
    for k in range(len(files)):
        text = files[(index * 7 + k) % len(files)].read_text("utf-8", errors="replace")
        parts.append(text)
        size += len(text)
        if size >= n_chars:
            break
    return "".join(parts)


class ContextBuilder:
    """Extends prompts to ``target`` tokens using the server at ``base_url`` to count.

    Args:
        http: an open ``httpx.AsyncClient``.
        base_url: the server's base URL (no ``/v1``).
        model: the served model name (vLLM's tokenizer endpoints want it).
        server_kind: ``llamacpp`` or an OpenAI-style kind.
    """

    def __init__(self, http: httpx.AsyncClient, base_url: str, model: str, server_kind: str) -> None:
        self.http, self.base, self.model, self.llamacpp = http, base_url.rstrip("/"), model, server_kind == "llamacpp"

    async def _post(self, path: str, body: dict[str, Any], shape: type[A]) -> A:
        """``path``'s answer to ``body`` as the typed record ``shape`` (:mod:`specscope.seam.answers`).

        A body that is not the expected JSON (a proxy's error page, a cut body), a 5xx or a dropped connection is
        asked again, up to
        :data:`ANSWER_TRIES` times in all: counting tokens has no side effect, and one bad answer of a busy proxy
        must not end a run before its first cell (issue 37).

        Raises:
            ServerError: the server has no such endpoint, or answered :data:`ANSWER_TRIES` bad bodies.
        """
        for attempt in range(ANSWER_TRIES):
            last = attempt + 1 == ANSWER_TRIES
            try:
                resp = await self.http.post(self.base + path, json=body)
                # a busy proxy's 502/503 page, a redirect or another answer but "no such endpoint": asked again
                if resp.status_code >= 300 and resp.status_code not in NO_ENDPOINT and not last:
                    continue
                resp.raise_for_status()
            except httpx.HTTPError as exc:
                if isinstance(exc, httpx.RemoteProtocolError) and not last:  # a dropped connection: asked again
                    continue
                raise ServerError(
                    f"the server cannot count tokens ({path})",
                    found=str(exc) or type(exc).__name__,
                    expected="llama.cpp or vLLM tokenizer endpoints",
                    fix="drop --context-tokens for this server",
                ) from None
            try:
                return read_answer(shape, resp.content, path=path, fix=_BAD_ANSWER_FIX)
            except ServerError:
                if last:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    async def count(self, messages: list[dict[str, Any]]) -> int:
        """Input tokens of the chat-templated ``messages`` (tokens)."""
        if self.llamacpp:
            rendered = (await self._post("/apply-template", {"messages": messages}, TemplateAnswer)).prompt
            return len((await self._post("/tokenize", {"content": rendered}, TokenIds)).tokens)
        return (await self._post("/tokenize", {"model": self.model, "messages": messages}, TokenCount)).count

    async def window(self) -> int | None:
        """The context one request may fill (tokens), as the server reports it: llama.cpp ``GET /props`` ->
        ``default_generation_settings.n_ctx`` (a slot's context: the server's ``-c`` over its slots); vLLM
        ``GET /v1/models`` -> ``data[0].max_model_len``; None when the server reports neither."""
        for path in ("/props", "/v1/models"):
            try:
                resp = await self.http.get(self.base + path)
                body = loads(resp.content) if resp.status_code == 200 else None  # never a RecursionError
            except (httpx.HTTPError, ValueError):
                continue
            if not isinstance(body, dict):
                continue
            settings = body.get("default_generation_settings")
            n = settings.get("n_ctx") if isinstance(settings, dict) else None
            if n is None and isinstance(body.get("data"), list) and body["data"]:
                first = body["data"][0]
                n = first.get("max_model_len") if isinstance(first, dict) else None
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                return n
        return None

    async def tokens(self, text: str) -> list[int]:
        """The server's token ids of ``text`` (no chat template).

        Raises:
            ServerError: the server has no tokenizer endpoint.
        """
        return await self._tokens(text)

    async def text(self, tokens: list[int]) -> str:
        """The text of ``tokens`` (the server's detokenizer). Raises ServerError without one."""
        return await self._text(tokens)

    async def _tokens(self, text: str) -> list[int]:
        body = {"content": text} if self.llamacpp else {"model": self.model, "prompt": text}
        return list((await self._post("/tokenize", body, TokenIds)).tokens)

    async def _text(self, tokens: list[int]) -> str:
        body: dict[str, Any] = {"tokens": tokens} if self.llamacpp else {"model": self.model, "tokens": tokens}
        out = await self._post("/detokenize", body, DetokenizeAnswer)
        return out.text

    async def extend(self, prompt: Prompt, target: int, index: int) -> Prompt:
        """``prompt`` with its last user message extended so the templated prompt has ``target`` tokens.

        Raises:
            ConfigError: the prompt alone is already longer than ``target``.
            ServerError: the server has no tokenizer endpoints.
        """
        base = await self.count(prompt.messages)
        if base + 8 > target:
            raise ConfigError(
                f"prompt {prompt.prompt_id} is already {base} tokens",
                found=base,
                expected=f"fewer than {target} tokens",
                fix="pass a longer --context-tokens",
            )
        source = await self._tokens(source_text(index, (target - base) * 6))
        n = target - base - await self._lead_tokens()
        messages, got = prompt.messages, base
        for _ in range(_MAX_ROUNDS):
            messages = _with_text(prompt.messages, _LEAD + await self._text(source[: max(n, 1)]))
            got = await self.count(messages)
            if abs(got - target) <= TOLERANCE_TOKENS:
                break
            n += target - got
        meta = {**prompt.meta, "context_tokens": target, "templated_prompt_tokens": got}
        return replace(prompt, messages=messages, meta=meta)  # a conversation keeps its later turns

    async def _lead_tokens(self) -> int:
        return len(await self._tokens(_LEAD))


def _with_text(messages: list[dict[str, Any]], extra: str) -> list[dict[str, Any]]:
    """``messages`` with ``extra`` appended to the last user message's text: to its string content, or as a text part
    after its content parts (a row sent as recorded may hold a list of parts). A row whose last turn has no user
    message (an AIPerf step that ends in a tool result) is refused: there is no user text to extend.

    Raises:
        ConfigError: no user message.
    """
    out = [dict(m) for m in messages]
    users = [i for i, m in enumerate(out) if m.get("role") == "user"]
    if not users:
        raise ConfigError(
            "--context-tokens extends a prompt's last user message, and this prompt has none",
            found="roles " + ", ".join(str(m.get("role")) for m in out),
            expected="a user message in each prompt",
            fix="drop --context-tokens for this workload",
        )
    content = out[users[-1]].get("content")
    if isinstance(content, list):
        out[users[-1]]["content"] = [*content, {"type": "text", "text": extra}]
    else:
        out[users[-1]]["content"] = (content or "") + extra
    return out

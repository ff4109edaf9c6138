"""How the gate talks to a server: one chat request in, one :class:`~specscope.gate.model.ProbeOutput` out.

:class:`HttpxChat` sends non-streaming OpenAI ``/v1/chat/completions`` requests with httpx; non-streaming is
what the gate needs (``message.tool_calls``, ``logprobs.content`` tokens for the base-vs-speculative
comparison, ``usage``), and the gate measures no latency. Reasoning is read from ``message.reasoning``
(vLLM >= 0.10) or ``message.reasoning_content`` (older vLLM, SGLang, llama.cpp). Thinking length comes from
``usage.completion_tokens_details.reasoning_tokens`` when the server reports it, else from the server's
``/tokenize`` endpoint (vLLM: ``{"prompt"}`` -> ``{"count", "tokens"}``; llama.cpp: ``{"content"}`` ->
``{"tokens"}``).

Any object with the :class:`ChatBackend` methods can replace it (the runner takes a ``backend=``).
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from typing import Any, Protocol

import httpx

from specscope.errors import ServerError, ServerUnreachable
from specscope.gate.model import ProbeOutput
from specscope.redact import remember_secret
from specscope.seam.answers import TokenCount, TokenIds, quote_body, read_answer
from specscope.strictjson import loads
from specscope.values import check_api_key

__all__ = ["ChatBackend", "HttpxChat"]


class ChatBackend(Protocol):
    """What the runner needs from a transport."""

    def model_name(self, base_url: str) -> str: ...

    def complete(self, base_url: str, request: dict[str, Any]) -> ProbeOutput: ...

    def count_tokens(self, base_url: str, model: str, text: str) -> int | None: ...


def _int_or_none(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def parse_chat_response(body: dict[str, Any], http_status: int, elapsed_ns: int) -> ProbeOutput:
    """Turn a non-streaming chat-completions JSON body into a :class:`ProbeOutput` (pure; no I/O)."""
    choices = body.get("choices") or []
    if not choices:
        return ProbeOutput(http_status=http_status, error="response has no choices", elapsed_ns=elapsed_ns)
    choice = choices[0]
    msg = choice.get("message") or {}
    usage = body.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    reasoning = msg.get("reasoning_content") or msg.get("reasoning") or ""
    lp = choice.get("logprobs") or {}
    tokens = tuple(t.get("token", "") for t in lp.get("content") or []) if lp.get("content") else None
    rt = _int_or_none(details.get("reasoning_tokens"))
    return ProbeOutput(
        text=msg.get("content") or "",
        reasoning_text=reasoning,
        output_tokens=_int_or_none(usage.get("completion_tokens")),
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        finish_reason=choice.get("finish_reason"),
        tool_calls=tuple(msg.get("tool_calls") or ()),
        tokens=tokens,
        reasoning_tokens=rt if (rt and reasoning) else None,
        reasoning_tokens_source="usage_details" if (rt and reasoning) else "unknown",
        http_status=http_status,
        elapsed_ns=elapsed_ns,
    )


class HttpxChat(AbstractContextManager["HttpxChat"]):
    """Non-streaming chat requests over one ``httpx.Client``.

    Args:
        timeout_s: per-request read timeout, seconds (connect timeout 10 s). Set explicitly because httpx's
            5 s default would cut long thinking runs.
        api_key: sent as ``Authorization: Bearer`` with every request (OpenAI's and vLLM's ``--api-key``).
    """

    def __init__(self, timeout_s: float = 900.0, api_key: str | None = None):
        headers = {}
        if api_key:
            check_api_key(api_key)
            remember_secret(api_key)  # a server that echoes it back never gets it into the gate run
            headers["Authorization"] = f"Bearer {api_key}"
        timeout = httpx.Timeout(timeout_s, connect=10.0)
        self._client = httpx.Client(timeout=timeout, trust_env=False, headers=headers)
        self._tokenize_ok: dict[str, bool] = {}

    def close(self) -> None:
        self._client.close()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def model_name(self, base_url: str) -> str:
        """The model to ask for: the first id of ``GET /v1/models``, or, when that path is not served but
        ``/v1/chat/completions`` is, the name bench asks for (:func:`specscope.targets.servers.served_model_name`).

        Raises:
            ServerUnreachable: nothing answers, the answer has no model, or the server has no chat endpoint.
        """
        from specscope.seam.answers import ModelsAnswer, read_answer
        from specscope.targets.servers import served_model_name

        url = base_url.rstrip("/") + "/v1/models"
        try:
            r = self._client.get(url)
            if r.status_code == 404 and self._serves_chat(base_url):
                return served_model_name([])
            r.raise_for_status()
            # the one reading of the answer, as bench's: an id "" or 7 is no name (a bare r.json() sent "" or "7")
            return read_answer(ModelsAnswer, r.content, path="GET /v1/models", fix="").data[0].id
        except ServerError as exc:
            raise ServerUnreachable(
                "no OpenAI-compatible server answered",
                found=f"GET {url}: {exc.message}: {exc.found}",
                expected="HTTP 200 with a model list",
                fix="check --server (e.g. http://127.0.0.1:8000) and that it is up",
            ) from None
        except (httpx.HTTPError, IndexError) as exc:
            raise ServerUnreachable(
                # httpx's status errors carry a second "For more information" line: keep the error to one line
                "no OpenAI-compatible server answered",
                found=f"GET {url}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                expected="HTTP 200 with a model list",
                fix="check --server (e.g. http://127.0.0.1:8000) and that it is up",
            ) from None

    def _serves_chat(self, base_url: str) -> bool:
        """Whether ``POST /v1/chat/completions`` is a route: a request with no messages (nothing is generated
        by a real server) is answered with anything but 404 / 405 / 501 (a static file server's 501, say)."""
        try:
            r = self._client.post(
                base_url.rstrip("/") + "/v1/chat/completions", json={"max_tokens": 1, "stream": False}
            )
        except httpx.HTTPError:
            return False
        return r.status_code not in (404, 405, 501)

    def complete(self, base_url: str, request: dict[str, Any]) -> ProbeOutput:
        """POST one chat request; transport and HTTP errors come back as ``ProbeOutput.error``, not raised."""
        url = base_url.rstrip("/") + "/v1/chat/completions"
        start_ns = time.perf_counter_ns()
        try:
            r = self._client.post(url, json=request)
        except httpx.HTTPError as exc:
            return ProbeOutput(error=f"{type(exc).__name__}: {exc}", elapsed_ns=time.perf_counter_ns() - start_ns)
        elapsed_ns = time.perf_counter_ns() - start_ns
        if r.status_code != 200:
            return ProbeOutput(
                http_status=r.status_code, error=f"http {r.status_code}: {r.text[:200]}", elapsed_ns=elapsed_ns
            )
        try:
            body = loads(r.content)  # JSON nested past the parser's depth is malformed JSON, never a RecursionError
        except ValueError:
            return ProbeOutput(http_status=r.status_code, error="response is not JSON", elapsed_ns=elapsed_ns)
        try:
            return parse_chat_response(body, r.status_code, elapsed_ns)
        except (
            AttributeError,
            TypeError,
            KeyError,
            IndexError,
        ):  # a list, a string where an object belongs: that probe's named error
            return ProbeOutput(
                http_status=r.status_code,
                error=f"response is not a chat completion: {quote_body(r.text)}",
                elapsed_ns=elapsed_ns,
            )

    def count_tokens(self, base_url: str, model: str, text: str) -> int | None:
        """Tokens in ``text`` by the server's own tokenizer (``POST /tokenize``), ``None`` when unsupported."""
        if self._tokenize_ok.get(base_url) is False:
            return None
        url = base_url.rstrip("/") + "/tokenize"
        payload = {"model": model, "prompt": text, "content": text, "add_special_tokens": False, "add_special": False}
        try:
            r = self._client.post(url, json=payload)
            r.raise_for_status()
        except httpx.HTTPError:
            self._tokenize_ok[base_url] = False
            return None
        for shape in (TokenCount, TokenIds):  # vLLM's count, else llama.cpp's ids (the one reading: seam.answers)
            try:
                answer = read_answer(shape, r.content, path="/tokenize", fix="")
            except ServerError:
                continue
            if isinstance(answer, TokenCount):
                return answer.count
            if isinstance(answer, TokenIds):
                return len(answer.tokens)
        self._tokenize_ok[base_url] = False  # an answer of neither shape (a list, a proxy page): no count
        return None

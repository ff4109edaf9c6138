"""Server answers read once, at the edge: typed records of the small JSON bodies specscope asks a server for.

Every read of a server's JSON answer outside the stream goes through :func:`read_answer`, never a bare
``resp.json()``: a body that is not the expected JSON (a proxy's HTML error page answered with HTTP 200, a
truncated body, a value of the wrong type) is a :class:`~specscope.errors.ServerError` naming the path, what was
found (bounded) and what was expected — a named reason for the caller, never a ``JSONDecodeError`` or a
``KeyError`` (issue 37).

The shapes, from their sources:

* ``GET /v1/models`` (OpenAI's "List models"; vLLM adds ``max_model_len`` to each entry,
  vllm/entrypoints/openai/protocol.py ``ModelCard``): ``{"data": [{"id": str, "max_model_len": int?}, ...]}``.
* ``POST /tokenize`` of vLLM (vllm/entrypoints/openai/protocol.py ``TokenizeResponse``): ``{"count": int,
  "tokens": [int], "max_model_len": int}``; of llama.cpp's server (tools/server/README.md, "POST /tokenize"):
  ``{"tokens": [int]}``.
* ``POST /apply-template`` of llama.cpp's server: ``{"prompt": str}``.
* Prometheus's HTTP API (the Prometheus project's "HTTP API" page): every answer is ``{"status": "success" |
  "error", "data": ..., "errorType": str?, "error": str?}``; ``GET /api/v1/targets`` has ``data`` =
  ``{"activeTargets": [{"scrapeInterval": "15s", ...}]}``, an instant query ``GET /api/v1/query`` has ``data`` =
  ``{"resultType": "vector", "result": [{"metric": {"__name__": str, label: str}, "value": [unix_s, "v"]}]}``.
* ``GET /health`` of llama.cpp's server (tools/server/README.md, "GET /health"): ``{"status": str}`` (``"ok"``
  once the model is loaded).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

from specscope.errors import ServerError
from specscope.records import INT_BOUND
from specscope.redact import redact_text

__all__ = [
    "ModelEntry",
    "ModelsAnswer",
    "TokenCount",
    "TokenIds",
    "DetokenizeAnswer",
    "TemplateAnswer",
    "HealthAnswer",
    "PromAnswer",
    "PromTargetsAnswer",
    "PromVectorAnswer",
    "PromSample",
    "A",
    "read_answer",
    "quote_body",
    "ANSWER_FOUND_CHARS",
]

ANSWER_FOUND_CHARS = 120  # how much of a bad body an error quotes (a proxy page can be megabytes)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ModelEntry(_Answer):
    """One served model: its id and, from vLLM, the context one request may fill (tokens)."""

    #: no empty name: requests would name the model "" (refused as "model name is empty" only at the first cell,
    #: after the run folder was made; issue 37)
    id: str = Field(min_length=1)
    max_model_len: int | None = Field(default=None, gt=0, le=INT_BOUND - 1)
    #: the fields whose value was not understood, named (``MODEL_FIELD_UNREADABLE(max_model_len=inf)``): each such
    #: fact is absent, the entry (its id) is still read
    unreadable: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _absent_when_not_understood(cls, data: Any) -> Any:
        """A ``max_model_len`` that is not a whole number 1..INT_BOUND - 1 (``1e400``, NaN, -5, a string) is absent
        and named, never a refusal of the whole answer (issue 37: it refused the run)."""
        if not isinstance(data, dict):
            return data
        data = {k: v for k, v in data.items() if k != "unreadable"}  # ours, never the server's
        v = data.get("max_model_len")
        if v is None or (isinstance(v, int) and not isinstance(v, bool) and 0 < v < INT_BOUND):
            return data
        data["max_model_len"] = None
        data["unreadable"] = (f"MODEL_FIELD_UNREADABLE(max_model_len={str(v)[:40]!s})",)
        return data


class ModelsAnswer(_Answer):
    """``GET /v1/models``."""

    data: list[ModelEntry]


class TokenCount(_Answer):
    """vLLM's ``POST /tokenize``: the prompt's length (tokens)."""

    #: a JSON integer: "7", true and 7.0 are no count (pydantic's lax int read them as 7, 1 and 7; issue 37)
    count: StrictInt = Field(ge=0, le=INT_BOUND - 1)  # past the records' bound is no count (10^26: a bad answer)


class TokenIds(_Answer):
    """``POST /tokenize`` as llama.cpp's server answers it: the token ids (or vLLM's, which also has them)."""

    tokens: list[StrictInt]  # JSON integers, as count


class DetokenizeAnswer(_Answer):
    """``POST /detokenize``: llama.cpp's server answers ``{"content"}``, vLLM ``{"prompt"}``."""

    content: str | None = None
    prompt: str | None = None

    @property
    def text(self) -> str:
        """The detokenized text, from whichever field the server wrote (empty when neither)."""
        return self.content if self.content is not None else (self.prompt or "")


class TemplateAnswer(_Answer):
    """llama.cpp's ``POST /apply-template``: the chat-templated prompt text."""

    prompt: str


class HealthAnswer(_Answer):
    """llama.cpp's ``GET /health``: the server's state (``"ok"`` when ready)."""

    status: str


class _PromTarget(_Answer):
    scrape_interval: str = Field(default="", alias="scrapeInterval")


class _PromTargets(_Answer):
    active_targets: list[_PromTarget] = Field(default=[], alias="activeTargets")


class PromSample(_Answer):
    """One series of an instant vector: its labels (``__name__`` among them) and ``(unix_s, value text)``."""

    metric: dict[str, str]
    value: tuple[float, str]

    @model_validator(mode="after")
    def _named(self) -> PromSample:
        if "__name__" not in self.metric:
            raise ValueError("a series without __name__")
        return self


class _PromVector(_Answer):
    result: list[PromSample]


class PromAnswer(_Answer):
    """Any Prometheus HTTP API answer: ``status`` (``success`` / ``error``) and, in an error, its message."""

    status: str
    error: str = ""


class PromTargetsAnswer(PromAnswer):
    """Prometheus's ``GET /api/v1/targets``: ``data`` is absent in an error answer."""

    data: _PromTargets | None = None

    @property
    def intervals(self) -> list[str]:
        """The active targets' ``scrapeInterval`` texts (``"15s"``)."""
        return [t.scrape_interval for t in self.data.active_targets] if self.data else []


class PromVectorAnswer(PromAnswer):
    """Prometheus's instant query ``GET /api/v1/query``: ``data`` is absent in an error answer."""

    data: _PromVector | None = None

    @property
    def series(self) -> list[PromSample]:
        """The instant vector's series."""
        return self.data.result if self.data else []


A = TypeVar("A", bound=_Answer)  # one answer record type


def quote_body(text: str) -> str:
    """A bad body as an error's ``found``: at most :data:`ANSWER_FOUND_CHARS` characters, quoted, secrets masked."""
    quoted = redact_text(" ".join(text[:ANSWER_FOUND_CHARS].split()))
    more = "..." if len(text) > ANSWER_FOUND_CHARS else ""
    return repr(quoted + more) if quoted else "an empty body"


def read_answer(shape: type[A], body: bytes | str, *, path: str, fix: str) -> A:
    """``body`` (a 200 answer of ``path``) as the record ``shape``.

    Raises:
        ServerError: the body is not JSON of that shape; ``found`` quotes at most :data:`ANSWER_FOUND_CHARS`
            characters of it, secrets masked.
    """
    try:
        return shape.model_validate_json(body)
    except ValidationError as exc:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ())) or "the body"
        raise ServerError(
            f"the server's answer to {path} is not what it should be ({where}: {first.get('msg', 'invalid')})",
            found=quote_body(text),
            expected=f"JSON of the {shape.__name__} shape ({', '.join(shape.model_fields)})",
            fix=fix,
        ) from None

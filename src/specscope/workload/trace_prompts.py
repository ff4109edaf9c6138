"""The prompts a trace replay sends: a row's own text, or real text of the row's input length.

Text comes from the same corpus as ``--context-tokens`` (Python's standard-library sources,
:mod:`specscope.workload.context`), cut in units of the server's own tokenizer when it has the endpoints
(llama.cpp / vLLM ``/tokenize`` + ``/detokenize``: one tokenize call for the corpus, one detokenize per request),
else in whitespace-separated words (``units`` in the manifest says which; a word is not a token, so the report sets
the measured ``usage.prompt_tokens`` beside the trace's lengths). The chat template's own tokens (the templated
empty user message) are taken off each row's length when counted by the server.

Prefix structure is kept: a Mooncake row's ``hash_ids`` name 512-token blocks, and block ``b`` is always the same
corpus window (starting at ``b x 7919`` units, modulo the corpus), so rows that share leading ids share that
prefix and rows that do not, do not; a row without ids gets a window of its own (starting at ``row x 104729``).
Every prompt asks for exactly its ``output_tokens``: ``max_tokens`` with ``ignore_eos`` (vLLM, llama.cpp and
SGLang sampling parameters).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from specscope.errors import ServerError
from specscope.workload.context import ContextBuilder, source_text
from specscope.workload.prompt import Prompt
from specscope.workload.trace import MOONCAKE_BLOCK_TOKENS, Trace, TraceRequest

__all__ = ["TRACE_WORKLOAD", "trace_prompts"]

TRACE_WORKLOAD = "trace"
_BLOCK_STRIDE = 7919  # a prime: distinct block ids start at distinct corpus offsets
_ROW_STRIDE = 104729


class _Units(Protocol):
    name: str

    async def encode(self, text: str) -> list[Any]: ...
    async def decode(self, units: list[Any]) -> str: ...
    async def overhead(self) -> int: ...


class _ServerTokens:
    name = "server tokens"

    def __init__(self, builder: ContextBuilder) -> None:
        self.b = builder

    async def encode(self, text: str) -> list[Any]:
        return list(await self.b.tokens(text))

    async def decode(self, units: list[Any]) -> str:
        return await self.b.text(units)

    async def overhead(self) -> int:
        return await self.b.count([{"role": "user", "content": ""}])


class _Words:
    name = "words (the server has no tokenizer endpoint)"

    async def encode(self, text: str) -> list[Any]:
        return list(text.split())

    async def decode(self, units: list[Any]) -> str:
        return " ".join(units)

    async def overhead(self) -> int:
        return 0


def _window(corpus: Sequence[Any], start: int, n: int) -> list[Any]:
    start %= len(corpus)
    out = list(corpus[start : start + n])
    while len(out) < n:  # wrap around
        out.extend(corpus[: n - len(out)])
    return out


def _units_of(r: TraceRequest, row: int, n: int, corpus: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for b in r.hash_ids:
        out.extend(_window(corpus, b * _BLOCK_STRIDE, MOONCAKE_BLOCK_TOKENS))
        if len(out) >= n:
            return out[:n]
    return out + _window(corpus, row * _ROW_STRIDE, n - len(out))


async def _units(builder: ContextBuilder | None) -> _Units:
    if builder is None:
        return _Words()
    try:
        await builder.tokens("probe")
    except ServerError:
        return _Words()
    return _ServerTokens(builder)


async def trace_prompts(
    trace: Trace, builder: ContextBuilder | None, rows: int | None = None
) -> tuple[list[Prompt], dict[str, Any]]:
    """The first ``rows`` requests of ``trace`` (all when None) as prompts, and facts of how their text was made.

    Each prompt's ``meta``: ``max_tokens`` and ``ignore_eos`` (the row's output length, exactly), ``trace_line``,
    ``offset_ns`` (the row's arrival, unscaled), ``trace_input_tokens`` (None for a text row).

    Raises:
        ServerError: the server's tokenizer failed mid-way.
    """
    requests = trace.requests[:rows] if rows is not None else trace.requests
    units = await _units(builder)
    longest = max((r.input_tokens or 0) for r in requests)
    corpus = await units.encode(source_text(0, max(8 * longest, 400_000)))
    overhead = await units.overhead()
    out = []
    for i, r in enumerate(requests):
        if r.text is not None:
            content = r.text
        else:
            n = max((r.input_tokens or 1) - overhead, 1)
            content = await units.decode(_units_of(r, i, n, corpus))
        meta: dict[str, Any] = {"max_tokens": r.output_tokens, "ignore_eos": True, "trace_line": r.line}
        meta |= {"offset_ns": r.offset_ns, "trace_input_tokens": r.input_tokens}
        messages = [{"role": "user", "content": content}]
        out.append(Prompt(f"{TRACE_WORKLOAD}-{i:05d}", TRACE_WORKLOAD, messages, meta=meta))
    return out, {"units": units.name, "template_tokens": overhead, "corpus_units": len(corpus)}

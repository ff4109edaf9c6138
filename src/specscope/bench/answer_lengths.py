"""Output lengths of file rows that end with a recorded answer (ShareGPT, chat datasets) and name none.

vLLM's ``ShareGPTDataset`` (``vllm/benchmarks/datasets.py`` @0056b87f, ``sample``) asks for the token count of the
recorded answer (``len(tokenizer(completion).input_ids)``, the target's tokenizer) unless ``--sharegpt-output-len``
is given; SGLang's ``sample_sharegpt_requests`` and AIPerf's ShareGPT loader do the same. specscope does too: each
such row's ``max_tokens`` is its answer's token count by the server's own tokenizer (``POST /tokenize``:
:meth:`specscope.workload.context.ContextBuilder.tokens`; vLLM counts with the special tokens it adds, llama.cpp's
endpoint without them). A server without a tokenizer endpoint, or an answer of no tokens, leaves ``--max-tokens``;
the manifest says which (``packs[w]["recorded_answers"]``). Unlike vLLM, no row is dropped for its length.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from specscope.errors import ServerError
from specscope.workload.prompt import Prompt

__all__ = ["ANSWER_FIELD", "PARALLEL_COUNTS", "answer_lengths"]

#: ``meta["output_length_field"]`` of a row whose ``max_tokens`` is its recorded answer's token count
ANSWER_FIELD = "recorded answer (server tokenizer)"
#: tokenize requests in flight at once while counting answers
PARALLEL_COUNTS = 16


async def answer_lengths(
    prompts: dict[str, list[Prompt]], workloads: list[str], builder: Any
) -> tuple[dict[str, list[Prompt]], dict[str, dict[str, Any]]]:
    """``prompts`` with each recorded-answer row of the named base ``workloads`` given its answer's token count as
    ``meta["max_tokens"]``, and per workload that has such rows ``{"rows": n, "max_tokens_from": ANSWER_FIELD |
    "--max-tokens (the server has no tokenizer)"}`` for the manifest, with ``"blank_answers": {"rows": k,
    "max_tokens_from": "--max-tokens"}`` when k of them have an answer of no tokens (the note said all n were sized by
    their answers). Other prompts are returned as they are."""
    out = dict(prompts)
    notes: dict[str, dict[str, Any]] = {}
    counted: dict[str, int] = {}
    for w in workloads:
        rows = [p for p in prompts.get(w, []) if "recorded_answer" in p.meta and "max_tokens" not in p.meta]
        if not rows:
            continue
        texts = list(dict.fromkeys(str(p.meta["recorded_answer"]) for p in rows))
        try:
            counts = await _count_all([t for t in texts if t not in counted], builder)
        except ServerError:
            notes[w] = {"rows": len(rows), "max_tokens_from": "--max-tokens (the server has no tokenizer)"}
            continue
        counted |= counts
        out[w] = [_with_length(p, counted) for p in prompts[w]]
        notes[w] = {"rows": len(rows), "max_tokens_from": ANSWER_FIELD}
        blank = sum(1 for p in rows if counted.get(str(p.meta["recorded_answer"]), 0) < 1)
        if blank:  # an answer of no tokens sizes nothing: these rows keep --max-tokens (vLLM and SGLang skip them)
            notes[w]["blank_answers"] = {"rows": blank, "max_tokens_from": "--max-tokens"}
    return out, notes


async def _count_all(texts: list[str], builder: Any) -> dict[str, int]:
    """Text -> its token count (a blank text: 0), :data:`PARALLEL_COUNTS` requests at a time (a ShareGPT file holds
    ~94k answers).

    Raises:
        ServerError: the server has no tokenizer endpoint.
    """
    gate = asyncio.Semaphore(PARALLEL_COUNTS)

    async def one(text: str) -> int:
        if not text.strip():
            return 0
        async with gate:
            return len(await builder.tokens(text))

    got = await asyncio.gather(*(one(t) for t in texts), return_exceptions=True)  # every request ended
    failed = next((g for g in got if isinstance(g, BaseException)), None)
    if failed is not None:
        raise failed
    return {t: g for t, g in zip(texts, got, strict=True) if isinstance(g, int)}


def _with_length(p: Prompt, counted: dict[str, int]) -> Prompt:
    n = counted.get(str(p.meta.get("recorded_answer")), 0) if "max_tokens" not in p.meta else 0
    if "recorded_answer" not in p.meta or n < 1:
        return p
    return replace(p, meta={**p.meta, "max_tokens": n, "output_length_field": ANSWER_FIELD})

"""Dataset rows and trace rows longer than the model's context, refused before anything is sent.

The server says how much one request may hold (:meth:`specscope.workload.context.ContextBuilder.window`: llama.cpp's
slot context, vLLM's ``max_model_len``) and counts a prompt with its own tokenizer and chat template. A row needs at
least its user turns (all of them, templated together) plus ``max_tokens`` per turn, since every answer of a
conversation stays in its history: a lower bound of its last turn's context. A row above the window is a refusal of
kind ``too_long`` naming the row; the run is refused (exit 2) unless ``--drop-bad-rows``, which runs without it and
records it in the manifest's ``datasets`` (or ``trace``). A server that reports no window, or cannot count, is not
checked, and the manifest says so (each dataset's ``context_check``, the trace's ``context_check``).
"""

from __future__ import annotations

from typing import Any

from specscope.config import BenchOptions
from specscope.errors import ConfigError, ServerError
from specscope.workload.context import ContextBuilder
from specscope.workload.dataset_rows import Refusal
from specscope.workload.prompt import Prompt

__all__ = ["refuse_too_long"]


def _source(p: Prompt) -> str | None:
    """The ``--dataset`` a prompt came from, ``"trace"`` for a trace row, None for packs and files."""
    if "trace_line" in p.meta:
        return "trace"
    src = p.meta.get("source")
    return str(src) if src is not None and "question_id" in p.meta else None


def _row_id(p: Prompt) -> str:
    return f"line {p.meta['trace_line']}" if "trace_line" in p.meta else str(p.meta.get("question_id"))


async def _need(builder: ContextBuilder, p: Prompt, max_tokens: int) -> int:
    messages = [*p.messages, *({"role": "user", "content": t} for t in p.follow_ups)]
    default = int(p.meta.get("max_tokens", max_tokens))
    caps = [max_tokens if v is None else int(v) for v in p.meta.get("turn_max_tokens", ())] or [default] * p.turns
    return await builder.count(messages) + sum(caps)


def _notes(options: BenchOptions, refused: dict[str, list[Refusal]], check: str) -> dict[str, Any]:
    """Manifest fields: each dataset's provenance with its ``too_long`` rows and the ``context_check``, and
    ``trace_check`` / ``trace_refused`` for the trace (merged into the manifest's ``trace`` by the caller)."""
    from specscope.bench.workloads import datasets_manifest

    notes: dict[str, Any] = {"trace_check": check, "trace_refused": [r.to_dict() for r in refused.get("trace", [])]}
    entries = datasets_manifest(options) or []
    for entry in entries:
        extra = refused.get(str(entry["spec"]), [])
        entry["rows_refused"] = [*entry["rows_refused"], *(r.to_dict() for r in extra)]
        entry["rows_used"] = entry["rows_used"] - len(extra)
        entry["context_check"] = check
    if entries:
        notes["datasets"] = entries
    return notes


async def refuse_too_long(
    options: BenchOptions, packs: dict[str, list[Prompt]], builder: ContextBuilder
) -> dict[str, Any]:
    """Check every dataset / trace prompt of ``packs`` against the server's context; drop (``drop_bad_rows``) or
    refuse the rows that cannot fit. Returns the manifest's ``datasets`` (each with its ``context_check`` and
    ``too_long`` rows) and, for the caller to put in ``trace``, ``trace_check`` and ``trace_refused``.

    Raises:
        ConfigError: a row too long without ``drop_bad_rows`` (naming it), or fewer rows left than the highest level.
    """
    window = await builder.window()
    if window is None:
        return _notes(options, {}, "not checked: the server reports no context length")
    seen: dict[tuple[str, str], bool] = {}
    refused: dict[str, list[Refusal]] = {}
    try:
        for label, items in packs.items():
            keep: list[Prompt] = []
            for p in items:
                src = _source(p)
                if src is None:
                    keep.append(p)
                    continue
                key = (p.prompt_id, p.messages[-1]["content"][:64])
                if key not in seen:
                    need = await _need(builder, p, options.max_tokens)
                    seen[key] = need <= window
                    if not seen[key]:
                        why = f"needs at least {need} tokens (turns + max_tokens per turn), the context is {window}"
                        refused.setdefault(src, []).append(Refusal(_row_id(p), "too_long", why))
                if seen[key]:
                    keep.append(p)
            packs[label] = keep
    except ServerError:
        return _notes(options, {}, "not checked: the server cannot count tokens")
    _refuse(options, refused, packs)
    return _notes(options, refused, f"every row checked against the server's context of {window} tokens")


def _refuse(options: BenchOptions, refused: dict[str, list[Refusal]], packs: dict[str, list[Prompt]]) -> None:
    from specscope.workload.datasets import refusal_error

    for src, rows in refused.items():
        if rows and not options.drop_bad_rows:
            raise refusal_error(src, rows)
    top = 1 if options.trace else max(options.levels)
    short = [(label, len(items)) for label, items in packs.items() if len(items) < top]
    if short:
        label, n = short[0]
        raise ConfigError(
            f"workload {label} has {n} rows left that fit the server's context, fewer than the highest level {top}",
            found=n,
            expected=f">= {top} rows",
            fix=f"pass --max-concurrency up to {n}, or a model with a longer context",
        )

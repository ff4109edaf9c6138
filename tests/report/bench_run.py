"""A small real run folder for report tests: made with the store's create_run from stream records and counters.

Configs ``base`` and ``mtp`` (a vLLM recipe with method ``mtp``), workloads ``prose`` and ``code``, N = 1 and 2,
2 repeats. mtp drafts 2 tokens per verify step, and each step yields its bonus token plus the drafts it accepted, so a
cell's steps are its generated tokens less its accepted ones (derived from the tokens, never a fixed count): on prose
it accepts one draft per cell (4 of 520 draft tokens over 260 steps, 0.8 %, the broken-head symptom), on code 3/4 of
the steps accept their first draft and 1/4 their second (204 of 408, 50 %). One base cell has a degraded stream.
"""

from __future__ import annotations

from pathlib import Path

from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord
from specscope.store import create_run

MS = 1_000_000  # ns


def _stream(i: int, tokens: int, ttft_ms: int, total_ms: int, status: str = "ok") -> StreamRecord:
    return StreamRecord(
        prompt_id=f"p-{i:03d}",
        intended_ns=0,
        send_ns=0,
        first_token_ns=ttft_ms * MS,
        first_content_ns=ttft_ms * MS,
        last_token_ns=total_ms * MS,
        end_ns=total_ms * MS,
        content_chunks=tokens,
        reasoning_chunks=0,
        output_tokens=tokens,
        prompt_tokens=7,
        token_source="usage",
        finish_reason="length",
        status=status,
        reason=None if status == "ok" else "truncated",
        http_status=200,
        text="x",
    )


#: draft tokens per verify step (mtp's num_speculative_tokens)
K = 2


def _counters(tokens: int, per_position: tuple[float, ...]) -> tuple[SpecCounters, SpecCounters]:
    """The counters of a cell that generated ``tokens``, accepting ``per_position`` drafts at each position: every
    step drafts :data:`K` tokens and yields 1 + its accepted drafts, so steps = tokens - accepted."""
    accepted = sum(per_position)
    drafts = tokens - accepted
    before = SpecCounters(generation_tokens=0.0, present=frozenset({"spec", "per_pos", "generation"}))
    after = SpecCounters(
        drafts=float(drafts),
        draft_tokens=float(K * drafts),
        accepted_tokens=float(accepted),
        accepted_per_position=per_position,
        generation_tokens=float(tokens),
        present=frozenset({"spec", "per_pos", "generation"}),
    )
    return before, after


def make_run(path: Path) -> Path:
    """Write the run described in the module docstring to ``path``; returns ``path``."""
    run = create_run(
        path,
        {
            "kind": "bench",
            "engine": "vllm",
            "baseline": "base",
            "options": {"configs": ["base", "mtp"], "workloads": ["prose", "code"], "levels": [1, 2], "repeats": 2},
            "cells_total": 16,
            "finished": True,
        },
    )
    for cfg in ("base", "mtp"):
        for wl in ("prose", "code"):
            for n in (1, 2):
                for r in range(2):
                    tokens = 40 + 8 * r + (24 if cfg == "mtp" and wl == "code" else 0)
                    total_ms = 1000 + 100 * n + 50 * r
                    bad = cfg == "base" and wl == "code" and n == 2 and r == 1
                    streams = tuple(
                        _stream(i, tokens, 100 + 20 * n + 10 * i, total_ms, "degraded" if bad and i == 0 else "ok")
                        for i in range(n)
                    )
                    if cfg == "base":
                        before = SpecCounters(generation_tokens=0.0, present=frozenset({"generation"}))
                        after = SpecCounters(generation_tokens=float(tokens * n), present=frozenset({"generation"}))
                    elif wl == "prose":
                        before, after = _counters(tokens * n, (1.0, 0.0))
                    else:  # tokens * n is a multiple of 8: 3/8 and 1/8 of it are whole
                        before, after = _counters(tokens * n, (3 * tokens * n / 8, tokens * n / 8))
                    res = CellResult(CellKey(cfg, wl, n, r), streams, 0, total_ms * MS, before, after)
                    run.save_cell(res)
    run.save_server_facts("base", {"kind": "vllm", "model": "org/model-NVFP4", "recipe": {"method": "base"}})
    run.save_server_facts(
        "mtp",
        {"kind": "vllm", "model": "org/model-NVFP4", "recipe": {"method": "mtp", "num_speculative_tokens": 2}},
    )
    run.close()
    return path

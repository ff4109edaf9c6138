"""A run folder of the shape ``make bench`` makes, written through the store from stream records and counters, for
the tests that run the README's and docs' examples (tests/cli/test_doc_examples.py).

The quick profile on the embedded engine: configs ``base``, ``ngram``, ``draft`` and the A/A control ``base-again``
x workloads ``prose``, ``code``, ``edit`` x concurrency 1 and 2 x 2 rounds, 48 tokens per request; the cells of a
round interleave the configs in time (5 s apart), as bench's order does. Rates are those of a quiet 2-core machine
(base ~30 tok/s per stream; draft on edit faster, on prose slower; ngram accepts on edit only); acceptance comes as
llama.cpp's counter deltas around each cell, and each server's facts give the model's size, as the embedded engine
records them. ``k_sweep=True`` adds ``draft-k1``, ``draft-k2``, ``draft-k3``, ``draft-k4``, ``draft-k6`` (a k axis
for ``predict RUN --holdout``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from specscope.records import CellKey, CellResult, ClientFacts, ClockFacts, SpecCounters, StreamRecord
from specscope.store import create_run

NS = 1_000_000_000
EPOCH_S = 1_796_205_600.0  # 2026-12-02T10:00:00Z, the run's "created"
TOKENS = 48
MODEL_BYTES = 270_898_432  # SmolLM2-135M-Instruct, F16 GGUF (what the embedded engine records as model_bytes)
#: config -> workload -> (decode tok/s per stream, drafted per step, acceptance rate)
SPEED = {
    "base": {"prose": (30.0, 0, 0.0), "code": (30.0, 0, 0.0), "edit": (29.0, 0, 0.0)},
    "base-again": {"prose": (30.3, 0, 0.0), "code": (29.8, 0, 0.0), "edit": (29.2, 0, 0.0)},
    "ngram": {"prose": (29.5, 0, 0.0), "code": (31.0, 4, 0.30), "edit": (44.0, 8, 0.85)},
    "draft": {"prose": (24.0, 4, 0.45), "code": (26.0, 4, 0.55), "edit": (33.0, 4, 0.80)},
}


def _k_speed(k: int) -> dict[str, tuple[float, int, float]]:
    accept = {"prose": 0.45, "code": 0.55, "edit": 0.80}
    # floored at 4 tok/s: past its best k the curve would reach zero and below (k=6), streams ending before they start
    return {w: (max(4.0, 20.0 + 6.0 * k * a - 1.2 * k * k), k, a) for w, a in accept.items()}


def _streams(
    workload: str, n: int, start_ns: int, tok_s: float, jitter: float, tokens: int = TOKENS, slow: float = 1.0
) -> tuple[StreamRecord, ...]:
    """A cell's ``n`` streams; ``tokens`` per answer at the same time per token as ``TOKENS`` would take (an answer
    stopped early), with TTFT and every token ``slow`` times as long (a cold engine)."""
    ttft_ns = round((0.12 if workload != "edit" else 0.9) * n * NS * slow)
    decode_ns = round(TOKENS / (tok_s * jitter) * NS)
    if (tokens, slow) != (TOKENS, 1.0):
        decode_ns = round(decode_ns * slow * (tokens - 1) / (TOKENS - 1))
    return tuple(
        StreamRecord(
            f"{workload}-{i:03d}",
            start_ns,
            start_ns,
            start_ns + ttft_ns,
            start_ns + ttft_ns,
            start_ns + ttft_ns + decode_ns,
            start_ns + ttft_ns + decode_ns + 1_000_000,
            tokens,
            0,
            tokens,
            900 if workload == "edit" else 60,
            "usage",
            "length" if tokens == TOKENS else "stop",
            "ok",
            None,
            200,
        )
        for i in range(n)
    )


def _counters(
    n: int, drafted: int, rate: float, done: float, tokens: int = TOKENS
) -> tuple[SpecCounters, SpecCounters]:
    """llama.cpp's counters before / after a cell (``done``: tokens generated before it; ``tokens`` per stream).

    They add up as an engine's do (:mod:`specscope.stats.verify_steps`): each of the ``n`` requests' first token
    comes from prefill, every other token from a verify step, which emits 1 + its accepted tokens; the drafter
    drafts ``drafted`` tokens on every verify step, so drafts = verify steps = generated - accepted - ``n``."""
    generated = float(tokens * n)
    if not drafted:
        before = SpecCounters(generation_tokens=done, present=frozenset({"generation"}))
        return before, SpecCounters(generation_tokens=done + generated, present=frozenset({"generation"}))
    by_steps = tokens * n - n  # the tokens the verify steps emitted (all but each request's prefill token)
    steps = round(by_steps / (1 + drafted * rate))
    accepted = by_steps - steps
    present = frozenset({"spec", "generation"})
    before = SpecCounters(drafts=0.0, draft_tokens=0.0, accepted_tokens=0.0, generation_tokens=done, present=present)
    after = SpecCounters(
        drafts=float(steps),
        draft_tokens=float(steps * drafted),
        accepted_tokens=float(accepted),
        generation_tokens=done + generated,
        present=present,
    )
    return before, after


def _failed(s: StreamRecord) -> StreamRecord:
    """``s`` as a request the server refused: no token, http 503."""
    return replace(
        s,
        first_token_ns=None,
        first_content_ns=None,
        last_token_ns=None,
        content_chunks=0,
        output_tokens=None,
        prompt_tokens=None,
        token_source="missing",
        finish_reason=None,
        status="failed",
        reason="http 503",
        http_status=503,
    )


def make_quick_run(
    path: Path,
    *,
    k_sweep: bool = False,
    only: tuple[str, ...] = (),
    repeats: int = 2,
    stop_after: int | None = None,
    failed: bool = False,
    tokens: dict[tuple[int, str], int] | None = None,
    slow: dict[tuple[str, int], float] | None = None,
    clocked: bool = False,
) -> Path:
    """Write the run of the module docstring to ``path`` (a new folder); returns ``path``. ``only``: keep these
    configs of :data:`SPEED` (e.g. ``("base", "base-again")``, a run with nothing speculative); ``repeats``: rounds;
    ``stop_after``: store only the first this many cells, as a bench stopped there leaves its run (``finished``
    false, ``cells_total`` the plan's); ``failed``: every stream failed (http 503, no tokens), as a server that
    answers nothing; the run is then unfinished too (a failed cell leaves a bench run unfinished); ``tokens``:
    (round, workload) -> output tokens of every config's answers there (the model stopped early, at the same time per
    token); ``slow``: (config, round) -> how many times longer that config's TTFT and time per token are in that round
    (a cold engine); ``clocked``: each cell carries its wall-clock instants (from 2026-12-02 10:00 UTC on, as bench
    records them), so that the cells pair by time and a server's first cells can be named cold starts."""
    speed = {c: v for c, v in SPEED.items() if not only or c in only}
    if k_sweep:
        speed |= {f"draft-k{k}": _k_speed(k) for k in (1, 2, 3, 4, 6)}
    configs = [c for c in speed if c != "base-again"]
    options = {
        "configs": configs,
        "workloads": ["prose", "code", "edit"],
        "levels": [1, 2],
        "repeats": repeats,
        "max_tokens": TOKENS,
        "aa": True,
        "edit_shortest": 4,
    }
    run = create_run(
        path,
        {
            "kind": "bench",
            "created": "2026-12-02T10:00:00+00:00",
            "engine": "embedded",
            "baseline": "base",
            "options": options,
            # what the run was given: its repeats and levels, under the quick profile (the resume check derives
            # the plan the run started with from these: bench/resume.py started_matrix)
            "run_options": {"profile": "quick", "launch": "embedded", "repeats": repeats, "max_concurrency": [1, 2]},
            "cells_total": repeats * 3 * 2 * len(speed),
            "finished": stop_after is None and not failed,
            "model_bytes": MODEL_BYTES,
        },
    )
    t, done, stored = 0, {c: 0.0 for c in speed}, 0
    for r in range(repeats):
        for n in (1, 2):
            for w in ("prose", "code", "edit"):
                for i, c in enumerate(speed if (r + n) % 2 else reversed(list(speed))):
                    tok_s, drafted, rate = speed[c][w]
                    jitter = 1.0 + 0.01 * ((3 * i + 5 * r + 7 * n) % 5 - 2)
                    answer = (tokens or {}).get((r, w), TOKENS)
                    streams = _streams(w, n, t, tok_s, jitter, answer, (slow or {}).get((c, r), 1.0))
                    if failed:
                        streams = tuple(_failed(s) for s in streams)
                    if stop_after is not None and stored >= stop_after:
                        continue
                    stored += 1
                    before, after = _counters(n, drafted, rate, done[c], answer)
                    done[c] += answer * n
                    end = max(s.end_ns for s in streams)
                    clock = ClockFacts(EPOCH_S + t / NS, EPOCH_S + end / NS) if clocked else None
                    result = CellResult(CellKey(c, w, n, r), streams, t, end, before, after, ClientFacts(clock=clock))
                    run.save_cell(result)
                    t = end + 5 * NS
    for c in speed:
        run.save_server_facts(c, {"kind": "embedded", "model": "SmolLM2-135M-Instruct", "model_bytes": MODEL_BYTES})
    run.close()
    return path

"""The truth suite (issue 8): specscope's measurements at concurrency 1, 16 and 64 against what the ground-truth
server recorded it sent (same CLOCK_MONOTONIC clock in both processes).

Per request, the truth TTFT is ``first token write - send_ns`` and the truth TPOT ``(last token write - first
token write) / (tokens - 1)``; the client's error is its TTFT / TPOT minus these. Bounds: |error| p50 <= 0.5 ms
and p99 <= 2 ms, with the client polling (``busy_poll``; see POLLING below); the default client is held to the p50
bound and to its self-check's threshold at p99. Output tokens, acceptance (rate, length, per position from /metrics
deltas) and achieved concurrency are checked exactly. Timing errors depend on the machine being free enough to
schedule the client; other suites share this 2-core machine, so a level gets up to five batches and fails only if
all five miss (a systematic error fails all five). Marked ``timing``: CI runs the module in a step of its own
(`make test-timing`).
"""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest

from specscope.client.checks import CheckThresholds
from specscope.client.metrics import scrape
from specscope.client.runner import run_fixed_concurrency_checked, run_sync
from specscope.client.settings import ClientSettings
from specscope.stats.concurrency import achieved_concurrency
from specscope.stats.counters import counters_delta
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

# every level's TTFT / TPOT error bounds are sub-millisecond wall-clock checks: CI runs them in `make test-timing`
pytestmark = pytest.mark.timing

MS = 1_000_000
TOKENS = 12
# Streams of ~260 ms (TTFT 60 ms, then 5 gaps of 30-50 ms) leave the server time to start all 64 handlers before the
# first stream ends (peak = N exactly), also on a loaded 2-core CI machine, where ~100 ms streams let only 39 of 64
# arrive in time; the TTFT stays short, so first tokens come spread like the arrivals (a 250 ms TTFT put all 64
# first tokens in one burst and the client's TTFT p99 error to 2.5-5 ms).
# speculation-shaped: 1, 2 or 3 tokens per chunk, 2 reasoning tokens first; 4 drafts of 3, accepted 3/2/1 per position
PLAN = ResponsePlan(
    ttft_ms=60,
    inter_chunk_ms=[30, 40, 50],
    output_tokens=TOKENS,
    tokens_per_chunk=[1, 2, 3],
    reasoning_tokens=1,
    drafts=4,
    draft_tokens=12,
    accepted_per_position=[3, 2, 1],
    prompt_tokens=9,
)


# The suite's client polls instead of sleeping while streams are in flight (``--busy-poll``): on this 2-vCPU VM a
# sleeping client's loop wakes 2.5-12 ms late dozens of times a second (vCPU halted while idle; a bare busy loop
# sees one such gap in 3 s), which put one of 64 first-token reads 3-4 ms after the server's write in every batch of
# one CI run. Polling, the same p99 is 0.1-0.4 ms (benchmarks/busy_poll.py). The default client is checked too
# (test_truth_c64_default_client), against the p50 bound and the self-check's 10 ms read-lag threshold at p99.
POLLING = ClientSettings(busy_poll=True)


@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(default=PLAN)) as ts:
        yield ts


def _reqs(n: int, tag: str) -> list[tuple[str, dict]]:
    return [
        (
            f"{tag}-{i}",
            {"model": "truth", "messages": [{"role": "user", "content": f"{tag}-{i}"}], "max_tokens": TOKENS},
        )
        for i in range(n)
    ]


def _server_concurrency(served: list[dict], send_ns: dict[str, int]) -> tuple[int, float]:
    """(peak count of requests in the server's handlers, from arrival/end; the true time-weighted mean in flight
    on the wire, from each request's send instant to the server's end of writing it)."""
    ev = sorted([(s["arrival_ns"], 1) for s in served] + [(s["end_ns"], -1) for s in served])
    n = peak = 0
    for _, d in ev:
        n += d
        peak = max(peak, n)
    iv = [(send_ns[s["prompt"]], s["end_ns"]) for s in served]
    span = max(e for _, e in iv) - min(b for b, _ in iv)
    return peak, sum(e - b for b, e in iv) / span


def _batch(truth: TruthServer, concurrency: int, n: int, tag: str, settings: ClientSettings = POLLING) -> dict:
    truth.clear_log()

    async def go():
        async with httpx.AsyncClient(timeout=30) as c:
            before = await scrape(c, truth.base_url)
            recs, check = await run_fixed_concurrency_checked(truth.base_url, _reqs(n, tag), concurrency, settings)
            after = await scrape(c, truth.base_url)
            return before, recs, check, after

    before, recs, check, after = run_sync(go())
    served = {s["prompt"]: s for s in truth.served()}
    assert len(served) == n
    ttft_err, tpot_err = [], []
    for r in recs:
        s = served[r.prompt_id]
        toks = [w for w in s["writes"] if w[1] in ("content", "reasoning")]
        assert r.status == "ok", r.reason
        assert r.output_tokens == s["output_tokens"] == sum(w[2] for w in toks) == TOKENS  # usage, not chunks
        assert (r.reasoning_chunks, r.content_chunks) == (1, 5) and len(toks) == 6  # 1+2+3+1+2+3 tokens
        assert r.first_token_ns >= toks[0][0] and r.last_token_ns >= toks[-1][0]  # never seen before it was sent
        truth_ttft = toks[0][0] - r.send_ns
        truth_tpot = (toks[-1][0] - toks[0][0]) / (TOKENS - 1)
        ttft_err.append(abs(r.ttft_ns - truth_ttft))
        tpot_err.append(abs(r.tpot_ns - truth_tpot))
    d = counters_delta(before, after)
    peak, server_conc = _server_concurrency(list(served.values()), {r.prompt_id: r.send_ns for r in recs})
    return {
        "recs": recs,
        "check": check,
        "delta": d,
        "peak": peak,
        "server_conc": server_conc,
        "ttft_p50_ms": np.percentile(ttft_err, 50) / MS,
        "ttft_p99_ms": np.percentile(ttft_err, 99) / MS,
        "tpot_p50_ms": np.percentile(tpot_err, 50) / MS,
        "tpot_p99_ms": np.percentile(tpot_err, 99) / MS,
    }


def _level(
    truth: TruthServer, concurrency: int, n: int, settings: ClientSettings = POLLING, p99_ms: float = 2.0
) -> None:
    seen = []
    for attempt in range(5):
        b = _batch(truth, concurrency, n, f"c{concurrency}a{attempt}", settings)
        # exact, every batch
        d = b["delta"]
        assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (4 * n, 12 * n, 6 * n)
        assert d.accepted_per_position == (3 * n, 2 * n, 1 * n)
        assert d.generation_tokens == TOKENS * n == sum(r.output_tokens for r in b["recs"])
        assert d.prompt_tokens == 9 * n
        assert d.acceptance_rate == 0.5 and d.acceptance_length == 2.5
        assert d.acceptance_per_position == (0.75, 0.5, 0.25)
        # the client's achieved concurrency (send..end read) matches the truth (send..end written) within 5 %
        # (the end-of-stream read lag, ~1 ms of a ~40 ms stream on a busy machine): a wall-clock bound, so it
        # takes part in the retry like the TTFT / TPOT bounds (a load spike gave 11 % once at c64)
        conc_err = abs(achieved_concurrency(b["recs"]) / b["server_conc"] - 1)
        timing = {k: round(v, 3) for k, v in b.items() if k.endswith("_ms")}
        # the peak of requests in the server's handlers is the requested level exactly when the client got every
        # stream out before the first one ended: a wall-clock property too, so it takes part in the retry
        seen.append(
            {
                **timing,
                "peak": b["peak"],
                "concurrency_rel_error": round(conc_err, 4),
                "client": b["check"].limited_reason(),
            }
        )
        if (
            b["peak"] == concurrency
            and conc_err <= 0.05
            and timing["ttft_p50_ms"] <= 0.5
            and timing["tpot_p50_ms"] <= 0.5
            and timing["ttft_p99_ms"] <= p99_ms
            and timing["tpot_p99_ms"] <= p99_ms
        ):
            return
    pytest.fail(f"client vs served truth, |error| per batch: {seen}")


def test_truth_c1(truth):
    _level(truth, 1, 8)


def test_truth_c16(truth):
    _level(truth, 16, 32)


@pytest.mark.integration
def test_truth_c64(truth):
    _level(truth, 64, 64)


@pytest.mark.integration
def test_truth_c64_default_client(truth):
    """The default client sleeps between reads: same exact counts and p50 bound; its p99 is the machine's wake-up
    latency, held to the self-check's read-lag threshold (CheckThresholds: 10 ms), past which a cell is flagged."""
    _level(truth, 64, 64, ClientSettings(), p99_ms=CheckThresholds().read_lag_p99_ns / MS)


#: a length finish before max_tokens: the server's own limit cut the answer (once "short without stop")
LENGTH_5 = (
    f"SERVER_LENGTH_LIMIT(finish_reason length at 5 of max_tokens {TOKENS}: the server's own length limit "
    "cut the answer, e.g. prompt + answer at its context length)"
)

DEGRADED = {
    "http503": (dict(status=503), "failed", "http 503 on /v1/chat/completions: scripted failure"),
    "drop0": (dict(drop_after_chunks=0), "failed", "connection dropped; no [DONE]; no usage; short without stop"),
    "drop3": (dict(drop_after_chunks=3), "degraded", "connection dropped; no [DONE]; no usage; short without stop"),
    "nodone": (dict(send_done=False), "degraded", "no [DONE]"),
    "nousage": (dict(usage="absent"), "ok", None),
    "empty": (dict(output_tokens=0, role_ms=None, finish_reason=None, usage="absent"), "failed", "EMPTY_STREAM"),
    "early": (dict(output_tokens=5, finish_reason=None, usage="absent", send_done=False), "failed", "STOPPED_EARLY"),
    "short": (dict(output_tokens=5, finish_reason=None), "degraded", "short without stop"),
    "shortlen": (dict(output_tokens=5, finish_reason="length"), "degraded", LENGTH_5),
    "full": (dict(output_tokens=TOKENS, finish_reason="length"), "ok", None),
    "llamacpp": (dict(output_tokens=5, usage="last_choice_chunk", llamacpp_timings=True), "ok", None),
    "stall": (
        dict(stall_after_chunks=2, stall_ms=3000),
        "degraded",
        "timeout; no [DONE]; no usage; short without stop",
    ),
}


def test_degraded_shapes_at_concurrency_16(truth):
    """Every degraded shape, twice, mixed with 12 good streams, 16 in flight: each classified exactly."""
    # read timeout 1 s: 20x the plan's longest gap (50 ms) so a loaded CI machine cannot time out a good stream,
    # a third of the stall (3 s)
    truth.set_script(
        TruthScript(
            default=PLAN,
            by_prompt={k: ResponsePlan.model_validate({**PLAN.model_dump(), **v[0]}) for k, v in DEGRADED.items()},
        )
    )
    try:
        names = [*DEGRADED, *DEGRADED, *(["good"] * 12)]
        reqs = [
            (f"{k}#{i}", {"messages": [{"role": "user", "content": k}], "max_tokens": TOKENS})
            for i, k in enumerate(names)
        ]
        recs, _ = asyncio.run(
            run_fixed_concurrency_checked(truth.base_url, reqs, 16, ClientSettings(read_timeout_s=1.0))
        )
    finally:
        truth.set_script(TruthScript(default=PLAN))
    for r in recs:
        key = r.prompt_id.split("#")[0]
        want = ("ok", None) if key == "good" else DEGRADED[key][1:]
        assert (r.status, r.reason) == want, r.prompt_id
    by = {r.prompt_id.split("#")[0]: r for r in recs}
    assert by["llamacpp"].server_draft_tokens == 12 and by["llamacpp"].server_accepted_tokens == 6
    assert by["good"].output_tokens == TOKENS and by["nousage"].output_tokens is None

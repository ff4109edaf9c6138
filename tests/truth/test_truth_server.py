"""The streaming client and /metrics scraping against the ground-truth server (a real server on 127.0.0.1,
in a child process), compared with the programme and with the truth the server recorded."""

from __future__ import annotations

import asyncio
import statistics

import httpx
import pytest

from hangguard import HANG_S
from specscope.client.metrics import scrape
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.client.stream import make_session, stream_chat
from specscope.errors import ConfigError, MetricsUnavailable
from specscope.stats.concurrency import achieved_concurrency
from specscope.stats.counters import counters_delta
from specscope.truth.process import TruthServer
from specscope.truth.script import MetricsPlan, ResponsePlan, TruthScript

MS = 1_000_000


@pytest.fixture(scope="module")
def truth():
    with TruthServer() as ts:
        yield ts


#: a length finish before max_tokens: the server's own limit cut the answer (once "short without stop")
LENGTH_5_OF_10 = (
    "SERVER_LENGTH_LIMIT(finish_reason length at 5 of max_tokens 10: the server's own length limit "
    "cut the answer, e.g. prompt + answer at its context length)"
)


def _body(text: str = "hello", max_tokens: int = 16, **truth) -> dict:
    b = {"model": "truth", "messages": [{"role": "user", "content": text}], "max_tokens": max_tokens}
    if truth:
        b["specscope_truth"] = truth
    return b


def _run(base_url, bodies, concurrency=1, settings=None):
    reqs = [(f"p{i}", b) for i, b in enumerate(bodies)]
    return run_sync(run_fixed_concurrency(base_url, reqs, concurrency, settings or ClientSettings()))


def _timing_batch(truth) -> dict[str, float]:
    """9 streams at concurrency 1; medians in ms of the client's TTFT / TPOT, the server's served TTFT
    (first content write - arrival) and the client's lag behind the server's writes (same monotonic clock)."""
    truth.clear_log()
    recs = _run(truth.base_url, [_body(f"t{i}", 10) for i in range(9)])
    served = truth.served()
    assert [r.status for r in recs] == ["ok"] * 9
    assert [r.output_tokens for r in recs] == [10] * 9
    first_lag, last_lag, served_ttft = [], [], []
    for r, s in zip(recs, served, strict=True):
        writes = [w[0] for w in s["writes"] if w[1] == "content"]
        assert r.first_token_ns >= writes[0] and r.last_token_ns >= writes[-1]  # never seen before written
        assert r.send_ns <= s["arrival_ns"]
        first_lag.append((r.first_token_ns - writes[0]) / MS)
        last_lag.append((r.last_token_ns - writes[-1]) / MS)
        served_ttft.append((writes[0] - s["arrival_ns"]) / MS)
    med = statistics.median
    return {
        "ttft": med(r.ttft_ns / MS for r in recs),
        "tpot": med(r.tpot_ns / MS for r in recs),
        "served_ttft": med(served_ttft),
        "first_lag": med(first_lag),
        "last_lag": med(last_lag),
    }


def _batches_until(truth, ok) -> list[dict[str, float]]:
    """Up to three batches until ``ok(batch)``: other suites share this 2-core machine and can delay either
    process by several ms; a systematic error of the bound's size fails all three."""
    truth.set_script(TruthScript(default=ResponsePlan(ttft_ms=30, inter_chunk_ms=5, output_tokens=10)))
    _run(truth.base_url, [_body("warm", 10)] * 2)  # warm both processes' code paths
    seen = []
    for _ in range(3):
        seen.append({k: round(v, 3) for k, v in _timing_batch(truth).items()})
        if ok(seen[-1]):
            return seen
    pytest.fail(f"per-batch medians (ms): {seen}")


@pytest.mark.timing
def test_timing_c1_client_within_1ms_of_served_truth(truth):
    """Programmed TTFT 30 ms, TPOT 5 ms: the server serves them within 1 ms, the client sees each token
    within 1 ms of its write, and the client's TPOT is within 1 ms of 5 ms."""
    _batches_until(
        truth,
        lambda b: (
            abs(b["served_ttft"] - 30) < 1 and b["first_lag"] < 1 and b["last_lag"] < 1 and abs(b["tpot"] - 5) < 1
        ),
    )


@pytest.mark.integration
@pytest.mark.timing
def test_timing_c1_ttft_within_1ms_of_programme(truth):
    """End to end, the client's median TTFT is within 1 ms of the programmed 30 ms (includes the server's
    wake-up on the request, so it needs a quiet machine)."""
    _batches_until(truth, lambda b: abs(b["ttft"] - 30) < 1 and abs(b["tpot"] - 5) < 1)


def test_multi_token_chunks_and_reasoning(truth):
    truth.set_script(
        TruthScript(
            default=ResponsePlan(
                output_tokens=32,
                tokens_per_chunk=4,
                reasoning_tokens=8,
                inter_chunk_ms=2,
                reasoning_field="reasoning_content",
            )
        )
    )
    (r,) = _run(truth.base_url, [_body(max_tokens=64)], settings=ClientSettings(keep_text=True))
    assert r.status == "ok"
    assert r.output_tokens == 32 and r.token_source == "usage"
    assert r.reasoning_chunks == 2 and r.content_chunks == 6
    # the first token is the first reasoning delta; content comes 2 chunks later (the same read may carry
    # both on a loaded machine, so the instants may be equal, never reversed)
    assert r.first_token_ns <= r.first_content_ns
    assert r.reasoning_text == " x" * 8


@pytest.mark.parametrize(
    "plan, status, reason",
    [
        (dict(status=503), "failed", "http 503 on /v1/chat/completions: scripted failure"),
        (dict(drop_after_chunks=0), "failed", "connection dropped; no [DONE]; no usage; short without stop"),
        (dict(drop_after_chunks=3), "degraded", "connection dropped; no [DONE]; no usage; short without stop"),
        (dict(send_done=False), "degraded", "no [DONE]"),
        (dict(usage="absent"), "ok", None),  # finished normally: ok, tokens unknown (the cell may take them)
        (dict(usage="absent", send_done=False), "degraded", "no [DONE]; no usage"),
        (dict(output_tokens=0, role_ms=None, finish_reason=None, usage="absent"), "failed", "EMPTY_STREAM"),
        (dict(output_tokens=0, finish_reason=None, usage="absent", send_done=False), "failed", "EMPTY_STREAM"),
        (dict(output_tokens=5, finish_reason=None, usage="absent", send_done=False), "failed", "STOPPED_EARLY"),
        (dict(output_tokens=5, finish_reason=None, usage="absent"), "degraded", "no usage; short without stop"),
        (dict(output_tokens=5, finish_reason=None), "degraded", "short without stop"),
        (dict(output_tokens=5, finish_reason="length"), "degraded", LENGTH_5_OF_10),
        (dict(output_tokens=10, finish_reason="length"), "ok", None),
        (dict(output_tokens=5, finish_reason="stop", usage="last_choice_chunk"), "ok", None),
    ],
)
def test_degraded_shapes_classified(truth, plan, status, reason):
    truth.set_script(TruthScript())
    (r,) = _run(truth.base_url, [_body(max_tokens=10, **plan)])
    assert (r.status, r.reason) == (status, reason)


def test_stall_times_out(truth):
    # issue 37: the stall outlasts the hang guard, so the server still holds the stream when it is scraped however
    # long a loaded machine takes to get there (a 3 s stall could end first), and the read timeout is 2 s, not 0.3 s,
    # so that a loaded machine's scheduling gap between the first two chunks is not taken for the stall
    stall = ResponsePlan(output_tokens=6, stall_after_chunks=2, stall_ms=2 * HANG_S * 1000)
    truth.set_script(TruthScript(default=stall))
    settings = ClientSettings(read_timeout_s=2.0)
    (r,) = _run(truth.base_url, [_body(max_tokens=6)], settings=settings)
    assert r.status == "degraded"
    assert r.reason.startswith("timeout")
    assert r.content_chunks == 2
    assert 2.0 <= r.e2e_ns / 1e9 < HANG_S
    assert _running_now(truth) == 1  # the server still holds the stream the client gave up on
    truth.reset_counters()  # a reset is a restart: the gauge starts again at 0 and the stream's end, which
    assert _running_now(truth) == 0  # the server still sends, does not drive it to -1 (issue 17)
    assert _wait_idle(truth) == 0


def _running_now(truth) -> float | None:
    async def go():
        async with httpx.AsyncClient(timeout=HANG_S) as c:
            return (await scrape(c, truth.base_url)).running

    return asyncio.run(go())


def _wait_idle(truth, limit_s: float = HANG_S) -> float | None:
    """The running gauge once it is 0 (or after ``limit_s``), so the next test starts with no stream in flight."""
    import time

    deadline = time.monotonic() + limit_s
    running = _running_now(truth)
    while running and time.monotonic() < deadline:
        time.sleep(0.1)
        running = _running_now(truth)
    return running


def test_metrics_exact_two_engines_and_reset(truth):
    truth.set_script(
        TruthScript(
            default=ResponsePlan(
                output_tokens=12,
                tokens_per_chunk=3,
                drafts=4,
                draft_tokens=12,
                accepted_per_position=[3, 2, 1],
                prompt_tokens=7,
            ),
            metrics=MetricsPlan(engines=["0", "1"]),
        )
    )

    async def go():
        async with httpx.AsyncClient(timeout=HANG_S) as c:
            before = await scrape(c, truth.base_url + "/v1")
            recs = await run_fixed_concurrency(
                truth.base_url,
                [
                    ("a", _body(max_tokens=12, engine="0")),
                    ("b", _body(max_tokens=12, engine="1")),
                    ("c", _body(max_tokens=12, engine="1")),
                ],
                3,
                ClientSettings(),
            )
            after = await scrape(c, truth.base_url)
            return before, recs, after

    before, recs, after = asyncio.run(go())
    assert before.running == 0 and after.running == 0
    d = counters_delta(before, after)
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (12, 36, 18)
    assert d.accepted_per_position == (9, 6, 3)
    assert d.generation_tokens == 36 == sum(r.output_tokens for r in recs)
    assert d.prompt_tokens == 21
    assert d.acceptance_rate == 0.5 and d.acceptance_length == 2.5
    assert d.acceptance_per_position == (0.75, 0.5, 0.25)
    assert d.reset is False

    truth.reset_counters()

    async def again():
        async with httpx.AsyncClient(timeout=HANG_S) as c:
            return await scrape(c, truth.base_url)

    assert counters_delta(after, asyncio.run(again())).reset is True


def test_metrics_llamacpp_style(truth):
    truth.set_script(
        TruthScript(
            default=ResponsePlan(output_tokens=8, drafts=2, draft_tokens=6, accepted_per_position=[2, 1]),
            metrics=MetricsPlan(style="llamacpp", per_position=False),
        )
    )
    _run(truth.base_url, [_body(max_tokens=8)])

    async def go():
        async with httpx.AsyncClient(timeout=HANG_S) as c:
            return await scrape(c, truth.base_url)

    c = asyncio.run(go())
    assert (c.drafts, c.draft_tokens, c.accepted_tokens, c.generation_tokens) == (2, 6, 3, 8)
    assert c.accepted_per_position == ()


def test_metrics_404(truth):
    truth.set_script(TruthScript(metrics=MetricsPlan(enabled=False)))

    async def go():
        async with httpx.AsyncClient(timeout=HANG_S) as c:
            await scrape(c, truth.base_url)

    with pytest.raises(MetricsUnavailable) as ei:
        asyncio.run(go())
    assert "404" in str(ei.value.found)


def _n_in_flight(truth) -> tuple[list, int]:
    """16 requests at concurrency 4 (20 ms TTFT, 8 tokens 10 ms apart): the records and the server-side peak of
    requests in flight."""
    truth.set_script(TruthScript(default=ResponsePlan(ttft_ms=20, inter_chunk_ms=10, output_tokens=8)))
    truth.clear_log()
    recs = _run(truth.base_url, [_body(f"q{i}", 8) for i in range(16)], concurrency=4)
    served = truth.served()
    events = sorted([(s["arrival_ns"], 1) for s in served] + [(s["end_ns"], -1) for s in served])
    n = peak = 0
    for _, d in events:
        n += d
        peak = max(peak, n)
    return recs, peak


def test_fixed_concurrency_keeps_n_in_flight(truth):
    recs, peak = _n_in_flight(truth)
    assert [r.prompt_id for r in recs] == [f"p{i}" for i in range(16)]
    assert all(r.status == "ok" for r in recs)
    assert peak == 4  # what the server recorded: in flight never above 4, and 4 at some point
    # the client's own order: each request after the first 4 was sent after one more of the earlier ones ended
    ends = sorted(r.end_ns for r in recs)
    sends = sorted(r.send_ns for r in recs)
    assert all(sum(e <= s for e in ends) >= i - 3 for i, s in enumerate(sends))


@pytest.mark.timing
def test_fixed_concurrency_refills_at_once(truth):
    """Achieved concurrency above 3.5 of 4: a request is sent within ~10 ms of a slot freeing (each lasts ~90 ms).
    A loaded machine delays the refill, so this is a timing test."""
    recs, _ = _n_in_flight(truth)
    assert 3.5 < achieved_concurrency(recs) <= 4.0


def test_connection_limit_below_concurrency_rejected():
    with pytest.raises(ConfigError):
        asyncio.run(run_fixed_concurrency("http://127.0.0.1:9", [("a", {})], 8, ClientSettings(connection_limit=4)))


def test_stream_chat_single(truth):
    truth.set_script(TruthScript(default=ResponsePlan(output_tokens=3)))

    async def go():
        async with make_session(ClientSettings()) as s:
            return await stream_chat(
                s, truth.base_url, "one", _body(max_tokens=3), settings=ClientSettings(keep_text=True)
            )

    r = asyncio.run(go())
    assert (r.status, r.output_tokens, r.content_chunks, r.text) == ("ok", 3, 3, " x x x")


def test_one_engine_restarts_between_scrapes(truth):
    """vLLM data parallel: engine 1 restarts mid-window (counters to 0, ``*_created`` moves by 1000 s) and serves
    more than before, so every summed counter still rises; the delta leaves engine 1 out and flags it."""
    plan = ResponsePlan(
        output_tokens=12, tokens_per_chunk=4, drafts=4, draft_tokens=12, accepted_per_position=[3, 2, 1]
    )
    truth.set_script(TruthScript(default=plan, metrics=MetricsPlan(engines=["0", "1"], created=True)))

    async def go():
        async with httpx.AsyncClient(timeout=HANG_S) as c:
            s = ClientSettings()
            await run_fixed_concurrency(truth.base_url, [("w", _body(max_tokens=12, engine="1"))], 1, s)
            before = await scrape(c, truth.base_url)
            await run_fixed_concurrency(truth.base_url, [("a", _body(max_tokens=12, engine="0"))], 1, s)
            (await c.post(truth.base_url + "/truth/reset", params={"engine": "1"})).raise_for_status()
            more = [(f"b{i}", _body(max_tokens=12, engine="1")) for i in range(2)]
            await run_fixed_concurrency(truth.base_url, more, 2, s)
            return before, await scrape(c, truth.base_url)

    before, after = asyncio.run(go())
    e1 = next(k for k in after.engines if 'engine="1"' in k)  # keyed by selector
    assert after.engines[e1].created == before.engines[e1].created + 1000
    assert after.drafts == 4 + 8 > before.drafts == 4  # the sum rose: a summed delta would not see the restart
    d = counters_delta(before, after)
    assert d.reset is False and d.reset_engines == ("1",)
    assert (d.drafts, d.draft_tokens, d.accepted_tokens, d.generation_tokens) == (4, 12, 6, 12)  # engine 0 only
    assert d.acceptance_rate == 0.5 and d.acceptance_length == 2.5 and d.acceptance_per_position == (0.75, 0.5, 0.25)

"""/metrics parsing and deltas on real samples (tests/data/fixtures, and one captured from llama.cpp's server).

tests/data/fixtures/llamacpp_metrics_xllamacpp_smollm2.prom: GET /metrics of xllamacpp 2026.10.11549's embedded
llama-server (SmolLM2-135M-Instruct Q4_1, endpoint_metrics on, ngram-mod speculation), captured here after one
28-token chat completion.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from paths import DATA, FIXTURES
from specscope.client.metrics import metrics_url, parse_metrics, scrape
from specscope.errors import MetricsUnavailable, ServerUnreachable
from specscope.records import SpecCounters
from specscope.stats.counters import counters_delta


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_vllm_live_excerpt_exact():
    c = parse_metrics(_fixture("vllm_metrics_spec_decode_live_excerpt.prom"))
    assert c.drafts == 2043630.0
    assert c.draft_tokens == 10218118.0
    assert c.accepted_tokens == 7268642.0
    assert c.accepted_per_position == (1883866.0, 1732372.0, 1489894.0, 1204113.0)
    assert c.present == frozenset({"spec", "per_pos"})
    assert c.generation_tokens is None and c.running is None
    assert c.acceptance_rate == pytest.approx(7268642 / 10218118)
    assert c.acceptance_length == pytest.approx(1 + 7268642 / 2043630)
    assert c.acceptance_per_position[0] == pytest.approx(1883866 / 2043630)


def test_vllm_pr41916_excerpt_cut_family():
    # the excerpt ends after accepted_tokens' HELP/TYPE lines: that family has no sample
    c = parse_metrics(_fixture("vllm_metrics_spec_decode_pr41916_excerpt.prom"))
    assert c.drafts == 6491797.0
    assert c.draft_tokens == 6491797.0
    assert c.accepted_tokens is None  # no sample: no counter reading (issue 26: silence is never 0)
    assert c.accepted_per_position == ()


def test_vllm_docs_example_no_spec():
    c = parse_metrics(_fixture("vllm_metrics_docs_example.prom"))
    assert c.generation_tokens == 27453.0
    assert c.running == 8.0
    assert c.waiting is None
    assert c.drafts is None  # no speculative counter: unknown, not 0 (issue 26)
    assert "spec" not in c.present
    assert c.present == frozenset({"generation", "running"})
    assert c.acceptance_rate is None


def test_llamacpp_real_sample():
    c = parse_metrics((FIXTURES / "llamacpp_metrics_xllamacpp_smollm2.prom").read_text())
    assert c.generation_tokens == 28.0
    assert c.prompt_tokens == 53.0
    assert c.running == 0.0
    assert c.waiting == 0.0
    assert (c.drafts, c.draft_tokens, c.accepted_tokens) == (0.0, 0.0, 0.0)
    assert c.present == frozenset({"spec", "generation", "prompt", "running", "waiting"})


TWO_ENGINES = """\
# TYPE vllm:spec_decode_num_drafts counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 100.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 50.0
vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e+09
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 300.0
vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="m"} 150.0
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 180.0
vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="m"} 60.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 90.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 35.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 60.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="1"} 20.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} 30.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="2"} 5.0
vllm:generation_tokens_total{engine="0",model_name="m"} 1000.0
vllm:generation_tokens_total{engine="1",model_name="m"} 400.0
vllm:num_requests_running{engine="0",model_name="m"} 0.0
vllm:num_requests_running{engine="1",model_name="m"} 2.0
vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
vllm:num_requests_waiting{engine="1",model_name="m"} 0.0
"""


def test_two_engines_summed():
    c = parse_metrics(TWO_ENGINES)
    assert c.drafts == 150.0
    assert c.draft_tokens == 450.0
    assert c.accepted_tokens == 240.0
    assert c.accepted_per_position == (125.0, 80.0, 35.0)
    assert c.generation_tokens == 1400.0
    assert c.running == 2.0 and c.waiting == 1.0
    assert c.acceptance_length == pytest.approx(1 + 240 / 150)


def test_delta_exact_and_per_position():
    before = SpecCounters(
        drafts=150,
        draft_tokens=450,
        accepted_tokens=240,
        accepted_per_position=(125, 80, 35),
        generation_tokens=1400,
        prompt_tokens=10,
        running=0,
        waiting=0,
        present=frozenset({"spec", "per_pos", "generation", "prompt"}),
    )
    after = SpecCounters(
        drafts=190,
        draft_tokens=570,
        accepted_tokens=300,
        accepted_per_position=(155, 100, 45),
        generation_tokens=1560,
        prompt_tokens=70,
        running=0,
        waiting=0,
        present=frozenset({"spec", "per_pos", "generation"}),
    )
    d = counters_delta(before, after)
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (40, 120, 60)
    assert d.accepted_per_position == (30, 20, 10)
    assert d.generation_tokens == 160 and d.prompt_tokens == 60
    assert d.reset is False
    assert d.running is None and d.waiting is None
    assert d.present == frozenset({"spec", "per_pos", "generation"})
    assert d.acceptance_rate == 0.5
    assert d.acceptance_length == 2.5
    assert d.acceptance_per_position == (0.75, 0.5, 0.25)


def test_delta_reset_detected():
    before = SpecCounters(
        drafts=150, draft_tokens=450, accepted_tokens=240, accepted_per_position=(125, 80), generation_tokens=1400
    )
    after = SpecCounters(
        drafts=20, draft_tokens=60, accepted_tokens=30, accepted_per_position=(18, 12), generation_tokens=90
    )
    d = counters_delta(before, after)
    assert d.reset is True
    assert d.drafts == 20 and d.generation_tokens == 90  # since the restart, as Prometheus increase()
    # only a per-position counter going down is a reset too
    d2 = counters_delta(SpecCounters(accepted_per_position=(5.0, 3.0)), SpecCounters(accepted_per_position=(6.0, 2.0)))
    assert d2.reset is True


def test_not_prometheus_text():
    with pytest.raises(MetricsUnavailable) as ei:
        parse_metrics("<html><body>hello</body></html>\n")
    assert ei.value.found and ei.value.expected and ei.value.fix


def test_metrics_url():
    assert metrics_url("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/metrics"
    assert metrics_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000/metrics"


def test_scrape_unreachable():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now

    async def go():
        async with httpx.AsyncClient(timeout=2.0) as client:
            await scrape(client, f"http://127.0.0.1:{port}/v1")

    with pytest.raises(ServerUnreachable) as ei:
        asyncio.run(go())
    assert str(port) in str(ei.value.found)


def test_a_series_written_twice_is_refused_never_summed():
    # issue 37 (attack probe): a scrape holding each series twice (two responses concatenated by a proxy; the
    # exposition format has each series once) read as twice the counts: drafts 120 where the server said 60
    text = (DATA / "counters" / "llamacpp_after.prom").read_text()
    assert parse_metrics(text).drafts == 60
    with pytest.raises(MetricsUnavailable) as info:
        parse_metrics(text + text)
    assert "llamacpp:prompt_tokens_total" in str(info.value) and "twice" in str(info.value)


@pytest.mark.parametrize(
    ("body", "drains", "message"),
    [
        ("[]", False, "the /metrics body is not Prometheus text"),
        (
            'vllm:generation_tokens_total{engine="0"} 6.0\n',
            True,
            "the /metrics body is not the JSON it answered at start",
        ),
    ],
)
def test_a_body_of_the_other_kind_than_at_start_is_unreadable(body, drains, message):
    # engine detection is at start only (issue 37): a [] from a server that answered Prometheus text at start is no
    # empty drained slice, and Prometheus text from one that drained on read is no snapshot of it
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=body))

    async def go(at_start):
        async with httpx.AsyncClient(transport=transport) as client:
            return await scrape(client, "http://127.0.0.1:8000", None, at_start)

    with pytest.raises(MetricsUnavailable) as ei:
        asyncio.run(go(drains))
    assert str(ei.value).startswith(message)
    assert ei.value.found.startswith("GET http://127.0.0.1:8000/metrics: ")


def test_a_urls_first_read_is_its_kind_for_the_run():
    # a --metrics replica or a launched server has no start-up check: its first read records the kind (MetricsKinds),
    # and a [] after Prometheus text is unreadable, never an empty drained slice; a first body that is no metrics at
    # all records nothing
    from specscope.client.metrics import MetricsKinds

    bodies = iter(["hello world\n", 'vllm:generation_tokens_total{engine="0"} 6.0\n', "[]"])
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=next(bodies)))
    kinds = MetricsKinds()

    async def go():
        async with httpx.AsyncClient(transport=transport) as client:
            return await scrape(client, "http://127.0.0.1:8001", None, None, None, kinds)

    with pytest.raises(MetricsUnavailable):
        asyncio.run(go())
    assert kinds.of("http://127.0.0.1:8001") is None
    assert asyncio.run(go()).generation_tokens == 6.0
    assert kinds.of("http://127.0.0.1:8001/v1") is False
    with pytest.raises(MetricsUnavailable) as ei:
        asyncio.run(go())
    assert str(ei.value).startswith("the /metrics body is not Prometheus text")

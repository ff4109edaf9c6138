"""``bench --prometheus`` reads the served model's series alone, as a direct ``--server`` scrape does: a Prometheus
answer carrying the replica's series of two ``model_name`` values (a second model loaded on the replica) summed
both models' counters into the cell (follow-up of issue 37's ``parse_metrics(text, model)``)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import httpx

from specscope.bench.counters_source import counter_source
from specscope.bench.prometheus_source import PrometheusSource


def _series(name: str, model: str, value: float) -> dict:
    labels = {"__name__": name, "instance": "127.0.0.1:8001", "job": "base", "engine": "0", "model_name": model}
    return {"metric": labels, "value": [1700000000.0, f"{value:g}"]}


ANSWER = {
    "status": "success",
    "data": {
        "resultType": "vector",
        "result": [
            _series("vllm:spec_decode_num_drafts_total", "served", 10),
            _series("vllm:spec_decode_num_draft_tokens_total", "served", 30),
            _series("vllm:spec_decode_num_accepted_tokens_total", "served", 12),
            _series("vllm:spec_decode_num_drafts_total", "other", 1000),
            _series("vllm:spec_decode_num_draft_tokens_total", "other", 3000),
            _series("vllm:spec_decode_num_accepted_tokens_total", "other", 2000),
        ],
    },
}


def _snapshot(source: PrometheusSource):
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=json.dumps(ANSWER)))

    async def go():
        async with httpx.AsyncClient(transport=transport) as http:
            return await source.snapshot(http, 1700000000.0)

    return asyncio.run(go())


def test_the_served_models_series_alone_are_read():
    got = _snapshot(PrometheusSource("http://127.0.0.1:9090", '{job="base"}', model="served"))
    assert (got.drafts, got.draft_tokens, got.accepted_tokens) == (10.0, 30.0, 12.0)


def test_bench_passes_the_served_model_to_the_prometheus_source():
    options = SimpleNamespace(prometheus="http://127.0.0.1:9090", prometheus_selectors={})
    source = counter_source(options, "base", "http://127.0.0.1:8001", 0.0, None, "served")
    got = _snapshot(source)
    assert (got.drafts, got.draft_tokens, got.accepted_tokens) == (10.0, 30.0, 12.0)


def test_without_a_model_every_series_is_read():
    got = _snapshot(PrometheusSource("http://127.0.0.1:9090", '{job="base"}'))
    assert (got.drafts, got.draft_tokens, got.accepted_tokens) == (1010.0, 3030.0, 2012.0)

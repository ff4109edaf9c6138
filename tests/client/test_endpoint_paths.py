"""Every load path of the client sends ``settings.endpoint``'s dialect and reads its stream: fixed concurrency on
the raw wire path and on aiohttp, split over worker processes, and the open loop; each against a truth server that
serves only that API (a chat request there would be refused), with exact tokens and statuses."""

from __future__ import annotations

import pytest

from specscope.adapters.openai.endpoints import COMPLETIONS, RESPONSES
from specscope.client.openloop import OpenLoopSchedule, run_open_loop
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.client.stream import make_session, stream_chat
from specscope.truth import ResponsePlan, TruthScript, TruthServer

PLAN = ResponsePlan(output_tokens=10, tokens_per_chunk=[4, 1], finish_reason="stop", role_ms=0, prompt_tokens=3)


def _reqs(n: int, tag: str) -> list[tuple[str, dict]]:
    body = {"model": "m", "max_tokens": 16, "temperature": 0.0, "stream": True}
    return [(f"{tag}-{i}", {**body, "messages": [{"role": "user", "content": f"{tag} {i}"}]}) for i in range(n)]


@pytest.mark.parametrize("endpoint", [COMPLETIONS, RESPONSES])
def test_every_load_path_speaks_the_endpoint(endpoint):
    with TruthServer(TruthScript(default=PLAN, apis=[endpoint], refuse_status=400)) as ts:
        runs = {
            hot: run_sync(
                run_fixed_concurrency(
                    ts.base_url, _reqs(6, hot), 3, ClientSettings(endpoint=endpoint, hot_path=hot, workers=1)
                )
            )
            for hot in ("wire", "aiohttp")
        }
        runs["workers"] = run_sync(
            run_fixed_concurrency(ts.base_url, _reqs(6, "w"), 2, ClientSettings(endpoint=endpoint, workers=2))
        )
        runs["open"] = run_sync(
            run_open_loop(ts.base_url, _reqs(4, "o"), OpenLoopSchedule(50.0), ClientSettings(endpoint=endpoint))
        )
        runs["one"] = [run_sync(_one(ts.base_url, ClientSettings(endpoint=endpoint)))]
        served = ts.served()
    for name, recs in runs.items():
        got = [(r.status, r.reason, r.output_tokens, r.prompt_tokens, r.finish_reason, r.content_chunks) for r in recs]
        # 10 tokens in chunks 4,1,4,1 (4 text events) and usage 10: tokens from usage, never the event count
        assert got == [("ok", None, 10, 3, "stop", 4)] * len(recs), name
    assert len(served) == 23 and {s["path"] for s in served} == {endpoint}
    # the prompt each request was keyed on came through in the endpoint's dialect
    assert sorted(s["prompt"] for s in served if s["prompt"].startswith("o ")) == ["o 0", "o 1", "o 2", "o 3"]


async def _one(base_url: str, settings: ClientSettings):
    """One request through :func:`stream_chat` (the library's single-request call)."""
    async with make_session(settings) as session:
        return await stream_chat(session, base_url, "one", _reqs(1, "s")[0][1], settings=settings)

"""The firehose mode of the ground-truth server (raw asyncio, no delays): right bytes, keep-alive,
multi-token chunks."""

from __future__ import annotations

import httpx
import pytest

from hangguard import HANG_S
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript


@pytest.fixture(scope="module")
def firehose():
    with TruthServer(
        TruthScript(default=ResponsePlan(output_tokens=None, tokens_per_chunk=[4, 1]), firehose=True, record=False)
    ) as ts:
        yield ts


def test_stream_shape_and_tokens(firehose):
    reqs = [(f"p{i}", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 23}) for i in range(40)]
    recs = run_sync(run_fixed_concurrency(firehose.base_url, reqs, 8, ClientSettings(keep_text=True)))
    assert [r.status for r in recs] == ["ok"] * 40
    r = recs[-1]
    # 23 tokens in chunks 4,1,4,1,4,1,4,1,3: 9 events; usage says 23 (never the chunk count)
    assert (r.output_tokens, r.content_chunks, r.prompt_tokens, r.finish_reason) == (23, 9, 8, "length")
    assert r.text == " x" * 23
    # by default only counts are kept: no text, the same figures
    (d,) = run_sync(run_fixed_concurrency(firehose.base_url, reqs[:1], 1, ClientSettings()))
    assert (d.status, d.output_tokens, d.content_chunks, d.text, d.reasoning_text) == ("ok", 23, 9, None, None)


def test_raw_http_keepalive_and_404(firehose):
    with httpx.Client(base_url=firehose.base_url, timeout=HANG_S) as c:
        a = c.post("/v1/chat/completions", json={"max_tokens": 2})
        b = c.post("/v1/chat/completions", json={"max_tokens": 1})
        assert a.status_code == b.status_code == 200
        assert a.headers["transfer-encoding"] == "chunked"
        # 2 tokens with chunk sizes (4, 1) cycled: one chunk of 2
        assert a.text.count('"content":" x x"') == 1 and a.text.count('"content":') == 2  # role + 1 token chunk
        assert b.text.endswith("data: [DONE]\n\n") and '"completion_tokens":1' in b.text
        assert c.get("/health").json() == {"status": "ok"}
        assert c.get("/nope").status_code == 404


def test_batches_join_events_and_end_with_the_tail():
    from specscope.truth.firehose import FirehoseState

    st = FirehoseState(ResponsePlan(output_tokens=7, tokens_per_chunk=1), events_per_write=3)
    w = st.writes(7)
    ev = st.chunks(7)
    assert len(ev) == 7 and [len(x) for x in w[:2]] == [3 * len(ev[0])] * 2  # 7 events -> 3 + 3 + (1 + tail)
    assert len(w) == 3 and w[2] == ev[6] + st.tail(7)
    assert b"".join(w) == b"".join(ev) + st.tail(7)
    assert st.writes(0) == [st.tail(0)]  # no token events: the tail alone


@pytest.mark.parametrize("per_write", [1, 5])
def test_exact_tokens_whatever_the_batch(per_write):
    script = TruthScript(
        default=ResponsePlan(output_tokens=None, tokens_per_chunk=3),
        firehose=True,
        record=False,
        firehose_events_per_write=per_write,
    )
    reqs = [(f"p{i}", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 40}) for i in range(24)]
    with TruthServer(script) as ts:
        recs = run_sync(run_fixed_concurrency(ts.base_url, reqs, 8, ClientSettings()))
    assert [(r.status, r.output_tokens, r.content_chunks) for r in recs] == [("ok", 40, 14)] * 24  # 13 x 3 + 1

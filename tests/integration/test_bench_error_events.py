"""In-stream server errors through a real bench cell against the truth server: the request that met one failed, and
the cell's figures are the completed requests' alone.

Sources (the streams served are their bytes):

- vLLM: after an exception in the stream generator (an engine that died mid-generation), ``data: {"error": {"message",
  "type", "param", "code"}}`` then ``data: [DONE]``, with HTTP 200 already sent (vllm/entrypoints/openai/
  serving_chat.py, ``create_streaming_error_response``; the message below is vLLM's EngineDeadError text).
  vllm-project/vllm PR #57519 and sgl-project/sglang PR #38868: both benchmark clients counted such a request a
  success, its partial tokens in the output throughput and its short latency in the percentiles.
- llama.cpp's server before PR #16109 (b5630 in ggml-org/llama.cpp issue #14566): ``error: {"code", "message",
  "type"}`` (an SSE field of its own, which a WHATWG decoder ignores) then ``data: [DONE]``, HTTP 200; the message
  (here the context-size refusal) was lost and the stream looked empty.
- lemonade-sdk/lemonade issue #2826: a proxy in front of llama-server forwarded the backend's JSON error body into
  its 200 event stream with no SSE framing, then closed it (no ``[DONE]``): no event at all, the message lost.
"""

from __future__ import annotations

import json

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.stats.timeline import percentile
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.workload import chat_request, load_pack, schedule

pytestmark = pytest.mark.integration

NORMAL = ResponsePlan(output_tokens=12, ttft_ms=50, inter_chunk_ms=10, finish_reason="stop")
ENGINE_DEAD = "EngineCore encountered an issue. See stack trace (above) for the root cause."
VLLM_ERROR = {"error": {"message": ENGINE_DEAD, "type": "InternalServerError", "param": None, "code": 500}}
LLAMACPP_ERROR = {"code": 400, "message": "the request exceeds the available context size, try increasing it"}
# 4 tokens, then vLLM's error event and [DONE] (no finish, no usage)
VLLM_MID = ResponsePlan(
    output_tokens=4,
    ttft_ms=50,
    inter_chunk_ms=10,
    finish_reason=None,
    usage="absent",
    inject_events=[(4, f"data: {json.dumps(VLLM_ERROR)}\n\n")],
)
# no role chunk, no token: llama.cpp's error field, then [DONE]
LLAMACPP_FIRST = ResponsePlan(
    output_tokens=0,
    role_ms=None,
    finish_reason=None,
    usage="absent",
    inject_events=[(0, f"error: {json.dumps(LLAMACPP_ERROR)}\n\n")],
)

# lemonade #2826: the backend's error body, unframed, then a clean close
UNFRAMED = {
    "error": {
        "code": 400,
        "message": "request (6009 tokens) exceeds the available context size (4096 tokens), try increasing it",
        "type": "exceed_context_size_error",
    }
}
PROXY_UNFRAMED = ResponsePlan(
    output_tokens=0,
    role_ms=None,
    finish_reason=None,
    usage="absent",
    send_done=False,
    inject_events=[(0, json.dumps(UNFRAMED))],
)


def _first_prompt() -> str:
    """The last user message of the first request of the prose cell at concurrency 3 (repeat 0)."""
    (p, *_) = schedule(load_pack("prose", seed=0), 3, repeat=0, seed=0)
    return chat_request(p, model="m", max_tokens=12, temperature=0.0, server_kind="vllm")["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("plan", "reason"),
    [
        (VLLM_MID, f"server error: {ENGINE_DEAD}"),
        (LLAMACPP_FIRST, f"server error: {LLAMACPP_ERROR['message']}"),
        (PROXY_UNFRAMED, f"server error: {UNFRAMED['error']['message']}; no [DONE]"),
    ],
    ids=["vllm-error-after-4-tokens", "llamacpp-error-field-before-any-token", "unframed-json-error-body"],
)
def test_a_request_that_met_a_server_error_failed_and_is_out_of_the_figures(tmp_path, plan, reason):
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(3,), repeats=1, max_tokens=12)
    with TruthServer(TruthScript(default=NORMAL, by_prompt={_first_prompt(): plan})) as ts:
        run_dir = run_bench(opts, servers={"x": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
        streams = run.streams(CellKey("x", "prose", 3, 0))
    by_status = {s.status: s for s in streams}
    bad = by_status["failed"]
    ok = [s for s in streams if s.status == "ok"]
    assert (bad.reason, bad.output_tokens, bad.http_status) == (reason, None, 200)
    assert bad.content_chunks == plan.output_tokens  # what arrived is kept (4 chunks, or none)
    # before: "degraded" (vLLM: its 4 tokens in the cell's 28 and its 50 ms in the TTFT percentiles) or
    # "EMPTY_STREAM" (llama.cpp, the unframed body: the context-size message lost)
    assert (len(streams), len(ok), cell.streams_ok) == (3, 2, 2)
    # the failed request's own tokens stay unknown (no usage; stats/tokens.py): named when it received some
    unknown = ("TOKENS_UNKNOWN(1 streams with tokens, no usage)",) if plan.output_tokens else ()
    # (on a loaded 2-core machine the client's own self-check may add CLIENT_LIMITED: that flag is not under test)
    own = tuple(r for r in cell.reasons if not r.startswith("CLIENT_LIMITED"))
    assert own == (f"STREAM_DEGRADED(failed:{reason})", *unknown)
    assert (cell.status, cell.output_tokens, cell.token_source) == ("degraded", 24, "missing")
    assert cell.duration_s == (max(s.end_ns for s in ok) - min(s.send_ns for s in ok)) / 1e9
    assert cell.output_tok_s == 24 / cell.duration_s
    assert cell.ttft_p50_s == percentile([s.ttft_ns / 1e9 for s in ok], 50)  # type: ignore[operator]


def test_an_aborted_request_is_failed_and_its_time_out_of_the_figures(tmp_path):
    """vLLM's engine-initiated abort (vllm-project/vllm issue #57082; vllm/v1/request.py ``_FINISHED_REASON_MAP``):
    4 tokens, a finish chunk with ``finish_reason: "abort"``, the usage chunk (4 tokens) and ``[DONE]``, HTTP 200.
    Before: ``degraded`` (``short without stop``), its TTFT in the percentiles and its span in the duration."""
    aborted = ResponsePlan(output_tokens=4, ttft_ms=50, inter_chunk_ms=10, finish_reason="abort", hang_ms=300)
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(3,), repeats=1, max_tokens=12)
    seen = []
    with TruthServer(TruthScript(default=NORMAL, by_prompt={_first_prompt(): aborted})) as ts:
        run_dir = run_bench(opts, servers={"x": ts.base_url}, run_dir=tmp_path / "run", on_cell=seen.append)
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
        streams = run.streams(CellKey("x", "prose", 3, 0))
    bad = next(s for s in streams if s.status == "failed")
    ok = [s for s in streams if s.status == "ok"]
    assert (bad.reason, bad.finish_reason, bad.output_tokens, bad.content_chunks) == (
        "ABORTED(finish_reason abort)",
        "abort",
        4,
        4,
    )
    assert (len(ok), cell.streams_ok) == (2, 2)
    own = tuple(r for r in cell.reasons if not r.startswith("CLIENT_LIMITED"))
    assert own == ("STREAM_DEGRADED(failed:ABORTED(finish_reason abort))",)
    # the aborted stream hung 300 ms before its finish: its span is out of the duration, its TTFT out of the p50
    assert cell.duration_s == (max(s.end_ns for s in ok) - min(s.send_ns for s in ok)) / 1e9
    # the client's token total keeps the 4 the server generated for it (it matches the server's counter), but the
    # output rate is the answered requests' 24 tokens over their span (before: 28 over it, 17 % too high)
    assert (cell.output_tokens, cell.failed_output_tokens, cell.token_source) == (28, 4, "usage")
    assert cell.output_tok_s == 24 / cell.duration_s
    assert cell.ttft_p50_s == percentile([s.ttft_ns / 1e9 for s in ok], 50)  # type: ignore[operator]
    # the progress display's run total counts what the rates count (before: 28, the aborted stream's 4 included)
    assert [p.total_output_tokens for p in seen] == [24]

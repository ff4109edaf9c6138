"""A tool-call-only answer through a real bench cell against the truth server (``answer_field="tool_calls"``: every
answer token goes out as a fragment of one tool call, vLLM's ``DeltaToolCall`` shape, finish ``tool_calls``).

Source: can1357/oh-my-pi PR #12213 (51 % of agentic turns had no TTFT: their first output was a structured tool
call, not text) and vllm-project/vllm issue #27485 / PR #54708 (``vllm bench serve`` on tool-call streams). Server
side, TTFT is the first generated token of any channel; before, such a request was ``ok`` with no TTFT and no
TPOT, so the cell's percentiles silently held only the other requests.
"""

from __future__ import annotations

import pytest

from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

MS = 1_000_000
# 9 tokens in 3 chunks of 3: at 200, 250 and 300 ms after the request's arrival; the first one names the call
TOOL = ResponsePlan(
    output_tokens=9,
    tokens_per_chunk=3,
    ttft_ms=200,
    inter_chunk_ms=50,
    answer_field="tool_calls",
    finish_reason="tool_calls",
)


def test_a_tool_call_only_answer_is_timed_from_its_first_tool_call_delta(tmp_path):
    opts = BenchOptions(configs=("x",), workloads=("prose",), levels=(2,), repeats=1, max_tokens=12)
    with TruthServer(TruthScript(default=TOOL)) as ts:
        run_dir = run_bench(opts, servers={"x": ts.base_url}, run_dir=tmp_path / "run")
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
        streams = run.streams(CellKey("x", "prose", 2, 0))
    assert len(streams) == 2
    for s in streams:
        assert (s.status, s.finish_reason, s.output_tokens, s.token_source) == ("ok", "tool_calls", 9, "usage")
        assert (s.content_chunks, s.first_content_ns) == (0, None)  # no text: the first content stays absent
        # before: first_token_ns None, so TTFT and TPOT absent; the server sends the first tool-call delta 200 ms
        # after the request arrives (a floor: the client cannot see it earlier), the last one 100 ms later
        assert s.ttft_ns is not None and s.ttft_ns >= 200 * MS
        assert s.last_token_ns is not None and s.first_token_ns is not None and s.last_token_ns > s.first_token_ns
        assert s.tpot_ns == (s.last_token_ns - s.first_token_ns) / (9 - 1)
    assert (cell.output_tokens, cell.token_source, cell.streams_ok) == (18, "usage", 2)
    # ok; on a loaded 2-core machine the client's own self-check may add CLIENT_LIMITED (not under test here)
    assert cell.status == "ok" or all(r.startswith("CLIENT_LIMITED") for r in cell.reasons), cell.reasons
    assert cell.ttft_p50_s is not None and cell.ttft_p50_s >= 0.2
    assert cell.tpot_p50_s is not None

"""The truth server's vLLM per-request speculative fields are vLLM 0.32.0's exact shape and place: top-level
``metrics.speculative_decoding`` on the final usage chunk (``choices: []``), the keys of
``RequestSpecDecodeMetrics.to_dict`` (vllm/v1/metrics/stats.py:397-422), per-step arrays only at ``detailed``."""

from __future__ import annotations

import json

import httpx
import pytest

from hangguard import HANG_S
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

SUMMARY_KEYS = [
    "mean_acceptance_length",
    "draft_acceptance_rate",
    "acceptance_histogram",
    "num_spec_steps",
    "num_accepted_draft_tokens",
    "num_draft_tokens",
    "num_spec_tokens",
]


@pytest.fixture(scope="module")
def truth():
    with TruthServer() as ts:
        yield ts


def _events(base_url: str) -> list[dict]:
    body = {"model": "truth", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 12, "stream": True}
    body["stream_options"] = {"include_usage": True}
    r = httpx.post(f"{base_url}/v1/chat/completions", json=body, timeout=HANG_S)
    lines = [ln[len("data: ") :] for ln in r.text.splitlines() if ln.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(x) for x in lines[:-1]]


def test_summary_shape_rides_only_the_final_usage_chunk(truth):
    plan = ResponsePlan(
        output_tokens=12, tokens_per_chunk=4, drafts=4, draft_tokens=12, accepted_per_position=[3, 2, 1]
    )
    truth.set_script(TruthScript(default=plan.model_copy(update={"per_request_spec": "vllm"})))
    events = _events(truth.base_url)
    assert [e for e in events[:-1] if "metrics" in e] == []
    last = events[-1]
    assert last["choices"] == [] and last["usage"]["completion_tokens"] == 12
    spec = last["metrics"]["speculative_decoding"]
    assert list(last["metrics"]) == ["speculative_decoding"]
    assert list(spec) == SUMMARY_KEYS
    assert spec["acceptance_histogram"] == [1, 1, 1, 1]  # steps accepting exactly 0, 1, 2, 3 of 3 drafts
    assert (spec["num_spec_steps"], spec["num_accepted_draft_tokens"], spec["num_draft_tokens"]) == (4, 6, 12)
    assert spec["num_spec_tokens"] == 3
    assert spec["mean_acceptance_length"] == 1 + 6 / 4 and spec["draft_acceptance_rate"] == 0.5


def test_detailed_shape_adds_vllm_per_step_arrays(truth):
    plan = ResponsePlan(
        output_tokens=10,
        tokens_per_chunk=[4, 3, 2, 1],
        drafts=4,
        draft_tokens=12,
        accepted_per_position=[3, 2, 1],
        spec_steps_accepted=[3, 2, 1, 0],
    )
    truth.set_script(TruthScript(default=plan))
    spec = _events(truth.base_url)[-1]["metrics"]["speculative_decoding"]
    assert list(spec) == [*SUMMARY_KEYS, "per_step_accepted", "per_step_drafted"]
    assert spec["per_step_accepted"] == [3, 2, 1, 0] and spec["per_step_drafted"] == [3, 3, 3, 3]
    assert spec["acceptance_histogram"] == [1, 1, 1, 1] and spec["num_spec_steps"] == 4

"""The ground-truth server's ``/v1/completions`` and ``/v1/responses`` streams, byte for byte as planned, and its
refusal of the APIs a script leaves out (vLLM's status codes and JSON bodies)."""

from __future__ import annotations

import json

import httpx
import pytest

from hangguard import HANG_S
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.truth.dialects import NO_CHAT_TEMPLATE

PLAN = ResponsePlan(output_tokens=6, tokens_per_chunk=2, finish_reason="length", prompt_tokens=5)
MESSAGES = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def truth():
    with TruthServer(
        TruthScript(default=PLAN, by_prompt={"keyed": PLAN.model_copy(update={"output_tokens": 2})})
    ) as ts:
        yield ts


def _events(text: str) -> list[tuple[str | None, str]]:
    """``(event field or None, data)`` per SSE event of a body."""
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        out.append((fields.get("event"), fields["data"]))
    return out


def test_completions_stream(truth):
    body = {"model": "m", "prompt": "hello", "max_tokens": 6, "stream": True, "stream_options": {"include_usage": True}}
    r = httpx.post(f"{truth.base_url}/v1/completions", json=body, timeout=HANG_S)
    assert r.status_code == 200
    events = _events(r.text)
    assert events[-1] == (None, "[DONE]")
    chunks = [json.loads(d) for _, d in events[:-1]]
    assert {c["object"] for c in chunks} == {"text_completion"}
    assert [c["choices"] for c in chunks] == [  # no role chunk: text at once
        [{"index": 0, "text": " x x", "logprobs": None, "finish_reason": None}],
        [{"index": 0, "text": " x x", "logprobs": None, "finish_reason": None}],
        [{"index": 0, "text": " x x", "logprobs": None, "finish_reason": None}],
        [{"index": 0, "text": "", "logprobs": None, "finish_reason": "length"}],
        [],
    ]
    assert chunks[-1]["usage"] == {"prompt_tokens": 5, "total_tokens": 11, "completion_tokens": 6}


def test_responses_stream(truth):
    body = {"model": "m", "input": MESSAGES, "max_output_tokens": 6, "stream": True}
    r = httpx.post(f"{truth.base_url}/v1/responses", json=body, timeout=HANG_S)
    assert r.status_code == 200
    events = _events(r.text)
    kinds = [k for k, _ in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.incomplete",
    ]  # no [DONE]
    datas = [json.loads(d) for _, d in events]
    assert [d["type"] for d in datas] == kinds
    assert [d["delta"] for d in datas[4:7]] == [" x x"] * 3
    end = datas[-1]["response"]
    assert (end["status"], end["incomplete_details"]) == ("incomplete", {"reason": "max_output_tokens"})
    assert end["usage"] == {
        "input_tokens": 5,
        "output_tokens": 6,
        "total_tokens": 11,
        "output_tokens_details": {"reasoning_tokens": 0},
    }


def test_responses_stream_completed_and_keyed_on_its_input(truth):
    body = {"model": "m", "input": [{"role": "user", "content": "keyed"}], "stream": True}
    plan = {"finish_reason": "stop"}
    r = httpx.post(f"{truth.base_url}/v1/responses", json={**body, "specscope_truth": plan}, timeout=HANG_S)
    datas = [json.loads(d) for _, d in _events(r.text)]
    assert [d["delta"] for d in datas if d["type"] == "response.output_text.delta"] == [" x x"]  # the keyed plan
    assert datas[-1]["type"] == "response.completed" and datas[-1]["response"]["status"] == "completed"
    assert datas[-1]["response"]["usage"]["output_tokens"] == 2


@pytest.mark.parametrize(
    "status, body",
    [
        (404, {"detail": "Not Found"}),
        (400, {"error": {"message": NO_CHAT_TEMPLATE, "type": "BadRequestError", "param": None, "code": 400}}),
    ],
)
def test_apis_left_out_are_refused_like_vllm(status, body):
    with TruthServer(TruthScript(default=PLAN, apis=["/v1/completions"], refuse_status=status)) as ts:
        for path in ("/v1/chat/completions", "/v1/responses"):
            r = httpx.post(
                f"{ts.base_url}{path}", json={"model": "m", "messages": MESSAGES, "stream": True}, timeout=HANG_S
            )
            assert (r.status_code, r.json()) == (status, body)
        ok = httpx.post(
            f"{ts.base_url}/v1/completions", json={"model": "m", "prompt": "hi", "stream": True}, timeout=HANG_S
        )
        assert ok.status_code == 200 and ok.text.endswith("data: [DONE]\n\n")
        assert [s["path"] for s in ts.served()] == ["/v1/completions"]  # refusals are not served requests

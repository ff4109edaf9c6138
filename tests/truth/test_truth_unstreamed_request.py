"""``"stream": false`` to the truth server: one JSON ``chat.completion`` with the tokens the stream would carry
(every gate probe failed "response is not JSON" against ``truth-server --script '{"serve_models": true}'``)."""

from __future__ import annotations

import json

import httpx

from hangguard import HANG_S
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript


def _streamed_text(text: str) -> str:
    out = []
    for line in text.splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                out.append(choice.get("delta", {}).get("content") or "")
    return "".join(out)


def test_stream_false_is_one_json_chat_completion():
    script = TruthScript(default=ResponsePlan(output_tokens=5, tokens_per_chunk=2), serve_models=True)
    req = {"model": "m", "messages": [{"role": "user", "content": "x"}], "max_tokens": 64}
    with TruthServer(script) as ts:
        url = ts.base_url + "/v1/chat/completions"
        streamed = httpx.post(url, json={**req, "stream": True}, timeout=HANG_S)
        plain = httpx.post(url, json={**req, "stream": False}, timeout=HANG_S)
    assert plain.status_code == 200
    assert plain.headers["Content-Type"].startswith("application/json")
    body = plain.json()
    assert body["object"] == "chat.completion" and body["id"] and body["model"] == "m"
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": " x x x x x"}
    assert choice["message"]["content"] == _streamed_text(streamed.text)
    assert choice["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 8, "completion_tokens": 5, "total_tokens": 13}


def test_a_request_without_stream_gets_one_json_body_as_a_real_server_answers():
    # 2026-12-06: a request with no "stream" key got an SSE stream; an OpenAI-compatible server streams only on
    # "stream": true (vLLM's ChatCompletionRequest: stream defaults to False) and answers one JSON body otherwise
    script = TruthScript(default=ResponsePlan(output_tokens=3))
    req = {"model": "m", "messages": [{"role": "user", "content": "x"}], "max_tokens": 64}
    with TruthServer(script) as ts:
        for path in ("/v1/chat/completions", "/v1/completions", "/v1/responses"):
            body = {**req, "prompt": "x", "input": "x"} if path != "/v1/chat/completions" else req
            r = httpx.post(ts.base_url + path, json=body, timeout=HANG_S)
            assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json"), path
            assert r.json()["usage"].get("completion_tokens", r.json()["usage"].get("output_tokens")) == 3, path

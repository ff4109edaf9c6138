"""AIPerf rows whose request is sent as recorded (issue 36, census rows ``aiperf.mooncake_trace``,
``aiperf.inputs_json``, ``aiperf.sagemaker_data_capture``), read from ai-dynamo/aiperf:

* ``src/aiperf/dataset/loader/models.py`` @0109a64e ``MooncakeTrace``: ``tools`` (OpenAI tool definitions, allowed
  with ``messages`` only, a non-empty list) beside ``messages``;
* ``src/aiperf/dataset/loader/inputs_json.py`` @0e136169 ``InputsJsonPayloadLoader``: each payload a
  ``Turn(raw_payload=p)``, sent "directly to the transport with zero endpoint formatting": its messages as recorded
  (content parts, tool turns, tool calls) and its ``tools``;
* ``src/aiperf/dataset/loader/sagemaker_data_capture.py`` @1acb3691 ``SageMakerDataCaptureLoader._build_turn``:
  ``Turn(raw_messages=trace.messages, raw_tools=trace.tools, max_tokens=...)``.

specscope refused every row with ``tools`` ("remove `tools`: specscope sends text chat only"), except an inputs.json
payload's, whose ``tools`` it dropped without a word (the warning named only ``extra``); it joined an inputs.json or
SageMaker message's content parts into one string and refused a ``tool`` turn, where AIPerf sends them as recorded.
Now such rows' messages go as recorded and their ``tools`` go in the request body; a ``tools`` that is not a
non-empty list of objects is refused by line.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload import chat_request
from specscope.workload.userfile import load_prompt_file

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]  # fmt: skip
TOOL_CHAT = [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "Sunny, 21 C"},
]  # fmt: skip


def _body(prompt: object) -> dict[str, object]:
    return chat_request(prompt, model="m", max_tokens=8, temperature=0.0)  # type: ignore[arg-type]


def test_mooncake_row_tools_go_in_the_request(tmp_path: Path) -> None:
    path = tmp_path / "mc.jsonl"
    row = {"session_id": "s1", "messages": [{"role": "user", "content": "Weather?"}], "tools": TOOLS,
           "output_length": 20}  # fmt: skip
    path.write_text(json.dumps(row) + "\n", "utf-8")
    (p,) = load_prompt_file("t", path)
    body = _body(p)
    assert body["tools"] == TOOLS
    assert body["messages"] == [{"role": "user", "content": "Weather?"}]
    assert p.meta["max_tokens"] == 20


def test_inputs_json_payload_sent_as_recorded_with_its_tools(tmp_path: Path) -> None:
    payload = {"model": "x", "messages": TOOL_CHAT, "tools": TOOLS, "max_completion_tokens": 12, "stream": True,
               "temperature": 0.5}  # fmt: skip
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps({"data": [{"session_id": "abc", "payloads": [payload]}]}), "utf-8")
    (p,) = load_prompt_file("t", path)
    body = _body(p)
    assert body["messages"] == TOOL_CHAT
    assert body["tools"] == TOOLS
    assert (p.meta["row_id"], p.meta["max_tokens"]) == ("abc turn 1", 12)
    assert p.meta["unsent_fields"] == ("temperature",)


def test_sagemaker_capture_sent_as_recorded_with_its_tools(tmp_path: Path) -> None:
    captured = {"messages": TOOL_CHAT, "tools": TOOLS, "max_tokens": 9}
    record = {
        "captureData": {"endpointInput": {"data": base64.b64encode(json.dumps(captured).encode()).decode(),
                                          "encoding": "BASE64"}},
        "eventMetadata": {"eventId": "ev-1", "inferenceTime": "2024-01-01T00:00:00Z"},
    }  # fmt: skip
    path = tmp_path / "capture.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    (p,) = load_prompt_file("t", path)
    body = _body(p)
    assert (body["messages"], body["tools"], p.meta["row_id"], p.meta["max_tokens"]) == (TOOL_CHAT, TOOLS, "ev-1", 9)


@pytest.mark.parametrize("tools", ["get_weather", [], ["get_weather"]])
def test_malformed_tools_refused_by_line(tmp_path: Path, tools: object) -> None:
    path = tmp_path / "mc.jsonl"
    rows = [{"messages": [{"role": "user", "content": "ok"}], "output_length": 3},
            {"messages": [{"role": "user", "content": "Weather?"}], "tools": tools, "output_length": 3}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("t", path)
    assert err.value.message.startswith(f"{path}:2: tools "), err.value.message


def test_a_row_without_tools_sends_none(tmp_path: Path) -> None:
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n", "utf-8")
    (p,) = load_prompt_file("t", path)
    assert "tools" not in _body(p)

"""Issue 36: AIPerf rows that carry ``tools`` (MooncakeTrace ``messages`` + ``tools``; an ``inputs.json`` payload;
a SageMaker capture) are sent as AIPerf sends them: the recorded messages verbatim and the tool definitions in the
request body. They were refused ("remove `tools`"), or (inputs.json) sent without their tools and with their content
parts joined into one string. The truth server's log of each request body is the check."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hangguard import HANG_S
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

TOOLS = [{"type": "function", "function": {"name": "get_weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]  # fmt: skip
CHAT = [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "Sunny, 21 C"},
]  # fmt: skip


def _files() -> dict[str, str]:
    mooncake = {"session_id": "s1", "messages": CHAT, "tools": TOOLS, "output_length": 5}
    inputs = {"data": [{"session_id": "abc", "payloads": [{"model": "x", "messages": CHAT, "tools": TOOLS,
                                                           "max_tokens": 6, "stream": True}]}]}  # fmt: skip
    body = base64.b64encode(json.dumps({"messages": CHAT, "tools": TOOLS, "max_tokens": 7}).encode()).decode()
    capture = {"captureData": {"endpointInput": {"data": body, "encoding": "BASE64"}},
               "eventMetadata": {"eventId": "ev-1", "inferenceTime": "2024-01-01T00:00:00Z"}}  # fmt: skip
    return {"mc.jsonl": json.dumps(mooncake) + "\n", "inputs.json": json.dumps(inputs),
            "capture.jsonl": json.dumps(capture) + "\n"}  # fmt: skip


@pytest.mark.parametrize(("name", "max_tokens"), [("mc.jsonl", 5), ("inputs.json", 6), ("capture.jsonl", 7)])
def test_recorded_chat_and_tools_reach_the_server(tmp_path: Path, name: str, max_tokens: int) -> None:
    path = tmp_path / name
    path.write_text(_files()[name], "utf-8")
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=2), serve_tokenizer=True)) as truth:
        cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"mtp={truth.base_url}", "--out",
               str(tmp_path / "runs"), "--workload", f"mine={path}", "--max-concurrency", "1", "--repeats", "1",
               "--max-tokens", "16", "--seed", "0"]  # fmt: skip
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S)
        assert res.returncode == 0, res.stderr[-2000:]
        measured: list[dict[str, Any]] = [r["body"] for r in truth.served() if r["body"].get("messages") == CHAT]
    assert [(b["tools"], b["max_tokens"]) for b in measured] == [(TOOLS, max_tokens)]

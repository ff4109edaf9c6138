"""Every record layout docs/workloads.md's "User prompt files" table says is read, reached through the command a
user runs: ``specscope bench --workload NAME=FILE --dry-run`` prints what each row sends, and it is the row's text
(tests/workload/test_userfile_layouts.py checks the reader itself). Records are written with the field names of the
sources the table names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli


def _sagemaker(body: dict) -> dict:
    """An Amazon SageMaker data-capture record (AIPerf ``SageMakerDataCaptureLoader``) of the request ``body``."""
    data = {"observedContentType": "application/json", "mode": "INPUT", "data": json.dumps(body), "encoding": "JSON"}
    return {"captureData": {"endpointInput": data}, "eventMetadata": {"eventId": "e1", "inferenceTime": "t"}}


#: table row -> (file name, file text, text the dry run must print, text it must not)
LAYOUTS: dict[str, tuple[str, str, list[str], list[str]]] = {
    "messages": (
        "m.jsonl",
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "MK-A"}, {"type": "text", "text": "MK-B"}]}
                ]
            }
        ),
        ["user: MK-A", "MK-B"],
        [],
    ),
    "conversations": (
        "s.json",
        json.dumps([{"conversations": [{"from": "human", "value": "MK-S1"}, {"from": "gpt", "value": "MK-ANSWER"}]}]),
        ["user: MK-S1"],
        [],
    ),
    "conversation_a": (
        "a.jsonl",
        json.dumps(
            {
                "conversation_a": [{"role": "user", "content": "MK-LA"}, {"role": "assistant", "content": "x"}],
                "conversation_b": [{"role": "user", "content": "MK-LA"}, {"role": "assistant", "content": "y"}],
                "model_a": "a",
                "model_b": "b",
                "winner": "model_a",
                "turn": 1,
            }
        ),
        ["user: MK-LA"],
        [],
    ),
    "history": (
        "h.jsonl",
        json.dumps({"history": [{"user": "MK-H1", "bot": "ok"}, {"user": "MK-H2", "bot": "ok"}], "task": "t", "id": 1}),
        ["user: MK-H1", "assistant: ok", "user: MK-H2"],
        [],
    ),
    "turns": ("t.jsonl", json.dumps({"turns": ["MK-T1", "MK-T2"]}), ["MK-T1", "MK-T2"], []),
    "prompt": ("p.jsonl", json.dumps({"prompt": "MK-P"}), ["user: MK-P"], []),
    "text": ("x.jsonl", json.dumps({"text": "MK-TX"}), ["user: MK-TX"], []),
    "text_input": ("i.jsonl", json.dumps({"text_input": "MK-TI"}), ["user: MK-TI"], []),
    "data payloads": (
        "inputs.json",
        json.dumps(
            {
                "data": [
                    {
                        "session_id": "s",
                        "payloads": [{"messages": [{"role": "user", "content": "MK-D"}], "max_tokens": 7}],
                    }
                ]
            }
        ),
        ["user: MK-D", "max_tokens 7"],
        [],
    ),
    "captureData": (
        "c.jsonl",
        json.dumps(_sagemaker({"messages": [{"role": "user", "content": "MK-SM"}], "max_tokens": 9})),
        ["user: MK-SM", "max_tokens 9"],
        [],
    ),
    "instruction": (
        "alpaca.json",
        json.dumps([{"instruction": "MK-I", "input": "MK-IN", "output": "MK-NEVER"}]),
        ["user: MK-I", "MK-IN"],
        ["MK-NEVER"],
    ),
    "text lines": ("p.txt", "MK-L1\nMK-L2\n", ["user: MK-L1", "user: MK-L2"], []),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_dry_run_sends_each_user_file_layout(tmp_path: Path, capsys, monkeypatch, layout: str) -> None:
    name, text, shown, hidden = LAYOUTS[layout]
    path = tmp_path / name
    path.write_text(text + ("\n" if not text.endswith("\n") else ""))
    code, out, err = cli(["bench", "--workload", f"mine={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    for piece in shown:
        assert piece in out, (layout, piece, out)
    for piece in hidden:
        assert piece not in out, (layout, piece)

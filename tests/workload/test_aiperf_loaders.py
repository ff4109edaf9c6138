"""AIPerf's trace and agentic loaders (``src/aiperf/dataset/loader/``) that had no census row: each is read with its
fields or refused by name with its source and the fix; none is read as another layout (a Baseten row was read as a
``prompt`` row, its arrival times and sessions dropped; the others were refused with a generic "no prompt field")."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

DAG = {"session_id": "d1", "turns": [{"messages": [{"role": "user", "content": "Dag one"}], "max_tokens": 5,
                                      "spawns": ["d2"]}]}  # fmt: skip
BASETEN = {"timestamp_start_unix_ms": 1700000000000, "prompt": "Baseten prompt", "input_tokens": 3,
           "output_tokens": 9, "total_hashes": [1, 2], "provided_session_id": "s1"}  # fmt: skip
WEKA = {"id": "w1", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
        "requests": [{"t": 0.0, "type": "n", "model": "m", "in": 100, "out": 10, "hash_ids": [1, 2]}]}  # fmt: skip
TRACELAB = {"session_id": "s1", "round_index": 0, "input_tokens_total": 100, "prefix_tokens": 0,
            "newly_append_tokens": 100, "timing_events": []}  # fmt: skip


def _refused(tmp_path: Path, name: str, text: str) -> ConfigError:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    return err.value


@pytest.mark.parametrize(
    ("name", "text", "named", "fix"),
    [
        ("dag.jsonl", json.dumps(DAG) + "\n", "an AIPerf dag_jsonl session", "AIPerf multi_turn row"),
        ("baseten.jsonl", json.dumps(BASETEN) + "\n", "a Baseten trace row", "--trace FILE"),
        ("weka.json", json.dumps(WEKA) + "\n", "an AIPerf Weka trace", "--trace FILE"),
        ("weka_pretty.json", json.dumps(WEKA, indent=2), "an AIPerf Weka trace", "--trace FILE"),
        ("tracelab.jsonl", json.dumps(TRACELAB) + "\n", "a TraceLab trace row", "--trace FILE"),
    ],
)
def test_aiperf_trace_and_agentic_layouts_refused_by_name(
    tmp_path: Path, name: str, text: str, named: str, fix: str
) -> None:
    err = _refused(tmp_path, name, text)
    assert err.message.startswith(f"{tmp_path / name}:1: {named}"), err.message
    assert fix in (err.fix or ""), err.fix


def _capture(body: dict[str, object], *, encoding: str = "JSON", event: str = "e1") -> dict[str, object]:
    data = json.dumps(body)
    if encoding == "BASE64":
        data = base64.b64encode(data.encode()).decode()
    return {
        "captureData": {
            "endpointInput": {"observedContentType": "application/json", "mode": "INPUT", "data": data,
                              "encoding": encoding},
            "endpointOutput": {"data": json.dumps({"usage": {"prompt_tokens": 3}}), "encoding": "JSON"},
        },
        "eventMetadata": {"eventId": event, "inferenceTime": "2024-01-01T00:00:00Z"},
        "eventVersion": "0",
    }  # fmt: skip


def test_sagemaker_data_capture_read_as_aiperf_reads_it(tmp_path: Path) -> None:
    """AIPerf's SageMakerDataCaptureLoader: each record a request of the captured body's ``messages`` and its
    ``max_tokens`` (else ``max_completion_tokens``); JSON or BASE64 payloads; the event id names the row."""
    chat = [{"role": "system", "content": "Short."}, {"role": "user", "content": "Sage one"}]
    rows = [
        _capture({"messages": chat, "max_tokens": 6, "temperature": 0.1}),
        _capture({"messages": [{"role": "user", "content": "Sage two"}], "max_completion_tokens": 4},
                 encoding="BASE64", event="e2"),
        _capture({"messages": [{"role": "user", "content": "Sage three"}]}, event="e3"),
    ]  # fmt: skip
    path = tmp_path / "capture.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    one, two, three = load_prompt_file("mine", path)
    assert one.messages == chat and one.meta["max_tokens"] == 6 and one.meta["row_id"] == "e1"
    assert one.meta["unsent_fields"] == ("temperature",)
    assert one.meta["timing_fields"] == ("inferenceTime",)
    assert two.messages == [{"role": "user", "content": "Sage two"}] and two.meta["max_tokens"] == 4
    assert two.meta["row_id"] == "e2"
    assert "max_tokens" not in three.meta


def test_sagemaker_capture_without_messages_refused_by_line(tmp_path: Path) -> None:
    text = json.dumps(_capture({"messages": [{"role": "user", "content": "ok"}]})) + "\n"
    text += json.dumps(_capture({"inputs": "a completion prompt"})) + "\n"
    err = _refused(tmp_path, "capture.jsonl", text)
    assert err.message.startswith(f"{tmp_path / 'capture.jsonl'}:2: a SageMaker data capture without `messages`")


def test_dynamo_request_trace_refused_by_name(tmp_path: Path) -> None:
    """AIPerf's DynamoTraceNativeLoader (recorded_graph.py): Dynamo request-trace events, a graph for aiperf-runner."""
    rows = [{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "agent_context": {}},
            {"event": {"schema": "dynamo.request.trace.v1", "event_type": "tool_start"}}]  # fmt: skip
    for row in rows:
        err = _refused(tmp_path, "dynamo.jsonl", json.dumps(row) + "\n")
        assert err.message.startswith(f"{tmp_path / 'dynamo.jsonl'}:1: a Dynamo request trace event"), err.message


def test_zstd_compressed_file_refused_by_name(tmp_path: Path) -> None:
    """AIPerf's h_cua_perf builds are Mooncake rows in ``.jsonl.zst``: refused naming zstd, not as unreadable text."""
    path = tmp_path / "build.jsonl.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(range(40)))
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert "zstd-compressed" in err.value.message and "zstd -d" in (err.value.fix or "")


@pytest.mark.parametrize(
    ("row", "where", "named"),
    [
        ({"text": "Both", "texts": ["x"]}, "mine.jsonl:1:", "both `text` and `texts`"),
        ({"session_id": "s", "turns": [{"text": "T", "texts": ["x"]}]}, "mine.jsonl:1 turn 1:", "both `text` and"),
        ({"text_input": "Hashy", "hash_ids": [1, 2], "output_length": 3}, "mine.jsonl:1:", "`text_input` with `hash"),
        ({"text_input": "Long", "input_length": 9}, "mine.jsonl:1:", "`text_input` with `input_length`"),
    ],
)
def test_two_inputs_aiperf_refuses_together_are_refused_by_line(tmp_path: Path, row, where, named) -> None:
    """AIPerf's line models take one input per row (models.py @0109a64e: SingleTurn refuses `text` with `texts`,
    MooncakeTrace `text_input` with `input_length` or `hash_ids`). Such a row was sent with one of them dropped
    without a word (the truth server logged "x" for `{"text": "Both", "texts": ["x"]}`, and "T" for the same turn)."""
    err = _refused(tmp_path, "mine.jsonl", json.dumps(row) + "\n")
    assert err.one_line().startswith(f"{tmp_path}/{where} {named}"), err.one_line()
    assert "AIPerf" in err.one_line() and "models.py @0109a64e" in err.one_line()


def test_an_empty_text_beside_texts_is_read_as_aiperf_reads_it(tmp_path: Path) -> None:
    """AIPerf's rule tests truthiness (an empty `text` and `texts` pass): such a row stays its `texts`."""
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"text": "", "texts": ["Only", "this"]}) + "\n", "utf-8")
    assert [p.messages for p in load_prompt_file("mine", path)] == [[{"role": "user", "content": "Only\nthis"}]]

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
    # openai/evals docs/build-eval.md: `input` in chat format, `ideal` the reference answer
    "openai evals input": (
        "e.jsonl",
        json.dumps(
            {
                "input": [{"role": "system", "content": "MK-ES"}, {"role": "user", "content": "MK-EU"}],
                "ideal": "MK-NEVER",
            }
        ),
        ["system: MK-ES", "user: MK-EU"],
        ["MK-NEVER", "fields that specscope does not read"],
    ),
    # an openai/evals sample whose `input` is a string (openai/evals evals/prompt/base.py @16257999)
    "openai evals text input": (
        "et.jsonl",
        json.dumps({"input": "MK-ET", "ideal": "MK-NEVER"}),
        ["user: MK-ET", "(OpenAI chat messages, Alpaca, text)"],
        ["MK-NEVER", "fields that specscope does not read", "guidellm.jsonl"],
    ),
    # cognitivecomputations/dolphin: Alpaca's field names, `instruction` a system prompt shared by many rows
    "dolphin": (
        "dolphin.jsonl",
        "\n".join(json.dumps({"instruction": "MK-SYS", "input": f"MK-Q{i}", "output": "MK-NEVER"}) for i in (1, 2)),
        ["system: MK-SYS", "user: MK-Q1", "user: MK-Q2", "read as a system prompt (Dolphin"],
        ["MK-NEVER", "MK-SYS\\n\\nMK-Q1"],
    ),
    # TIGER-Lab/MMLU-Pro: `question` and its `options`
    "mmlu-pro options": (
        "mmlu_pro.jsonl",
        json.dumps({"question_id": 1, "question": "MK-Q", "options": ["MK-O1", "MK-O2"], "answer": "A"}),
        [
            "user: MK-Q",
            "multiple-choice options (options) that are not sent",
            'jq -c \'(if type == "array" then .[] else . end) | .question +=',
        ],
        ["MK-O1"],
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


#: refused table row -> (file name, file text, what the one-line refusal must name)
REFUSED: dict[str, tuple[str, str, str]] = {
    # AIPerf BasetenTraceDatasetLoader's columns (census row aiperf.baseten_trace)
    "baseten": ("b.jsonl", '{"timestamp_start_unix_ms": 1700000000000, "input_tokens": 10, "output_tokens": 4}',
                ":1: a Baseten trace row"),
    # LDJnr/Capybara's columns (tests/data/workload_public/capybara.jsonl, SOURCES.md)
    "capybara": ("cap.jsonl", '{"source": "x", "conversation": [{"input": "MK-I", "output": "MK-O"}]}',
                 ":1: a `conversation` of {input, output} pairs (Capybara"),
    # abisee/cnn_dailymail's columns (tests/data/workload_public, SOURCES.md)
    "cnn_dailymail": ("c.jsonl", '{"id": "x", "article": "MK-ART", "highlights": "MK-SUM"}',
                      ":1: a CNN/DailyMail row (`article`, `highlights`"),
    # Vertex AI "Batch prediction for Cloud Storage": each line a Gemini request under `request`
    "vertex_batch": ("v.jsonl", '{"request": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}}',
                     ":1: a Vertex AI batch prediction request line"),
    # timdettmers/openassistant-guanaco's `text` (tests/data/workload_public/guanaco.jsonl, SOURCES.md): was sent whole
    "guanaco": ("g.jsonl", '{"text": "### Human: MK-Q### Assistant: MK-A"}', ":1: a Guanaco transcript"),
    # LLaMA-Factory's sharegpt tool tags (tests/data/workload_public/llamafactory_glaive_toolcall.json, SOURCES.md)
    "sharegpt_tool": ("t.jsonl", '{"conversations": [{"from": "human", "value": "MK-Q"}, {"from": "function_call", '
                      '"value": "{}"}]}', ":1: a ShareGPT turn of a tool call or tool result (`from` 'function_call'"),
    # EdinburghNLP/xsum's columns (tests/data/workload_public/xsum.jsonl, SOURCES.md): was "no messages/... field"
    "xsum": ("x.jsonl", '{"document": "MK-DOC", "summary": "MK-SUM", "id": "1"}', ":1: an XSum row (EdinburghNLP/xsum"),
    # json.dump(Dataset.to_dict()), pretty-printed
    "columns": ("cols.json", '{"prompt": ["a", "b"],\n "output_tokens_count": [3, 4]}',
                ":1: one JSON object of columns (2 values each: output_tokens_count, prompt)"),
}  # fmt: skip


@pytest.mark.parametrize("layout", list(REFUSED))
def test_dry_run_refuses_each_foreign_layout_by_name(tmp_path: Path, capsys, monkeypatch, layout: str) -> None:
    """The refused rows of the table, through the same command: exit 2, one line naming what the file is."""
    name, text, named = REFUSED[layout]
    path = tmp_path / name
    path.write_text(text + "\n")
    code, out, err = cli(["bench", "--workload", f"mine={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and not out, (out, err)
    assert f"{path}{named}" in err and "Traceback" not in err, err

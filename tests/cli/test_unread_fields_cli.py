"""A field not understood is a named warning, for every layout (issue 36): a ``--workload`` row's fields that its
layout does not read (census ``FIELD_USE``) are named once per file by ``bench --dry-run``, with the row count and the
layout; fields a layout knowingly ignores (its reference answer, the Arena vote, a recorded request's model) are not.
Before, only GuideLLM and AIPerf text rows were checked: a chat row's ``chosen`` was dropped with no word."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from clirun import cli
from specscope.workload.census import CENSUS, FIELD_USE
from specscope.workload.census_hub import HUB_DATASETS
from specscope.workload.layout_of import fields_layouts, layout_keys

_TAIL = "ignored, never sent; check their names against docs/workloads.md 'Fields read per layout'"


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _dry_run(tmp_path: Path, capsys, monkeypatch, rows: list[object], name: str = "f.jsonl") -> str:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(rows), "utf-8")
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return out + err


def test_a_chat_rows_unread_fields_are_named_once_per_file(tmp_path, capsys, monkeypatch):
    """The issue's reproduction: `foo` and `chosen` beside `messages` were dropped with no word; they are named in
    one line for the file, with the count of rows that carry them and the layout."""
    rows = [
        {"messages": [{"role": "user", "content": "hi"}], "foo": 1, "chosen": "x"},
        {"messages": [{"role": "user", "content": "yo"}], "foo": 2},
    ]
    text = _dry_run(tmp_path, capsys, monkeypatch, rows)
    assert text.count("fields that specscope does not read") == 1
    assert (
        "warning: rows: mine: 2 rows carry fields that specscope does not read as sglang.openai / aiperf.raw_payload "
        f"(foo, chosen): {_TAIL}"
    ) in text


@pytest.mark.parametrize(
    ("rows", "name", "read_as", "names"),
    [
        pytest.param(
            [{"id": "a", "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Yo"}],
              "lang": "en"}],
            "f.json", "vllm.sharegpt / sglang.sharegpt / aiperf.sharegpt", "lang", id="sharegpt",
        ),
        pytest.param(
            [{"instruction": "Add.", "input": "2+2", "output": "4", "source": "x"}],
            "f.jsonl", "specscope.alpaca", "source", id="alpaca",
        ),
        pytest.param(
            [{"messages": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A"}],
              "weight_note": 1}],
            "f.jsonl", "specscope.messages", "weight_note", id="openai_fine_tuning",
        ),
        pytest.param(
            [{"question_id": 81, "category": "writing", "turns": ["One.", "Two."], "difficulty": 3}],
            "f.jsonl", "vllm.spec_bench", "difficulty", id="spec_bench",
        ),
        pytest.param(
            [{"prompt": "Hi", "prompt_id": "p", "category": "x", "tags": 1}],
            "f.jsonl", "guidellm.jsonl", "tags", id="prompt",
        ),
    ],
)  # fmt: skip
def test_each_layouts_unread_fields_are_named(tmp_path, capsys, monkeypatch, rows, name, read_as, names):
    """ShareGPT, Alpaca, an OpenAI fine-tuning chat, Spec-Bench / MT-Bench questions: a field none of them reads was
    dropped with no word; it is named with the layout. Their ignored fields (Alpaca's `output`, FastChat's
    `category`) are not."""
    text = _dry_run(tmp_path, capsys, monkeypatch, rows, name)
    assert f"warning: rows: mine: 1 row carries fields that specscope does not read as {read_as} ({names}): " in text


@pytest.mark.parametrize(
    "row",
    [
        pytest.param({"prompt": "Hi", "prompt_id": "p", "messages": [{"role": "user", "content": "Hi"}],
                      "model": "m", "stream": True}, id="ultrachat_and_request_body"),
        pytest.param({"question_id": 81, "category": "math", "turns": ["One."], "reference": ["4"]},
                     id="mt_bench_reference"),
        pytest.param({"instruction": "Add.", "input": "2+2", "output": "4", "text": "### Instruction: Add. 4"},
                     id="alpaca_output_and_text"),
        pytest.param({"question_id": 1, "model_a": "a", "model_b": "b", "winner": "model_a", "judge": "j",
                      "conversation_a": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "A"}],
                      "conversation_b": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "B"}],
                      "turn": 1, "anony": True, "language": "English", "tstamp": 1.5}, id="arena"),
    ],
)  # fmt: skip
def test_knowingly_ignored_fields_are_not_named(tmp_path, capsys, monkeypatch, row):
    """Fields a layout's census declaration ignores with a reason (a recorded request's `model`, ultrachat's
    duplicate `prompt`, FastChat's `reference`, Alpaca's `output` and `text`, the Arena vote) give no warning."""
    text = _dry_run(tmp_path, capsys, monkeypatch, [row])
    assert "fields that specscope does not read" not in text


def test_every_read_layout_declares_its_fields():
    """Each census layout specscope reads from a file of records is declared in FIELD_USE (its unread fields are
    named), and FIELD_USE names no layout that is not a census (or hub) key or one of specscope's own
    (``specscope.*``)."""
    keys = {lay.key for lay in CENSUS} | {h.key for h in HUB_DATASETS}
    assert all(k in keys or k.startswith("specscope.") for k in FIELD_USE)
    built = {"aiperf.inputs_json", "sglang.agentic_trace"}  # records built by specscope from one JSON object
    text = {"vllm.sonnet", "guidellm.txt"}  # lines: no fields
    missing = [lay.key for lay in CENSUS if not lay.refused and lay.key not in {*FIELD_USE, *built, *text}]
    assert missing == []
    assert fields_layouts(
        "jsonl", layout_keys("jsonl", {"history": [{"user": "q"}]}), {"history": [{"user": "q"}]}
    ) == ("specscope.mt_bench_101",)


def test_records_specscope_builds_are_not_checked(tmp_path, capsys, monkeypatch):
    """An AIPerf inputs.json payload is specscope's own build of the record (its unsent keys named as `extra`): its
    `messages` and the mark specscope puts on it were named as unread."""
    data = {"data": [{"session_id": "s", "payloads": [{"messages": [{"role": "user", "content": "Hi"}]}]}]}
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps(data), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "does not read as" not in out + err


def test_a_vertex_batch_line_is_refused_by_name_with_the_conversion(tmp_path, capsys, monkeypatch):
    """A Vertex AI batch prediction line (each line a Gemini request under `request`, as Vertex AI's batch prediction
    from Cloud Storage page shows it) got the generic "no messages/conversations/... field" refusal; it is named, with
    the jq conversion to `messages` rows."""
    path = tmp_path / "v.jsonl"
    path.write_text('{"request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}}\n', "utf-8")
    code, out, err = cli(["bench", "--workload", f"mine={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and not out and "Traceback" not in err
    assert (
        f"{path}:1: a Vertex AI batch prediction request line (`request`: a Gemini GenerateContentRequest, `contents` "
        "of {role, parts}; no benchmark client's file reader takes it)"
    ) in err
    assert (
        "fix: write each line's request.contents as `messages` (role model -> assistant, the text parts joined) and "
        "request.generationConfig.maxOutputTokens as max_tokens, e.g. "
        'jq -c \'(if type == "array" then .[] else . end) | '
        "{messages: [.request.contents[] | {role: "
        '(if .role == "model" then "assistant" else .role end), content: ([.parts[].text // empty] | join("\\n"))}], '
        "max_tokens: .request.generationConfig.maxOutputTokens}' FILE > OUT.jsonl"
    ) in err


def test_an_openai_evals_input_message_list_is_read(tmp_path, capsys, monkeypatch):
    """An OpenAI evals sample whose `input` is in chat format (openai/evals docs/build-eval.md) was refused as "input
    [...] is not a non-empty string"; its messages are sent and `ideal` (the reference answer) is not."""
    row = {"input": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "2+2?"}], "ideal": "4",
           "note": 1}  # fmt: skip
    text = _dry_run(tmp_path, capsys, monkeypatch, [row])
    assert "    system: Be terse.\n    user: 2+2?\n" in text
    assert (
        "warning: rows: mine: 1 row carries fields that specscope does not read as specscope.openai_evals (note): "
        in (text)
    )


def test_a_tsv_file_is_labelled_truthfully(tmp_path, capsys, monkeypatch):
    """A `.tsv` file's rows were labelled guidellm.csv, though GuideLLM's CSV reader takes `.csv` only (file.py
    @03820eba); the dry run names what it is, and its unread columns are named under specscope.tsv."""
    path = tmp_path / "p.tsv"
    path.write_text("prompt\toutput_tokens_count\tlabel\nSay hi\t5\tx\n", "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "guidellm.csv (GuideLLM" not in out
    assert (
        "layout (1 row): a .tsv table read by its header, each row by GuideLLM's column names as a guidellm.csv row "
        "(no peer tool reads a .tsv file: GuideLLM's CSV reader takes .csv only)\n"
    ) in out
    assert "warning: rows: mine: 1 row carries fields that specscope does not read as specscope.tsv (label): " in (
        out + err
    )

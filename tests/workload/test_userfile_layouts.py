"""User prompt files (``--workload NAME=FILE``) in the layouts public datasets and tools publish them, written here
in each source's own field names (sources: tests/data/SOURCES.md, "User prompt file layouts"):

* ShareGPT (``anon8231489123/ShareGPT_Vicuna_unfiltered`` ``ShareGPT_V3_unfiltered_cleaned_split.json``): ONE JSON
  array of ``{"id", "conversations": [{"from", "value"}]}``, pretty-printed; roles ``human``/``gpt``/``system``
  and the other assistants ``bing``/``chatgpt``/``bard`` (the roles vLLM's
  ``benchmarks/multi_turn/convert_sharegpt_to_openai.py`` maps), some conversations opening with the assistant;
* Alpaca (``tatsu-lab/stanford_alpaca`` ``alpaca_data.json``): ONE JSON array of ``{"instruction", "input",
  "output"}``, ``input`` often empty;
* OpenAI chat ``messages`` whose ``content`` is a list of parts ``[{"type": "text", "text"}]`` (vLLM's
  ``entrypoints/chat_utils.py`` joins text parts with a newline);
* GenAI-Perf / AIPerf single-turn input files: ``{"text": ...}``; AIPerf multi-turn: ``{"session_id", "turns":
  [{"text": ...}]}``; FastChat / Spec-Bench ``question.jsonl`` rows ``{"question_id", "category", "turns": [str]}``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _jsonl(tmp_path: Path, records: list[object], name: str = "p.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def test_sharegpt_v3_file_is_one_json_array(tmp_path: Path) -> None:
    def turns(*pairs: tuple[str, str]) -> list[dict[str, str]]:
        return [{"from": f, "value": v} for f, v in pairs]

    data = [
        {"id": "QWJhYvA_0", "conversations": turns(("human", "Summarize this."), ("gpt", "Ok."))},
        {"id": "x_1", "conversations": turns(("gpt", "Hi! How can I help?"), ("human", "Q2"), ("chatgpt", "A2"),
                                             ("human", "Q3"))},
        {"id": "y_0", "conversations": turns(("human", "Q"), ("bing", "A"))},
    ]  # fmt: skip
    path = tmp_path / "ShareGPT_V3_unfiltered_cleaned_split.json"
    path.write_text(json.dumps(data, indent=2), "utf-8")
    prompts = load_prompt_file("sg", path)
    assert [p.prompt_id for p in prompts] == ["sg-0001", "sg-0002", "sg-0003"]
    assert prompts[0].messages == [{"role": "user", "content": "Summarize this."}]
    # the opening assistant turn is dropped (a follow-up of an earlier chat); chatgpt is an assistant role
    assert prompts[1].messages == [
        {"role": "user", "content": "Q2"}, {"role": "assistant", "content": "A2"}, {"role": "user", "content": "Q3"},
    ]  # fmt: skip
    assert prompts[2].messages == [{"role": "user", "content": "Q"}]
    assert prompts[0].meta["item"] == 1 and prompts[0].meta["id"] == "QWJhYvA_0"


def test_a_bad_item_of_a_json_array_is_named_by_its_index(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps([{"prompt": "a"}, {"conversations": [{"from": "robot", "value": "x"}]}], indent=2))
    with pytest.raises(ConfigError) as e:
        load_prompt_file("m", path)
    assert "data.json item 2" in str(e.value) and "'robot'" in str(e.value)
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"prompt": "a"},\n  {"prompt": }\n]\n')
    with pytest.raises(ConfigError, match=r"broken.json:3: invalid JSON"):
        load_prompt_file("m", broken)


def test_alpaca_rows_instruction_then_input(tmp_path: Path) -> None:
    data = [
        {"instruction": "Give three tips for staying healthy.", "input": "", "output": "1. Eat well."},
        {"instruction": "Translate to English.", "input": "Bonjour le monde", "output": "Hello world"},
    ]
    path = tmp_path / "alpaca_data.json"
    path.write_text(json.dumps(data, indent=4), "utf-8")
    prompts = load_prompt_file("al", path)
    assert [p.messages for p in prompts] == [
        [{"role": "user", "content": "Give three tips for staying healthy."}],
        [{"role": "user", "content": "Translate to English.\n\nBonjour le monde"}],
    ]
    empty = _jsonl(tmp_path, [{"instruction": " ", "input": "", "output": "x"}])
    with pytest.raises(ConfigError, match=r"p.jsonl:1: .*instruction"):
        load_prompt_file("al", empty)


def test_content_as_a_list_of_text_parts(tmp_path: Path) -> None:
    parts = [{"type": "text", "text": "Describe"}, {"type": "text", "text": "a cat."}]
    rec = {"messages": [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                        {"role": "user", "content": parts}]}  # fmt: skip
    (p,) = load_prompt_file("m", _jsonl(tmp_path, [rec]))
    assert p.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Describe\na cat."}]
    img = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}
    with pytest.raises(ConfigError) as e:
        load_prompt_file("m", _jsonl(tmp_path, [img]))
    assert "image_url" in str(e.value) and "text" in str(e.value.expected)
    assert "turn 0 has an 'image_url' content part" in str(e.value)  # not "a 'image_url'"


def test_roles_named_in_errors_and_developer_is_system(tmp_path: Path) -> None:
    dev = {"messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Q"}]}
    (p,) = load_prompt_file("m", _jsonl(tmp_path, [dev]))
    assert p.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q"}]
    tool = {"messages": [{"role": "user", "content": "Q"}, {"role": "tool", "content": "42"}]}
    with pytest.raises(ConfigError) as e:
        load_prompt_file("m", _jsonl(tmp_path, [tool]))
    assert "role 'tool'" in str(e.value)
    null = {"messages": [{"role": "user", "content": None}]}
    with pytest.raises(ConfigError, match=r"turn 0 content is None"):
        load_prompt_file("m", _jsonl(tmp_path, [null]))
    with pytest.raises(ConfigError, match=r"conversations is empty"):
        load_prompt_file("m", _jsonl(tmp_path, [{"conversations": []}]))


def test_genai_perf_and_aiperf_text_rows(tmp_path: Path) -> None:
    recs = [{"text": "What is the capital of France?"}, {"text_input": "Explain TCP.", "output_length": 20}]
    prompts = load_prompt_file("g", _jsonl(tmp_path, recs))
    assert [p.messages for p in prompts] == [
        [{"role": "user", "content": "What is the capital of France?"}],
        [{"role": "user", "content": "Explain TCP."}],
    ]


def test_turns_rows_are_conversations(tmp_path: Path) -> None:
    spec_bench = {"question_id": 81, "category": "writing", "turns": ["Compose a blog post.", "Rewrite it in A."]}
    aiperf = {"session_id": "s1", "turns": [{"text": "Hello", "delay": 0}, {"text": "More", "delay": 1000}]}
    a, b = load_prompt_file("c", _jsonl(tmp_path, [spec_bench, aiperf]))
    assert a.messages == [{"role": "user", "content": "Compose a blog post."}] and a.follow_ups == ("Rewrite it in A.",)
    assert a.meta["category"] == "writing"
    assert b.messages == [{"role": "user", "content": "Hello"}] and b.follow_ups == ("More",)
    with pytest.raises(ConfigError, match=r"turn 2 is empty"):
        load_prompt_file("c", _jsonl(tmp_path, [{"turns": ["a", "  "]}]))


def test_lmsys_chat_conversation_turns_in_role_content(tmp_path: Path):
    """LMSYS-Chat-1M (``lmsys/lmsys-chat-1m``) rows: ``{"conversation_id", "model", "conversation": [{"role",
    "content"}], "turn", "language"}``; refused as "turn 0 has role None" (fresh-user check, 2026-12-05)."""
    rows = [
        {
            "conversation_id": "c1",
            "model": "vicuna-13b",
            "conversation": [
                {"role": "user", "content": "What is Rust?"},
                {"role": "assistant", "content": "A systems language."},
                {"role": "user", "content": "And Go?"},
                {"role": "assistant", "content": "Another one."},
            ],
            "turn": 2,
            "language": "English",
        },
        {"conversations": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]},
    ]
    first, second = load_prompt_file("lmsys", _jsonl(tmp_path, rows))
    assert first.messages == [
        {"role": "user", "content": "What is Rust?"},
        {"role": "assistant", "content": "A systems language."},
        {"role": "user", "content": "And Go?"},
    ]
    assert first.meta["recorded_answer"] == "Another one."
    assert second.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    with pytest.raises(ConfigError, match="turn 0 has role 'robot'"):
        load_prompt_file("x", _jsonl(tmp_path, [{"conversation": [{"role": "robot", "content": "x"}]}], "bad.jsonl"))


def test_dolly_context_is_joined_like_alpaca_input(tmp_path: Path):
    """databricks-dolly-15k rows ``{"instruction", "context", "response", "category"}``: the context (the passage of a
    closed_qa / summarization row) was dropped and only the instruction sent (fresh-user check, 2026-12-05)."""
    rows = [
        {"instruction": "Summarise.", "context": "Rust is a language.", "response": "A language.", "category": "x"},
        {"instruction": "Name a colour.", "context": "", "response": "Red.", "category": "open_qa"},
    ]
    with_context, without = load_prompt_file("dolly", _jsonl(tmp_path, rows))
    assert with_context.messages == [{"role": "user", "content": "Summarise.\n\nRust is a language."}]
    assert without.messages == [{"role": "user", "content": "Name a colour."}]


def test_a_folder_given_as_a_workload_file_is_named_a_folder(tmp_path: Path):
    """``--workload w=FOLDER`` said "no such file" about a folder that exists (fresh-user check, 2026-12-05)."""
    from specscope.workload.userfile import parse_workload_specs

    (tmp_path / "wl").mkdir()
    with pytest.raises(ConfigError) as ei:
        parse_workload_specs([f"w={tmp_path / 'wl'}"])
    assert ei.value.found == f"{tmp_path / 'wl'}: a folder"
    assert "FOLDER/FILE" in (ei.value.fix or "")
    with pytest.raises(ConfigError) as ei:
        parse_workload_specs([f"w={tmp_path / 'none.jsonl'}"])
    assert ei.value.found == f"{tmp_path / 'none.jsonl'}: no such file"


def test_a_tsv_file_is_read_by_its_header_like_a_csv(tmp_path: Path):
    """A ``.tsv`` was read as text lines: its header ``prompt<TAB>label`` and each row's label were sent (fresh-user
    check, 2026-12-05)."""
    path = tmp_path / "p.tsv"
    path.write_text("prompt\tlabel\nHello, tab\t1\nSecond row\t0\n", "utf-8")
    assert [p.messages for p in load_prompt_file("t", path)] == [
        [{"role": "user", "content": "Hello, tab"}],
        [{"role": "user", "content": "Second row"}],
    ]

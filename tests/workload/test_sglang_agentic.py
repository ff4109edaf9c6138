"""SGLang's agentic trace file (issue 36, census row ``sglang.agentic_trace``): sgl-project/sglang
``python/sglang/benchmark/datasets/agentic_trace.py`` @3666ee97 ``AgenticTraceDataset`` reads one JSON object
``{"metadata", "conversations": [[{"messages", "prompt_tokens"}, ...], ...]}`` (``agentic.py`` @1cb4d970 caches its
padded OpenHands conversations in the same shape): each conversation one row, each turn's ``messages`` the new messages
of that round (turns without messages skipped), the server's own reply fed into the next round's history, one output
length for all (``--sharegpt-output-len``, 220 when not given). specscope refused it; it is now read as that
conversation (a leading system message kept, text-part content joined, row id ``conversation N``), and a round that
is not one user message is refused by conversation and turn.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _turn(*messages: dict[str, object]) -> dict[str, object]:
    return {"messages": list(messages), "prompt_tokens": 100}


def _write(tmp_path: Path, conversations: list[object], indent: int | None = None) -> Path:
    path = tmp_path / "agentic.json"
    path.write_text(json.dumps({"metadata": {"num_turns": 2}, "conversations": conversations}, indent=indent), "utf-8")
    return path


@pytest.mark.parametrize("indent", [None, 2])
def test_agentic_trace_conversations_read_as_conversations(tmp_path: Path, indent: int | None) -> None:
    first = [
        _turn({"role": "system", "content": "You are an agent."},
              {"role": "user", "content": [{"type": "text", "text": "Fix the bug."}]}),
        {"prompt_tokens": 5},
        _turn({"role": "user", "content": "Run the tests."}),
    ]  # fmt: skip
    second = [_turn({"role": "user", "content": "Only task."})]
    got = [
        (p.messages, p.follow_ups, p.meta["row_id"])
        for p in load_prompt_file("a", _write(tmp_path, [first, second], indent))
    ]
    assert got == [
        ([{"role": "system", "content": "You are an agent."}, {"role": "user", "content": "Fix the bug."}],
         ("Run the tests.",), "conversation 1"),
        ([{"role": "user", "content": "Only task."}], (), "conversation 2"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("round_", "found"),
    [
        ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "2 messages"),
        ([{"role": "tool", "content": "42"}], "a tool message"),
    ],
)
def test_a_round_that_is_not_one_user_message_is_refused_by_turn(tmp_path: Path, round_: list, found: str) -> None:
    conv = [_turn({"role": "user", "content": "start"}), {"messages": round_}]
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", _write(tmp_path, [conv]))
    assert err.value.message.startswith(f"{tmp_path / 'agentic.json'} conversation 1 turn 2: "), err.value.message
    assert found in err.value.message


def test_json_lines_of_agentic_objects_refused_by_name(tmp_path: Path) -> None:
    """SGLang ``json.load``s the whole file: JSON Lines of such objects is no file it reads."""
    doc = {"metadata": {}, "conversations": [[_turn({"role": "user", "content": "x"})]]}
    path = tmp_path / "agentic.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(doc) + "\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert err.value.message.startswith(f"{path}:1: an SGLang agentic trace"), err.value.message
    assert "one JSON object per file" in (err.value.fix or "")

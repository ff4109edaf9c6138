"""AIPerf's AA-RWLT loader (ai-dynamo/aiperf ``src/aiperf/dataset/loader/aa_rwlt.py`` @24c6c28c, entry model
``AARWLTEntry`` in ``models.py`` @24c6c28c) groups rows by ``conversation_id``, sorts each group by
``conversation_idx`` (0-based, no gap, no repeat, else it raises) and sends the steps one after another, each step's
recorded ``messages`` as they are, the server's answer discarded. specscope read such rows as chat rows in file order,
named ``line N``, and then refused a trajectory of several steps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _load(tmp_path: Path, rows: list[dict[str, Any]]) -> list:  # type: ignore[type-arg]
    path = tmp_path / "rwlt.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return load_prompt_file("mine", path)


def _msgs(*texts: str) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(texts)]


def test_a_one_step_trajectory_is_its_messages_named_by_conversation_id(tmp_path: Path) -> None:
    (row,) = _load(tmp_path, [{"conversation_id": "c", "conversation_idx": 0, "messages": _msgs("hi")}])
    assert row.messages == _msgs("hi")
    assert row.meta["row_id"] == "c"


def test_a_trajectory_of_several_steps_is_one_conversation_in_step_order(tmp_path: Path) -> None:
    """The repro: idx 1 on line 1, idx 0 on line 2, another trajectory on line 3. specscope refused the file at line
    1; AIPerf sends step 0, then step 1's recorded messages (its own recorded answer, not the server's)."""
    rows = [{"conversation_id": "c", "conversation_idx": 1, "messages": _msgs("a", "r", "b")},
            {"conversation_id": "c", "conversation_idx": 0, "messages": _msgs("a")},
            {"conversation_id": "d", "conversation_idx": 0, "messages": _msgs("z")}]  # fmt: skip
    conv, other = _load(tmp_path, rows)
    assert conv.messages == _msgs("a")
    assert conv.follow_up_messages == (tuple(_msgs("a", "r", "b")),)
    assert conv.follow_ups == ("b",)
    assert (conv.meta["row_id"], conv.meta["session_lines"]) == ("c", [2, 1])
    assert (other.meta["row_id"], other.messages, other.follow_ups) == ("d", _msgs("z"), ())


@pytest.mark.parametrize(
    ("idx", "found"),
    [((0, 2), "FILE:2: AA-RWLT trajectory 'c' step conversation_idx 2"),
     ((0, 0), "FILE:2: AA-RWLT trajectory 'c' step conversation_idx 0"),
     ((1,), "FILE:1: AA-RWLT trajectory 'c' step conversation_idx 1")],
)  # fmt: skip
def test_a_gap_or_repeat_in_conversation_idx_is_refused_by_line(
    tmp_path: Path, idx: tuple[int, ...], found: str
) -> None:
    rows = [{"conversation_id": "c", "conversation_idx": i, "messages": _msgs("a")} for i in idx]
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, rows)
    assert err.value.message.replace(str(tmp_path / "rwlt.jsonl"), "FILE").startswith(found), err.value.message


def test_a_step_ending_in_an_assistant_turn_is_refused_not_cut(tmp_path: Path) -> None:
    """AIPerf sends a step's messages as recorded (``Turn(raw_messages=...)``), a trailing assistant turn included, with
    no output length of its own; specscope drops a chat row's trailing answer and asks for its token count."""
    rows = [{"conversation_id": "c", "conversation_idx": 0, "messages": _msgs("hi", "recorded")}]
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, rows)
    msg = err.value.message.replace(str(tmp_path / "rwlt.jsonl"), "FILE")
    assert msg.startswith("FILE:1: AA-RWLT trajectory 'c' step 0 ends with an assistant turn"), msg


def test_tool_calling_messages_are_kept_verbatim(tmp_path: Path) -> None:
    """AIPerf sends a step's messages verbatim (``Turn(raw_messages=...)``, ``openai_chat.py`` @24c6c28c). specscope
    refused a step holding a ``tool`` turn ("turn 2 has role 'tool'") and sent only role and content of the rest; now
    every message is kept as recorded: ``content: null``, ``tool_calls``, ``tool_call_id``, ``name``, a ``developer``
    role and a list of content parts, and no key is named as not sent."""
    call = [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]
    step0 = [
        {"role": "developer", "content": "Use tools."},
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
    ]
    step1 = [*step0, {"role": "assistant", "content": None, "tool_calls": call, "name": "bot"},
             {"role": "tool", "tool_call_id": "c1", "name": "ls", "content": "a.py"}]  # fmt: skip
    rows = [{"conversation_id": "c", "conversation_idx": 0, "messages": step0},
            {"conversation_id": "c", "conversation_idx": 1, "messages": step1}]  # fmt: skip
    (conv,) = _load(tmp_path, rows)
    assert conv.messages == step0
    assert conv.follow_up_messages == (tuple(step1),)
    assert conv.follow_ups == ("a.py",)
    assert "unsent_fields" not in conv.meta


@pytest.mark.parametrize(
    ("message", "found"),
    [("hi", "FILE:1: message 1 of `messages` (0-based) is a str, not an object"),
     (5, "FILE:1: message 1 of `messages` (0-based) is an int, not an object"),
     ({"content": "hi"}, "FILE:1: message 1 of `messages` (0-based) has no role"),
     ({"role": "function", "name": "ls", "content": "x"},
      "FILE:1: message 1 of `messages` (0-based) has role 'function'")],
)  # fmt: skip
def test_a_malformed_recorded_message_is_refused_by_line(tmp_path: Path, message: object, found: str) -> None:
    rows = [{"conversation_id": "c", "conversation_idx": 0, "messages": [{"role": "user", "content": "a"}, message]}]
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, rows)
    msg = err.value.message.replace(str(tmp_path / "rwlt.jsonl"), "FILE")
    assert msg.startswith(found), msg
    assert "system, developer, user, assistant, tool" in str(err.value), str(err.value)

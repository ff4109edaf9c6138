"""LMSYS Chatbot Arena conversation exports (issue 36): ``lmsys/chatbot_arena_conversations`` and
``lmsys/mt_bench_human_judgments`` rows carry ``question_id``, ``model_a`` / ``model_b``, ``winner``, ``judge``,
``conversation_a`` / ``conversation_b`` (OpenAI ``{"role", "content"}`` turns, each side's model answering the same user
turns) and ``turn`` (the number of user turns, an int). No peer tool's file reader takes this layout; specscope read
the int ``turn`` as GuideLLM's ``turn`` text column and refused the row as "turn 1 is not a non-empty string".
Now the first side's chat is read as chat ``messages`` (recorded answers before the last user turn kept as history,
the trailing one dropped and its token count the output length, as for any chat row), row id ``question_id``; the
other side is not sent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

ROW = {
    "question_id": "58210e39b3fd4441a2bd4a518bb44c2d",
    "model_a": "chatglm-6b",
    "model_b": "koala-13b",
    "winner": "model_b",
    "judge": "arena_user_973",
    "conversation_a": [
        {"content": "What is the difference between OpenCL and CUDA?", "role": "user"},
        {"content": "OpenCL and CUDA are two different programming models.", "role": "assistant"},
    ],
    "conversation_b": [
        {"content": "What is the difference between OpenCL and CUDA?", "role": "user"},
        {"content": "OpenCL and CUDA are both parallel computing platforms.", "role": "assistant"},
    ],
    "turn": 1,
    "anony": True,
    "language": "English",
    "tstamp": 1682351591.1322,
    "openai_moderation": {"categories": {}, "flagged": False},
    "toxic_chat_tag": {"roberta-large": {"flagged": False, "probability": 0.008}},
}


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "arena.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_arena_row_is_the_first_sides_chat(tmp_path: Path) -> None:
    two = {
        **ROW,
        "question_id": "q2",
        "turn": 2,
        "conversation_a": [
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": "side A answer one"},
            {"role": "user", "content": "second question"},
            {"role": "assistant", "content": "side A answer two"},
        ],
    }
    got = [
        (p.messages, p.meta["row_id"], p.meta.get("recorded_answer"))
        for p in load_prompt_file("a", _write(tmp_path, [ROW, two]))
    ]
    assert got == [
        ([{"role": "user", "content": "What is the difference between OpenCL and CUDA?"}],
         "58210e39b3fd4441a2bd4a518bb44c2d", "OpenCL and CUDA are two different programming models."),
        ([{"role": "user", "content": "first question"}, {"role": "assistant", "content": "side A answer one"},
          {"role": "user", "content": "second question"}], "q2", "side A answer two"),
    ]  # fmt: skip


def test_arena_row_with_a_bad_turn_is_refused_by_line(tmp_path: Path) -> None:
    bad = {**ROW, "conversation_a": [{"role": "user", "content": None}]}
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", _write(tmp_path, [ROW, bad]))
    assert "arena.jsonl:2" in str(err.value)
    assert "turn 1 is not a non-empty string" not in str(err.value)

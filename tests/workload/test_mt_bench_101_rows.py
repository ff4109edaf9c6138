"""MT-Bench-101 rows (``mtbench101.jsonl``: ``{"task", "id", "history": [{"user", "bot"}, ...]}``, as
open-compass/opencompass ``opencompass/datasets/subjective/mtbench101.py`` @a75fa253 ``MTBench101Dataset.load`` reads
them: each turn's ``user`` question and recorded ``bot`` answer, the model asked the last turn with the recorded
answers before it as history, its golden context). They were refused generically ("no messages/conversations/turns/...
field"). Now a row is a chat: ``user`` / ``assistant`` messages in turn order, the recorded answers before the last
question kept as history and the trailing one dropped (its token count the output length), as for any recorded chat
row; ``id`` the row id; ``task`` kept as the category."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

ROW = {
    "task": "CM",
    "id": 1,
    "history": [
        {"user": "My name is Ada. Please remember it.", "bot": "Nice to meet you, Ada."},
        {"user": "What is 2 + 2?", "bot": "4."},
        {"user": "What is my name?", "bot": "Your name is Ada."},
    ],
}


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "mtbench101.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_an_mt_bench_101_row_is_a_chat_with_its_recorded_history(tmp_path: Path) -> None:
    (p,) = load_prompt_file("mine", _write(tmp_path, [ROW]))
    assert p.messages == [
        {"role": "user", "content": "My name is Ada. Please remember it."},
        {"role": "assistant", "content": "Nice to meet you, Ada."},
        {"role": "user", "content": "What is 2 + 2?"},
        {"role": "assistant", "content": "4."},
        {"role": "user", "content": "What is my name?"},
    ]
    assert p.follow_ups == ()
    assert p.meta["row_id"] == "1" and p.meta["recorded_answer"] == "Your name is Ada."
    assert p.meta["category"] == "CM"


def test_an_mt_bench_101_turn_without_a_user_question_is_refused_by_line(tmp_path: Path) -> None:
    bad = {**ROW, "history": [{"user": "Hello?", "bot": "Hi."}, {"bot": "An answer alone."}]}
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", _write(tmp_path, [ROW, bad]))
    text = str(err.value)
    assert "mtbench101.jsonl:2" in text and "history turn 2" in text and "user" in text

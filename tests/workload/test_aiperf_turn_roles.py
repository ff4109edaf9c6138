"""AIPerf turn roles (issue 36, census rows ``aiperf.multi_turn`` / ``aiperf.single_turn``): ai-dynamo/aiperf
``src/aiperf/dataset/loader/multi_turn.py`` @13b4567a hoists a leading text-only ``{"role": "system", "text": ...}``
turn into the conversation's system message, prepended to every turn's request ("persistent system prompt version"
of its docstring); each other turn is sent with its ``role`` (``models.py`` ``SingleTurn.role``).

specscope sent the system prompt as the conversation's first user turn, a request of its own whose answer then sat in
every later turn's history (fresh-user check, 2026-12-05). A turn with another role than ``user`` is refused by line:
specscope sends user turns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _jsonl(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_a_leading_system_turn_is_the_system_message_of_every_turn(tmp_path: Path) -> None:
    row = {"session_id": "s1", "turns": [{"role": "system", "text": "You are a helpful assistant."},
                                         {"text": "What is deep learning?"},
                                         {"text": "Explain it for a five year old.", "delay": 1000}]}  # fmt: skip
    (p,) = load_prompt_file("a", _jsonl(tmp_path, [row]))
    assert p.messages == [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is deep learning?"},
    ]
    assert p.follow_ups == ("Explain it for a five year old.",)


@pytest.mark.parametrize(
    "row",
    [
        {"turns": [{"text": "q1"}, {"role": "assistant", "text": "a1"}, {"text": "q2"}]},
        {"turns": [{"text": "q1"}, {"role": "system", "text": "late system"}]},
        {"text": "alone", "role": "system"},
    ],
)
def test_a_turn_of_another_role_is_refused_by_line(tmp_path: Path, row: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", _jsonl(tmp_path, [{"text": "fine"}, row]))
    assert str(err.value).startswith(f"{tmp_path / 'rows.jsonl'}:2: ")
    assert "role" in str(err.value)

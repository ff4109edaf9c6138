"""User prompt files (--workload NAME=FILE), read from files written here (the standard datasets:
tests/workload/test_datasets.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file, parse_workload_specs


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "prompts.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def test_three_shapes_and_optional_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            json.dumps({"messages": [{"role": "user", "content": "Hi there"}], "max_tokens": 7, "category": "chat"}),
            "",
            json.dumps({"conversations": [{"from": "human", "value": "Q?"}, {"from": "gpt", "value": "A."}]}),
            "Write a haiku about tea.",
        ],
    )
    prompts = load_prompt_file("mine", path)
    assert [p.prompt_id for p in prompts] == ["mine-0001", "mine-0003", "mine-0004"]
    assert prompts[0].messages == [{"role": "user", "content": "Hi there"}]
    assert prompts[0].meta["max_tokens"] == 7 and prompts[0].meta["category"] == "chat"
    assert prompts[1].messages == [{"role": "user", "content": "Q?"}]  # the recorded answer is dropped
    assert prompts[2].messages == [{"role": "user", "content": "Write a haiku about tea."}]
    assert {p.workload for p in prompts} == {"mine"}


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('{"messages": [{"role": "user", "content": "x"}', "invalid JSON"),
        ('{"query": "x"}', "no messages/conversations/turns/prompt"),  # {"text": ...} is GenAI-Perf's form
        ('{"messages": [{"role": "robot", "content": "x"}]}', "turn 0"),
        ('{"prompt": "x", "max_tokens": 0}', "max_tokens 0"),
    ],
)
def test_malformed_line_names_its_number(tmp_path: Path, line: str, needle: str) -> None:
    path = _write(tmp_path, ["first prompt", line])
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert err.value.message.startswith(f"{path}:2: ")
    assert needle in err.value.message


def test_workload_specs(tmp_path: Path) -> None:
    path = _write(tmp_path, ["a"])
    assert parse_workload_specs([f"mine={path}"]) == {"mine": str(path.resolve())}
    for bad in ("mine", f"prose={path}", "mine=/no/such/file.jsonl"):
        with pytest.raises(ConfigError):
            parse_workload_specs([bad])

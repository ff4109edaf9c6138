"""``bench --dry-run`` names the census layout a file was read as (:mod:`specscope.workload.layout_of`): every census
layout that specscope reads, written as its test file (tests/census_files.py), is named by its rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from census_files import LAYOUT_FILES
from specscope.workload.census import CENSUS
from specscope.workload.userfile import load_prompt_file

READ = [lay.key for lay in CENSUS if not lay.refused]


@pytest.mark.parametrize("key", READ)
def test_a_read_census_layout_is_named_by_its_rows(tmp_path: Path, key: str) -> None:
    made = LAYOUT_FILES[key]()
    path = tmp_path / made.name
    path.write_text(made.text, "utf-8")
    named = [p.meta["layout"] for p in load_prompt_file("mine", path)]
    if key == "guidellm.jsonl":  # its file holds a row of each text field, AIPerf's `text_input` too
        named.remove(("aiperf.mooncake_trace",))
    assert all(key in keys for keys in named), named


@pytest.mark.parametrize(
    ("name", "text", "keys"),
    [
        ("chat.jsonl", '{"messages": [{"role": "user", "content": "x"}]}\n', ("sglang.openai", "aiperf.raw_payload")),
        ("answered.jsonl", '{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}\n',
         ()),
        ("alpaca.json", '[{"instruction": "Sum.", "input": "1 2", "output": "3"}]', ()),
        ("plain.jsonl", "just a line\n", ("guidellm.txt", "vllm.sonnet")),
        ("body.jsonl", '{"messages": [{"role": "user", "content": "x"}], "max_tokens": 3}\n',
         ("sglang.openai", "aiperf.raw_payload")),
        ("question.jsonl", '{"question_id": 1, "turns": ["a", "b"]}\n', ("vllm.spec_bench",)),
    ],
)  # fmt: skip
def test_other_record_shapes(tmp_path: Path, name: str, text: str, keys: tuple[str, ...]) -> None:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    (prompt,) = load_prompt_file("mine", path)
    assert prompt.meta["layout"] == keys

"""A workload row holding a key twice (issue 37, "typed edges"): ``{"messages": [...a...], "messages": [...b...]}``
was read silently, the last value winning (Python's ``json.loads``, as GuideLLM's and AIPerf's readers, keeps the
last), so the prompt the user wrote first was never sent. Such a row is refused by its line (the key and both
values, clipped), through the one JSON reader of workload files (``userfile_text.loads``); exit 2, nothing run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli, one_error
from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

_A = '[{"role":"user","content":"a"}]'
_B = '[{"role":"user","content":"b"}]'
_FOUND = (
    'found: "messages" is [{"role": "user", "content": "a"}], then again [{"role": "user", "content": "b"}]; '
    "expected: each key once per object (a JSON reader keeps the last value and drops the first, silently); "
    "fix: keep the value you mean and delete the other (a hand edit or two rows joined is the usual cause)"
)


def _refusal(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_prompt_file("mine", path)
    return info.value.one_line()


def test_bench_dry_run_refuses_a_json_lines_row_with_a_key_twice(tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(f'{{"prompt": "ok"}}\n{{"messages":{_A},"messages":{_B}}}\n', encoding="utf-8")
    code, out, err = cli(["bench", "--workload", f"mine={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2, out + err
    assert one_error(err) == f"error: {path}:2: a key twice in one object (`messages`); {_FOUND}"


def test_a_one_line_file_is_refused_at_line_1(tmp_path: Path) -> None:
    text = f'{{"messages":{_A},"messages":{_B}}}\n'
    assert _refusal(tmp_path, "p.jsonl", text).endswith(f"p.jsonl:1: a key twice in one object (`messages`); {_FOUND}")


def test_a_key_twice_in_a_nested_object_is_refused_too(tmp_path: Path) -> None:
    text = '{"prompt": "ok"}\n{"messages": [{"role": "user", "content": "a", "content": "b"}]}\n'
    one = _refusal(tmp_path, "p.jsonl", text)
    assert 'p.jsonl:2: a key twice in one object (`content`); found: "content" is "a", then again "b";' in one


def test_a_json_array_file_and_an_inputs_json_are_refused(tmp_path: Path) -> None:
    array = f'[\n{{"prompt": "ok"}},\n{{"messages":{_A},"messages":{_B}}}\n]\n'
    one = _refusal(tmp_path, "p.json", array)
    assert one.endswith(f"p.json item 2 (line 3): a key twice in one object (`messages`); {_FOUND}")
    nested = '[{"prompt": "ok"}, {"prompt": "x", "extra": {"k": 1, "k": 2}}]'  # one line; the second item
    assert 'p.json item 2 (line 1): a key twice in one object (`k`); found: "k" is 1, then again 2;' in _refusal(
        tmp_path, "p.json", nested
    )
    inputs = {"data": [{"session_id": "s", "payloads": [{"messages": [{"role": "user", "content": "a"}]}]}]}
    text = json.dumps(inputs).replace('"payloads"', '"max_tokens": 3, "max_tokens": 4, "payloads"')
    one = _refusal(tmp_path, "inputs.json", text)
    assert 'inputs.json:1: a key twice in one object (`max_tokens`); found: "max_tokens" is 3, then again 4;' in one


def test_long_values_are_clipped(tmp_path: Path) -> None:
    text = '{"prompt": "' + "x" * 5000 + '", "prompt": "y"}\n'
    one = _refusal(tmp_path, "p.jsonl", text)
    assert 'found: "prompt" is "' + "x" * 59 + "…(+" in one and len(one) < 600


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path: Path) -> None:
    one = _refusal(tmp_path, "p.csv", "prompt,prompt\na,b\n")
    assert "p.csv:1: the header names `prompt` 2 times (columns 1, 2)" in one

"""User prompt files (--workload NAME=FILE) and the standard datasets, read from files written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dataset_files import (
    write_blazedit_parquet,
    write_instructcoder_jsonl,
    write_spec_bench_jsonl,
    write_speed_bench_parquet,
)
from specscope.errors import ConfigError
from specscope.workload.datasets import load_dataset_prompts, parse_dataset_spec
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
        ('{"text": "x"}', "no messages/conversations/prompt"),
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


def test_speed_bench_parquet_gives_one_workload_per_category(tmp_path: Path) -> None:
    path = write_speed_bench_parquet(tmp_path / "test-00000-of-00001.parquet")
    out = load_dataset_prompts("speed-bench:qualitative", path)
    assert list(out) == ["speed-bench.coding", "speed-bench.math", "speed-bench.writing"]
    assert [len(v) for v in out.values()] == [3, 3, 3]
    first = out["speed-bench.math"][1]
    assert first.prompt_id == "speed-bench.math-0001"
    assert first.messages == [{"role": "user", "content": "math question 1: explain step 1 briefly."}]
    assert first.meta == {"source": "speed-bench:qualitative", "question_id": "math-1", "category": "math",
                          "config": "qualitative"}  # fmt: skip


def test_spec_bench_jsonl_from_a_folder(tmp_path: Path) -> None:
    write_spec_bench_jsonl(tmp_path / "question.jsonl")
    out = load_dataset_prompts("spec-bench", tmp_path)
    assert {k: [p.first_user_text for p in v] for k, v in out.items()} == {
        "spec-bench.translation": ["Translate: bonjour", "Translate: danke"],
        "spec-bench.qa": ["Who wrote Hamlet?"],
    }


def test_dataset_specs() -> None:
    assert parse_dataset_spec("speed-bench") == ("speed-bench", "qualitative")
    assert parse_dataset_spec("speed-bench:throughput_2k") == ("speed-bench", "throughput_2k")
    assert parse_dataset_spec("blazedit") == ("blazedit", "5k")
    assert parse_dataset_spec("blazedit:10k") == ("blazedit", "10k")
    assert parse_dataset_spec("instructcoder") == ("instructcoder", None)
    for bad in ("nope", "speed-bench:huge", "spec-bench:x", "blazedit:1k", "instructcoder:x"):
        with pytest.raises(ConfigError):
            parse_dataset_spec(bad)


def test_blazedit_parquet_gives_one_workload_per_edit_size(tmp_path: Path) -> None:
    path = write_blazedit_parquet(tmp_path / "train-00000-of-00001.parquet")
    out = load_dataset_prompts("blazedit:5k", path)
    # norm_distance 0.05 -> small, 0.8 -> large, 0.3 -> large (the medium bound 0.3 is exclusive)
    assert {k: len(v) for k, v in out.items()} == {"blazedit.small": 1, "blazedit.large": 2}
    small = out["blazedit.small"][0]
    assert small.first_user_text == (
        "Given a code file, please apply the change requests and generate the new file.\n\n"
        "Original file:\n```python\ndef f(x):\n    return x\n\n```\n\nChange request:\nRename f to g.\n\n"
        'Please generate the new code file in the "New file" section below.'
    )
    assert small.meta == {"source": "blazedit:5k", "question_id": "0", "category": "small", "config": "5k"}


def test_instructcoder_jsonl(tmp_path: Path) -> None:
    out = load_dataset_prompts("instructcoder", write_instructcoder_jsonl(tmp_path / "ic.jsonl"))
    assert list(out) == ["instructcoder.edit"]
    assert out["instructcoder.edit"][0].first_user_text == (
        "def f():\n    pass\n\nAdd a docstring. Just output the code, do not include any explanation."
    )


def test_a_row_of_another_dataset_is_a_clear_error(tmp_path: Path) -> None:
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl")
    with pytest.raises(ConfigError) as e:
        load_dataset_prompts("blazedit", path)
    assert "row 0 of blazedit is not shaped like blazedit" in str(e.value)
    assert "code, change_request" in str(e.value)

"""ShareGPT rows that are not conversations (issue 36, census rows ``vllm.sharegpt``, ``sglang.sharegpt``,
``aiperf.sharegpt``).

The published ``ShareGPT_V3_unfiltered_cleaned_split.json`` holds items whose ``conversations`` is empty or has no
human turn; vLLM's ``ShareGPTDataset`` (``vllm/benchmarks/datasets.py`` @0056b87f: ``len(conversations) >= 2``),
SGLang's ``sample_sharegpt_requests`` and AIPerf's ``ShareGPTLoader`` skip them. specscope refused the whole file at
the first such item, with a fix that said to fix the file (fresh-user check, 2026-12-05). Such a row is now refused
naming ``--drop-bad-rows``, which runs without it and records it as refused, as for ``--dataset``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file, load_prompt_rows

ROWS = [
    {"id": "a1", "conversations": [{"from": "human", "value": "Q one"}, {"from": "gpt", "value": "A one"}]},
    {"id": "a2", "conversations": []},
    {"id": "a3", "conversations": [{"from": "gpt", "value": "only an answer"}]},
    {"id": "a4", "conversations": [{"from": "human", "value": "Q four"}]},
]


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "sharegpt.json"
    path.write_text(json.dumps(ROWS, indent=1), "utf-8")
    return path


def test_a_row_that_is_no_conversation_names_drop_bad_rows(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("s", _file(tmp_path))
    assert str(err.value).startswith(f"{tmp_path / 'sharegpt.json'} item 2: conversations is empty")
    assert "--drop-bad-rows" in str(err.value)


def test_drop_bad_rows_runs_without_them_and_records_them(tmp_path: Path) -> None:
    prompts, refused = load_prompt_rows("s", _file(tmp_path), drop_bad_rows=True)
    assert [p.meta["row_id"] for p in prompts] == ["a1", "a4"]
    assert [r["row_id"] for r in refused] == ["a2", "a3"]
    assert all(r["reason"] for r in refused)


def test_a_malformed_row_is_still_refused_with_drop_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "ok"}\n{"prompt": "p", "output_length": -1}\n', "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_rows("s", path, drop_bad_rows=True)
    assert str(err.value).startswith(f"{path}:2: output_length -1")


def test_a_refused_row_is_named_by_the_same_id_a_sent_row_would_be(tmp_path: Path) -> None:
    """The refused rows' ids were read by their own rule (``id``, ``question_id``, ``session_id``, the first present):
    a row of ``"id": ""`` was listed as refused row "", a row of ``conversation_id`` by its item number. They are now
    named by the rule every sent row's id follows (the first id that names a row, else the item)."""
    rows = [{"id": "", "conversations": []}, {"conversation_id": "c9", "conversations": []},
            {"id": "k", "conversations": [{"from": "human", "value": "Kept"}]}]  # fmt: skip
    path = tmp_path / "sharegpt.json"
    path.write_text(json.dumps(rows), "utf-8")
    prompts, refused = load_prompt_rows("s", path, drop_bad_rows=True)
    assert [p.meta["row_id"] for p in prompts] == ["k"]
    assert [r["row_id"] for r in refused] == ["item 1", "c9"]

"""A JSON file that is one object (issue 36, census row ``guidellm.jsonl``: GuideLLM reads ``.json`` with
``datasets.load_dataset("json", ...)``, vllm-project/guidellm ``src/guidellm/data/deserializers/file.py`` @03820eba).

The ``datasets`` JSON builder reads a file holding one object of columns ``{"prompt": [...], "output_tokens_count":
[...]}`` as a table, one row per position: what ``json.dump(Dataset.to_dict(), f)`` writes. specscope read such a file
as JSON Lines and refused it: pretty-printed, as "invalid JSON" at line 1 of a valid JSON file; on one line, as a
prompt that is a list (fresh-user check, 2026-12-05). A pretty-printed object that is not columns is refused by name,
never called invalid JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

COLUMNS = {"prompt": ["Column row one.", "Column row two."], "output_tokens_count": [5, 6]}


@pytest.mark.parametrize("indent", [None, 2])
def test_an_object_of_columns_is_one_row_per_position(tmp_path: Path, indent: int | None) -> None:
    path = tmp_path / "cols.json"
    path.write_text(json.dumps(COLUMNS, indent=indent), "utf-8")
    got = [(p.messages, p.meta["max_tokens"], p.meta["row_id"]) for p in load_prompt_file("c", path)]
    assert got == [
        ([{"role": "user", "content": "Column row one."}], 5, "item 1"),
        ([{"role": "user", "content": "Column row two."}], 6, "item 2"),
    ]


def test_a_jsonl_row_of_lists_is_still_a_row(tmp_path: Path) -> None:
    """FastChat's ``turns`` and AIPerf's ``texts`` are lists of strings inside one record, not columns."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"turns": ["q1", "q2"]}) + "\n", "utf-8")
    (p,) = load_prompt_file("c", path)
    assert (p.messages, p.follow_ups) == ([{"role": "user", "content": "q1"}], ("q2",))


def test_a_pretty_printed_record_is_refused_by_name_not_as_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"prompt": "only one", "output_tokens_count": 3}, indent=2), "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("c", path)
    assert "invalid JSON" not in str(err.value)
    assert "one JSON object" in str(err.value)

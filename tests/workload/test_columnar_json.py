"""A JSON file that is one object (issue 36, census row ``guidellm.jsonl``: GuideLLM reads ``.json`` with
``datasets.load_dataset("json", ...)``, vllm-project/guidellm ``src/guidellm/data/deserializers/file.py`` @03820eba).

An earlier premise here was that the ``datasets`` JSON builder reads one object of columns
``{"prompt": [...], "output_tokens_count": [...]}`` as a table, one row per position. It does not: ``datasets`` 5.2.0
(``packaged_modules/json/json.py`` ``_generate_tables``) hands the bytes to pyarrow's JSON reader first, which reads one
object, on one line or pretty-printed, as ONE row whose fields are lists (``load_dataset("json",
data_files="cols.json")``: 1 row, ``prompt`` a list of strings); only when pyarrow fails does pandas read columns. So
specscope's per-position reading sent two requests where the tool it cites sees one row holding lists. Such a file is
now refused by name (no peer tool reads it per position), with the JSON Lines form to write instead. A pretty-printed
object that is not columns is refused by name, never called invalid JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

COLUMNS = {"prompt": ["Column row one.", "Column row two."], "output_tokens_count": [5, 6]}


@pytest.mark.parametrize("indent", [None, 2])
def test_an_object_of_columns_is_refused_by_name(tmp_path: Path, indent: int | None) -> None:
    path = tmp_path / "cols.json"
    path.write_text(json.dumps(COLUMNS, indent=indent), "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("c", path)
    text = str(err.value)
    assert "one JSON object of columns (2 values each: output_tokens_count, prompt)" in text
    assert "one row whose fields are lists" in text
    assert "JSON Lines" in text


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


@pytest.mark.parametrize(
    "doc",
    [{"data": [{"prompt": "Data a"}, {"prompt": "Data b"}]},
     {"version": "1.0", "data": [{"prompt": "W1", "output_tokens_count": 3}, {"question": "W2"}]}],
)  # fmt: skip
@pytest.mark.parametrize("indent", [None, 2])
def test_records_wrapped_in_one_object_are_named_with_the_json_lines_fix(tmp_path: Path, doc, indent) -> None:
    """``{"data": [records]}`` (``json.dump({"data": rows})``) was refused as "one JSON object of columns (2 values
    each: data)" with a fix about ``Dataset.from_dict``, or, pretty-printed with a ``version``, as "one JSON object over
    11 lines" with no fix of its own. It is named as records under `data`, with the JSON Lines form to write."""
    path = tmp_path / "wrapped.json"
    path.write_text(json.dumps(doc, indent=indent), "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("c", path)
    assert err.value.one_line() == (
        f"{path}:1: one JSON object holding 2 records under `data`; expected: JSON Lines (one record per line) or one "
        "JSON array of records; fix: write the records one per line: jq -c '.data[]' FILE > OUT.jsonl"
    )


def test_a_one_line_chat_row_is_still_a_row(tmp_path: Path) -> None:
    """A JSON Lines file of one chat row (its `messages` a list of objects with `content`) is a row, not records."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "Hi"}]}) + "\n", "utf-8")
    assert [p.messages for p in load_prompt_file("c", path)] == [[{"role": "user", "content": "Hi"}]]

"""Rows written by the tools' own models and by pandas (issue 36, census rows ``aiperf.*``, ``guidellm.*``).

AIPerf's loader models (ai-dynamo/aiperf ``src/aiperf/dataset/loader/models.py`` @0109a64e ``SingleTurn``,
``MooncakeTrace``) default every field to None and test ``is not None``: a file dumped from those models
(``model_dump()``) carries ``"texts": null``, ``"payload": null``, ``"input_length": null`` beside the field it uses.
specscope took a null field for a present one: such a row was refused as "texts is not a non-empty list" or as "a
`payload` row" (fresh-user check, 2026-12-05). A null field is an absent field.

An output length written by pandas from a column with a missing value is a float (``128.0`` in JSON Lines and in a
CSV cell); AIPerf's ``output_length: int`` (pydantic, lax) takes it as 128 and GuideLLM sends it as it is. specscope
refused the row; an integral float is that integer, any other fraction is still refused by line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

_AIPERF_NULLS = {"text": None, "texts": None, "image": None, "images": None, "image_uuids": None, "audio": None,
                 "audios": None, "video": None, "videos": None, "timestamp": None, "delay": None, "role": None,
                 "session_id": None, "output_length": None, "extra": None}  # fmt: skip
_MOONCAKE_NULLS = {"input_length": None, "text_input": None, "messages": None, "tools": None, "payload": None,
                   "message_mode": "history", "output_length": None, "hash_ids": None, "timestamp": None,
                   "delay": None, "session_id": None, "extra": None}  # fmt: skip


def _jsonl(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_null_fields_of_aiperf_model_dumps_are_absent(tmp_path: Path) -> None:
    rows = [
        {"type": "single_turn", **_AIPERF_NULLS, "text": "hi there", "output_length": 9},
        {"type": "single_turn", **_AIPERF_NULLS, "texts": ["a", "b"]},
        {"type": "mooncake_trace", **_MOONCAKE_NULLS, "text_input": "trace text", "output_length": 4},
        {"type": "mooncake_trace", **_MOONCAKE_NULLS, "messages": [{"role": "user", "content": "m"}]},
        {"session_id": "s1", "turns": [{**_AIPERF_NULLS, "text": "t1"}, {**_AIPERF_NULLS, "texts": ["t2"]}]},
    ]
    got = [(p.messages, p.follow_ups, p.meta.get("max_tokens")) for p in load_prompt_file("a", _jsonl(tmp_path, rows))]
    assert got == [
        ([{"role": "user", "content": "hi there"}], (), 9),
        ([{"role": "user", "content": "a\nb"}], (), None),
        ([{"role": "user", "content": "trace text"}], (), 4),
        ([{"role": "user", "content": "m"}], (), None),
        ([{"role": "user", "content": "t1"}], ("t2",), None),
    ]


def test_a_trace_row_with_nulls_is_still_a_trace_row(tmp_path: Path) -> None:
    rows = [{"type": "mooncake_trace", **_MOONCAKE_NULLS, "input_length": 100, "hash_ids": [1], "output_length": 4}]
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", _jsonl(tmp_path, rows))
    assert "--trace" in str(err.value)


def test_integral_float_output_lengths_are_integers(tmp_path: Path) -> None:
    rows = [{"prompt": "p", "output_tokens_count": 128.0}, {"text": "q", "output_length": 64.0}]
    assert [p.meta["max_tokens"] for p in load_prompt_file("g", _jsonl(tmp_path, rows))] == [128, 64]
    csv = tmp_path / "rows.csv"
    csv.write_text("prompt,output_tokens_count\nx,128.0\ny,\n", "utf-8")
    assert [p.meta.get("max_tokens") for p in load_prompt_file("g", csv)] == [128, None]


def test_output_lengths_written_as_digit_strings_are_integers(tmp_path: Path) -> None:
    """``"output_length": "20"``: AIPerf's ``output_length: int`` (pydantic, lax) takes a string of digits as 20, and
    SGLang's autobench reader takes ``int(row["output_len"])`` (autobench.py @3f56497e); specscope refused the row
    (fresh-user check, 2026-12-06). A digit string is that integer; any other string is still refused by line."""
    rows = [
        {"text": "a", "output_length": "20"},
        {"prompt": "b", "output_tokens": " 32 "},
        {"messages": [{"role": "user", "content": "c"}], "output_len": "64"},
        {"session_id": "s", "turns": [{"text": "d", "output_length": "7"}, {"text": "e", "output_length": 9}]},
    ]
    assert [p.meta["max_tokens"] for p in load_prompt_file("g", _jsonl(tmp_path, rows))] == [20, 32, 64, 7]


@pytest.mark.parametrize("value", [12.5, "12.5", -3.0, "twelve", " "])
def test_other_fractions_are_refused_by_line(tmp_path: Path, value: object) -> None:
    # 0 / 0.0 is no count, as GuideLLM reads it (tests/workload/test_guidellm_columns.py); AIPerf's 0 stays refused
    rows = [{"prompt": "ok"}, {"prompt": "p", "output_tokens_count": value}]
    with pytest.raises(ConfigError) as err:
        load_prompt_file("g", _jsonl(tmp_path, rows))
    assert str(err.value).startswith(f"{tmp_path / 'rows.jsonl'}:2: output_tokens_count")


def test_an_id_that_names_no_row_gives_way_to_the_next_id_or_the_line(tmp_path) -> None:
    """``{"id": "", "prompt": ...}`` (a dataset export writes a missing id as "") was recorded as the row id "" in the
    cell's rows_sent; a blank id, a bool, a float or a list names no row: the next id field that does (``question_id``)
    is the row id, else the line."""
    import json

    from specscope.workload.userfile import load_prompt_file

    rows = [{"id": "", "prompt": "Empty id"}, {"id": "  ", "question_id": "q2", "prompt": "Blank id"},
            {"id": True, "prompt": "Bool id"}, {"id": 1.0, "prompt": "Float id"}, {"id": ["a"], "prompt": "List id"},
            {"id": 0, "prompt": "Zero id"}, {"id": "r7", "prompt": "Text id"}]  # fmt: skip
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert [p.meta["row_id"] for p in load_prompt_file("mine", path)] == [
        "line 1", "q2", "line 3", "line 4", "line 5", "0", "r7"
    ]  # fmt: skip

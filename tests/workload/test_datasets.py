"""The standard datasets read from small files in their published layouts (tests/dataset_files.py names the source
of each layout), and what is refused: public bug reports turned into cases first.

* SPEED-Bench ships placeholder turns that must be filled from a separate source (AIPerf's loader and SGLang's
  refuse them; a reader that does not sends the placeholder as the prompt);
* the throughput configs are input-length tiers of entropy categories, not the qualitative categories;
* a multi-turn row is a conversation (Spec-Bench's ``eval.py`` asks turn 2 after the model's own answer);
* a file without the ``category`` column must name the columns it has.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dataset_files import (
    PLACEHOLDER,
    SPEED_CATEGORIES,
    placeholder_row,
    qid,
    speed_row,
    write_blazedit_parquet,
    write_instructcoder_jsonl,
    write_mt_bench_jsonl,
    write_spec_bench_jsonl,
    write_speed_bench_parquet,
    write_speed_parquet,
    write_speed_prepared_jsonl,
    write_speed_throughput_parquet,
)
from specscope.errors import ConfigError
from specscope.workload.datasets import DatasetSpec, load_dataset, load_dataset_prompts, parse_dataset_spec


def test_speed_bench_qualitative_gives_one_workload_per_category(tmp_path: Path) -> None:
    path = write_speed_bench_parquet(tmp_path / "qualitative" / "test-00000-of-00001.parquet")
    got = load_dataset("speed-bench:qualitative", tmp_path)
    assert list(got.workloads) == [f"speed-bench.{c}" for c in SPEED_CATEGORIES]
    assert [len(v) for v in got.workloads.values()] == [3, 3, 3]
    p = got.workloads["speed-bench.math"][1]
    assert p.prompt_id == "speed-bench.math-0001"
    assert p.messages == [{"role": "user", "content": "math question 1: explain step 1 briefly."}]
    assert p.follow_ups == ()
    assert p.meta == {
        "source": "speed-bench:qualitative",
        "question_id": qid("math-1"),
        "category": "math",
        "config": "qualitative",
        "sub_category": "general",
        "difficulty": "easy",
        "row_id": qid("math-1"),
    }
    prov = got.provenance
    assert (prov["dataset"], prov["config"], prov["revision"], prov["rows_total"], prov["rows_used"]) == (
        "speed-bench", "qualitative", None, 9, 9,
    )  # fmt: skip
    assert prov["files"][0]["path"] == str(path.resolve())
    assert len(prov["files"][0]["sha256"]) == 64 and prov["rows_refused"] == []
    assert prov["columns"] == [
        "question_id", "category", "sub_category", "turns", "source", "src_id", "difficulty", "multiturn",
    ]  # fmt: skip


def test_placeholder_row_is_refused_with_its_row_id(tmp_path: Path) -> None:
    rows = [speed_row("coding", 0), placeholder_row(), speed_row("math", 1)]
    path = write_speed_parquet(tmp_path / "q.parquet", rows)
    with pytest.raises(ConfigError) as e:
        load_dataset("speed-bench", path)
    line = e.value.one_line()
    assert f"row {qid('summarization-7')} is not a workload" in line
    assert "SPEED-Bench placeholder" in line and "abisee/cnn_dailymail" in line
    assert "prepare.py" in line and "--drop-bad-rows" in line


def test_placeholder_rows_dropped_on_request_are_recorded_with_their_reason(tmp_path: Path) -> None:
    rows = [speed_row("coding", 0), placeholder_row(), speed_row("coding", 1, ["   "])]
    path = write_speed_parquet(tmp_path / "q.parquet", rows)
    got = load_dataset("speed-bench:qualitative@487aa718", path, drop_bad_rows=True)
    assert list(got.workloads) == ["speed-bench.coding"]
    assert (got.provenance["rows_used"], got.provenance["revision"]) == (1, "487aa718")
    kinds = [(r["row"], r["kind"]) for r in got.provenance["rows_refused"]]
    assert kinds == [(qid("summarization-7"), "placeholder"), (qid("coding-1"), "empty")]


def test_placeholder_in_a_later_turn_is_refused_too(tmp_path: Path) -> None:
    rows = [speed_row("roleplay", 3, ["Play a pirate.", f"{PLACEHOLDER}\n\n{{question}}"])]
    with pytest.raises(ConfigError, match="turn 2 is the SPEED-Bench placeholder"):
        load_dataset("speed-bench", write_speed_parquet(tmp_path / "q.parquet", rows))


def test_throughput_split_given_as_qualitative_is_refused(tmp_path: Path) -> None:
    path = write_speed_throughput_parquet(tmp_path / "data.parquet")
    with pytest.raises(ConfigError) as e:
        load_dataset("speed-bench:qualitative", path)
    line = e.value.one_line()
    assert "a throughput split given as qualitative" in line
    assert "found: categories high_entropy, low_entropy, mixed" in line
    assert "--dataset speed-bench:throughput_" in line


def test_a_file_named_for_another_config_is_refused(tmp_path: Path) -> None:
    path = write_speed_throughput_parquet(tmp_path / "throughput_2k" / "test-00000-of-00001.parquet")
    with pytest.raises(ConfigError, match="the file is the throughput_2k config, not qualitative"):
        load_dataset("speed-bench:qualitative", path)
    with pytest.raises(ConfigError, match="not the throughput entropy tiers .the qualitative split given as"):
        load_dataset("speed-bench:throughput_8k", write_speed_bench_parquet(tmp_path / "q.parquet"))


def test_throughput_config_gives_entropy_workloads_at_its_tier(tmp_path: Path) -> None:
    write_speed_throughput_parquet(tmp_path / "throughput_2k" / "test-00000-of-00001.parquet")
    got = load_dataset("speed-bench:throughput_2k", tmp_path)
    assert list(got.workloads) == ["speed-bench.low_entropy", "speed-bench.mixed", "speed-bench.high_entropy"]
    assert got.tier_k == 2
    assert got.workloads["speed-bench.mixed"][0].meta["config"] == "throughput_2k"


def test_missing_category_column_names_the_columns_found(tmp_path: Path) -> None:
    path = write_speed_parquet(tmp_path / "q.parquet", [speed_row("coding", 0)], drop=("category",))
    with pytest.raises(ConfigError) as e:
        load_dataset("speed-bench", path)
    assert e.value.message == "speed-bench:qualitative: column 'category' is missing (no column like it)"
    assert e.value.found == "columns difficulty, multiturn, question_id, source, src_id, sub_category, turns"


def test_renamed_column_names_the_closest_match(tmp_path: Path) -> None:
    records = [{"question_id": 1, "categories": "qa", "turns": ["Who?"]}]
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl", records)
    with pytest.raises(ConfigError) as e:
        load_dataset("spec-bench", path)
    assert "column 'category' is missing (closest match: 'categories', renamed?)" in e.value.one_line()
    assert "rename 'categories' to 'category'" in e.value.one_line()


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    records = [
        {"question_id": 5, "category": "qa", "turns": ["A?"]},
        {"question_id": 5, "category": "qa", "turns": ["B?"]},
    ]
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl", records)
    with pytest.raises(ConfigError, match="row 5 is not a workload: question_id repeats row 0"):
        load_dataset("spec-bench", path)
    got = load_dataset("spec-bench", path, drop_bad_rows=True)
    assert [p.first_user_text for p in got.workloads["spec-bench.qa"]] == ["A?"]


def test_spec_bench_six_tasks_with_multi_turn_rows_as_conversations(tmp_path: Path) -> None:
    write_spec_bench_jsonl(tmp_path / "question.jsonl")
    got = load_dataset("spec-bench", tmp_path)
    assert list(got.workloads) == ["spec-bench.mt_bench", "spec-bench.translation", "spec-bench.qa"]
    haiku = got.workloads["spec-bench.mt_bench"][0]
    assert haiku.first_user_text == "Write a haiku about rain."
    assert haiku.follow_ups == ("Now make it about snow.",) and haiku.turns == 2
    assert haiku.meta["row_category"] == "writing" and haiku.meta["question_id"] == "81"
    assert got.workloads["spec-bench.qa"][0].turns == 1


def test_unknown_spec_bench_category_is_refused(tmp_path: Path) -> None:
    path = write_spec_bench_jsonl(tmp_path / "q.jsonl", [{"question_id": 1, "category": "poetry", "turns": ["x"]}])
    with pytest.raises(ConfigError, match="categories poetry are not Spec-Bench's categories"):
        load_dataset("spec-bench", path)


def test_mt_bench_two_turn_rows(tmp_path: Path) -> None:
    got = load_dataset("mt-bench", write_mt_bench_jsonl(tmp_path / "question.jsonl"))
    assert list(got.workloads) == ["mt-bench.writing", "mt-bench.math"]
    assert got.workloads["mt-bench.math"][0].follow_ups == ("And times 2?",)


def test_prepared_messages_layout_of_speed_bench(tmp_path: Path) -> None:
    rows = [speed_row("coding", 0, ["Write a loop.", "Now unroll it."])]
    got = load_dataset("speed-bench", write_speed_prepared_jsonl(tmp_path / "qualitative.jsonl", rows))
    p = got.workloads["speed-bench.coding"][0]
    assert (p.first_user_text, p.follow_ups) == ("Write a loop.", ("Now unroll it.",))


def test_dataset_specs() -> None:
    assert parse_dataset_spec("speed-bench") == DatasetSpec("speed-bench", "qualitative")
    assert parse_dataset_spec("speed-bench:throughput_2k@abc") == DatasetSpec("speed-bench", "throughput_2k", "abc")
    assert parse_dataset_spec("blazedit") == DatasetSpec("blazedit", "5k")
    assert parse_dataset_spec("blazedit:10k").config == "10k"
    assert parse_dataset_spec("instructcoder") == DatasetSpec("instructcoder", None)
    for bad in ("nope", "speed-bench:huge", "spec-bench:x", "blazedit:1k", "instructcoder:x", "mt-bench@"):
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
    assert small.meta == {
        "source": "blazedit:5k", "question_id": "0", "category": "small", "config": "5k", "norm_distance": 0.05,
        "row_id": "0",
    }  # fmt: skip


def test_instructcoder_jsonl(tmp_path: Path) -> None:
    out = load_dataset_prompts("instructcoder", write_instructcoder_jsonl(tmp_path / "ic.jsonl"))
    assert list(out) == ["instructcoder.edit"]
    assert out["instructcoder.edit"][0].first_user_text == (
        "def f():\n    pass\n\nAdd a docstring. Just output the code, do not include any explanation."
    )


def test_a_file_of_another_dataset_names_its_columns(tmp_path: Path) -> None:
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl")
    with pytest.raises(ConfigError) as e:
        load_dataset("blazedit", path)
    assert e.value.message == "blazedit:5k: column 'code' is missing (no column like it)"
    assert e.value.found == "columns category, question_id, turns"


def test_a_folder_of_json_array_or_gzip_files_is_read(tmp_path: Path) -> None:
    # question.json as one JSON array (a re-saved copy) and question.jsonl.gz (a compressed download): the folder
    # form of --dataset-path finds them as it finds .jsonl / .parquet; datasets' own metadata files are not data
    import gzip
    import json

    from dataset_files import SPEC_BENCH_RECORDS

    arr = tmp_path / "arr"
    arr.mkdir()
    (arr / "question.json").write_text(json.dumps(SPEC_BENCH_RECORDS, indent=2))
    (arr / "dataset_info.json").write_text(json.dumps({"description": "not rows"}))
    got = load_dataset("spec-bench", arr)
    assert got.provenance["rows_used"] == 5 and [Path(f["path"]).name for f in got.provenance["files"]] == [
        "question.json"
    ]
    gz = tmp_path / "gz"
    gz.mkdir()
    (gz / "question.jsonl.gz").write_bytes(
        gzip.compress("".join(json.dumps(r) + "\n" for r in SPEC_BENCH_RECORDS).encode())
    )
    assert load_dataset("spec-bench", gz).provenance["rows_used"] == 5

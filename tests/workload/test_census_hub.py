"""AIPerf's hub-backed dataset loaders (:data:`specscope.workload.census_hub.HUB_DATASETS`): each row names its loader
at a commit, and a row of the dataset's own columns (as the loader reads them, in a JSON Lines export) is what the
census says: read as the census layout named, or refused by name with the fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.census import CENSUS, FOREIGN_LAYOUTS
from specscope.workload.census_hub import HUB_DATASETS, PROBLEM_REFUSAL
from specscope.workload.userfile import load_prompt_file

#: a row of each hub dataset's columns (the loader's ``prompt_column`` / media / trace fields), as a JSON Lines export
#: of it holds them, and what the row's reading must show: the text sent, or a piece of the refusal
ROWS: dict[str, tuple[str, dict[str, object], str]] = {
    "aiperf.hub.sharegpt": ("sg.json", {"id": "a", "conversations": [{"from": "human", "value": "Hi?"},
                                                                      {"from": "gpt", "value": "Hello."}]}, "Hi?"),
    "aiperf.hub.spec_bench": ("question.jsonl", {"question_id": 1, "category": "qa", "turns": ["Who?", "Why?"]},
                              "Who?"),
    "aiperf.hub.question_columns": ("gsm8k.jsonl", {"question": "How many?", "answer": "Four."}, "How many?"),
    "aiperf.hub.problem_columns": ("math.jsonl", {"problem": "Solve x.", "solution": "x = 1"}, PROBLEM_REFUSAL[0]),
    "aiperf.hub.multimodal": ("mmstar.jsonl", {"index": 0, "question": "What is shown?", "image": "AAAA"},
                              "an image field"),
    "aiperf.hub.asr": ("speech.jsonl", {"audio": {"path": "a.flac"}, "text": "words"}, "an audio field"),
    "aiperf.hub.exgentic": ("agent.jsonl", {"harness": "h", "session_id": "s", "models": ["m"], "spans": []},
                            "an Exgentic agent trace row"),
    "aiperf.hub.weka": ("weka.jsonl", {"id": "t", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
                                       "requests": []}, "an AIPerf Weka trace"),
}  # fmt: skip
#: rows read through ``--dataset`` (specscope's own readers of those datasets, tests/workload/test_datasets.py)
DATASET_ROWS = {"aiperf.hub.speed_bench": "speed-bench", "aiperf.hub.blazedit": "blazedit",
                "aiperf.hub.instruct_coder": "instructcoder", "aiperf.hub.mt_bench": "mt-bench"}  # fmt: skip


def test_every_row_names_its_loader_at_a_commit_and_has_a_check() -> None:
    assert sorted([*ROWS, *DATASET_ROWS]) == sorted(h.key for h in HUB_DATASETS)
    keys = {lay.key for lay in CENSUS}
    for h in HUB_DATASETS:
        assert re.search(r"^ai-dynamo/aiperf \S+\.(py|yaml) .*@[0-9a-f]{8}", h.source), h.key
        assert h.specscope.startswith(("read:", "refused:")), h.key
        assert "->" in h.specscope if h.refused else h.layout in keys or "--dataset" in h.specscope, h.key
        assert "not read" not in h.source, h.key  # each loader module read (mt_bench.py, exgentic_v2.py cited)
    for key, dataset in DATASET_ROWS.items():
        assert f"--dataset {dataset}" in next(h.specscope for h in HUB_DATASETS if h.key == key)


@pytest.mark.parametrize("key", list(ROWS))
def test_a_row_of_the_datasets_columns_is_read_or_refused_as_the_census_says(tmp_path: Path, key: str) -> None:
    hub = next(h for h in HUB_DATASETS if h.key == key)
    name, row, shown = ROWS[key]
    path = tmp_path / name
    path.write_text(json.dumps([row]) if name.endswith(".json") else json.dumps(row) + "\n", "utf-8")
    if hub.refused:
        with pytest.raises(ConfigError) as err:
            load_prompt_file("mine", path)
        assert shown in err.value.message
        return
    (prompt,) = load_prompt_file("mine", path)
    assert prompt.messages[0]["content"] == shown
    assert hub.layout in prompt.meta["layout"]


def test_a_problem_row_with_a_text_column_is_read_and_the_refusal_names_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"prompt": "Kept.", "problem": "Not sent."}) + "\n", "utf-8")
    assert load_prompt_file("mine", path)[0].messages == [{"role": "user", "content": "Kept."}]
    path.write_text(json.dumps({"problem": "Solve."}) + "\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert err.value.fix == PROBLEM_REFUSAL[1]
    assert any("Exgentic" in what for _, what, _ in FOREIGN_LAYOUTS)


def test_an_mt_bench_prompts_export_is_one_conversation_per_row_named_by_its_loader(tmp_path: Path) -> None:
    """HuggingFaceH4/mt_bench_prompts (AIPerf ``spec_al_mtbench``) holds each question's turns as a ``prompt`` list
    with a ``prompt_id``: its JSON Lines export was refused at line 1 ("prompt [...] is not a non-empty string").
    AIPerf's MTBenchDatasetLoader sends the list as one conversation, each turn stripped, empty turns skipped."""
    path = tmp_path / "mt_bench_prompts.jsonl"
    rows = [{"prompt": ["Compose a blog post. ", "", "Rewrite it."], "prompt_id": 81, "category": "writing",
             "reference": []},
            {"prompt": ["One turn only."], "prompt_id": 82, "category": "math", "reference": ["4"]}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    first, second = load_prompt_file("mine", path)
    assert (first.messages, first.follow_ups) == (
        [{"role": "user", "content": "Compose a blog post."}],
        ("Rewrite it.",),
    )
    assert (second.messages, second.follow_ups) == ([{"role": "user", "content": "One turn only."}], ())
    assert (first.meta["row_id"], second.meta["row_id"], first.meta["category"]) == ("81", "82", "writing")
    assert first.meta["layout"] == ("aiperf.hub.mt_bench",)
    path.write_text(json.dumps({"prompt": ["", " "], "prompt_id": 83}) + "\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", path)
    assert err.value.message == f"{path}:1: prompt holds no turn with text"

"""Issue 36 item 3, what round 62 left (wl63):

* an MMStar row (Lin-Chen/MMStar) and a LLaVA-OneVision row (lmms-lab/LLaVA-OneVision-Data) were refused as "an image
  field (AIPerf SingleTurn / GuideLLM media)" and as ShareGPT4V: each is now named with its readers (vLLM's
  MMStarDataset / MultiModalConversationDataset, AIPerf's mmstar / llava_onevision) and the jq that writes the text
  they send;
* the jq of LLaMA-Factory's JSON-text ``tools`` read JSON Lines only and kept LLaMA-Factory's bare function
  definitions, which are no OpenAI tool objects.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jqfix import jq_command as _jq
from jqfix import run_jq as _run
from paths import DATA
from specscope.errors import ConfigError
from specscope.workload.census import EACH_ROW
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"


def _as_array(path: Path, tmp_path: Path) -> Path:
    """The rows of JSON Lines file ``path`` as one JSON array (``Dataset.to_json(lines=False)``)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = tmp_path / (path.stem + ".json")
    out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def _refusal(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    return err.value


@pytest.mark.parametrize("form", ["jsonl", "array"])
def test_an_mmstar_row_is_named_with_vllms_prompt_jq(form: str, tmp_path: Path) -> None:
    """vLLM's MMStarDataset (huggingface.py @237145ea) sends the question up to "Options:", stripped, with the image,
    asking 128 tokens; AIPerf's mmstar sends the whole question. The refusal names both; its jq writes vLLM's."""
    path = HERE / "mmstar.jsonl" if form == "jsonl" else _as_array(HERE / "mmstar.jsonl", tmp_path)
    err = _refusal(path)
    assert "an MMStar row (Lin-Chen/MMStar" in err.message, err.message
    assert "MMStarDataset" in err.message and "AIPerf" in err.message
    jq = _jq(err.fix or "")
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    assert "--max-tokens 128" in (err.fix or "")
    rows = load_prompt_file("a", _run(jq, path, tmp_path / "out.jsonl"))
    assert [p.messages for p in rows] == [
        [{"role": "user", "content": "Which option describe the object relationship in the image correctly?"}],
        [{"role": "user", "content": "What is the main color of the car?"}],
    ]
    assert [p.meta["row_id"] for p in rows] == ["0", "1"]


@pytest.mark.parametrize("form", ["jsonl", "array"])
def test_a_llava_onevision_row_is_named_with_its_readers_first_turn_jq(form: str, tmp_path: Path) -> None:
    """vLLM's MultiModalConversationDataset sends the first turn's value with the image, its output the second turn's
    token count; AIPerf's llava_onevision the first message with ``<image>`` removed. It was named ShareGPT4V."""
    path = HERE / "llava_onevision.jsonl" if form == "jsonl" else _as_array(HERE / "llava_onevision.jsonl", tmp_path)
    err = _refusal(path)
    assert "a LLaVA-OneVision row (lmms-lab/LLaVA-OneVision-Data" in err.message, err.message
    assert "ShareGPT4V" not in err.message
    assert "MultiModalConversationDataset" in err.message and "llava_onevision" in err.message
    jq = _jq(err.fix or "")
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    rows = load_prompt_file("a", _run(jq, path, tmp_path / "out.jsonl"))
    assert [p.messages for p in rows] == [
        [{"role": "user", "content": "Describe the picture."}],
        [{"role": "user", "content": "What is written on the sign?"}],
    ]
    assert [p.meta["recorded_answer"] for p in rows] == ["A red bus crossing a stone bridge.", "Stop."]


def test_a_sharegpt4v_row_keeps_its_own_refusal() -> None:
    """ShareGPT4V's ``image`` is a path (not a Hugging Face Image value): still named ShareGPT4V."""
    assert "ShareGPT4V" in _refusal(HERE / "sharegpt4v.jsonl").message


@pytest.mark.parametrize("form", ["jsonl", "array"])
def test_the_json_text_tools_jq_reads_both_forms_and_writes_openai_tools(form: str, tmp_path: Path) -> None:
    """LLaMA-Factory's ``tools`` column is JSON text of bare function definitions (``name``, ``description``,
    ``parameters``): the jq decodes it into OpenAI tool objects (``type: function``), on either file form."""
    src = HERE / "llamafactory_sharegpt_tools.jsonl"
    path = src if form == "jsonl" else _as_array(src, tmp_path)
    jq = _jq(_refusal(path).fix or "")
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    (p,) = load_prompt_file("a", _run(jq, path, tmp_path / "out.jsonl"))
    assert p.meta["tools"] == [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "d", "parameters": {"type": "object", "properties": {}}},
        }
    ]


# wl63 hunt: file forms of the readers' edge cases (GuideLLM's datasets JSON builder, pandas.read_json, AIPerf's line
# models), each written here from the writer's own form.

#: what ``jq '.[]' FILE`` (no -c) and ``json.dump(row, indent=2)`` per row write: objects one after another, each over
#: several lines; no reader takes it (pandas and the datasets builder read JSON Lines a line at a time)
_PRETTY = '{\n  "prompt": "Pretty one.",\n  "output_tokens_count": 3\n}\n{\n  "prompt": "Pretty two."\n}\n'


def test_pretty_printed_objects_one_after_another_are_named_with_jq_c(tmp_path: Path) -> None:
    """It was "invalid JSON (Expecting property name ...) at line 1", with no word of what the file is."""
    path = tmp_path / "rows.json"
    path.write_text(_PRETTY, encoding="utf-8")
    err = _refusal(path)
    assert err.message.startswith(f"{path}:1: 2 JSON objects, each over several lines"), err.message
    jq = _jq(err.fix or "")
    assert jq == "jq -c . FILE > OUT.jsonl"
    rows = load_prompt_file("a", _run(jq, path, tmp_path / "out.jsonl"))
    assert [(p.messages, p.meta.get("max_tokens")) for p in rows] == [
        ([{"role": "user", "content": "Pretty one."}], 3),
        ([{"role": "user", "content": "Pretty two."}], None),
    ]


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        # pandas DataFrame.to_json(orient="values"): a table's rows without its column names
        ("values.json", '[["What is 2+2?", 5], ["Name a color.", 3]]', "item 1"),
        ("values.jsonl", '["What is 2+2?", 5]\n["Name a color.", 3]\n', ":1"),
    ],
)
def test_rows_that_are_arrays_are_named_as_rows_without_column_names(
    name: str, text: str, where: str, tmp_path: Path
) -> None:
    """A row that is a JSON array was "a JSON list, not an object" with the generic fix; it is a table's row
    without its column names (pandas ``orient='values'``), and the jq that names its first value the prompt runs on
    both file forms."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    err = _refusal(path)
    assert where in err.message and "a JSON array of values" in err.message, err.message
    assert "orient 'values'" in err.message
    rows = load_prompt_file("a", _run(_jq(err.fix or ""), path, tmp_path / "out.jsonl"))
    assert [p.messages for p in rows] == [
        [{"role": "user", "content": "What is 2+2?"}],
        [{"role": "user", "content": "Name a color."}],
    ]


_VIEWER = {
    "features": [{"feature_idx": 0, "name": "prompt", "type": {"dtype": "string", "_type": "Value"}}],
    "rows": [
        {"row_idx": 0, "row": {"prompt": "From the viewer."}, "truncated_cells": []},
        {"row_idx": 1, "row": {"prompt": "Second viewer row."}, "truncated_cells": []},
    ],
    "num_rows_total": 2,
    "num_rows_per_page": 100,
    "partial": False,
}


@pytest.mark.parametrize("indent", [None, 2])
def test_a_dataset_viewer_rows_page_is_named_with_the_jq_over_its_rows(indent: int | None, tmp_path: Path) -> None:
    """A page of the Hugging Face dataset viewer's ``/rows`` (or ``/first-rows``) API saved as a file was "no
    messages/... field (keys: [features, num_rows_per_page, ...])"; on one line or pretty-printed, it is named with
    the jq that writes each ``row``."""
    path = tmp_path / "page.json"
    path.write_text(json.dumps(_VIEWER, indent=indent), encoding="utf-8")
    err = _refusal(path)
    assert "dataset viewer" in err.message and "`row_idx`" in err.message, err.message
    jq = _jq(err.fix or "")
    assert jq.startswith(f"jq -c '{EACH_ROW}")
    rows = load_prompt_file("a", _run(jq, path, tmp_path / "out.jsonl"))
    assert [p.messages[0]["content"] for p in rows] == ["From the viewer.", "Second viewer row."]


@pytest.mark.parametrize(
    "row",
    [
        {"input": "Embed me.", "model": "bge-large", "encoding_format": "float"},  # was sent as a chat prompt
        {"input": ["First text.", "Second text."], "dimensions": 256},  # was "turn 0 is a str"
        {"input": ["First text.", "Second text."]},
    ],
)
def test_an_embeddings_request_row_is_named_not_sent_as_chat(row: dict[str, object], tmp_path: Path) -> None:
    """SGLang's EmbeddingDataset (benchmark/datasets/embedding.py @18e95bb6) reads JSON Lines of OpenAI embeddings
    requests: ``input`` a text or a list of texts, its other fields (``encoding_format``, ``dimensions``) passed to
    /v1/embeddings. Such a row asks for no generated token: it has no speculative-decoding form."""
    path = tmp_path / "emb.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")  # two lines: JSON Lines
    err = _refusal(path)
    assert err.message.startswith(f"{path}:1: an embeddings request row"), err.message
    assert "EmbeddingDataset" in err.message
    assert "no specscope form" in (err.fix or "")


def test_an_input_row_without_embedding_fields_is_still_a_prompt(tmp_path: Path) -> None:
    """GuideLLM's mapper reads a text ``input`` column as the prompt: that reading is kept."""
    path = tmp_path / "in.jsonl"
    path.write_text('{"input": "Embed me."}\n', encoding="utf-8")
    (p,) = load_prompt_file("a", path)
    assert p.messages == [{"role": "user", "content": "Embed me."}]


def test_a_sharegpt_conversation_opening_with_an_answer_is_named(tmp_path: Path, capsys, monkeypatch) -> None:
    """A ShareGPT conversation whose first turn is the assistant's (a conversation continued from an earlier one) is
    sent from its first human turn; vLLM's and SGLang's ShareGPT readers send ``conversations[0]`` whatever its role
    (here the assistant's greeting, sized by the human turn after it). It was dropped without a word; the dry run
    now names it once for the file, with the row count."""
    from clirun import cli

    rows = [
        {"id": "a", "conversations": [{"from": "gpt", "value": "Hi, how can I help?"},
                                      {"from": "human", "value": "Tell a joke."}, {"from": "gpt", "value": "Knock."}]},
        {"id": "b", "conversations": [{"from": "system", "value": "Be brief."}, {"from": "gpt", "value": "Hello."},
                                      {"from": "human", "value": "Hi?"}, {"from": "gpt", "value": "Hey."}]},
        {"id": "c", "conversations": [{"from": "human", "value": "Q?"}, {"from": "gpt", "value": "A."}]},
    ]  # fmt: skip
    path = tmp_path / "share.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    got = load_prompt_file("a", path)
    assert [p.messages for p in got] == [
        [{"role": "user", "content": "Tell a joke."}],
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi?"}],
        [{"role": "user", "content": "Q?"}],
    ]
    assert [p.meta.get("opening_answer_fields") for p in got] == [("conversations",), ("conversations",), None]
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out.count("2 rows carry ShareGPT conversations that open with an assistant turn (conversations)") == 1
    assert "vLLM's and SGLang's ShareGPT readers send the first turn whatever its role" in out

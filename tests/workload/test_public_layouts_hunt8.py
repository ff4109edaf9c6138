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

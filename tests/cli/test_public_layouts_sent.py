"""Issue 36, "Done when": public dataset files of the wl59 and wl60 hunts sent through ``bench --workload`` against
the truth server, whose log is compared row by row with the messages and output lengths each row must get. The truth
server's ``/tokenize`` counts words, so a recorded answer of N words asks for N tokens; a row with no recorded answer
asks for ``--max-tokens``. A file that specscope refuses is sent here as its refusal's own jq converts it
(tests/workload/test_public_layouts_hunt4.py holds the refusals)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clirun import cli
from paths import DATA
from sent_rows import measured
from specscope.errors import ConfigError
from specscope.truth import TruthScript, TruthServer
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"
SYSTEM = "You are a helpful assistant, who always provide explanation."


def _user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def _converted(name: str, tmp_path: Path) -> Path:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", HERE / name)
    fix = err.value.fix or ""
    jq = fix[fix.index("jq ") : fix.index("FILE > OUT.jsonl") + len("FILE > OUT.jsonl")]
    out = tmp_path / f"{Path(name).stem}.converted.jsonl"
    subprocess.run(["sh", "-c", jq.replace("FILE > OUT.jsonl", f"{HERE / name} > {out}")], check=True)
    return out


#: vLLM's zeta prompt (NextEditPredictionDataset @0056b87f), the edits and the excerpt in its two slots
_ZETA = (
    "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an "
    "excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the "
    "cursor location.\n\n### User Edits:\n\n{}\n\n### User Excerpt:\n\n{}\n\n### Response:\n\n"
)
#: file (or a refused file, converted) -> every request its rows must make: (messages, max_tokens)
CASES: dict[str, list[tuple[list[dict[str, str]], int]]] = {
    "openorca.jsonl": [
        ([_user("Name the largest planet.")], 40),
        ([{"role": "system", "content": SYSTEM}, _user("Is ice cold?")], 40),
        ([{"role": "system", "content": SYSTEM}, _user("Why is the sky blue?")], 40),
    ],
    # recorded answers "One, two, three." (3 words)
    "slimorca.jsonl": [([{"role": "system", "content": "You are an AI assistant."}, _user("Count to three.")], 3)],
    # "Drops on the tin roof" (5), "Shakespeare, sadly." (2)
    "no_robots.jsonl": [
        ([_user("Write a haiku about rain.")], 5),
        ([{"role": "system", "content": "You are Marvin, a sad robot."}, _user("Who wrote Hamlet?")], 2),
    ],
    # "49." (1), "tac" (1)
    "openhermes25.json": [
        ([_user("Every day, a tree drops 7 leaves. How many in a week?")], 1),
        ([{"role": "system", "content": "You are a helpful assistant."}, _user("Spell cat backwards.")], 1),
    ],
    # the last answers "It is a classic." (4) and "4." (1); the first row ends with a user turn
    "guanaco.jsonl": [
        ([_user("Show a heading.\n### Title\nok"), {"role": "assistant", "content": "Here:\n### Title"},
          _user("Thanks")], 40),
        ([_user("Can you recommend a book?"), {"role": "assistant", "content": "Try 'Dune'."}, _user("Why?")], 4),
        ([_user("What is 2+2?")], 1),
    ],
    # the recorded tool call '<tool_call>{"name": "weather"}</tool_call>' (2 words) before the tool turn
    "hermes_function_calling.jsonl": [
        ([{"role": "system", "content": "You are a function calling AI model. <tools>[]</tools>"},
          _user("What's the weather in Paris?")], 2),
    ],
    "toxicchat.jsonl": [([_user("Tell me a joke about ducks.")], 40)],
    "squad_v1.json": [([_user("The Nile is in Africa.\n\nWhere is the Nile?")], 40)],
    # prompts up to the answer: no recorded answer, so --max-tokens
    "full_hh_rlhf.jsonl": [
        ([_user("What is a good name for a dog?")], 40),
        ([_user("Hi, can you help?"), {"role": "assistant", "content": "Sure."}, _user("Name a dog.")], 40),
    ],
    # vLLM's MLPerfDataset: each row's output length the token count of its `output` ("Yes, ice is cold." 4, "An
    # apple." 2); the empty system prompt of the second row not sent (wl60)
    "mlperf_llama2.jsonl": [
        ([{"role": "system", "content": "You are an AI assistant that helps people find information."},
          _user("Is ice cold?")], 4),
        ([_user("Name a red fruit.")], 2),
    ],
    # nvidia/Llama-Nemotron-Post-Training-Dataset: `output` the recorded answer, 7 and 1 words (wl60)
    "nemotron_post_training.jsonl": [
        ([{"role": "system", "content": "detailed thinking on"}, _user("What is 2+2?")], 7),
        ([{"role": "system", "content": "detailed thinking off"}, _user("Name a colour.")], 1),
    ],
    # wl61, sent as their refusals' jq writes them: XSum sized by its summaries (7 and 8 words), CoQA by the first
    # answer (6), Magicoder by its solution (7); OpenBookQA's lettered choices, no recorded answer (--max-tokens)
    "xsum.jsonl": [
        ([_user("Summarize the article in one sentence.\n\nThe full cost of damage in Newton Stewart is still being "
                "assessed. Repair work is ongoing in Hawick.")], 7),
        ([_user("Summarize the article in one sentence.\n\nA fire alarm went off at the Holiday Inn in Hope Street "
                "at about 04:20.")], 8),
    ],
    "coqa_hf.jsonl": [
        ([_user("The Vatican Apostolic Library is the library of the Holy See.\n\nWhat is the Vatican Apostolic "
                "Library?")], 6),
    ],
    "magicoder_oss.jsonl": [([_user("Write a Python function add(a, b) that returns the sum of two numbers.")], 7)],
    "openbookqa.jsonl": [
        ([_user("The sun is responsible for\n\nA. puppies learning new tricks\nB. children growing up and getting "
                "old\nC. flowers wilting in a vase\nD. plants sprouting, blooming and wilting")], 40),
    ],
    # vLLM's AIMODataset: `problem`, sized by `solution` (5, 1, 3 words); NextEditPredictionDataset: the zeta prompt,
    # sized by `output` from its marker (6, 4, 6 words)
    "aimo_validation_aime.jsonl": [
        ([_user("Find the sum of 2 and 3.")], 5), ([_user("What is 3 squared?")], 1), ([_user("What is 10 / 2?")], 3),
    ],
    "zeta.jsonl": [
        ([_user(_ZETA.format('User edited "a.py":\n+x = 1', "```a.py\n<|editable_region_start|>\nx = "
                             "<|user_cursor_is_here|>\n<|editable_region_end|>\n```"))], 6),
        ([_user(_ZETA.format('User edited "b.py"', "<|editable_region_start|>\ny<|editable_region_end|>"))], 4),
        ([_user(_ZETA.format('User edited "c.py"', "<|editable_region_start|>\nz<|editable_region_end|>"))], 6),
    ],
    # wl63: vLLM's MMStarDataset, the question up to "Options:" (no recorded answer: --max-tokens);
    # MultiModalConversationDataset, the first turn sized by the second ("A red bus crossing a stone bridge." 7,
    # "Stop." 1)
    "mmstar.jsonl": [
        ([_user("Which option describe the object relationship in the image correctly?")], 40),
        ([_user("What is the main color of the car?")], 40),
    ],
    "llava_onevision.jsonl": [([_user("Describe the picture.")], 7), ([_user("What is written on the sign?")], 1)],
}  # fmt: skip
REFUSED = ("guanaco.jsonl", "hermes_function_calling.jsonl", "toxicchat.jsonl", "squad_v1.json", "full_hh_rlhf.jsonl")
REFUSED += ("xsum.jsonl", "coqa_hf.jsonl", "magicoder_oss.jsonl", "openbookqa.jsonl", "aimo_validation_aime.jsonl")
REFUSED += ("zeta.jsonl", "mmstar.jsonl", "llava_onevision.jsonl")


def _requests(log: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted((json.dumps(r["messages"]), r["max_tokens"]) for r in measured(log))


@pytest.mark.parametrize("name", list(CASES))
def test_public_rows_reach_the_server_as_their_messages_and_lengths(
    name: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    path = _converted(name, tmp_path) if name in REFUSED else HERE / name
    with TruthServer(TruthScript(serve_tokenizer=True)) as ts:
        argv = ["bench", "--server", f"base={ts.base_url}", "--workload", f"x={path}", "--max-concurrency", "1"]
        argv += ["--repeats", "1", "--max-tokens", "40", "--out", tmp_path / "runs"]
        code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
        log = ts.served()
    assert code == 0, err
    assert _requests(log) == sorted((json.dumps(m), n) for m, n in CASES[name])

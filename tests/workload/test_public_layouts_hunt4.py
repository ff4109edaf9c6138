"""Public layouts of the fourth new-user hunt (issue 36, branch wl59), small rows in their own field names under
``tests/data/workload_public`` (SOURCES.md names each source).

Refused generically before (``no messages/conversations/... field (keys: ...)``, ``question {...} is not a non-empty
string``, ``turn 1 has role 'function_call'``) or sent with their recorded answers, now refused by name with the jq
that converts them, each jq run here and its output read:

* Stanford Human Preferences (stanfordnlp/SHP: ``history`` the post, two comments ``human_ref_A`` / ``_B``);
* ToxicChat (lmsys/toxic-chat: ``user_input``, ``model_output``);
* WebGPT comparisons (openai/webgpt_comparisons: ``question`` an object of ``full_text``);
* a Guanaco transcript (timdettmers/openassistant-guanaco: ``text`` of ``### Human: ... ### Assistant: ...`` turns):
  it was sent whole, its recorded answers inside the user's prompt;
* ShareGPT turns of a tool call or tool result (LLaMA-Factory's ``function_call`` / ``observation`` tags,
  NousResearch/hermes-function-calling-v1's ``tool``), and ShareGPT ``{from, value}`` turns under ``messages``;
* WildBench (a one-row file was taken for records wrapped under ``conversation_input``), BigCodeBench, SQuAD's
  published JSON, Self-Instruct (its instance's input was not sent), Natural Questions;
* an Anthropic HH transcript in ``prompt`` (Dahoas/full-hh-rlhf: sent with its markers), xLAM, CodeFeedback, BFCL;
* Gemini ``contents``, Bedrock's conversation schema, Cohere's chat roles;
* ARC's ``choices`` object, now named as the choices not sent with its own jq.

The layouts of this hunt that were already read right are pinned by their messages, ids and output lengths.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clirun import cli
from paths import DATA
from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"


def _refusal(name: str) -> ConfigError:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", HERE / name)
    return err.value


def _converted(name: str, tmp_path: Path) -> Path:
    """Run the refusal's own jq on the file; the path of its output."""
    fix = _refusal(name).fix or ""
    jq = fix[fix.index("jq ") : fix.index("FILE > OUT.jsonl") + len("FILE > OUT.jsonl")]
    out = tmp_path / "out.jsonl"
    command = jq.replace("FILE > OUT.jsonl", f"{HERE / name} > {out}")
    subprocess.run(["sh", "-c", command], check=True)
    return out


@pytest.mark.parametrize(
    ("name", "named"),
    [
        # was "no messages/conversations/... field (keys: ['c_root_id_A', ...])"
        ("shp.jsonl", "a Stanford Human Preferences row (stanfordnlp/SHP: `history` the post"),
        # was "no messages/conversations/... field (keys: ['conv_id', ...])"
        ("toxicchat.jsonl", "a ToxicChat row (lmsys/toxic-chat: `user_input` the user's prompt"),
        # was "question {'full_text': ...} is not a non-empty string"
        ("webgpt_comparisons.jsonl", "a WebGPT comparison row (openai/webgpt_comparisons: `question` an object"),
        # was sent whole: the recorded answers inside one user prompt
        ("guanaco.jsonl", 'a Guanaco transcript (timdettmers/openassistant-guanaco: `text` of "### Human:'),
        # was "turn 3 has role 'tool'"
        ("hermes_function_calling.jsonl", "a ShareGPT turn of a tool call or tool result (`from` 'tool'"),
        # was "turn 1 has role 'function_call'"
        ("llamafactory_glaive_toolcall.json", "a ShareGPT turn of a tool call or tool result (`from` 'function_call'"),
        # a one-row file was "one JSON object holding 1 record under `conversation_input`" with a jq that wrote each
        # message as a row; more rows were "no messages/conversations/... field (keys: [...])"
        ("wildbench.jsonl", "a WildBench task row (allenai/WildBench: `conversation_input` the chat"),
        # was "no messages/conversations/... field (keys: ['canonical_solution', ...])"
        ("bigcodebench.jsonl", "a BigCodeBench task row (bigcode/bigcodebench: `complete_prompt`"),
        # was "no messages/conversations/... field (keys: ['data', 'version'])"
        ("squad_v1.json", "a SQuAD file (rajpurkar/SQuAD-explorer's JSON: `version`, `data` of articles"),
        # was read: the instruction sent alone ("Fix the grammar."), the instance's input not sent
        ("self_instruct_user.jsonl", "a Self-Instruct task row (yizhongw/self-instruct: `instruction`, `instances`"),
        # was "turn 0 has role None"
        ("sharegpt_messages_fromvalue.jsonl", "ShareGPT turns (`from`, `value`) under `messages`"),
        # was sent as the prompt, its "Human:" / "Assistant:" markers included (a Nectar row of the same prompt is
        # refused by name)
        ("full_hh_rlhf.jsonl", 'a `prompt` that is a Human / Assistant transcript ("\\n\\nHuman:'),
        # was "no messages/conversations/... field (keys: ['answers', 'id', 'query', 'tools'])"
        ("xlam_fc.jsonl", "an xLAM function-calling row (Salesforce/xlam-function-calling-60k: `query`"),
        # was "no messages/conversations/... field (keys: ['answer', 'lang', 'query', 'resource'])"
        ("codefeedback_filtered.jsonl", "a `query` / `answer` row (m-a-p/CodeFeedback-Filtered-Instruction"),
        # was "question [[{'role': 'user', ... is not a non-empty string"
        ("bfcl.jsonl", "a Berkeley Function-Calling Leaderboard row (gorilla-llm/"),
        # was "content [{'role': 'user', 'parts': ...} is not a non-empty string"
        ("gemini_tuning.jsonl", "a Gemini `contents` row (Vertex AI supervised tuning"),
        # was "turn 0 has a None content part"
        ("bedrock_conversation.jsonl", "a Bedrock conversation row (Amazon Bedrock fine-tuning"),
        # was "turn 0 has role 'System'"
        ("cohere_chat.jsonl", "Cohere chat roles (`System`, `User`, `Chatbot`"),
        # was "no messages/conversations/... field (keys: ['annotations', 'document_text', ...])"
        ("nq_simplified.jsonl", "a Natural Questions row (google-research-datasets/natural-questions"),
    ],
)  # fmt: skip
def test_public_rows_refused_by_name(name: str, named: str) -> None:
    err = _refusal(name)
    where = f"{HERE / name}:1" if name.endswith(".jsonl") or name == "squad_v1.json" else f"{HERE / name} item 1"
    assert err.message.startswith(f"{where}: {named}"), err.message
    assert "jq -c" in (err.fix or ""), err.fix


@pytest.mark.parametrize(
    ("name", "messages", "ids"),
    [
        ("shp.jsonl", [[{"role": "user", "content": "Why do cats purr?"}]], ["himc90"]),
        ("toxicchat.jsonl", [[{"role": "user", "content": "Tell me a joke about ducks."}]],
         ["e0c9b3e05414814485dbdcb9a29334d502e59803af9c26df03e9d1de5e7afe67"]),
        ("webgpt_comparisons.jsonl", [[{"role": "user", "content": "Why is the sea salty?"}]], ["q1"]),
        ("guanaco.jsonl", [
            # a Markdown heading inside a turn is the turn's text, not a marker
            [{"role": "user", "content": "Show a heading.\n### Title\nok"},
             {"role": "assistant", "content": "Here:\n### Title"}, {"role": "user", "content": "Thanks"}],
            [{"role": "user", "content": "Can you recommend a book?"}, {"role": "assistant", "content": "Try 'Dune'."},
             {"role": "user", "content": "Why?"}],
            [{"role": "user", "content": "What is 2+2?"}],
        ], [None, None, None]),
        ("hermes_function_calling.jsonl", [[
            {"role": "system", "content": "You are a function calling AI model. <tools>[]</tools>"},
            {"role": "user", "content": "What's the weather in Paris?"},
        ]], ["85f6c398-69c7-4df2-aed1-29d614a93a26"]),
        ("llamafactory_glaive_toolcall.json", [[{"role": "user", "content": "What is the weather in Oslo?"}]], [None]),
        ("wildbench.jsonl", [[{"role": "user", "content": "Plan a trip to Rome."}]], ["wb-1"]),
        ("bigcodebench.jsonl", [[{"role": "user", "content": "Write f(x) returning the square root of x."}]],
         ["BigCodeBench/0"]),
        ("squad_v1.json", [[{"role": "user", "content": "The Nile is in Africa.\n\nWhere is the Nile?"}]], ["q1"]),
        ("self_instruct_user.jsonl", [[{"role": "user", "content": "Fix the grammar.\n\nHe go to school."}]],
         ["user_oriented_task_0"]),
        ("sharegpt_messages_fromvalue.jsonl", [[{"role": "user", "content": "Name a planet."}]], [None]),
        ("full_hh_rlhf.jsonl", [
            [{"role": "user", "content": "What is a good name for a dog?"}],
            [{"role": "user", "content": "Hi, can you help?"}, {"role": "assistant", "content": "Sure."},
             {"role": "user", "content": "Name a dog."}],
        ], [None, None]),
        ("xlam_fc.jsonl", [[{"role": "user", "content": "Where can I find live giveaways for beta access?"}]], [1]),
        ("codefeedback_filtered.jsonl",
         [[{"role": "user", "content": "Write a Python function that reverses a string."}]], [None]),
        ("bfcl.jsonl", [[{"role": "user", "content": "Find the area of a triangle with base 10 and height 5."}]],
         ["simple_0"]),
        ("gemini_tuning.jsonl", [[{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "Name a river."}]], [None]),
        ("bedrock_conversation.jsonl", [[{"role": "system", "content": "Be brief."},
                                         {"role": "user", "content": "Name an ocean."}]], [None]),
        ("cohere_chat.jsonl", [[{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "Name a sea."}]], [None]),
        ("nq_simplified.jsonl", [[{"role": "user", "content": "where is the nile river"}]], [None]),
    ],
)  # fmt: skip
def test_the_refusals_jq_converts_to_a_file_that_is_read(
    name: str, messages: list[list[dict[str, str]]], ids: list[str | None], tmp_path: Path
) -> None:
    got = load_prompt_file("a", _converted(name, tmp_path))
    assert [p.messages for p in got] == messages
    assert [p.meta.get("id") for p in got] == ids


def test_a_wildbench_file_of_many_rows_is_named_too(tmp_path: Path) -> None:
    path = tmp_path / "wb.jsonl"
    row = (HERE / "wildbench.jsonl").read_text("utf-8")
    path.write_text(row + row.replace("wb-1", "wb-2"), "utf-8")
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert err.value.message.startswith(f"{path}:1: a WildBench task row"), err.value.message


def test_the_tool_turn_fix_keeps_the_tools_as_definitions(tmp_path: Path) -> None:
    """LLaMA-Factory writes ``tools`` as the JSON text of the definitions; the fix decodes it, so the row is sent
    with them (a truncated conversation whose model may call the tool)."""
    (p,) = load_prompt_file("a", _converted("llamafactory_glaive_toolcall.json", tmp_path))
    assert [t["function"]["name"] if "function" in t else t["name"] for t in p.meta["tools"]] == ["get_weather"]


@pytest.mark.parametrize(
    ("name", "first", "ids", "recorded_answer"),
    [
        # Open-Orca/OpenOrca: `system_prompt` (may be empty) and `question`; `response` the reference
        ("openorca.jsonl", [{"role": "user", "content": "Name the largest planet."}],
         ["niv.242684", "flan.564327", "t0.1190221"], False),
        # Open-Orca/SlimOrca: ShareGPT `conversations` with a `system` turn and per-turn `weight`
        ("slimorca.jsonl", [{"role": "system", "content": "You are an AI assistant."},
                            {"role": "user", "content": "Count to three."}], [None], True),
        ("no_robots.jsonl", [{"role": "user", "content": "Write a haiku about rain."}], ["abc123", "def456"], True),
        ("aya_dataset.jsonl", [{"role": "user", "content": "What is the capital of Kenya?"}], [None, None], False),
        ("magpie.jsonl", [{"role": "user", "content": "Explain recursion briefly."}], [None], True),
        ("tulu3_sft.jsonl", [{"role": "user", "content": "Give me a synonym for fast."}],
         ["ai2-adapt-dev/oasst1_converted_1", "personahub_math_2"], True),
        ("openhermes25.json", [{"role": "user", "content": "Every day, a tree drops 7 leaves. How many in a week?"}],
         [None, "c4a8e1"], True),
        ("helpsteer2.jsonl", [{"role": "user", "content": "Summarise photosynthesis."}], [None, None], False),
        ("alpaca_eval.json", [{"role": "user", "content": "What are the names of some famous actors?"}],
         [None, None], False),
        ("gsm8k.jsonl", [{"role": "user", "content": "Tom has 3 apples and buys 2 more. How many does he have?"}],
         [None, None], False),
        ("humanevalplus.jsonl", [{"role": "user", "content": 'def add(a, b):\n    """Return a + b."""\n'}],
         ["HumanEval/0"], False),
        ("ultrafeedback_binarized.jsonl", [{"role": "user", "content": "List two primes."}], ["e1f2"], True),
        ("ifeval.jsonl", [{"role": "user", "content": "Write a 3-line poem about the sea, all lowercase."}],
         [None, None], False),
        ("infinity_instruct.jsonl", [{"role": "user", "content": "Name a colour."}], [17], True),
        # microsoft/orca-agentinstruct-1M-v1: `messages` as JSON text, decoded; its empty system message is sent as
        # recorded, as SGLang's openai and AIPerf's raw_payload readers send a row's messages
        # an Anthropic Messages body: top-level `system`, text parts with `type`
        ("anthropic_messages.jsonl", [{"role": "system", "content": "Be brief."},
                                      {"role": "user", "content": "Name a lake."}], [None], True),
        ("orca_agentinstruct.jsonl", [{"role": "system", "content": ""},
                                      {"role": "user", "content": "Summarise: cats nap."}], [None], True),
    ],
)  # fmt: skip
def test_public_layouts_read_right(name: str, first: list[dict[str, str]], ids: list[str | None],
                                   recorded_answer: bool) -> None:  # fmt: skip
    got = load_prompt_file("a", HERE / name)
    assert got[0].messages == first
    assert [p.meta.get("id") for p in got] == ids
    assert all(("recorded_answer" in p.meta) is recorded_answer for p in got), [sorted(p.meta) for p in got]


def test_arc_choices_are_named_with_the_jq_that_joins_them(tmp_path: Path, capsys, monkeypatch) -> None:
    """allenai/ai2_arc's ``choices`` is an object of ``text`` and ``label`` lists, not MMLU's list of strings: it was
    named among generic unread fields; it is now named as the choices not sent, with a jq for its shape."""
    path = HERE / "arc.jsonl"
    (p,) = load_prompt_file("a", path)
    assert p.messages == [{"role": "user", "content": "Which is a mammal?"}]
    assert p.meta["unsent_choice_fields"] == ("choices",)
    assert p.meta["unread_fields"] == ("answerKey",)
    code, out, err = cli(["bench", "--workload", f"a={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "1 row carries multiple-choice options (choices) that are not sent" in out
    note = out[out.index("an ARC `choices` object") :]
    jq = note[note.index("jq ") : note.index("FILE > OUT.jsonl") + len("FILE > OUT.jsonl")]
    converted = tmp_path / "arc.converted.jsonl"
    subprocess.run(["sh", "-c", jq.replace("FILE > OUT.jsonl", f"{path} > {converted}")], check=True)
    (q,) = load_prompt_file("a", converted)
    assert q.messages == [{"role": "user", "content": "Which is a mammal?\n\nA. shark\nB. whale\nC. trout\nD. eel"}]

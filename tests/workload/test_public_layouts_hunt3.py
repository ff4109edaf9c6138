"""Public layouts of the third new-user hunt (issue 36), small rows in their own field names under
``tests/data/workload_public`` (SOURCES.md names each source):

* Dolphin (cognitivecomputations/dolphin: ``instruction``, ``input``, ``output``) holds Alpaca's field names, but its
  ``instruction`` is one of a few system prompts shared by many rows; Alpaca's instructions are each unique
  (tatsu-lab/stanford_alpaca ``datasheet.md``). It was sent as user text before the input; an instruction shared by
  rows with different inputs is now the system message, the input the user message, named in a warning; an
  instruction found once keeps Alpaca's join; an empty instruction (Dolphin's empty system prompt) was refused, now
  the input is sent alone.
* MMLU-Pro (TIGER-Lab/MMLU-Pro: ``question``, ``options``): GuideLLM's column mapper, the one peer reader of such a
  row, sends ``question`` alone (it has no column for choices); so does specscope, and ``options`` is now named as the
  choices not sent with the jq that joins them in (it was in a generic list of unread fields).
* An openai/evals sample with a string ``input`` and ``ideal`` was labelled guidellm.jsonl and ``ideal`` warned about
  as an unknown field; it is now read as the evals layout (``ideal`` the reference, never sent).
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


def test_dolphin_shared_instruction_is_the_system_prompt() -> None:
    got = [p.messages for p in load_prompt_file("d", HERE / "dolphin.jsonl")]
    system = "You are an AI assistant. You will be given a task. You must generate a detailed and long answer."
    assert got == [
        [{"role": "system", "content": system}, {"role": "user", "content": "Describe a lighthouse in one sentence."}],
        [{"role": "system", "content": system}, {"role": "user", "content": "Name three primary colours."}],
        [{"role": "user", "content": "What is 2+2?"}],
        [{"role": "user", "content": "Translate the sentence to French.\n\nGood morning."}],
    ]


def test_dolphin_reading_is_named_in_the_dry_run(tmp_path: Path, capsys, monkeypatch) -> None:
    path = HERE / "dolphin.jsonl"
    code, out, err = cli(["bench", "--workload", f"d={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "warning: rows: d: 2 rows carry an `instruction` shared by rows with different inputs (instruction) that are "
        "read as a system prompt (Dolphin, cognitivecomputations/dolphin: a few system prompts over many rows): sent "
        "as the system message, the input as the user message; Alpaca's instructions are each unique "
        "(tatsu-lab/stanford_alpaca datasheet.md): one found once is sent before its input in one user message"
    ) in out


def test_mmlu_pro_options_are_named_with_their_conversion(tmp_path: Path, capsys, monkeypatch) -> None:
    (p,) = load_prompt_file("m", HERE / "mmlu_pro.jsonl")
    assert p.messages == [{"role": "user", "content": "Which gas makes up most of Earth's atmosphere?"}]
    assert p.meta["unsent_choice_fields"] == ("options",)
    path = HERE / "mmlu_pro.jsonl"
    code, out, err = cli(["bench", "--workload", f"m={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "warning: rows: m: 1 row carries multiple-choice options (options) that are not sent: GuideLLM's column "
        "mapper, the peer reader of a `question` row, has no column for them and sends the question alone, and so "
        'does specscope; to send them, join them into the question: jq -c \'(if type == "array" then .[] else . end) | '
        '.question += "\\n\\n" + ([.options | '
        'to_entries[] | "\\([.key + 65] | implode). \\(.value)"] | join("\\n")) | del(.options)\' FILE > OUT.jsonl'
    ) in out
    assert "does not read as guidellm.jsonl (answer, answer_index, cot_content, src)" in out


def test_openai_evals_text_input_is_the_evals_layout() -> None:
    first, second = load_prompt_file("e", HERE / "openai_evals_text.jsonl")
    assert first.messages == [{"role": "user", "content": "What is the capital of France?"}]
    assert second.messages == [{"role": "user", "content": "2+2="}]
    for p in (first, second):
        assert p.meta["layout"] == ()
        assert "unread_fields" not in p.meta


def test_open_platypus_input_before_instruction_is_alpaca() -> None:
    """garage-bAInd/Open-Platypus orders its columns ``input``, ``output``, ``instruction``: the row was read by its
    first text column, ``input`` (mostly empty: refused as "input '' is not a non-empty string"; else the input sent
    without its instruction). A row of ``instruction`` and ``input`` is Alpaca's whatever the key order."""
    first, second = load_prompt_file("p", HERE / "open_platypus.jsonl")
    assert first.messages == [{"role": "user", "content": "What is 6 times 7?"}]
    assert second.messages == [{"role": "user", "content": "Solve for x.\n\nx + 2 = 5"}]
    for p in (first, second):
        assert p.meta["layout"] == ()
        assert "unsent_text_columns" not in p.meta
        assert p.meta["unread_fields"] == ("data_source",)


def test_glaive_function_calling_row_is_refused_by_name() -> None:
    """glaiveai/glaive-function-calling-v2 (``system``, ``chat`` a USER / ASSISTANT transcript): no peer reader takes
    it (GuideLLM's mapper finds no text column); it was refused with "no messages/conversations/... field"."""
    path = HERE / "glaive_function_calling.jsonl"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("g", path)
    assert str(err.value) == (
        f"{path}:1: a Glaive function-calling row (glaiveai/glaive-function-calling-v2: `system` the function "
        "definitions, `chat` a USER / ASSISTANT / FUNCTION RESPONSE transcript; no prompt field); expected: a prompt "
        "or messages per row; fix: write its first user turn as `messages` after the system message, e.g. jq -c "
        '\'(if type == "array" then .[] else . end) | {messages: [{role: "system", content: (.system | '
        'ltrimstr("SYSTEM: "))}, {role: "user", content: '
        '(.chat | split("ASSISTANT:")[0] | ltrimstr("USER: ") | gsub("^\\\\s+|\\\\s+$"; ""))}]}\' FILE > OUT.jsonl'
    )


def test_role_content_sharegpt_array_is_named_by_no_array_reader(tmp_path: Path, capsys, monkeypatch) -> None:
    """ShareGPT rows whose turns are ``role`` / ``content`` in one JSON array were labelled vllm.sharegpt, but vLLM's
    and SGLang's ShareGPT readers take each turn's ``value`` (a KeyError) and AIPerf's skips a row without it; only
    SGLang's custom reader takes ``content``, from JSON Lines. The row is sent as before; the label is specscope's."""
    path = HERE / "sharegpt_role_content.json"
    (p,) = load_prompt_file("r", path)
    assert p.messages == [{"role": "user", "content": "Name a prime number."}]
    assert p.meta["layout"] == ()
    assert "unread_fields" not in p.meta
    code, out, err = cli(["bench", "--workload", f"r={path}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "vllm.sharegpt" not in out
    assert (
        "ShareGPT rows with `role` / `content` turns in one JSON array: vLLM's and SGLang's ShareGPT readers take "
        "each turn's `value` and fail on them, AIPerf's skips them; SGLang's custom reader (sglang.custom) reads "
        "`content` from JSON Lines: jq -c '.[]' FILE > OUT.jsonl"
    ) in out


def test_sharegpt4v_image_is_refused_with_its_reader_and_a_text_conversion(tmp_path: Path) -> None:
    """A ShareGPT4V row (``image`` beside ``conversations``) was refused as "AIPerf SingleTurn / GuideLLM media"
    without a conversion; vLLM's ShareGPT reader is the one that sends its image (and SGLang's custom reader, from
    JSON Lines). The fix's jq writes the text conversations, which specscope reads as ShareGPT."""
    path = HERE / "sharegpt4v.json"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("v", path)
    jq = 'jq \'[.[] | del(.image) | .conversations[].value |= gsub("<image>\\n?"; "")]\' FILE > OUT.json'
    assert str(err.value) == (
        f"{path} item 1: an `image` beside ShareGPT `conversations` (ShareGPT4V, Lin-Chen/ShareGPT4V: vLLM's "
        "ShareGPT reader, vllm-project/vllm vllm/benchmarks/datasets.py @0056b87f ShareGPTDataset, sends the image "
        "file with the first turn, as does SGLang's custom reader from JSON Lines); expected: text only; fix: "
        f"specscope sends text: drop the image and its <image> tag to send the text conversations: {jq}"
    )
    out = tmp_path / "out.json"
    command = jq.replace("FILE > OUT.json", f"{path} > {out}")
    subprocess.run(["sh", "-c", command], check=True)
    (p,) = load_prompt_file("v", out)
    assert p.messages == [{"role": "user", "content": "What is shown in the picture?"}]
    assert p.meta["layout"] == ("vllm.sharegpt", "sglang.sharegpt", "aiperf.sharegpt")


def test_wizardlm_v2_idx_is_the_row_id() -> None:
    """WizardLMTeam/WizardLM_evol_instruct_V2_196k names its rows ``idx``; it was warned about as an unread field
    and the row named by its position. No census reader reads a ShareGPT row's id (vLLM: prefix + index; SGLang:
    none; AIPerf: a generated session id), so ``idx`` is specscope's row id, as ``id`` is."""
    (p,) = load_prompt_file("w", HERE / "wizardlm_v2.json")
    assert p.meta["row_id"] == "tPjE8sy"
    assert "unread_fields" not in p.meta


def test_mbpp_row_is_aiperf_single_turn_with_its_reference_fields_named() -> None:
    """An MBPP row (``task_id``, ``text``, ``code``, ``test_list`` ...): AIPerf's SingleTurn (models.py @0109a64e,
    a pydantic AIPerfBaseModel that does not forbid extra fields) accepts it and sends ``text``, so the label stands;
    its reference solution and tests were warned about as unknown fields, they are now named as never sent."""
    path = HERE / "mbpp.jsonl"
    (p,) = load_prompt_file("m", path)
    assert p.messages == [
        {"role": "user", "content": "Write a function to find the shared elements from the given two lists."}
    ]
    assert p.meta["row_id"] == "2"
    assert p.meta["layout"] == ("aiperf.single_turn", "aiperf.random_pool", "guidellm.jsonl")
    assert "unread_fields" not in p.meta

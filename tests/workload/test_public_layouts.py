"""Public dataset and benchmark question files the census had not met (issue 36 hunt), small rows in their own field
names under ``tests/data/workload_public`` (SOURCES.md names each layout's source):

* Arena-Hard-Auto ``question.jsonl`` (lmarena/arena-hard-auto ``gen_answer.py`` @01109e99: each ``turns[j]["content"]``
  a user turn, sent after the model's answer to the one before): refused as "turn 1 is NoneType, not text"; now read
  as a conversation, row id ``question_id``.
* CNN/DailyMail (``article``, ``highlights``), a raw ShareGPT export (``items``), LIMA (``conversations`` of plain
  strings) and OpenAssistant message rows (``message_id``, ``parent_id``, role ``prompter``): no peer tool's file reader
  takes them; they were refused with a generic "no ... field" or a message about another layout; now refused by
  name with what to convert them to. So are OpenAI Batch API request lines (``custom_id``, ``method``, ``url``,
  ``body``: a batch runner's input), which were refused with "no messages/conversations/... field (keys: ['body',
  'custom_id', 'method', 'url'])".
* HumanEval's ``task_id`` and UltraChat's ``prompt_id`` are the row ids (they were ``line 1``).
"""

from __future__ import annotations

import pytest

from paths import DATA
from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file

HERE = DATA / "workload_public"


def test_arena_hard_turns_of_content_are_a_conversation() -> None:
    got = [
        (p.messages, p.follow_ups, p.meta["row_id"]) for p in load_prompt_file("a", HERE / "arena_hard_question.jsonl")
    ]
    assert got == [
        ([{"role": "user", "content": "Write a function that tells whether a number is prime."}], (), "q-prime"),
        ([{"role": "user", "content": "Name a sorting algorithm."}], ("Now give its complexity.",), "q-two"),
    ]


@pytest.mark.parametrize(
    ("name", "named", "fix"),
    [
        ("cnn_dailymail.jsonl", "a CNN/DailyMail row (`article`, `highlights`", "`prompt`"),
        ("sharegpt_raw.jsonl", "a raw ShareGPT export row (`items`", "`conversations`"),
        ("lima.jsonl", "a `conversations` list of plain strings (LIMA", "`messages`"),
        ("oasst1_messages.jsonl", "an OpenAssistant message row (`message_id`, `parent_id`", "`messages`"),
        ("openai_batch.jsonl", "an OpenAI Batch API request line (`custom_id`, `method`, `url`, `body`", "`body`"),
        # was "no messages/conversations/... field (keys: ['custom_id', 'params'])"
        (
            "message_batches.jsonl",
            "a Message Batches request line (`custom_id`, `params`",
            "jq -c '(if type == \"array\" then .[] else . end) | .params'",
        ),
        (
            "fastchat_model_answer.jsonl",
            "a FastChat model answer row (`question_id`, `answer_id`, `model_id`, `choices`",
            "question.jsonl",
        ),
    ],
)
def test_unread_public_rows_refused_by_name(name: str, named: str, fix: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", HERE / name)
    assert err.value.message.startswith(f"{HERE / name}:1: {named}"), err.value.message
    assert fix in (err.value.fix or ""), err.value.fix


@pytest.mark.parametrize(
    ("name", "row_id"),
    [("humaneval.jsonl", "HumanEval/0"), ("ultrachat_200k.jsonl", "8f3e2a"), ("lmsys_chat_1m.jsonl", "c0ffee01"),
     ("wildchat.jsonl", "9a1b2c3d"), ("arena_hard_v2_question.jsonl", "0f1a2b3c4d5e6f70")],
)  # fmt: skip
def test_dataset_ids_are_row_ids(name: str, row_id: str) -> None:
    (p,) = load_prompt_file("a", HERE / name)
    assert p.meta["row_id"] == row_id


def test_multi_turn_generator_config_refused_by_name() -> None:
    """A synthetic conversation config (``"filetype": "generate_conversations"``, the multi-turn benchmark's
    ``generate_multi_turn.json``) was refused as "one JSON object over 36 lines"."""
    path = HERE / "generate_multi_turn.json"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert err.value.message.startswith(f"{path}: a vLLM multi-turn synthetic conversation config"), err.value.message
    assert "--context-tokens" in (err.value.fix or "")


def test_longbench_context_column_not_sent_is_named(tmp_path, capsys, monkeypatch) -> None:
    """A THUDM/LongBench (v1) row (``input``, ``context``, ``answers``, ...: the README's data format) is a GuideLLM
    row: its mapper sends the first text column in the row's order (mappers.py @0016f762 ``datasets_mappings``), the
    question in ``input``, and so does specscope. The long document in ``context`` was dropped with no word (the
    warning named ``answers``, ``length``, ... but not it): a long-context file sent as short questions. It is named."""
    from clirun import cli

    path = HERE / "longbench_v1.jsonl"
    (p,) = load_prompt_file("a", path)
    assert p.messages == [
        {"role": "user", "content": "Which case was decided first, the river case or the harbour case?"}
    ]
    assert p.meta["unsent_text_columns"] == ("context",)
    argv = ["bench", "--server", "mtp=http://127.0.0.1:9", "--workload", f"lb={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "warning: rows: lb: 1 row carries text columns besides the one sent (context) that are not sent: GuideLLM's "
        "column mapper sends a row's first text column only, in the file's column order, and so does specscope; "
        "to send them, join them into that column"
    ) in out + err


def test_a_headerless_csv_is_refused_at_its_first_line() -> None:
    """MMLU's CSV files (hendrycks/test ``data/test/*_test.csv``) have no header line. The first question was read as
    the header and the error pointed at line 2 ("no messages/... field (keys: ['0', '2', '4', '6', 'B', 'Find ...'])",
    fix "fix ...csv:2"), a line with nothing wrong in it. Line 1 is named as data read as a header, and the fix is a
    header line."""
    path = HERE / "mmlu_headerless.csv"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert err.value.message.startswith(
        f"{path}:1: a first line that reads as data, not a header (`Find the order of the element 3 in the group Z_7 "
        "under multiplication.`, `2`, `3`, `6`, `7`, `C`)"
    ), err.value.message
    assert "add a header line" in (err.value.fix or ""), err.value.fix


def test_an_html_page_saved_as_the_file_is_refused_by_name() -> None:
    """april-tools/mtpc ``data/spec_bench/question.jsonl`` @1cf7c640 is GitHub's HTML page of Spec-Bench's file,
    saved under its name. ``--workload`` sent its lines as prompts (``<!DOCTYPE html>``, ``<html``, ``lang="en"``:
    14 rows, a non-JSON line of a .jsonl file being a text prompt); it is refused by name, with the raw file as the
    fix."""
    path = HERE / "github_blob_page.jsonl"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", path)
    assert err.value.message == (
        f"workload file {path} is an HTML page (a web page saved in place of the file it is named for)"
    )
    assert err.value.found == "`<!DOCTYPE html>` on line 7"
    assert "the Raw link" in (err.value.fix or "")


@pytest.mark.parametrize(
    ("name", "orient"),
    [("pandas_to_json_default.json", "columns"), ("pandas_to_json_index.json", "index"),
     ("pandas_to_json_split.json", "split")],
)  # fmt: skip
def test_a_pandas_to_json_table_is_refused_by_name(name: str, orient: str) -> None:
    """``DataFrame.to_json(path)`` (pandas' default orient ``columns``) was refused as "prompt {'0': ..., '1': ...} is
    not a non-empty string"; ``orient="index"`` as "no messages/... field (keys: ['0', '1'])"; ``orient="split"`` as
    "one JSON object of columns (2 values each: columns, data, index)" with a ``Dataset.from_dict`` fix that makes rows
    of those three keys. The datasets JSON builder reads each as one row (SOURCES.md): refused by name, with the
    pandas call that writes JSON Lines."""
    path = HERE / name
    with pytest.raises(ConfigError) as err:
        load_prompt_file("p", path)
    assert err.value.one_line() == (
        f"{path}:1: one JSON object that is a pandas table (DataFrame.to_json, orient '{orient}': 2 rows of prompt, "
        "output_tokens_count); expected: JSON Lines (one record per line) or one JSON array of records; fix: the "
        "datasets JSON builder (which GuideLLM reads a .json file with) reads it as one row; write one record per "
        f"line: pandas.read_json(FILE, orient='{orient}').to_json(OUT.jsonl, orient='records', lines=True)"
    )


def test_capybara_conversation_of_pairs_is_refused_by_name() -> None:
    """Capybara's ``conversation`` of ``{input, output}`` pairs was refused as "turn 0 value is None", then as "turn 0
    has no 'value'" (third hunt: no layout named, no conversion); no peer tool reads it (SGLang's custom reader takes
    ``content`` / ``value`` turns), and it is refused by name with the jq that writes it as ShareGPT."""
    path = HERE / "capybara.jsonl"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("c", path)
    assert str(err.value) == (
        f"{path}:1: a `conversation` of {{input, output}} pairs (Capybara, LDJnr/Capybara: each pair a user turn and "
        "its recorded answer; the ShareGPT readers take {from, value} turns); expected: a prompt or messages per row; "
        'fix: write it as ShareGPT: jq -c \'(if type == "array" then .[] else . end) | '
        '{conversations: [.conversation[] | {from: "human", value: .input}, '
        '{from: "gpt", value: .output}]}\' FILE > OUT.jsonl'
    )


def test_an_alpaca_rows_history_is_sent_before_its_instruction() -> None:
    """LLaMA-Factory's alpaca ``history`` (earlier rounds, each a [question, answer] pair put before the instruction by
    its converter) was dropped with no word: the row was sent as "And in French?" alone. The rounds are now the
    messages before the instruction, named as recorded history; an empty ``history`` changes nothing."""
    first, second = load_prompt_file("a", HERE / "llamafactory_alpaca_history.jsonl")
    assert first.messages == [
        {"role": "system", "content": "You are a translator."},
        {"role": "user", "content": "Say hello in German."},
        {"role": "assistant", "content": "Hallo"},
        {"role": "user", "content": "In Spanish?"},
        {"role": "assistant", "content": "Hola"},
        {"role": "user", "content": "And in French?"},
    ]
    assert first.meta["recorded_history_fields"] == ("history",)
    assert second.messages == [{"role": "user", "content": "Name a prime."}]
    assert "recorded_history_fields" not in second.meta


def test_a_recorded_tool_call_turn_is_named_as_one() -> None:
    """An assistant turn of ``tool_calls`` with no ``content`` (a fine-tuning row with a tool call) was refused as
    "turn 1 content is None"; it is named as the tool call it is (tool turns are refused: specscope sends text)."""
    path = HERE / "openai_finetune_tool_calls.jsonl"
    with pytest.raises(ConfigError) as err:
        load_prompt_file("t", path)
    assert str(err.value).startswith(f"{path}:1: turn 1 is an assistant tool call (tool_calls) with no text ([{{'id'")


def test_token_count_sessions_without_timestamps_are_not_sent_between_trace_and_workload() -> None:
    """AIPerf MooncakeTrace sessions timed by ``delay`` (no ``timestamp``): ``--workload`` refused them with "pass the
    file with --trace FILE", and ``--trace`` with "send the prompts as a workload: --workload NAME=FILE", each
    sending the user to the other. Rows of token counts only replay on a clock: both now say to add timestamps."""
    from specscope.workload.trace import load_trace

    path = HERE / "aiperf_mooncake_sessions_delay.jsonl"
    with pytest.raises(ConfigError) as trace_err:
        load_trace(path)
    assert "--workload" not in (trace_err.value.fix or "")
    assert trace_err.value.fix == (
        "add timestamp (ms from the trace's start) to each row (a session's `delay`, ms after the previous turn in "
        "AIPerf's MooncakeTrace, is not an arrival)"
    )
    with pytest.raises(ConfigError) as workload_err:
        load_prompt_file("m", path)
    assert "each row needs its timestamp (ms)" in (workload_err.value.fix or "")


# Issue 36, second hunt (branch nuw55): public rows that were refused generically ("no messages/conversations/...
# field (keys: ...)", "input [...] is not a non-empty string", "one JSON object of columns") are refused by name with
# what to write instead; each file's source is in tests/data/SOURCES.md.
@pytest.mark.parametrize(
    ("name", "named", "fix"),
    [
        ("hh_rlhf.jsonl", "a preference pair row (`chosen`, `rejected`", "`messages`"),
        ("metamathqa.jsonl", "a `query` / `response` row (meta-math/MetaMathQA", "{prompt: .query}"),
        ("livecodebench.jsonl", "a LiveCodeBench problem row", "question_content"),
        ("swebench.jsonl", "a SWE-bench task row (`instance_id`", "`text` column"),
        # was "prompt {'message_id': ... is not a non-empty string"
        ("oasst2_trees.jsonl", "an OpenAssistant message tree (`message_tree_id`, `prompt`", "`messages` row"),
        # was "one JSON object of columns (1 values each: completion, prompt)"
        ("trl_conv_prompt_completion.jsonl", "a `prompt` list of messages with a `completion` (TRL",
         "(.prompt + .completion)"),
        # was "one JSON object of columns (1 values each: data)"
        ("genaiperf_inputs.json", "a GenAI-Perf inputs.json", "jq -c '(if type == \"array\" then .[] else . end) | "
            ".data[].payload[]'"),
        # was "no messages/conversations/... field (keys: ['data', 'id'])"
        ("ultrachat_raw.jsonl", "an `id` / `data` row (stingning/ultrachat", "`messages`"),
        # was sent: the prompt '["Is it morally right ...", "OK, does pineapple ..."]', brackets and quotes included
        ("arena_hp55k.jsonl", "an Arena human-preference row (`prompt`, `response_a`, `response_b`",
         "(.prompt | fromjson)"),
        # was "turns is not a non-empty list" (Nectar's `turns` is a count)
        ("nectar.jsonl", "a Nectar row (berkeley-nest/Nectar", "`messages`"),
        # was "turn 1 content is {'answer': ...}; expected: a string or a list of text parts"
        ("arena_hard_v2_answer.jsonl", "an Arena-Hard-Auto model answer row (`uid`, `ans_id`", "question.jsonl"),
        # was "tools '' is not a non-empty list of tool definitions" for LLaMA-Factory's JSON-text `tools`
        ("llamafactory_sharegpt_tools.jsonl", "tools is JSON text (", ".tools |= (fromjson"),
    ],
)  # fmt: skip
def test_public_rows_without_a_prompt_refused_by_name(name: str, named: str, fix: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_prompt_file("a", HERE / name)
    assert err.value.message.startswith(f"{HERE / name}:1: {named}"), err.value.message
    assert fix in (err.value.fix or ""), err.value.fix


def test_swebench_oracle_text_is_the_prompt() -> None:
    """A SWE-bench row that carries the built prompt (princeton-nlp/SWE-bench_oracle's ``text``) is read by it, not
    refused as a task row."""
    (p,) = load_prompt_file("a", HERE / "swebench_oracle.jsonl")
    assert p.messages == [
        {
            "role": "user",
            "content": "You will be provided with a partial code base and an issue statement explaining a problem to "
            "resolve.\n<issue>\nseparability\n</issue>",
        }
    ]


def test_llamafactory_sharegpt_empty_tools_and_system() -> None:
    """LLaMA-Factory's sharegpt row: `tools` "" (no tools; it was refused as "tools '' is not a non-empty list of tool
    definitions") and a top-level `system` sent as the system message; the recorded answer sizes the output."""
    (p,) = load_prompt_file("a", HERE / "llamafactory_sharegpt.jsonl")
    assert p.messages == [
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "What is the boiling point of water?"},
    ]
    assert "tools" not in p.meta
    assert p.meta["recorded_answer"] == "100 C at sea level."


def test_pairwise_row_with_a_plain_prompt_is_read() -> None:
    """A pairwise row whose `prompt` is plain text (not an Arena JSON list) is read by that prompt, even one that
    opens with a bracket."""
    (p,) = load_prompt_file("a", HERE / "pairwise_plain.jsonl")
    assert p.messages == [{"role": "user", "content": "[draft] Write a haiku."}]


def test_nemo_chat_sft_roles_are_read() -> None:
    """NeMo's chat SFT layout (nvidia/Daring-Anteater: top-level `system`, `mask`, `conversations` of `{from: "User" /
    "Assistant", value, label}`) was refused as "turn 0 has role 'User'"; now a chat: the system message, the turns up
    to the last user turn, the recorded answer ("11") sizing the output."""
    (p,) = load_prompt_file("a", HERE / "daring_anteater.jsonl")
    assert p.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Name a prime number."},
        {"role": "assistant", "content": "7"},
        {"role": "user", "content": "Another?"},
    ]
    assert p.meta["recorded_answer"] == "11"


def test_openai_evals_input_messages_are_read() -> None:
    """An openai/evals registry sample (`input` chat messages, `ideal` the reference): was refused as "input [...] is
    not a non-empty string"; now its messages are sent as they stand, `ideal` never."""
    (p,) = load_prompt_file("a", HERE / "openai_evals.jsonl")
    assert p.messages == [
        {"role": "system", "content": "Answer with one word."},
        {"role": "user", "content": "What colour is the sky?"},
    ]
    assert "Blue" not in repr(p.messages)

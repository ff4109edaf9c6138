"""Which census layout (:data:`specscope.workload.census.CENSUS`) a row of a ``--workload`` file was read as.

:func:`layout_keys` names, for one raw record and the form of its file, the census rows whose readers take that record
as it is (several tools share a layout: ShareGPT is vLLM's, SGLang's and AIPerf's), or none for a record shape of
specscope's own table (OpenAI chat ``messages``, Alpaca): ``bench --dry-run`` prints them with their sources. The
tests are the fields each census row names (its ``prompt`` / ``ids`` columns), read in the order
:mod:`specscope.workload.userfile` reads a record, so the name printed is the reading the run does.
"""

from __future__ import annotations

from typing import Any, Literal

from specscope.workload.census import (
    ARENA_FIELDS,
    AUTOBENCH_FIELDS,
    FIELD_USE,
    LONGBENCH_V2_FIELDS,
    MESSAGES_FIELDS,
    MLPERF_FIELDS,
    SAGEMAKER_FIELDS,
    SHAREGPT_FIELDS,
)
from specscope.workload.census_hub import is_mt_bench_prompts
from specscope.workload.userfile_fields import first_text_field, guidellm_columns, guidellm_only_columns
from specscope.workload.userfile_sessions import multi_turn_row_turns, sent_as_recorded

__all__ = [
    "Shape",
    "layout_keys",
    "fields_layouts",
    "is_evals_sample",
    "is_mlperf_row",
    "is_nemotron_post_training",
    "own_layout",
    "OWN_LAYOUT",
    "TSV_LAYOUT",
    "ROLE_CONTENT_ARRAY_LAYOUT",
]

#: the form of a file, as :func:`specscope.workload.userfile.load_prompt_rows` tells it
Shape = Literal["text", "csv", "tsv", "jsonl", "array", "inputs_json", "agentic"]
#: what a row of no census layout is (a record shape of specscope's own table)
OWN_LAYOUT = "a record of docs/workloads.md 'User prompt files' (OpenAI chat messages, Alpaca, text)"
#: what a row of a ``.tsv`` file is: no peer tool reads one (GuideLLM's ``CSVFileDatasetDeserializer`` takes ``.csv``
#: only, file.py @03820eba); it was labelled guidellm.csv
TSV_LAYOUT = (
    "a .tsv table read by its header, each row by GuideLLM's column names as a guidellm.csv row (no peer tool reads a "
    ".tsv file: GuideLLM's CSV reader takes .csv only)"
)
#: what a JSON array's ShareGPT row of ``role`` / ``content`` turns is: vLLM's ``ShareGPTDataset`` (@0056b87f) and
#: SGLang's ``sample_sharegpt_requests`` (bench_serving.py @0033168f) take ``conversations[0]["value"]`` (a
#: KeyError), AIPerf's ``ShareGPTLoader`` (sharegpt.py @2980cd9e) skips a row whose first turns have no ``value``;
#: SGLang's ``sample_custom_requests`` (custom.py @3c1efe01) takes ``content``, from JSON Lines only. It was labelled
#: vllm.sharegpt.
ROLE_CONTENT_ARRAY_LAYOUT = (
    "ShareGPT rows with `role` / `content` turns in one JSON array: vLLM's and SGLang's ShareGPT readers take each "
    "turn's `value` and fail on them, AIPerf's skips them; SGLang's custom reader (sglang.custom) reads `content` "
    "from JSON Lines: jq -c '.[]' FILE > OUT.jsonl"
)

_BY_SHAPE: dict[str, tuple[str, ...]] = {
    "text": ("guidellm.txt", "vllm.sonnet"),
    "csv": ("guidellm.csv",),
    "tsv": (),
    "inputs_json": ("aiperf.inputs_json",),
    "agentic": ("sglang.agentic_trace",),
}


def is_evals_sample(record: dict[str, Any]) -> bool:
    """Whether ``record`` is an openai/evals sample: ``input`` a list (chat format), or a string beside ``ideal`` (the
    reference answer; such a row was labelled guidellm.jsonl and ``ideal`` named as an unknown field). Its text is
    the user message: openai/evals @16257999 ``evals/prompt/base.py`` ``ChatCompletionPrompt`` sends a string
    ``input`` to a chat model as one system message, a chat without a user turn, which no workload is."""
    value = record.get("input")
    return isinstance(value, list) or (isinstance(value, str) and record.get("ideal") is not None)


def is_nemotron_post_training(record: dict[str, Any]) -> bool:
    """Whether ``record`` is a Llama-Nemotron post-training row: ``input`` a non-empty list of ``role`` / ``content``
    messages and ``output`` a string, with no ``ideal`` (an openai/evals sample's reference); its ``output`` is the
    recorded answer (:data:`~specscope.workload.census.NEMOTRON_POST_TRAINING_LABELS`)."""
    chat = record.get("input")
    return (
        isinstance(chat, list)
        and bool(chat)
        and all(isinstance(m, dict) and "role" in m and "content" in m for m in chat)
        and isinstance(record.get("output"), str)
        and "ideal" not in record
    )


def is_mlperf_row(record: dict[str, Any]) -> bool:
    """Whether ``record`` is an MLPerf inference row (:data:`~specscope.workload.census.MLPERF_FIELDS`, each a string,
    no chat beside them): vLLM's ``MLPerfDataset`` sends the system prompt and question and sizes the output by the
    reference ``output``."""
    return all(isinstance(record.get(k), str) for k in MLPERF_FIELDS) and not any(
        k in record for k in (*MESSAGES_FIELDS, *SHAREGPT_FIELDS, "turns")
    )


def _role_content_turns(turns: list[Any]) -> bool:
    """Whether a ShareGPT ``conversations`` list's first two turns (those vLLM's and SGLang's readers take) lack
    ShareGPT's ``value``: ``role`` / ``content`` turns, which only SGLang's custom reader reads."""
    return any(not isinstance(t, dict) or "value" not in t for t in turns[:2])


def own_layout(shape: Shape, record: object) -> str | None:
    """What ``bench --dry-run`` names a row of no census layout as, when it is not :data:`OWN_LAYOUT`: a ``.tsv``
    row (:data:`TSV_LAYOUT`), a JSON array's ShareGPT row of ``role`` / ``content`` turns
    (:data:`ROLE_CONTENT_ARRAY_LAYOUT`); else None."""
    if shape == "tsv":
        return TSV_LAYOUT
    if shape == "array" and isinstance(record, dict):
        share = next((record[k] for k in SHAREGPT_FIELDS if isinstance(record.get(k), list)), None)
        if share is not None and _role_content_turns(share):
            return ROLE_CONTENT_ARRAY_LAYOUT
    return None


def layout_keys(shape: Shape, record: dict[str, Any]) -> tuple[str, ...]:
    """The census keys of the layouts whose readers read ``record`` (a row of a file of form ``shape``) as specscope
    read it; ``()`` for a row of specscope's own record shapes (:data:`OWN_LAYOUT`)."""
    if shape in _BY_SHAPE:
        return _BY_SHAPE[shape]  # a .tsv row: () (TSV_LAYOUT)
    keys = {k for k, v in record.items() if v is not None}
    if shape == "jsonl" and keys & set(AUTOBENCH_FIELDS) and not keys & {"turns", "texts", "text_input"}:
        return ("sglang.autobench",)  # SGLang autobench's own fields (a `prompt` string or `messages`)
    if all(k in keys for k in SAGEMAKER_FIELDS):
        return ("aiperf.sagemaker_data_capture",)
    if {"conversation_id", "conversation_idx"} <= keys:
        return ("aiperf.aa_rwlt",)
    if "text_input" in keys or sent_as_recorded(record):
        return ("aiperf.mooncake_trace",)
    if shape == "array" and multi_turn_row_turns(record) is not None:
        return ("vllm.multi_turn",)  # every user turn after the server's own answer (userfile._conversation_rows)
    if ARENA_FIELDS[0] in keys and "messages" not in keys:
        return ()  # an LMSYS Arena row: its first side's chat, as chat messages (no peer tool reads the layout)
    if any(k in keys for k in MESSAGES_FIELDS):
        if "chat_messages" in keys and "messages" not in keys:
            return ("guidellm.jsonl",)
        chat = record.get("messages")
        answered = (
            isinstance(chat, list) and bool(chat) and isinstance(chat[-1], dict) and chat[-1].get("role") == "assistant"
        )
        return () if answered else ("sglang.openai", "aiperf.raw_payload")  # a recorded answer: not sent
    share = next((k for k in SHAREGPT_FIELDS if isinstance(record.get(k), list)), None)
    if share is not None:
        if shape == "array" and _role_content_turns(record[share]):
            return ()  # no array reader reads `content` turns (ROLE_CONTENT_ARRAY_LAYOUT)
        return ("vllm.sharegpt", "sglang.sharegpt", "aiperf.sharegpt") if shape == "array" else ("sglang.custom",)
    if "turns" in keys:
        turns = record["turns"]
        dicts = [t for t in turns if isinstance(t, dict)] if isinstance(turns, list) else []
        if dicts and all("content" in t and "text" not in t and "texts" not in t for t in dicts):
            return ()  # Arena-Hard-Auto's `turns` of {content}: specscope's own table (no benchmark client reads it)
        objects = "session_id" in keys or bool(dicts)
        return ("aiperf.multi_turn",) if objects else ("vllm.spec_bench",)
    if all(k in keys for k in LONGBENCH_V2_FIELDS):
        return ("sglang.longbench_v2",)
    if is_mt_bench_prompts(record):
        return ("aiperf.hub.mt_bench",)  # a hub dataset's export (census_hub), named by its loader
    if is_evals_sample(record):
        return ()  # an OpenAI evals sample (`input` in chat format, or a string with `ideal`): specscope's own table
    if is_mlperf_row(record):
        return ("vllm.mlperf",)
    first = first_text_field(guidellm_columns(dict(record))[0])
    if "texts" in keys or first == "text":
        aiperf = ("aiperf.single_turn", "aiperf.random_pool")
        if "texts" in keys or keys & {"session_id", "output_length"}:
            return aiperf
        # a column GuideLLM's mapper reads and AIPerf's SingleTurn has no field for: GuideLLM's row (issue 36)
        return ("guidellm.jsonl",) if guidellm_only_columns(record) else (*aiperf, "guidellm.jsonl")
    if first == "instruction":
        return ()  # Alpaca: specscope's own join of the instruction and its input
    if first == "prompt" and keys <= {"prompt", "output_tokens", "id"}:
        return ("vllm.custom", "guidellm.jsonl")
    return ("guidellm.jsonl",) if first is not None else ()


def fields_layouts(shape: Shape, layouts: tuple[str, ...], record: dict[str, Any]) -> tuple[str, ...]:
    """The keys of :data:`~specscope.workload.census.FIELD_USE` whose fields are those ``record`` is read by: its
    census ``layouts`` (:func:`layout_keys`; a ``.tsv`` row's: ``specscope.tsv``), or for a record of specscope's own
    shapes the ``specscope.*`` one;
    ``()`` when its fields are specscope's own build (an ``inputs.json`` payload, an agentic trace's conversation)
    or it has no fields (a text line)."""
    if shape == "tsv":
        return ("specscope.tsv",)
    if layouts:
        return layouts if all(k in FIELD_USE for k in layouts) else ()
    keys = {k for k, v in record.items() if v is not None}
    if ARENA_FIELDS[0] in keys and "messages" not in keys:
        return ("specscope.arena",)
    if any(k in keys for k in MESSAGES_FIELDS):
        return ("specscope.messages",)
    if "turns" in keys:
        return ("specscope.arena_hard",)
    if any(isinstance(record.get(k), list) for k in SHAREGPT_FIELDS):
        return ("specscope.sharegpt",)  # ROLE_CONTENT_ARRAY_LAYOUT
    if is_nemotron_post_training(record):
        return ("specscope.nemotron_post_training",)
    if is_evals_sample(record):
        return ("specscope.openai_evals",)
    if first_text_field(guidellm_columns(dict(record))[0]) == "instruction":
        return ("specscope.alpaca",)
    if "history" in keys:
        return ("specscope.mt_bench_101",)
    return ()

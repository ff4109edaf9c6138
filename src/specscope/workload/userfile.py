"""A user's own prompts: ``--workload NAME=FILE``.

The file is JSON Lines (one record per line; blank lines skipped), text (one prompt per line), or ONE JSON array
of records (the way ShareGPT's ``ShareGPT_V3_unfiltered_cleaned_split.json`` and Alpaca's ``alpaca_data.json`` are
published, pretty-printed or not). Record shapes, tried in this order:

* ``messages``: OpenAI chat messages ``[{"role", "content"}]``, roles ``system``, ``user``, ``assistant``
  (``developer``, OpenAI's newer name for the system role, is sent as ``system``; ``tool`` / ``function`` turns are
  refused by name); ``content`` a string or a list of text parts ``[{"type": "text", "text"}]``, joined with a
  newline as vLLM's ``entrypoints/chat_utils.py`` joins them (an image or audio part is refused by its type). An
  AA-RWLT step's and an AIPerf ``mooncake_trace`` row's ``messages`` are sent verbatim, as AIPerf sends them
  (``raw_messages``): every key of every message as recorded (``content`` null or parts, ``tool_calls``,
  ``tool_call_id``, ``name``), roles ``system``, ``developer``, ``user``, ``assistant``, ``tool``
  (:func:`specscope.workload.userfile_sessions.recorded_messages`);
* ``conversations``: ShareGPT ``[{"from", "value"}]``, ``human``/``user`` -> ``user``; ``gpt``, ``chatgpt``,
  ``bing``, ``bard`` -> ``assistant``; ``system`` (the roles vLLM's ``benchmarks/multi_turn/
  convert_sharegpt_to_openai.py`` maps); assistant turns before the first user turn are dropped (the conversation
  continues an earlier one, as that converter does);
* ``history``: MT-Bench-101 turns ``[{"user", "bot"}]``, read as chat ``messages`` (the recorded ``bot`` answers the
  history; :func:`~specscope.workload.userfile_fields.mt_bench_101_record`), ``task`` the category;
* ``turns``: the user turns of one conversation (FastChat / Spec-Bench ``question.jsonl``: strings; AIPerf's
  multi-turn input: ``{"text": ...}`` objects): turn k+1 is sent after the server's answer to turn k
  (:attr:`Prompt.follow_ups`);
* ``prompt``, ``text`` (GenAI-Perf / AIPerf single-turn input) or ``text_input`` (AIPerf's trace rows without a
  timestamp): the prompt;
* ``instruction`` (+ ``input``): Alpaca; the prompt is the instruction, a blank line and the input when the input is
  not empty; databricks-dolly-15k's ``context`` is joined the same way; ``output`` / ``response`` (the reference
  answer) is never sent;
* a line that is not a JSON object or array: one prompt per line; in a ``.txt`` / ``.text`` file every line is a
  prompt, whatever it starts with (GuideLLM's ``TextFileDatasetDeserializer`` and vLLM's ``SonnetDataset`` read
  such a file line by line: a line opening with ``[`` or ``{`` was parsed as JSON and refused); in a ``.jsonl`` /
  ``.ndjson`` / ``.json`` file a line that is a JSON string, number, boolean or null is refused by line
  (:func:`~specscope.workload.userfile_text.refuse_json_scalar`), never sent with its quotes.

A trailing assistant turn of ``messages`` / ``conversations`` is dropped (it is the recorded answer), but for a
row sent verbatim (:func:`specscope.workload.userfile_sessions.sent_verbatim`); the recorded answers before the last
user turn stay in the history that is sent; in one JSON array file, rows of exactly ``id`` and ``messages``
alternating user / assistant with two user turns or more (the multi-turn benchmark's layout, census
``MULTI_TURN_ROW_KEYS``) are conversations instead: every user turn, each after the server's own answer. Other rows
with recorded answers between their user turns are named in a warning. Optional fields of a JSON object:
``max_tokens`` (int >= 1, this prompt's cap in tokens, overrides ``--max-tokens``) and ``category`` (str, kept in
``Prompt.meta["category"]``); ``id`` / ``question_id`` / ``session_id`` are kept in ``Prompt.meta["id"]``.
Every prompt's row id (``Prompt.meta["row_id"]``, recorded with each request sent: :mod:`specscope.workload.rows`)
is that id as text, else ``"line N"`` / ``"item N"``; an id that repeats in the file is ``"ID (line N)"`` on each of
its rows.

The layouts of other tools' benchmark clients (:mod:`specscope.workload.census`, one home for their field names)
are read too: GuideLLM's text columns (``question``, ``input``, ``context``, ``content``, ``conversation``, ``turn``),
``chat_messages`` and system prefix (``system_prompt`` / ``system`` / ``prefix``, sent as a system message); AIPerf's
``texts`` (joined with a newline) and multi-turn ``turns`` of ``{"text" | "texts", "output_length"}``; SGLang's
``conversation`` (ShareGPT turns under that key); AIPerf's ``inputs.json`` (one JSON object: every payload a row); a
``.csv`` or ``.tsv`` file by its header (never a prompt). A per-row output
length (:data:`specscope.workload.census.OUTPUT_LENGTH_FIELDS`) is that row's ``max_tokens``; a row that ends with a
recorded answer and names none keeps the answer in ``meta["recorded_answer"]`` (``bench`` asks for its token count);
arrival times (``meta["timing_fields"]``) and AIPerf's ``extra`` (``meta["unsent_fields"]``) are named in a warning.
Media, an AIPerf ``payload``, a trace row, a trace CSV and a binary file are refused by name with the fix.

A malformed record is a :class:`~specscope.errors.ConfigError` naming the file and the 1-based line number (in an
array file: the item number; in a CSV file: the line).

Reading (issue 29): the file is a regular UTF-8 file of at most :data:`MAX_FILE_BYTES`, gzip-compressed or not (told by
its magic bytes; its decompressed text is held to the same limit: :func:`specscope.readfile.read_text_maybe_gzip`); a
leading byte-order mark is dropped, not sent as part of the first prompt; records are split at line feeds only
(JSON Lines' rule, a ``\r`` before the ``\n`` removed), so U+2028, U+2029, U+0085, form feed and the other Unicode
line separators stay inside the prompt they belong to (``str.splitlines`` would split there); a ``.txt`` / ``.text``
file's lines also end at a lone ``\r``, as GuideLLM's and vLLM's text readers (``readlines``) end them. JSON nested
deeper than Python's parser allows, an integer of more than ``MAX_INT_DIGITS`` digits
(:mod:`specscope.workload.userfile_text`), or a ``max_tokens`` above :data:`MAX_TOKENS_CAP` is a line error, never a
crash.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from specscope import strictjson
from specscope.errors import ConfigError
from specscope.readfile import FileKind, read_user_file
from specscope.values import article, check_name
from specscope.workload.census import (
    BINARY_SUFFIXES,
    CHAT_LIST_REFUSALS,
    LONGBENCH_V2_FIELDS,
    MESSAGES_FIELDS,
    ROW_ID_FIELDS,
    SHAREGPT_FIELDS,
    TEXT_FIELDS,
    UNPROMPTED_DATASET_ROWS,
)
from specscope.workload.census_hub import PROBLEM_REFUSAL, is_mt_bench_prompts
from specscope.workload.layout_of import (
    Shape,
    fields_layouts,
    is_mlperf_row,
    is_nemotron_post_training,
    layout_keys,
    own_layout,
)
from specscope.workload.prompt import Prompt, file_lines, message_text
from specscope.workload.userfile_fields import (
    MAX_TOKENS_CAP,
    arena_record,
    bad_row,
    check_row_kind,
    decoded_messages,
    first_text_field,
    guidellm_columns,
    longbench_v2_prompt,
    mt_bench_101_record,
    output_length,
    refuse_autobench_prompt,
    refuse_foreign_layout,
    sagemaker_record,
    system_prefix,
    texts_of,
    timing_fields,
    tools_of,
    unread_fields,
    unread_length_fields,
    unsent_fields,
    unsent_text_columns,
    unused_guidellm_columns,
)
from specscope.workload.userfile_instructions import (
    instruction_meta,
    shared_instructions,
    unsent_choices,
    unsent_passages,
)
from specscope.workload.userfile_sessions import (
    SESSION_KEY,
    TRAJECTORY_KEY,
    aa_rwlt_step,
    aiperf_session,
    join_sessions,
    multi_turn_row_turns,
    recorded_messages,
    sent_verbatim,
    set_turn_lengths,
)
from specscope.workload.userfile_shapes import refuse_public_shape
from specscope.workload.userfile_text import (
    ROW_OF_VALUES,
    agentic_trace_records,
    array_items,
    csv_records,
    inputs_json_records,
    is_csv,
    is_json_lines,
    is_text_lines,
    loads,
    refuse_controls,
    refuse_html_page,
    refuse_json_scalar,
    refuse_object_file,
    refuse_synthetic_config,
    refuse_text_header,
    refuse_zstd,
)

__all__ = [
    "load_prompt_file",
    "load_prompt_rows",
    "NotAWorkloadRow",
    "parse_workload_specs",
    "file_fingerprint",
    "MAX_FILE_BYTES",
    "MAX_TOKENS_CAP",
]

#: the largest prompt file read (bytes).
MAX_FILE_BYTES = 1 << 30
#: a workload file's words in a user error (:func:`specscope.readfile.read_user_file`)
_WORKLOAD_FILE = FileKind(
    "the workload file",
    expected="a regular UTF-8 text file, gzip-compressed or not",
    fix="check the --workload path",
    limit_fix="split the file into several --workload files",
)
#: ShareGPT turn roles (``from``); ``User`` / ``Assistant`` are NeMo's chat SFT layout (NVIDIA/NeMo
#: nemo/collections/nlp/data/language_modeling/megatron/gpt_sft_chat_dataset.py @083822e8: ``system``, ``mask``,
#: ``conversations`` of ``{from, value, label}``; nvidia/Daring-Anteater, HelpSteer SFT files), refused as "turn 0 has
#: role 'User'" before.
_SHAREGPT_ROLES = {
    **{r: "user" for r in ("human", "user", "User")},
    **{r: "assistant" for r in ("gpt", "assistant", "chatgpt", "bing", "bard", "Assistant")},
    "system": "system",
}
_CHAT_ROLES = {"system": "system", "user": "user", "assistant": "assistant", "developer": "system"}


def parse_workload_specs(specs: list[str]) -> dict[str, str]:
    """``["mine=prompts.jsonl"]`` -> ``{"mine": "/abs/prompts.jsonl"}``; a bare ``FILE`` (no ``=``, or a path that is
    itself a file) is named by its file name without suffixes (``data/chat.jsonl.gz`` -> ``chat``).

    Raises:
        ConfigError: an empty or repeated name, a name of a built-in pack, or a missing file.
    """
    from specscope.workload.packs import PACK_NAMES

    out: dict[str, str] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or Path(spec).expanduser().is_file():  # a bare FILE: named by its file name
            path = spec
            name = "".join("_" if c.isspace() or c in ",=" else c for c in Path(spec).name.split(".", 1)[0])
        name = name.strip()
        if not name or not path:
            raise ConfigError(
                "--workload takes NAME=FILE", found=spec, expected="e.g. mine=prompts.jsonl", fix="name the file"
            )
        check_name(name, "--workload", f"mine={path}")  # the naming rule of every config and workload
        if name in out or name in PACK_NAMES or "@" in name:  # '@' kept out of workload names, as before
            why = (
                "given twice (another --workload has it)"
                if name in out
                else "a built-in workload's name"
                if name in PACK_NAMES
                else "invalid: it holds '@'"
            )
            raise ConfigError(
                f"workload name {name!r} is {why}",
                found=name,
                expected=f"a new name without '@', not one of {', '.join(PACK_NAMES)}",
                fix=f"pick another name, e.g. --workload mine={path or 'prompts.jsonl'}",
            )
        file = Path(path).expanduser()
        if not file.is_file():
            what = "a folder" if file.is_dir() else "not a regular file" if file.exists() else "no such file"
            raise ConfigError(
                f"workload file is a folder: {path}" if file.is_dir() else f"workload file not found: {path}",
                found=f"{path}: {what}",
                expected="a JSONL, JSON, CSV or text file",
                fix="name one file of the folder (--workload NAME=FOLDER/FILE)" if file.is_dir() else "check the path",
            )
        out[name] = str(file.resolve())
    return out


def file_fingerprint(path: str | Path) -> str:
    """SHA-256 (hex) of the file's bytes, recorded in the run manifest."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class NotAWorkloadRow(ConfigError):
    """A well-formed row that is no workload: an empty conversation, a chat without a user turn or with only empty
    user turns (the published ShareGPT file holds such items; vLLM's, SGLang's and AIPerf's ShareGPT readers skip
    them). ``--drop-bad-rows`` runs without such rows and records them; a malformed row is refused all the same."""


def _not_workload(where: str, what: str, expected: str) -> NotAWorkloadRow:
    return NotAWorkloadRow(
        f"{where}: {what}",
        expected=expected,
        fix="run without such rows with --drop-bad-rows (recorded as refused; vLLM, SGLang and AIPerf skip them), "
        f"or remove them from {where.rsplit('/', 1)[-1]}",
    )


def load_prompt_file(name: str, path: str | Path) -> list[Prompt]:
    """The prompts of a user's file, in file order; ids are ``"<name>-<line number (array file: item number),
    4 digits>"``.

    Raises:
        ConfigError: a malformed record (the message names the file and line or item number), a row that is no
            workload (:class:`NotAWorkloadRow`), or no prompt at all.
    """
    return load_prompt_rows(name, path)[0]


def load_prompt_rows(
    name: str, path: str | Path, *, drop_bad_rows: bool = False
) -> tuple[list[Prompt], list[dict[str, str]]]:
    """:func:`load_prompt_file`, and with ``drop_bad_rows`` without the rows that are no workload: the prompts and
    the refused rows (``{"row_id", "reason"}``, file order).

    Raises:
        ConfigError: a malformed record, a row that is no workload without ``drop_bad_rows``, or no prompt at all.
    """
    refused: list[dict[str, str]] = []

    def record(where: str, no: int, rec: Any, unit: str) -> Prompt | None:
        try:
            return _record_prompt(name, where, no, rec, unit)
        except NotAWorkloadRow as exc:
            if not drop_bad_rows:
                raise
            ident = _row_id_of(rec)  # the rule a sent row's id follows
            row = str(ident) if ident is not None else f"{unit} {no}"
            refused.append({"row_id": row, "reason": exc.message.removeprefix(f"{where}: ")})
            return None

    prompts = _load(name, Path(path), record)
    return prompts, refused


def _load(name: str, path: Path, record: Callable[..., Prompt | None]) -> list[Prompt]:
    if path.suffix.lower() in BINARY_SUFFIXES:
        raise ConfigError(
            f"workload file {path} is a binary dataset file ({path.suffix}: GuideLLM reads it with the datasets "
            "library)",
            found=path.name,
            expected="JSON Lines, one JSON array, CSV with a header, or text lines",
            fix="convert it to JSON Lines (one record per row, the same column names), e.g. "
            "datasets.Dataset.from_parquet(FILE).to_json(OUT.jsonl); a published dataset: --dataset",
        )
    refuse_zstd(path)
    text = read_user_file(path, _WORKLOAD_FILE, MAX_FILE_BYTES, text=True, gzip=True)
    refuse_controls(path, text)
    refuse_html_page(path, text)
    refuse_synthetic_config(path, text)
    lines_only = is_text_lines(path.name)
    if lines_only:  # GuideLLM's and vLLM's text readers use readlines(): universal newlines, a lone CR ends a line
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    items = None if is_csv(path.name) or lines_only else array_items(path, text)
    sessions = None if items is not None or is_csv(path.name) or lines_only else inputs_json_records(str(path), text)
    agentic = None if items is not None or sessions is not None or is_csv(path.name) or lines_only else (
        agentic_trace_records(str(path), text)
    )  # fmt: skip
    if agentic is not None:  # one conversation per row, as the payloads of an inputs.json
        sessions = agentic
    plain = items is None and sessions is None and not is_csv(path.name) and not lines_only
    if plain:
        refuse_object_file(path, text)  # one object of columns, or one object over several lines
    shape: Shape = (
        "agentic" if agentic is not None else "inputs_json" if sessions is not None
        else ("tsv" if path.name.lower().removesuffix(".gz").endswith(".tsv") else "csv") if is_csv(path.name)
        else "array" if items is not None else "jsonl"
    )  # fmt: skip
    record = _tagged(_conversation_rows(record, shape), shape)
    prompts: list[Prompt | None]
    if lines_only or plain:  # a table header on the first line is never a prompt (a CSV saved as .txt or no suffix)
        _refuse_header(path, text)
    if lines_only:  # GuideLLM's TextFileDatasetDeserializer, vLLM's sonnet.txt: every line is text, never JSON
        prompts = [_text_prompt(name, no, line) for no, line in enumerate(_lines(path, text), 1) if line.strip()]
    elif sessions is not None:  # AIPerf's inputs.json: every payload a row; SGLang's agentic trace: a conversation
        prompts = [record(where, no, rec, "item") for no, (where, rec) in enumerate(sessions, 1)]
    elif is_csv(path.name):
        rows = csv_records(str(path), text)
        prompts = [record(f"{path}:{no}", no, rec, "line") for no, rec in rows]
    elif items is not None:
        prompts = [record(f"{path} item {no}", no, rec, "item") for no, rec in enumerate(items, 1)]
    else:
        prompts = [
            _prompt(name, path, no, line, record) for no, line in enumerate(_lines(path, text), 1) if line.strip()
        ]
    kept = [p for p in prompts if p is not None]
    # only JSON Lines rows are AIPerf sessions (its custom loaders read a file line by line)
    jsonl = items is None and sessions is None and not lines_only and not is_csv(path.name)
    kept = join_sessions(path, kept, join=jsonl)
    kept = shared_instructions(kept)  # Dolphin: an instruction shared by rows with different inputs is a system prompt
    if not kept:
        raise ConfigError(
            f"workload file {path} holds no prompt", found="0 prompts", expected="at least one line", fix="add prompts"
        )
    return _unique_row_ids(kept)


def _refuse_header(path: Path, text: str) -> None:
    """Refuse a file read line by line whose first non-blank line is a table header
    (:func:`~specscope.workload.userfile_text.refuse_text_header`); a first line of JSON is a record."""
    for no, line in enumerate(text.split("\n", 64)[:64], 1):
        if line.strip():
            if not line.lstrip().startswith(("{", "[")):
                refuse_text_header(f"{path}:{no}", line.strip())
            return


def _conversation_rows(record: Callable[..., Prompt | None], shape: Shape) -> Callable[..., Prompt | None]:
    """``record`` that reads a row of the multi-turn benchmark's layout in a JSON array file as a conversation
    (:func:`~specscope.workload.userfile_sessions.multi_turn_row_turns`: every user turn, each after the server's own
    answer; the recorded answers and their token counts unused), and marks any other recorded chat (``messages``
    ending in an assistant turn: a request body ending in a user turn is sent as its tools send it) whose recorded
    answers lie between its user turns (``meta["recorded_history_fields"]``: sent as one request, named by
    ``bench``), and a ShareGPT conversation of several user turns (``meta["sharegpt_turns_fields"]``: sent as one
    request, where the census's ShareGPT readers send its first turn or every turn, named by ``bench``)."""

    def read(where: str, no: int, rec: Any, unit: str) -> Prompt | None:
        prompt = record(where, no, rec, unit)
        if prompt is None:
            return None
        turns = multi_turn_row_turns(rec) if shape == "array" else None
        if turns is not None:
            meta = {k: v for k, v in prompt.meta.items() if k != "recorded_answer"}
            return replace(prompt, messages=[{"role": "user", "content": turns[0]}], follow_ups=turns[1:], meta=meta)
        roles = [m.get("role") for m in prompt.messages]
        chat = rec.get("messages") if isinstance(rec, dict) else None
        if (
            isinstance(chat, list)
            and chat
            and isinstance(chat[-1], dict)
            and chat[-1].get("role") == "assistant"  # a recorded chat; one ending in a user turn is a request body
            and not sent_verbatim(rec)  # AIPerf's recorded rows: sent as AIPerf sends them
            and not prompt.follow_up_messages
            and roles.count("user") >= 2
            and "assistant" in roles[roles.index("user") :]
        ):
            prompt.meta["recorded_history_fields"] = ("messages",)
        elif isinstance(rec, dict) and "instruction" in rec and "assistant" in roles:
            prompt.meta["recorded_history_fields"] = ("history",)  # an Alpaca row's earlier rounds (_alpaca_history)
        share = next((k for k in SHAREGPT_FIELDS if isinstance(rec, dict) and isinstance(rec.get(k), list)), None)
        if share is not None and "messages" not in rec and roles.count("user") >= 2:
            prompt.meta["sharegpt_turns_fields"] = (share,)  # its readers send other turns (SHAREGPT_TURNS_NOTE)
        if share is not None and "messages" not in rec and _opens_with_answer(rec[share]):
            prompt.meta["opening_answer_fields"] = (share,)  # not sent; its readers send it (SHAREGPT_OPENING_NOTE)
        return prompt

    return read


def _opens_with_answer(turns: list[Any]) -> bool:
    """True for ShareGPT turns whose first turn after any system turn is an assistant's (:data:`_SHAREGPT_ROLES`): a
    turn :func:`_chat` does not send."""
    for turn in turns:
        said = turn.get("from", turn.get("role")) if isinstance(turn, dict) else None
        role = _SHAREGPT_ROLES.get(said) if isinstance(said, str) else None
        if role != "system":
            return role == "assistant"
    return False


def _tagged(record: Callable[..., Prompt | None], shape: Shape) -> Callable[..., Prompt | None]:
    """``record`` that also names, in the prompt's ``meta["layout"]``, the census layouts of the raw record
    (:func:`specscope.workload.layout_of.layout_keys`: what ``bench --dry-run`` prints)."""

    def read(where: str, no: int, rec: Any, unit: str) -> Prompt | None:
        prompt = record(where, no, rec, unit)
        if prompt is not None:
            prompt.meta["layout"] = layouts = layout_keys(shape, rec)
            guidellm = {"guidellm.jsonl", "guidellm.csv"}
            if own := own_layout(shape, rec):
                prompt.meta["own_layout"] = own  # what the dry run names (a .tsv row was labelled guidellm.csv)
            if isinstance(rec, dict) and (guidellm & {*layouts} or shape == "tsv"):
                # a GuideLLM row's columns specscope ignores: bench names them, with what GuideLLM does with each
                if unused := unused_guidellm_columns(rec):
                    prompt.meta["unused_columns"] = unused
                passage = unsent_passages(rec)  # a HotpotQA context: named as the passage, with its jq
                if unsent := tuple(k for k in unsent_text_columns(rec) if k not in passage):
                    prompt.meta["unsent_text_columns"] = unsent  # GuideLLM sends the first text column only
            uses = fields_layouts(shape, layouts, rec) if isinstance(rec, dict) else ()
            choices = unsent_choices(rec) if isinstance(rec, dict) else ()
            if choices:
                prompt.meta["unsent_choice_fields"] = choices  # MMLU-Pro's options: bench names them with the jq
            if passages := unsent_passages(rec) if isinstance(rec, dict) else ():
                prompt.meta["unsent_passage_fields"] = passages  # DROP's, BoolQ's passage: named with the jq
                choices += passages
            if uses and (
                unread := tuple(k for k in unread_fields(rec, uses) if k not in choices)
            ):  # none: specscope's own build of the record
                # fields the row's layout does not read (census FIELD_USE): bench names them, once per file
                prompt.meta["unread_fields"], prompt.meta["unread_layouts"] = unread, uses
        return prompt

    return read


def _lines(path: Path, text: str) -> list[str]:
    return file_lines("workload", path, text, "split the file into several --workload files")


def _unique_row_ids(prompts: list[Prompt]) -> list[Prompt]:
    """Each row's id names one row: an ``id`` that repeats in the file gets its place, ``"a (line 2)"``, on every
    row that carries it, so the ids a cell records (``rows_sent``) tell which rows were sent."""
    seen = Counter(p.meta["row_id"] for p in prompts)
    for p in prompts:
        if seen[p.meta["row_id"]] > 1:
            unit = "line" if "line" in p.meta else "item"
            p.meta["row_id"] = f"{p.meta['row_id']} ({unit} {p.meta[unit]})"
    return prompts


def _bad(where: str, what: str, expected: str) -> ConfigError:
    return bad_row(where, what, expected)


def _text_prompt(name: str, no: int, line: str) -> Prompt:
    meta: dict[str, Any] = {"source": "file", "line": no, "row_id": f"line {no}", "layout": layout_keys("text", {})}
    return Prompt(f"{name}-{no:04d}", name, [{"role": "user", "content": line.strip()}], meta=meta)


def _prompt(name: str, path: Path, no: int, line: str, record: Callable[..., Prompt | None]) -> Prompt | None:
    stripped = line.strip()
    where = f"{path}:{no}"
    if not stripped.startswith(("{", "[")):
        if is_json_lines(path.name):  # a JSON string or null on a line of JSON Lines is no prompt text
            refuse_json_scalar(where, stripped)
        return _text_prompt(name, no, line)
    try:
        parsed = loads(stripped, where)
    except json.JSONDecodeError as exc:
        if exc.msg == strictjson.NESTED:
            raise _bad(where, "JSON nested deeper than the parser allows", "a flat JSON object per line") from None
        raise _bad(where, f"invalid JSON ({exc.msg} at column {exc.colno})", "one JSON object per line") from None
    except RecursionError:
        raise _bad(where, "JSON nested deeper than the parser allows", "a flat JSON object per line") from None
    return record(where, no, parsed, "line")


def _record_prompt(name: str, where: str, no: int, record: Any, unit: str) -> Prompt:
    if isinstance(record, list):  # a table's row without its column names (pandas orient 'values')
        raise bad_row(where, *ROW_OF_VALUES)
    if not isinstance(record, dict):
        raise _bad(where, f"a JSON {type(record).__name__}, not an object", "a JSON object per record")
    meta: dict[str, Any] = {"source": "file", unit: no}
    refuse_foreign_layout(where, record)
    refuse_public_shape(where, record)
    record, zero_counts = guidellm_columns(_present_fields(sagemaker_record(where, record)))
    record = decoded_messages(arena_record(mt_bench_101_record(where, record)))
    check_row_kind(where, record)
    messages, follow_ups = _messages(where, record)
    system = system_prefix(where, record)
    if system is not None and not any(m["role"] == "system" for m in messages):
        messages = [{"role": "system", "content": system}, *messages]
    meta.update(_optional(where, record))
    if (tools := tools_of(where, record)) is not None:
        meta["tools"] = copy.deepcopy(tools)  # sent in the request body with the messages (chat_request)
    if zero_counts:
        meta["zero_output_fields"] = zero_counts  # GuideLLM: a count of 0 is none; bench names these rows
    answer = _recorded_answer(where, record)
    if "max_tokens" not in meta and answer is not None:
        meta["recorded_answer"] = answer  # its tool asks for the answer's token count: bench counts it (answer_lengths)
    elif "max_tokens" not in meta and (share := next((k for k in SHAREGPT_FIELDS if k in record), None)):
        # vLLM's and SGLang's ShareGPT readers skip a conversation of fewer than 2 turns (no answer to size the
        # output by); sent here with --max-tokens, and bench names these rows at the start
        meta["unanswered_fields"] = (share,)
    meta["row_id"] = str(meta["id"]) if "id" in meta else f"{unit} {no}"
    meta.update(instruction_meta(record, messages))
    if not any(m["role"] == "user" for m in messages):
        raise _not_workload(where, "no user message", "at least one user turn")
    if not any(m["role"] == "user" and message_text(m).strip() for m in messages):
        raise _not_workload(where, "every user turn is empty", "a user turn with text")
    return Prompt(f"{name}-{no:04d}", name, messages, meta=meta, follow_ups=follow_ups)


def _present_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its null fields: a null field is an absent one, as AIPerf's loader models (every field
    defaults to None and is tested ``is not None``; their ``model_dump()`` writes them all) and HF datasets read it.
    A dumped ``SingleTurn`` row with ``"texts": null`` was refused, a ``MooncakeTrace`` row with ``"payload": null``
    refused as a payload row (fresh-user finding, 2026-12-05)."""
    return {key: value for key, value in record.items() if value is not None}


def _messages(where: str, record: dict[str, Any]) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The messages sent first and the later user turns (``turns`` records) of one record; an AA-RWLT step's or a
    mooncake_trace row's ``messages`` verbatim (:func:`~specscope.workload.userfile_sessions.recorded_messages`)."""
    chat = next((k for k in MESSAGES_FIELDS if k in record), None)
    if chat == "messages" and sent_verbatim(record) and isinstance(record[chat], list) and record[chat]:
        return recorded_messages(where, record[chat]), ()  # AIPerf's raw_messages: every key as recorded
    if chat is not None:
        return _chat(where, record[chat], chat, "role", "content", _CHAT_ROLES), ()
    share = next((k for k in SHAREGPT_FIELDS if isinstance(record.get(k), list)), None)
    if share is not None:  # SGLang reads `conversation` too; GuideLLM's `conversation` text column is a string
        role_key, text_key, roles = _turn_keys(record[share])
        return _chat(where, record[share], "conversations", role_key, text_key, roles), ()
    if "turns" in record:
        raw, head = record["turns"], []
        if isinstance(raw, list) and len(raw) > 1 and isinstance(raw[0], dict) and raw[0].get("role") == "system":
            # AIPerf MultiTurn: a leading system turn is the conversation's system message, before every turn
            head = [{"role": "system", "content": _turns(where, [{**raw[0], "role": None}])[0]}]
            raw = raw[1:]
        turns = _turns(where, raw)
        return [*head, {"role": "user", "content": turns[0]}], turns[1:]
    if "text" in record or "texts" in record:
        _user_role(where, record, "")
    if "texts" in record:  # AIPerf SingleTurn / RandomPool
        return [{"role": "user", "content": _nonempty(where, "texts", texts_of(where, record["texts"]))}], ()
    if is_mt_bench_prompts(record):  # HuggingFaceH4/mt_bench_prompts (census_hub): a conversation, as AIPerf sends it
        turns = _turns(where, _mt_bench_turns(where, record["prompt"]))
        return [{"role": "user", "content": turns[0]}], turns[1:]
    if (longbench := longbench_v2_prompt(where, record)) is not None:  # SGLang longbench_v2's template
        return [{"role": "user", "content": longbench}], ()
    _refuse_chat_list(where, record)
    refuse_autobench_prompt(where, record)
    key = first_text_field(record)  # GuideLLM: the first text column in the file's order
    if key == "input" and isinstance(record["input"], list):
        # an OpenAI evals sample (openai/evals docs/build-eval.md: `input` in chat format, `ideal` the reference): it
        # was refused as "input [...] is not a non-empty string"
        return _chat(where, record["input"], "input", "role", "content", _CHAT_ROLES), ()
    if key is not None and key != "instruction":
        return [{"role": "user", "content": _nonempty(where, key, record[key])}], ()
    if key == "instruction":
        key = "input" if "input" in record else "context"  # Alpaca's input; databricks-dolly-15k's context
        extra = record.get(key)
        if extra is not None and not isinstance(extra, str):
            raise _bad(where, f"{key} {extra!r:.60} is not a string", f"the {key}: a string (may be empty)")
        if record["instruction"] == "" and extra and extra.strip():  # Dolphin's empty system prompt: the input alone
            return [*_alpaca_history(where, record.get("history")), {"role": "user", "content": extra}], ()
        instruction = _nonempty(where, "instruction", record["instruction"])
        return [
            *_alpaca_history(where, record.get("history")),
            {"role": "user", "content": f"{instruction}\n\n{extra}" if extra and extra.strip() else instruction},
        ], ()
    for fields, what, fix in UNPROMPTED_DATASET_ROWS:  # before `problem`: Magicoder's row has one
        if all(k in record for k in fields):
            raise bad_row(where, what, "a prompt or messages per row", fix)
    if "problem" in record:  # AIPerf's hub datasets of a `problem` column (census_hub)
        raise bad_row(where, PROBLEM_REFUSAL[0], "a prompt or messages per row", PROBLEM_REFUSAL[1])
    raise _bad(
        where,
        f"no messages/conversations/turns/{'/'.join(TEXT_FIELDS)}/texts/instruction field "
        f"(keys: {sorted(record)!s:.200})",
        "one of those fields",
    )


def _refuse_chat_list(where: str, record: dict[str, Any]) -> None:
    """Refuse by name a row whose text column holds a list of chat messages (:data:`CHAT_LIST_REFUSALS`): TRL's
    conversational ``prompt`` with a ``completion``. (An openai/evals ``input`` list is read as its messages.)"""

    def chat_list(value: object) -> bool:
        return isinstance(value, list) and bool(value) and all(isinstance(m, dict) and "role" in m for m in value)

    if chat_list(record.get("prompt")) and "completion" in record:
        what, fix = CHAT_LIST_REFUSALS["completion"]
    else:
        return
    raise bad_row(where, what, "a prompt string or messages per row", fix)


def _alpaca_history(where: str, raw: object) -> list[dict[str, str]]:
    """An Alpaca row's ``history`` (LLaMA-Factory's alpaca layout: ``[[question, answer], ...]``, the earlier rounds;
    hiyouga/LLaMA-Factory ``src/llamafactory/data/converter.py`` @908cd68e ``AlpacaDatasetConverter`` puts each pair
    before the instruction as a user and an assistant message) as those messages; none without one. It was dropped
    with no word, the instruction sent alone ("And in French?")."""
    if raw is None or raw == []:
        return []
    if not isinstance(raw, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(t, str) for t in pair) for pair in raw
    ):
        raise _bad(where, f"history {raw!r:.60} is not a list of [question, answer] pairs", "[[question, answer], ...]")
    return [m for q, a in raw for m in ({"role": "user", "content": q}, {"role": "assistant", "content": a})]


def _recorded_answer(where: str, record: dict[str, Any]) -> str | None:
    """The text of the assistant turn that ends the record's chat (ShareGPT's recorded answer, whose token count vLLM,
    SGLang and AIPerf take as the output length), or the ``output`` of an MLPerf row (vLLM's ``MLPerfDataset``) or
    of a Llama-Nemotron post-training row, else None (also for a row whose messages are sent as recorded); specscope
    does not send it."""
    if sent_verbatim(record):
        return None
    if is_mlperf_row(record) or is_nemotron_post_training(record):
        return str(record["output"])  # vLLM's MLPerfDataset; a Nemotron post-training row: the answer's token count
    for fields, keys in ((MESSAGES_FIELDS, ("role", "content", _CHAT_ROLES)), (SHAREGPT_FIELDS, None)):
        for key in fields:
            raw = record.get(key)
            role_key, text_key, roles = keys or _turn_keys(raw)
            if isinstance(raw, list) and len(raw) > 1 and isinstance(raw[-1], dict):
                last = len(raw) - 1
                if _role_of(raw, last, role_key, roles, sharegpt=keys is None) != "assistant":
                    return None
                return _content(where, last, _text_of(raw[-1], text_key, sharegpt=keys is None)) or ""
    return None


def _turn_keys(raw: object) -> tuple[str, str, dict[str, str]]:
    """The keys of a ``conversation(s)`` list's turns: ShareGPT's ``from`` / ``value``, or ``role`` / ``content``
    when its first turn has ``role`` and no ``from`` (LMSYS-Chat-1M's ``conversation``, ShareGPT exports rewritten to
    OpenAI messages); such turns were refused as "turn 0 has role None" (fresh-user check, 2026-12-05)."""
    first = raw[0] if isinstance(raw, list) and raw else None
    if isinstance(first, dict) and "role" in first and "from" not in first:
        return "role", "content", _CHAT_ROLES
    return "from", "value", _SHAREGPT_ROLES


def _role_of(raw: list[Any], i: int, role_key: str, roles: dict[str, str], *, sharegpt: bool) -> str | None:
    """The role of turn ``i``; in ShareGPT turns of which none names a role (SGLang's ``custom`` dataset reads no
    role: turn 0 the prompt, turn 1 the answer), turns alternate user, assistant."""
    if sharegpt and all(isinstance(t, dict) and "from" not in t and "role" not in t for t in raw):
        return "user" if i % 2 == 0 else "assistant"
    turn = raw[i]
    return roles.get(str(turn.get(role_key))) if isinstance(turn, dict) else None


def _text_of(turn: dict[str, Any], text_key: str, *, sharegpt: bool) -> object:
    """A turn's text: under ``text_key``; a ShareGPT turn's under ``value`` or ``content`` (SGLang's ``custom``
    dataset reads ``content``, else ``value``: ``{"from": "human", "content": ...}`` was refused as a null value)."""
    if sharegpt and text_key not in turn:
        return turn.get("content" if text_key == "value" else "value")
    return turn.get(text_key)


def _mt_bench_turns(where: str, raw: list[Any]) -> list[Any]:
    """An mt_bench_prompts ``prompt`` list as AIPerf's MTBenchDatasetLoader reads it (sqjian/aiperf ``mt_bench.py``
    @90651162): each text stripped, empty ones skipped (a non-text item is left for :func:`_turns` to name)."""
    turns = [t.strip() if isinstance(t, str) else t for t in raw if not (isinstance(t, str) and not t.strip())]
    if not turns:
        raise _bad(where, "prompt holds no turn with text", 'prompt: ["first user turn", ...] (mt_bench_prompts)')
    return turns


def _nonempty(where: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad(where, f"{key} {value!r:.60} is not a non-empty string", f'a non-empty string ("{key}": "...")')
    return value


def _user_role(where: str, turn: dict[str, Any], what: str) -> None:
    """Refuse an AIPerf turn whose ``role`` is not ``user`` (AIPerf sends it with that role; specscope sends user turns,
    and a conversation's leading ``system`` turn as its system message)."""
    role = turn.get("role")
    if role not in (None, "user"):
        raise _bad(where, f"{what}has role {role!r:.40} (AIPerf sends a turn with its role)",
                   "user turns; a system prompt as the first turn of `turns` (AIPerf MultiTurn hoists it)")  # fmt: skip


def _turns(where: str, raw: object) -> tuple[str, ...]:
    """FastChat's ``["turn 1", ...]`` or AIPerf's ``[{"text": "turn 1"}, ...]`` -> the user turns."""
    if not isinstance(raw, list) or not raw:
        raise _bad(where, "turns is not a non-empty list", 'turns: ["first user turn", ...]')
    out = []
    for k, turn in enumerate(raw, 1):
        if isinstance(turn, dict):
            turn = _present_fields(turn)
            check_row_kind(f"{where} turn {k}", turn)
            _user_role(where, turn, f"turn {k} ")
        text = turn.get("text") if isinstance(turn, dict) else turn
        if isinstance(turn, dict) and text is None and "content" in turn and "texts" not in turn:
            text = turn["content"]  # Arena-Hard-Auto's question.jsonl: turns[j]["content"] (gen_answer.py @01109e99)
        if isinstance(turn, dict) and text is None and "texts" in turn:
            text = texts_of(f"{where} turn {k}", turn["texts"])
        if not isinstance(text, str):
            raise _bad(where, f"turn {k} is {type(text).__name__}, not text", 'a string or {"text": "..."}')
        if not text.strip():
            raise _bad(where, f"turn {k} is empty", "every turn with text")
        out.append(text)
    return tuple(out)


def _content(where: str, i: int, value: object) -> str | None:
    """A message's content as text: a string, or text parts joined with a newline; None when it is neither."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    texts = []
    for part in value:
        kind = part.get("type") if isinstance(part, dict) else type(part).__name__
        if kind != "text" or not isinstance(part, dict) or not isinstance(part.get("text"), str):
            said = article(format(repr(kind), ".40"))
            raise _bad(where, f"turn {i} has {said} content part", "text parts only (specscope sends text)")
        texts.append(part["text"])
    return "\n".join(texts)


def _chat(
    where: str, raw: object, field: str, role_key: str, text_key: str, roles: dict[str, str]
) -> list[dict[str, str]]:
    if not isinstance(raw, list):
        raise _bad(where, f"{field} is not a list", "a list of turns")
    if not raw:
        raise _not_workload(where, f"{field} is empty", "a list of turns")
    out: list[dict[str, str]] = []
    for i, turn in enumerate(raw):
        if not isinstance(turn, dict):
            expected = f"{{{role_key!r}: role, {text_key!r}: text}}"
            raise _bad(where, f"turn {i} is {article(type(turn).__name__)}", expected)
        role = _role_of(raw, i, role_key, roles, sharegpt=field == "conversations")
        if role is None:
            raise _bad(where, f"turn {i} has role {turn.get(role_key)!r:.40}", f"roles {', '.join(sorted(roles))}")
        value = _text_of(turn, text_key, sharegpt=field == "conversations")
        text = _content(where, i, value)
        if value is None and (calls := turn.get("tool_calls") or turn.get("function_call")):
            said = "tool_calls" if turn.get("tool_calls") else "function_call"
            raise _bad(  # was "turn 1 content is None": an OpenAI fine-tuning row's assistant tool call
                where,
                f"turn {i} is {article(role)} tool call ({said}) with no text ({calls!r:.60})",
                "text turns only: a recorded tool call or tool result is not sent (specscope sends text)",
            )
        if text is None and value is None and text_key not in turn and turn.get("content") is None:
            # no text under the keys read (Capybara's `conversation` of {input, output} pairs was told "value is None")
            raise _bad(
                where,
                f"turn {i} has no {text_key!r} (keys: {', '.join(map(str, turn))!s:.80})",
                f"turns of {{{role_key!r}: role, {text_key!r}: text}}"
                + (" or {'role': role, 'content': text}" if field == "conversations" else ""),
            )
        if text is None:
            raise _bad(where, f"turn {i} {text_key} is {value!r:.40}", "a string or a list of text parts")
        if role == "assistant" and field == "conversations" and not any(m["role"] == "user" for m in out):
            continue  # ShareGPT: an opening assistant turn continues an earlier conversation
        out.append({"role": role, "content": text})
    if len(out) > 1 and out[-1]["role"] == "assistant":
        out.pop()  # the recorded answer: the server writes its own
    return out


def _turn_lengths(where: str, record: dict[str, Any]) -> list[tuple[int, str] | None] | None:
    """AIPerf multi-turn: each user turn's ``output_length`` (its ``Turn.max_tokens``, sent with that turn), in turn
    order (a leading system turn, hoisted as the conversation's system message, has none); None without ``turns``."""
    turns = record.get("turns")
    if not isinstance(turns, list):
        return None
    if len(turns) > 1 and isinstance(turns[0], dict) and turns[0].get("role") == "system":
        turns = turns[1:]  # the hoisted system turn (_messages)
    return [output_length(f"{where} turn {k}", t) if isinstance(t, dict) else None for k, t in enumerate(turns, 1)]


def _is_row_id(value: object) -> bool:
    """A text with a non-blank character, or an integer: a value that can name a row (a bool, a float, a list or an
    empty text cannot: the row is named by its line)."""
    return (isinstance(value, str) and bool(value.strip())) or (isinstance(value, int) and not isinstance(value, bool))


def _row_id_of(record: dict[str, Any]) -> str | int | None:
    """The row's id: the first of :data:`ROW_ID_FIELDS` that names a row (an empty id, "" as a dataset export writes a
    missing one, was the row id ""), else a LongBench-v2 row's ``_id``, else None (the row is named by its line)."""
    ident = next((record[k] for k in ROW_ID_FIELDS if _is_row_id(record.get(k))), None)
    if ident is None and all(k in record for k in LONGBENCH_V2_FIELDS) and _is_row_id(record.get("_id")):
        ident = record["_id"]  # LongBench-v2's id
    return ident


def _optional(where: str, record: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    length = output_length(where, record)
    if length is not None:
        meta["max_tokens"], meta["output_length_field"] = length
    elif (lengths := _turn_lengths(where, record)) is not None:
        set_turn_lengths(meta, lengths)
    if "category" in record:
        if not isinstance(record["category"], str) or not record["category"]:
            raise _bad(where, f"category {record['category']!r:.60}", "a non-empty string")
        meta["category"] = record["category"]
    if (ident := _row_id_of(record)) is not None:
        meta["id"] = ident
    if (step := aa_rwlt_step(record)) is not None:
        meta["id"], meta[TRAJECTORY_KEY] = step[0], step  # one trajectory's steps: checked by join_sessions
    if (session := aiperf_session(record)) is not None:
        meta[SESSION_KEY] = session  # joined with the session's other rows (join_sessions)
    for key, found in (
        ("timing_fields", timing_fields(record)),
        ("unsent_fields", unsent_fields(record)),
        ("unread_length_fields", unread_length_fields(record)),
    ):
        if found:
            meta[key] = found  # not replayed / not sent: bench names them in a warning at the start
    return meta

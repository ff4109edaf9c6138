"""The census fields of a user's workload record (:mod:`specscope.workload.census`): its per-row output length,
its text fields, a system prefix, what is refused by name (media, trace-only rows, a raw payload), GuideLLM's columns.
How a file's text splits into records (CSV, an AIPerf ``inputs.json``, an agentic trace) is
:mod:`specscope.workload.userfile_text`.

Each refusal is a :class:`~specscope.errors.ConfigError` naming the file and line (``where``), the field, the layout's
source and what to convert the row to; nothing here is sent before every row of the file is read.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from typing import Any

from specscope import strictjson
from specscope.errors import ConfigError
from specscope.textsafe import clip
from specscope.values import article
from specscope.workload.census import (
    AIPERF_SINGLE_TURN_FIELDS,
    ARENA_FIELDS,
    ARENA_PREFERENCE_REFUSAL,
    AUTOBENCH_FIX,
    BAILIAN_FIELDS,
    BAILIAN_REFUSAL,
    CAPYBARA_REFUSAL,
    DAG_REFUSAL,
    DYNAMO_REFUSAL,
    DYNAMO_TRACE_SCHEMA,
    EVERY_ROW_READS,
    FIELD_USE,
    FOREIGN_LAYOUTS,
    GUIDELLM_COLUMN_PATTERN,
    GUIDELLM_MAPPED_COLUMNS,
    GUIDELLM_MEDIA_COLUMNS,
    GUIDELLM_NOT_PLURALS,
    GUIDELLM_OUTPUT_COLUMNS,
    GUIDELLM_TEXT_COLUMNS,
    GUIDELLM_UNUSED_COLUMNS,
    LIMA_REFUSAL,
    LONGBENCH_V2_FIELDS,
    MEDIA_FIELDS,
    MESSAGES_FIELDS,
    MT_BENCH_101_TURN_KEYS,
    OTEL_REFUSAL,
    OUTPUT_LENGTH_FIELDS,
    OUTPUT_LENGTH_LOOKALIKES,
    RECORDED_BODY_MARK,
    REQUEST_BODY_FIELDS,
    SAGEMAKER_FIELDS,
    SGLANG_AGENTIC_REFUSAL,
    SGLANG_TOKEN_TRACE_REFUSAL,
    SHAREGPT4V_LINES_FIX,
    SHAREGPT4V_REFUSAL,
    SHAREGPT_FIELDS,
    SPECSCOPE_TRACE_FIELDS,
    SYSTEM_FIELDS,
    TIMING_FIELDS,
    TOOLS_JSON_TEXT_FIX,
    TRACE_ONLY_FIELDS,
    UNREAD_DATASET_ROWS,
    UNSENT_FIELDS,
    VERTEX_BATCH_REFUSAL,
    FieldUse,
)
from specscope.workload.prompt import is_int_in

__all__ = [
    "GUIDELLM_COLUMN",
    "bad_row",
    "guidellm_name",
    "mt_bench_101_record",
    "output_length",
    "check_row_kind",
    "decoded_messages",
    "arena_record",
    "longbench_v2_prompt",
    "refuse_autobench_prompt",
    "refuse_foreign_layout",
    "sagemaker_record",
    "system_prefix",
    "texts_of",
    "timing_fields",
    "unsent_fields",
    "is_csv",
    "tools_of",
    "unread_length_fields",
    "unused_guidellm_columns",
    "unused_column_notes",
    "unread_fields",
    "guidellm_only_columns",
    "guidellm_columns",
    "first_text_field",
]

#: the largest ``max_tokens`` a record may ask for (engines keep it in a 32-bit integer).
MAX_TOKENS_CAP = 2**31 - 1
_FIELDS_HINT = (
    "records: chat `messages`, ShareGPT `conversations`, `turns`, `prompt` / `text` / `question` ..., Alpaca "
    "`instruction`, or plain text lines (docs/workloads.md lists every layout)"
)


def bad_row(where: str, what: str, expected: str, fix: str | None = None) -> ConfigError:
    """The refusal of one row: ``FILE:LINE: what`` (array: ``FILE item N``), expected / fix (what was found is the
    message itself: not repeated as ``found``)."""
    return ConfigError(
        f"{where}: {what}",
        expected=expected,
        fix=fix or f"fix {where.rsplit('/', 1)[-1]} ({_FIELDS_HINT})",
    )


def _shown(value: object) -> str:
    return clip(json.dumps(value, ensure_ascii=False), 60)


def key_twice(where: str, exc: strictjson.DuplicateKey) -> ConfigError:
    """The refusal of a row (or of a file that is one JSON value) holding a key twice in one object: Python's
    ``json.loads``, as the peer tools' readers, keeps the last value silently, so the first was never sent (issue 37).
    ``found`` names the key and both values, each clipped to 60 characters."""
    return ConfigError(
        f"{where}: a key twice in one object (`{clip(exc.key, 80)}`)",
        found=f"{_shown(exc.key)} is {_shown(exc.first)}, then again {_shown(exc.again)}",
        expected="each key once per object (a JSON reader keeps the last value and drops the first, silently)",
        fix="keep the value you mean and delete the other (a hand edit or two rows joined is the usual cause)",
    )


#: GuideLLM's column groups specscope reads, each with its names (the first is the group's field in a record).
_GUIDELLM_GROUPS: tuple[tuple[str, ...], ...] = (
    *((name,) for name in GUIDELLM_TEXT_COLUMNS),
    GUIDELLM_OUTPUT_COLUMNS[:1],
    GUIDELLM_OUTPUT_COLUMNS[1:],
    *((name,) for name in SYSTEM_FIELDS),
    *((name,) for name in MESSAGES_FIELDS),
)
GUIDELLM_COLUMN = re.compile(
    GUIDELLM_COLUMN_PATTERN.format(names="|".join(re.escape(n) for g in _GUIDELLM_GROUPS for n in g)), re.I
)


_GUIDELLM_MEDIA = re.compile(GUIDELLM_COLUMN_PATTERN.format(names="|".join(GUIDELLM_MEDIA_COLUMNS)), re.I)


def guidellm_name(key: str) -> tuple[str, int | None] | None:
    """``(field, turn)`` when ``key`` is a GuideLLM column spelled otherwise than its field (``Prompt``, ``prompts``,
    ``prompt_1``), else None (the exact field names, and other layouts' own fields, stay as they are)."""
    if key in GUIDELLM_NOT_PLURALS or (m := GUIDELLM_COLUMN.match(key)) is None:
        return None
    field = m.group("name").lower()
    if key == field:
        return None
    return field, int(m.group("turn")) if m.group("turn") is not None else None


def _zero(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def guidellm_columns(record: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The record with GuideLLM's columns under their field names, as its ``GenerativeColumnMapper`` matches them
    (``GUIDELLM_COLUMN_PATTERN``: any case, a plural, a turn suffix), in the record's own key order (a CSV file's:
    its header's). A field spelled exactly wins over its variants. Text columns of several turns (``prompt_0``,
    ``prompt_1``) become the row's ``turns`` when that field is the row's first text column, each with its turn's
    output count (a conversation: turn k+1 after the answer to turn k); empty cells are no turn.

    GuideLLM takes, per column type, the FIRST column in the dataset's column order that any of its names matches
    (vllm-project/guidellm ``src/guidellm/data/preprocessors/mappers.py`` @ee7a7745 ``datasets_mappings``: one
    ``re.search`` over the column names joined in their order): the record keeps its key order, so the text read
    is its first text column (:func:`first_text_field`), and of the output-count columns and of the prefix columns
    only the first is kept (``{"completion_tokens_count": 3, "output_tokens_count": 9}`` asks for 3).

    An output count of 0 is no count, as GuideLLM's request formatters read it (vllm-project/guidellm
    ``src/guidellm/data/preprocessors/formatters.py`` @03820eba: only the counts that are truthy are summed into
    ``max_tokens`` / ``max_completion_tokens``; none left, the default applies): it is removed, and the columns that
    held one are returned beside the record (``bench`` names the rows sent with ``--max-tokens`` for it).
    """
    found: dict[str, list[tuple[int, str, Any, int]]] = {}
    out: dict[str, Any] = {}
    place: dict[str, int] = {}  # a field of ``out`` -> the record position of its (first) column
    for pos, (key, value) in enumerate(record.items()):
        named = guidellm_name(key)
        if named is None:
            out[key], place[key] = value, pos
            continue
        field, turn = named
        cols = found.setdefault(field, [])
        cols.append((len(cols) if turn is None else turn, key, value, pos))  # GuideLLM: no suffix = its place
    first_text = min((place[k] for k in out if k in GUIDELLM_TEXT_COLUMNS), default=len(record))
    first_text = min([first_text, *(c[3] for f, cols in found.items() if f in GUIDELLM_TEXT_COLUMNS for c in cols)])
    turns: list[tuple[int, str]] = []
    zeros: list[str] = []
    for field, cols in found.items():
        if field in out:
            out.update((key, value) for _, key, value, _ in cols)  # the exact name is the column: variants unread
            place.update((key, pos) for _, key, _, pos in cols)
            continue
        cols = sorted((c for c in cols if c[2] not in (None, "")), key=lambda c: c[0])
        if field in GUIDELLM_TEXT_COLUMNS and len(cols) > 1 and min(c[3] for c in cols) == first_text:
            turns = [(turn, value) for turn, _, value, _ in cols]
            place["turns"] = first_text
        elif cols:
            out[field], place[field] = cols[0][2], min(c[3] for c in cols)
    firsts = {group: min((f for f in group if f in out), key=place.__getitem__, default=None)
              for group in (GUIDELLM_OUTPUT_COLUMNS, SYSTEM_FIELDS)}  # fmt: skip
    for group, first in firsts.items():
        for field in group:
            if field != first:
                out.pop(field, None)  # GuideLLM reads the first column of a type only
    if turns and "turns" not in out:
        first = firsts[GUIDELLM_OUTPUT_COLUMNS]
        cells = [(t, v) for t, _, v, _ in found.get(first, [])] if first is not None else []
        zeros += [first for _, v in cells if _zero(v) and first is not None]
        counts = {t: v for t, v in cells if v not in (None, "") and not _zero(v)}
        out["turns"] = [{"text": text, **({first: counts[t]} if t in counts and first else {})} for t, text in turns]
        if len(cells) > 1 and first is not None:
            out.pop(first, None)  # per turn, in the turns
    for field in GUIDELLM_OUTPUT_COLUMNS:
        if _zero(out.get(field)):
            zeros.append(field)
            del out[field]
    ordered = dict(sorted(out.items(), key=lambda kv: place.get(kv[0], len(record))))
    return ordered, tuple(dict.fromkeys(zeros))


def is_csv(name: str) -> bool:
    """A ``.csv`` or ``.tsv`` file (gzip-compressed or not), read by its header (a ``.tsv`` was read as text lines:
    its header and label column were sent as prompts; fresh-user check, 2026-12-05)."""
    low = name.lower().removesuffix(".gz")
    return low.endswith((".csv", ".tsv"))


def first_text_field(record: dict[str, Any]) -> str | None:
    """The record's first GuideLLM text column in its key order (:data:`GUIDELLM_TEXT_COLUMNS`, as
    :func:`guidellm_columns` left it), else its ``text_input`` (AIPerf's trace rows), else None. An ``input`` or
    ``context`` before an ``instruction`` string is Alpaca's row whatever its key order: ``instruction``
    (garage-bAInd/Open-Platypus orders ``input``, ``output``, ``instruction``; its mostly empty ``input`` was read as
    the prompt and refused)."""
    key = next((k for k in record if k in GUIDELLM_TEXT_COLUMNS), None)
    if key in ("input", "context") and isinstance(record.get("instruction"), str):
        return "instruction"
    return key if key is not None or "text_input" not in record else "text_input"


#: the end of a ``where`` of a JSON array's item (``PATH item N``, ``PATH item N (line L)``), not a JSON Lines row's
_ARRAY_ITEM = re.compile(r" item [0-9]+( \(line [0-9]+\))?$")
#: an output length written as a JSON string of ASCII digits (``"64"``), spaces around it allowed
_DIGITS = re.compile(r"\s*[0-9]{1,12}\s*")


def output_length(where: str, record: dict[str, Any]) -> tuple[int, str] | None:
    """The row's own output length and the field that gave it (:data:`OUTPUT_LENGTH_FIELDS`, first present), or None
    when the row names none (``--max-tokens`` applies, as the layout's tool applies its own option). An integral
    float (``128.0``, as pandas writes a column with a missing value) or a string of digits (``"64"``) is that
    integer.

    Raises:
        ConfigError: the field is not an integer in ``1..MAX_TOKENS_CAP`` (never replaced by the default).
    """
    # SGLang autobench tries `output_len` before `max_tokens` (autobench.py @3f56497e sample_autobench_requests)
    order = (
        ("output_len", *OUTPUT_LENGTH_FIELDS) if record.get("output_len") not in (None, "") else OUTPUT_LENGTH_FIELDS
    )
    for key in order:
        if key in record and record[key] not in (None, ""):
            value = record[key]
            if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
                value = int(value)  # 128.0: pandas' float column; AIPerf's int field (pydantic, lax) takes it
            elif isinstance(value, str) and _DIGITS.fullmatch(value):
                value = int(value)  # "64": AIPerf's int fields (pydantic, lax) and SGLang's int(...) take it
            if not is_int_in(value, 1, MAX_TOKENS_CAP):
                raise bad_row(
                    where,
                    f"{key} {record[key]!r:.60}",
                    f"a whole number of tokens from 1 to {MAX_TOKENS_CAP:,}",
                    f"set {key} to a whole number ≥ 1 (at most {MAX_TOKENS_CAP:,}), or remove it to use --max-tokens",
                )
            assert isinstance(value, int)
            return value, key
    return None


def refuse_foreign_layout(where: str, record: object) -> None:
    """Refuse a row of an AIPerf trace or agentic layout that specscope does not send (:data:`FOREIGN_LAYOUTS`,
    :data:`DAG_REFUSAL`) by its name, before any field of it is read as another layout's.

    Raises:
        ConfigError: the layout, its source, and what to convert it to.
    """
    if not isinstance(record, dict):
        return
    for fields, what, fix in (*FOREIGN_LAYOUTS, *UNREAD_DATASET_ROWS):
        if all(k in record for k in fields):
            raise bad_row(where, what, "a prompt or messages per row", fix)
    if _arena_preference(record):
        raise bad_row(where, ARENA_PREFERENCE_REFUSAL[0], "a prompt or messages per row", ARENA_PREFERENCE_REFUSAL[1])
    if _otel_span(record) or (isinstance(record.get("spans"), list) and any(map(_otel_span, record["spans"]))):
        raise bad_row(where, OTEL_REFUSAL[0], "a prompt or messages per row", OTEL_REFUSAL[1])
    if isinstance(record.get("input_tokens"), list):  # SGLang token_trace: token ids
        raise bad_row(
            where, SGLANG_TOKEN_TRACE_REFUSAL[0], "a prompt or messages per row", SGLANG_TOKEN_TRACE_REFUSAL[1]
        )
    request = record.get("request")
    if isinstance(request, dict) and "contents" in request:  # a Vertex AI batch prediction line: was "no messages/..."
        raise bad_row(where, VERTEX_BATCH_REFUSAL[0], "a prompt or messages per row", VERTEX_BATCH_REFUSAL[1])
    chats = record.get("conversations")
    if isinstance(chats, list) and chats and all(isinstance(c, str) for c in chats):  # GAIR/lima
        raise bad_row(where, LIMA_REFUSAL[0], "a prompt or messages per row", LIMA_REFUSAL[1])
    pairs = record.get("conversation")
    if isinstance(pairs, list) and pairs and all(isinstance(t, dict) and {*t} == {"input", "output"} for t in pairs):
        raise bad_row(where, CAPYBARA_REFUSAL[0], "a prompt or messages per row", CAPYBARA_REFUSAL[1])  # LDJnr/Capybara
    if isinstance(chats, list) and chats and isinstance(chats[0], list):  # SGLang agentic_trace: lists of turns
        raise bad_row(where, SGLANG_AGENTIC_REFUSAL[0], "a prompt or messages per row", SGLANG_AGENTIC_REFUSAL[1])
    event = record.get("event") if "schema" not in record else record
    if isinstance(event, dict) and event.get("schema") == DYNAMO_TRACE_SCHEMA:
        raise bad_row(where, DYNAMO_REFUSAL[0], "a prompt or messages per row", DYNAMO_REFUSAL[1])
    turns = record.get("turns")
    dag_turns = isinstance(turns, list) and any(isinstance(t, dict) and "messages" in t for t in turns)
    if dag_turns or "orchestrator" in record:
        raise bad_row(where, DAG_REFUSAL[0], "a prompt or messages per row", DAG_REFUSAL[1])


def _arena_preference(record: dict[str, Any]) -> bool:
    """True for an Arena human-preference row (:data:`ARENA_PREFERENCE_REFUSAL`): ``response_a`` and ``response_b``
    beside a ``prompt`` that is the JSON text of a list of strings (a pairwise row whose ``prompt`` is plain text is
    read by it)."""
    prompt = record.get("prompt")
    if not ("response_a" in record and "response_b" in record and isinstance(prompt, str)):
        return False
    if not prompt.lstrip().startswith("["):
        return False
    try:
        turns = json.loads(prompt)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(turns, list) and bool(turns) and all(isinstance(t, str) for t in turns)


def _otel_span(span: object) -> bool:
    """True for an OpenTelemetry GenAI span: ``attributes`` with a ``gen_ai.`` key (GuideLLM trace_otel.py
    @121fb66d)."""
    attributes = span.get("attributes") if isinstance(span, dict) else None
    return isinstance(attributes, dict) and any(str(k).startswith("gen_ai.") for k in attributes)


def _capture_payload(where: str, entry: object) -> object:
    """A SageMaker ``captureData`` entry's decoded payload (``encoding`` JSON, or BASE64 as AIPerf defaults)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("data"), str):
        return None
    encoding = entry.get("encoding", "BASE64")
    try:
        if encoding == "JSON":
            return json.loads(entry["data"])
        if encoding == "BASE64":
            return json.loads(base64.b64decode(entry["data"], validate=True))
    except (ValueError, binascii.Error):
        raise bad_row(where, f"a SageMaker data capture whose {encoding} payload is not JSON",
                      "the captured request body as JSON") from None  # fmt: skip
    raise bad_row(where, f"a SageMaker data capture of encoding {encoding!r:.40}", "JSON or BASE64 payloads")


def sagemaker_record(where: str, record: dict[str, Any]) -> dict[str, Any]:
    """A SageMaker data-capture record (:data:`SAGEMAKER_FIELDS`) as the request body it captured, as AIPerf's
    ``SageMakerDataCaptureLoader`` reads it: ``captureData.endpointInput``'s ``messages`` and ``max_tokens`` (else
    ``max_completion_tokens``), the event id as the row id, ``eventMetadata.inferenceTime`` as an arrival time (not
    replayed: named in the warning); the body's sampling fields are named, not sent. Any other record as it is.

    Raises:
        ConfigError: a captured body without ``messages`` (AIPerf reads chat endpoints only), or not JSON.
    """
    if not all(k in record for k in SAGEMAKER_FIELDS):
        return record
    capture, meta = record["captureData"], record["eventMetadata"]
    body = _capture_payload(where, capture.get("endpointInput") if isinstance(capture, dict) else None)
    if not isinstance(body, dict) or "messages" not in body:
        keys = sorted(body) if isinstance(body, dict) else type(body).__name__
        raise bad_row(where, f"a SageMaker data capture without `messages` (payload keys: {keys!s:.120})",
                      "a captured chat request body (AIPerf SageMakerDataCaptureLoader reads chat endpoints only)",
                      "capture a chat-completions endpoint, or write the prompts as rows of `messages`")  # fmt: skip
    out = {k: v for k, v in body.items() if k not in ("model", "stream", "stream_options")}
    out[RECORDED_BODY_MARK] = True  # AIPerf: Turn(raw_messages=..., raw_tools=...)
    if isinstance(meta, dict):
        if isinstance(meta.get("eventId"), str):
            out["id"] = meta["eventId"]
        if meta.get("inferenceTime") is not None:
            out["inferenceTime"] = meta["inferenceTime"]
    return out


def check_row_kind(where: str, record: dict[str, Any]) -> None:
    """Refuse a row that carries media, or that is a trace row (token counts, a raw payload), or that holds two inputs
    AIPerf's line models refuse together, by name.

    Raises:
        ConfigError: both ``text`` and ``texts``, ``text_input`` with ``input_length`` / ``hash_ids`` (AIPerf
            ``SingleTurn`` / ``MooncakeTrace`` validators: one input per row; the other was dropped), a media field
            (AIPerf ``SingleTurn`` / GuideLLM columns), ``input_length`` / ``hash_ids``
            (AIPerf ``MooncakeTrace``, SGLang mooncake: a trace), ``payload`` (AIPerf's pre-built request), an AIPerf
            ``message_mode: delta`` row (its history is the session's earlier rows).
    """
    if record.get("text") and record.get("texts"):  # a row sent `texts` alone, a turn `text` alone: one was dropped
        raise bad_row(where, "both `text` and `texts` (AIPerf SingleTurn, models.py @0109a64e, takes one of them and "
                      "refuses such a row)", "one of `text` or `texts`", "keep one of them: the other text is "
                      "not sent")  # fmt: skip
    if "text_input" in record and (both := [k for k in ("input_length", "hash_ids") if k in record]):
        raise bad_row(where, f"`text_input` with {' and '.join(f'`{k}`' for k in both)} (AIPerf MooncakeTrace, "
                      "models.py @0109a64e: a row is text or token counts, never both, and refuses such a row)",
                      "`text_input` alone, or `input_length` (+ `hash_ids`) alone",
                      "drop the token counts to send the text, or the text to replay the counts with "
                      "--trace FILE")  # fmt: skip
    media = [k for k in MEDIA_FIELDS if record.get(k)]
    media += [k for k in record if k not in MEDIA_FIELDS and _GUIDELLM_MEDIA.match(str(k)) and record[k]]
    if "image" in media and any(isinstance(record.get(k), list) for k in SHAREGPT_FIELDS):
        lines = _ARRAY_ITEM.search(where) is None  # a JSON Lines row: its own jq (the array's reads `.[]` of a row)
        fix = SHAREGPT4V_LINES_FIX if lines else SHAREGPT4V_REFUSAL[1]
        raise bad_row(where, SHAREGPT4V_REFUSAL[0], "text only", fix)
    if media:  # GuideLLM's `picture`, `Img`, `wav` ... columns were dropped without a word and the text sent alone
        raise bad_row(where, f"{article(media[0])} field (AIPerf SingleTurn / GuideLLM media)", "text only",
                      "remove the media fields: specscope sends text")  # fmt: skip
    if record.get("message_mode") == "delta":
        raise bad_row(where, "a `message_mode: delta` row (AIPerf MooncakeTrace: only this turn's new messages; AIPerf "
                      "adds the session's history)", "each row with its whole conversation",
                      "write the whole conversation in the row's `messages` (message_mode history)")  # fmt: skip
    if "payload" in record:
        raise bad_row(where, "a `payload` row (AIPerf MooncakeTrace: a pre-built request body)", "text or messages",
                      "convert the payload to its `messages` (and `output_length`)")  # fmt: skip
    if all(k in record for k in BAILIAN_FIELDS):
        raise bad_row(where, BAILIAN_REFUSAL[0], "a prompt or messages per row", BAILIAN_REFUSAL[1])
    texts = any(k in record for k in ("text_input", "messages", "text", "prompt"))
    trace = [k for k in TRACE_ONLY_FIELDS if k in record]
    source = "AIPerf MooncakeTrace / SGLang mooncake"
    if not trace and all(k in record for k in SPECSCOPE_TRACE_FIELDS):
        trace, source = list(SPECSCOPE_TRACE_FIELDS), "a specscope trace"
    if trace and not texts:
        raise bad_row(where, f"a trace row ({', '.join(trace)}: token counts, no text; {source})",
                      "a prompt or messages per row",
                      "pass the file with --trace FILE (it replays token counts on the trace's clock"
                      + ("" if {"timestamp", "arrival_s"} & record.keys() else "; each row needs its timestamp (ms)")
                      + ")")  # fmt: skip


def longbench_v2_prompt(where: str, record: dict[str, Any]) -> str | None:
    """The prompt SGLang's ``longbench_v2`` reader sends for a THUDM/LongBench-v2 row (sgl-project/sglang
    ``python/sglang/benchmark/datasets/longbench_v2.py`` @5d2c83e6 ``_format_prompt``), or None for a row without
    all of :data:`LONGBENCH_V2_FIELDS`. Such a row was sent as its first text column (the question alone, without
    its context and choices)."""
    if not all(k in record for k in LONGBENCH_V2_FIELDS):
        return None
    bad = next((k for k in LONGBENCH_V2_FIELDS if not isinstance(record[k], str)), None)
    if bad is not None:
        raise bad_row(where, f"{bad} {record[bad]!r:.60} is not text", "LongBench-v2 columns that are strings")
    context, question, a, b, c, d = (record[k] for k in LONGBENCH_V2_FIELDS)
    return f"{context}\n\nQuestion: {question}\nA. {a}\nB. {b}\nC. {c}\nD. {d}\nAnswer:"


def refuse_autobench_prompt(where: str, record: dict[str, Any]) -> None:
    """Refuse, by line and by name, the prompt forms of an SGLang autobench row that specscope does not send
    (sgl-project/sglang ``python/sglang/benchmark/datasets/autobench.py`` @3f56497e ``_normalize_prompt``): a
    ``prompt`` list (messages, user turns, or token ids), a ``prompt_origin`` without a prompt, a ``system`` with a
    ``content`` list. They were refused as "prompt [...] is not a non-empty string" or as a row without a prompt field.
    Called for a row without ``messages`` (which autobench reads first)."""
    prompt = record.get("prompt")
    if isinstance(prompt, list):
        kind = (
            "token ids" if prompt and all(is_int_in(t, 0, 2**31) for t in prompt)
            else "messages" if prompt and all(isinstance(t, dict) for t in prompt)
            else "user turns (multi-turn)" if prompt and all(isinstance(t, str) for t in prompt)
            else "items"
        )  # fmt: skip
        what = f"a `prompt` list of {kind} (SGLang autobench, autobench.py @3f56497e)"
    elif "prompt_origin" in record and first_text_field(record) is None:
        what = "a `prompt_origin` without a prompt (SGLang autobench: its messages, autobench.py @3f56497e)"
    elif "system" in record and isinstance(record.get("content"), list):
        what = "a `system` with a `content` list (SGLang autobench's legacy turns, autobench.py @3f56497e)"
    else:
        return
    raise bad_row(where, what, "a prompt string or messages per row", AUTOBENCH_FIX)


def decoded_messages(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with a ``messages`` that is a JSON text of a list decoded to that list, as SGLang autobench reads it
    (autobench.py @3f56497e ``_load_json_if_needed``: a string that starts with ``[`` or ``{`` is parsed), and as a
    CSV cell or a pandas export holds it; any other record unchanged. The string was refused as "messages is not a
    list"."""
    raw = record.get("messages")
    if not isinstance(raw, str) or not raw.strip().startswith("["):
        return record
    try:
        parsed = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return record  # the reader names "messages is not a list"
    return {**record, "messages": parsed} if isinstance(parsed, list) else record


def arena_record(record: dict[str, Any]) -> dict[str, Any]:
    """An LMSYS Chatbot Arena row (:data:`ARENA_FIELDS`) as a chat row: its ``conversation_a`` as ``messages``,
    without the other side and the int ``turn`` (the number of user turns, never a prompt); any other record
    unchanged. Its ``question_id`` stays the row id."""
    if "messages" in record or not isinstance(record.get(ARENA_FIELDS[0]), list):
        return record
    rest = {k: v for k, v in record.items() if k not in (*ARENA_FIELDS, "turn")}
    return {**rest, "messages": record[ARENA_FIELDS[0]]}


def mt_bench_101_record(where: str, record: dict[str, Any]) -> dict[str, Any]:
    """An MT-Bench-101 row (a ``history`` list of :data:`MT_BENCH_101_TURN_KEYS` turns, no chat field) as a chat row:
    each turn's ``user`` question and ``bot`` answer as ``user`` / ``assistant`` messages in turn order (a trailing
    recorded answer is then dropped as any chat row's, its token count the output length), ``task`` its category
    when it names none; any other record unchanged.

    Raises:
        ConfigError: a turn that is not an object with a ``user`` string (and a ``bot`` string when given), by turn.
    """
    history = record.get("history")
    if "messages" in record or not isinstance(history, list) or not history:
        return record
    if not any(isinstance(t, dict) and MT_BENCH_101_TURN_KEYS[0] in t for t in history):
        return record  # not this layout: the usual reading names what is missing
    user, bot = MT_BENCH_101_TURN_KEYS
    messages: list[dict[str, Any]] = []
    for i, turn in enumerate(history, 1):
        if not isinstance(turn, dict) or not isinstance(turn.get(user), str):
            raise bad_row(
                where,
                f"history turn {i} has no `{user}` string ({turn!r:.60})",
                f"MT-Bench-101 turns {{`{user}`: question, `{bot}`: recorded answer}}",
            )
        messages.append({"role": "user", "content": turn[user]})
        answer = turn.get(bot)
        if answer is not None and not isinstance(answer, str):
            raise bad_row(where, f"history turn {i} `{bot}` is not a string ({answer!r:.60})", "a recorded answer")
        if answer:
            messages.append({"role": "assistant", "content": answer})
    rest = {k: v for k, v in record.items() if k not in ("history", "task")}
    if isinstance(record.get("task"), str) and record["task"] and "category" not in record:
        rest["category"] = record["task"]
    return {**rest, "messages": messages}


def system_prefix(where: str, record: dict[str, Any]) -> str | None:
    """GuideLLM's prefix column (``system_prompt``, ``system``, ``prefix``): sent as a system message first."""
    for key in SYSTEM_FIELDS:
        value = record.get(key)
        if value not in (None, ""):
            if not isinstance(value, str):
                raise bad_row(where, f"{key} {value!r:.60} is not a string", "a system prompt as text")
            return value
    return None


def texts_of(where: str, raw: object) -> str:
    """AIPerf's ``texts``: a list of strings or of ``Text`` objects ``{"name", "contents": [str]}``, joined with a
    newline (the parts of one user turn)."""
    if not isinstance(raw, list) or not raw:
        raise bad_row(where, "texts is not a non-empty list", 'texts: ["..."] or [{"contents": ["..."]}]')
    parts: list[str] = []
    for item in raw:
        contents = item.get("contents") if isinstance(item, dict) else [item]
        if not isinstance(contents, list) or not all(isinstance(c, str) for c in contents):
            raise bad_row(where, f"texts item {item!r:.60}", 'a string or {"contents": ["..."]}')
        parts.extend(contents)
    return "\n".join(parts)


def _present(record: dict[str, Any], names: tuple[str, ...]) -> tuple[str, ...]:
    """Which of ``names`` a record carries (not null), at its top level or in its ``turns`` objects (AIPerf
    ``MultiTurn``), in the order of ``names``."""
    turns = record.get("turns")
    holders = [record, *(t for t in turns if isinstance(t, dict))] if isinstance(turns, list) else [record]
    return tuple(k for k in names if any(h.get(k) is not None for h in holders))


def timing_fields(record: dict[str, Any]) -> tuple[str, ...]:
    """The arrival-time fields (:data:`TIMING_FIELDS`) a record carries. A ``--workload`` file is sent at the cell's
    concurrency or rate, so these are never replayed: ``bench`` names them in a warning."""
    return _present(record, TIMING_FIELDS)


def tools_of(where: str, record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A row's OpenAI tool definitions (``tools``: AIPerf ``MooncakeTrace`` / SageMaker / ``inputs.json`` bodies,
    SGLang ``openai`` rows, which pass it into the request body), sent in the request body with its messages; None
    when the row has none.

    Raises:
        ConfigError: ``tools`` that is not a non-empty list of objects (AIPerf's ``MooncakeTrace`` refuses an empty
            one), by line.
    """
    tools = record.get("tools")
    if tools is None or tools == "":  # LLaMA-Factory's sharegpt / alpaca `tools` column: "" when the row has none
        return None
    if isinstance(tools, str) and tools.lstrip().startswith("["):
        raise bad_row(where, f"tools is JSON text ({tools!r:.60}: LLaMA-Factory's tool description column)",
                      'a list of OpenAI tool objects ({"type": "function", "function": {"name", "parameters"}})',
                      TOOLS_JSON_TEXT_FIX)  # fmt: skip
    if not isinstance(tools, list) or not tools or not all(isinstance(t, dict) for t in tools):
        raise bad_row(where, f"tools {tools!r:.60} is not a non-empty list of tool definitions",
                      'a list of OpenAI tool objects ({"type": "function", "function": {"name", "parameters"}})',
                      "write `tools` as the request body's own list, or remove it")  # fmt: skip
    return tools


def unsent_fields(record: dict[str, Any]) -> tuple[str, ...]:
    """The request-body fields (:data:`UNSENT_FIELDS`, AIPerf's ``extra``; :data:`REQUEST_BODY_FIELDS`, sampling fields
    of a request body such as SGLang's ``openai`` rows carry) a record carries: never sent, named in a warning by
    ``bench``. An ``inputs.json`` payload's unsent fields (held under ``extra``) are named themselves."""
    extra = record.get("extra")
    if record.get(RECORDED_BODY_MARK) and isinstance(extra, dict):
        return tuple(extra)
    return _present(record, UNSENT_FIELDS + REQUEST_BODY_FIELDS)


def unread_length_fields(record: dict[str, Any]) -> tuple[str, ...]:
    """The output-length look-alike fields (:data:`OUTPUT_LENGTH_LOOKALIKES`) a record carries: not read as its length
    (``--max-tokens`` applies), named in a warning by ``bench`` and its dry run."""
    return _present(record, OUTPUT_LENGTH_LOOKALIKES)


_GUIDELLM_UNUSED = tuple(
    (re.compile(GUIDELLM_COLUMN_PATTERN.format(names="|".join(map(re.escape, names))), re.I), names[0], why)
    for names, why in GUIDELLM_UNUSED_COLUMNS
)


def unused_guidellm_columns(record: dict[str, Any]) -> tuple[str, ...]:
    """The GuideLLM columns a record carries (not null) that specscope does not use (:data:`GUIDELLM_UNUSED_COLUMNS`,
    each as GuideLLM's pattern matches it: any case, a plural, a turn suffix), as the record spells them, in its own
    key order: named in a warning by ``bench``, never dropped silently."""
    return tuple(k for k, v in record.items() if v is not None and any(rx.match(k) for rx, _, _ in _GUIDELLM_UNUSED))


_GUIDELLM_MAPPED = re.compile(
    GUIDELLM_COLUMN_PATTERN.format(names="|".join(map(re.escape, GUIDELLM_MAPPED_COLUMNS))), re.I
)


def _reads(key: str, use: FieldUse) -> bool:
    if key in use.reads or any(key == name for name, _ in use.ignores):
        return True
    return use.pattern and _GUIDELLM_MAPPED.match(key) is not None


def unread_fields(record: dict[str, Any], layouts: Iterable[str]) -> tuple[str, ...]:
    """The fields of ``record`` (not null, in its key order) that no layout in ``layouts`` (keys of
    :data:`~specscope.workload.census.FIELD_USE`) reads or knowingly ignores, and that no row's reading takes
    (:data:`~specscope.workload.census.EVERY_ROW_READS`): read by no reader of the row's layout, named in a warning
    by ``bench`` (issue 36: they were dropped with no word for every layout but GuideLLM's and AIPerf's)."""
    uses = [FIELD_USE[k] for k in layouts]
    return tuple(
        k
        for k, v in record.items()
        if v is not None and k not in EVERY_ROW_READS and not any(_reads(k, use) for use in uses)
    )


_GUIDELLM_TEXT = re.compile(GUIDELLM_COLUMN_PATTERN.format(names="|".join(map(re.escape, GUIDELLM_TEXT_COLUMNS))), re.I)


def unsent_text_columns(record: dict[str, Any]) -> tuple[str, ...]:
    """The text columns of a GuideLLM row (not null, not empty) past its first one that are no turn of it: GuideLLM's
    mapper sends the first text column in the row's key order only (with that name's turn variants), and so does
    specscope (:func:`first_text_field`), so a THUDM/LongBench row's ``context`` (the long document; ``input``, the
    question, comes first) is not sent: named in a warning by ``bench``, never dropped silently. An ``instruction``
    row's ``input`` / ``context`` is sent with it (Alpaca, databricks-dolly-15k) and is not named."""
    first: str | None = None
    out = []
    alpaca = isinstance(record.get("instruction"), str)  # its input / context sent with it, in any key order
    for key, value in record.items():
        m = _GUIDELLM_TEXT.match(key) if key not in GUIDELLM_NOT_PLURALS else None
        if m is None or value is None or value == "":
            continue
        field = m.group("name").lower()
        if alpaca and key in ("instruction", "input", "context") and first in (None, "instruction"):
            first = "instruction"
        elif first is None:
            first = field
        elif field != first and not (first == "instruction" and field in ("input", "context")):
            out.append(key)
    return tuple(out)


def guidellm_only_columns(record: dict[str, Any]) -> tuple[str, ...]:
    """The columns of ``record`` (not null) that GuideLLM's mapper reads (:data:`GUIDELLM_MAPPED_COLUMNS`, by its
    pattern) and that no field of AIPerf's ``SingleTurn`` is (:data:`AIPERF_SINGLE_TURN_FIELDS`): a ``text`` row
    carrying one (``output_tokens_count``, ``prefix``) was written for GuideLLM."""
    return tuple(
        k
        for k, v in record.items()
        if v is not None and k not in AIPERF_SINGLE_TURN_FIELDS and _GUIDELLM_MAPPED.match(k) is not None
    )


def unused_column_notes(names: Iterable[str]) -> list[str]:
    """``NAME (what GuideLLM does with it; why specscope ignores it)`` for each unused GuideLLM column in ``names``."""
    out = []
    for name in names:
        why = next((w for rx, _, w in _GUIDELLM_UNUSED if rx.match(name)), None)
        out.append(f"{name} ({why})" if why else name)
    return out

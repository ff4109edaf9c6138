"""The form of a ``--workload`` file's text, before its records are read (:mod:`specscope.workload.userfile`): a
zstd-compressed file or raw control characters refused by name, JSON parsed with integer literals held to
:data:`MAX_INT_DIGITS` digits, and the file told as ONE JSON array of records (ShareGPT V3, Alpaca), else None
(JSON Lines or text); ONE JSON object (of columns, or over several lines) refused by name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.workload.census import (
    DYNAMIC_PLAN_REFUSAL,
    MESSAGES_FIELDS,
    MULTI_TURN_CONFIG_REFUSAL,
    SHAREGPT_FIELDS,
    SYNTHETIC_CONFIG_SUFFIXES,
    SYNTHETIC_REFUSAL,
    TEXT_FIELDS,
)
from specscope.workload.userfile_fields import bad_row, refuse_foreign_layout

__all__ = [
    "MAX_INT_DIGITS",
    "array_items",
    "loads",
    "refuse_object_file",
    "refuse_controls",
    "refuse_html_page",
    "refuse_json_scalar",
    "refuse_synthetic_config",
    "refuse_zstd",
]

#: the longest integer literal parsed (Python refuses past 4,300 digits with a ValueError).
MAX_INT_DIGITS = 40


class _HugeInt(str):
    """An integer literal of more than :data:`MAX_INT_DIGITS` digits, kept as text (never a valid field value)."""

    def __repr__(self) -> str:
        return f"an integer of {len(self.lstrip('-')):,} digits"


def _parse_int(text: str) -> int | _HugeInt:
    return int(text) if len(text) <= MAX_INT_DIGITS else _HugeInt(text)


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def refuse_zstd(path: Path) -> None:
    """ConfigError naming zstd for a zstd-compressed file (AIPerf's h_cua_perf builds: Mooncake rows in
    ``.jsonl.zst``, ai-dynamo/aiperf ``src/aiperf/dataset/loader/h_cua_perf_file.py`` @35397a12), which was refused
    as unreadable UTF-8."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return  # the reader names the error
    if head == _ZSTD_MAGIC:
        raise ConfigError(
            f"workload file {path} is zstd-compressed (AIPerf h_cua_perf builds are Mooncake rows in .jsonl.zst)",
            found=path.name,
            expected="text, gzip-compressed or not",
            fix="decompress it (zstd -d FILE) and pass the rows with --trace FILE (token counts) or --workload "
            "(text_input / messages rows)",
        )


# raw C0 controls but the whitespace and separators (tab, line feed, vertical tab, form feed, carriage return, the
# file / group / record separators 1C-1E, kept as text), and DEL: no text file holds them (JSON escapes them inside
# strings), a binary file or a terminal capture does
_RAW_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f]")


def refuse_controls(path: Path, text: str) -> None:
    """ConfigError naming the line of the first raw control character (a NUL, an escape sequence): the file is not
    the text it looks like, and its bytes would be sent to the server as a prompt."""
    if (m := _RAW_CONTROL.search(text)) is None:
        return
    line = text.count("\n", 0, m.start()) + 1
    raise ConfigError(
        f"workload file {path} holds a control character",
        found=f"{m.group()!r} on line {line}",
        expected="text: printable characters, tabs and line breaks (JSON writes others as \\u escapes)",
        fix="remove the control characters (a NUL means a binary file; an ESC a terminal capture: strip its colours)",
    )


_HTML_START = re.compile(r"<!doctype\s+html|<html[\s>]|<html$", re.I)


def refuse_html_page(path: Path, text: str) -> None:
    """ConfigError naming an HTML page saved in place of a workload file (its first non-blank line opens an HTML
    document): GitHub's page of april-tools/mtpc ``data/spec_bench/question.jsonl`` @1cf7c640, downloaded instead of
    the file, had its lines sent as prompts (``<!DOCTYPE html>``, ``<html``, ...)."""
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if _HTML_START.match(line.strip()) is None:
            return
        raise ConfigError(
            f"workload file {path} is an HTML page (a web page saved in place of the file it is named for)",
            found=f"`{line.strip()[:60]}` on line {no}",
            expected="the file's own text: JSON Lines, one JSON array, CSV with a header or text lines",
            fix="download the file itself, not its web page (on GitHub: the Raw link, or a clone of the repository), "
            "and pass that",
        )


#: fields that hold a prompt (a string or a list): a JSON object with any of them is a record, never a synthetic config
_PROMPT_FIELDS = (*TEXT_FIELDS, *MESSAGES_FIELDS, *SHAREGPT_FIELDS, "turns", "texts", "instruction")


def refuse_synthetic_config(path: Path, text: str) -> None:
    """ConfigError naming a GuideLLM synthetic data config (:data:`SYNTHETIC_REFUSAL`): a ``.yaml`` / ``.yml`` /
    ``.config`` file (GuideLLM reads these suffixes only as that config, vllm-project/guidellm
    ``src/guidellm/data/config.py`` @02ad329a ``_load_config_file``), or a file that is ONE JSON object with
    ``prompt_tokens`` and no prompt field. Its YAML lines were sent as prompts; its JSON refused as a row without a
    prompt field."""
    suffix = path.name.lower().removesuffix(".gz").rsplit(".", 1)[-1]
    synthetic = f".{suffix}" in SYNTHETIC_CONFIG_SUFFIXES
    if not synthetic and text.lstrip().startswith("{"):
        try:
            doc = loads(text)
        except (json.JSONDecodeError, RecursionError):
            return  # JSON Lines, or broken: the line reader names the line
        synthetic = (
            isinstance(doc, dict)
            and isinstance(doc.get("prompt_tokens"), int)
            and not any(isinstance(doc.get(k), str | list) for k in _PROMPT_FIELDS)
        )
        if isinstance(doc, dict) and doc.get("filetype") == "generate_conversations":
            raise bad_row(str(path), MULTI_TURN_CONFIG_REFUSAL[0], "a prompt or messages per row",
                          MULTI_TURN_CONFIG_REFUSAL[1])  # fmt: skip
        phases = doc.get("phases") if isinstance(doc, dict) else None
        if isinstance(phases, list) and phases and all(isinstance(p, dict) and "input_len" in p for p in phases):
            raise bad_row(str(path), DYNAMIC_PLAN_REFUSAL[0], "a prompt or messages per row", DYNAMIC_PLAN_REFUSAL[1])
    if synthetic:
        raise bad_row(str(path), SYNTHETIC_REFUSAL[0], "a prompt or messages per row", SYNTHETIC_REFUSAL[1])


def loads(text: str) -> Any:
    return json.loads(text, parse_int=_parse_int)


_JSON_KIND = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}


def refuse_json_scalar(where: str, line: str) -> None:
    """ConfigError, by line, for a line of a JSON Lines file (by its name) that is a whole JSON value but not an object
    (``"What is 2+2?"``, ``42``, ``null``): it was sent as a prompt, quotes and all, where every peer tool's JSON Lines
    reader refuses it (GuideLLM's ``datasets`` JSON builder, AIPerf's line models). A line that is no JSON is text.

    Raises:
        ConfigError: the line parses as a JSON string, number, boolean or null.
    """
    try:
        value = loads(line)
    except (json.JSONDecodeError, RecursionError, ValueError):
        return  # plain text: one prompt per line
    kind = "number" if isinstance(value, _HugeInt) else _JSON_KIND.get(type(value))
    if kind is None:
        return  # an object or array: read as a record
    raise bad_row(
        where,
        f"a JSON {kind} ({line:.60}), not an object",
        "one JSON object per line (JSON Lines)",
        'write the line as a record, e.g. {"prompt": "..."}; or one prompt per line, unquoted, in a .txt file',
    )


def array_items(path: Path, text: str) -> list[Any] | None:
    """The items of a file that is one JSON array (its first line is not a whole JSON value by itself, or it is
    the file's only line), else None (JSON Lines or text).

    Raises:
        ConfigError: invalid JSON (naming its line) or nesting deeper than the parser allows.
    """
    body = text.strip()
    if not body.startswith("["):
        return None
    first = body.split("\n", 1)[0]
    if "\n" in body:
        try:
            loads(first)
            return None  # JSON Lines whose lines are arrays: each line is refused as not an object
        except (json.JSONDecodeError, RecursionError):
            pass
    try:
        doc = loads(body)
    except json.JSONDecodeError as exc:
        lead = len(text) - len(text.lstrip())
        line = text.count("\n", 0, lead) + exc.lineno
        raise bad_row(f"{path}:{line}", f"invalid JSON ({exc.msg} at column {exc.colno})", "one JSON array") from None
    except RecursionError:
        raise bad_row(f"{path}:1", "JSON nested deeper than the parser allows", "a JSON array of records") from None
    return doc if isinstance(doc, list) else None


#: record fields whose value is a list inside one row (a chat, turns, AIPerf texts / media, a trace's hash_ids): a
#: one-line object of such a field is a row unless each of its values is itself a list (a column of lists)
_LIST_FIELDS = (*MESSAGES_FIELDS, *SHAREGPT_FIELDS, "turns", "texts", "hash_ids", "images", "audios", "videos")


def _is_columns(doc: object) -> bool:
    """True for ``{"column": [value per row], ...}`` (every value a list, all of one non-zero length)."""
    if not isinstance(doc, dict) or not doc or not all(isinstance(v, list) for v in doc.values()):
        return False
    lengths = {len(v) for v in doc.values()}
    if len(lengths) != 1 or 0 in lengths:
        return False
    return not any(k in _LIST_FIELDS and not all(isinstance(x, list) for x in v) for k, v in doc.items())


def _records_under(doc: object) -> tuple[str, int] | None:
    """``(key, count)`` for ``{"data": [record, ...]}`` (records wrapped in one object, as ``json.dump({"data": rows})``
    writes them, or SQuAD-style files with a ``version``): a key, not a row's own list field, holding a list of objects
    that carry a prompt field, in an object with no prompt field of its own; else None."""
    if not isinstance(doc, dict) or any(k in doc for k in _PROMPT_FIELDS):
        return None  # a row of its own
    for key, value in doc.items():
        if key in _LIST_FIELDS or not isinstance(value, list) or not value:
            continue
        if all(isinstance(x, dict) for x in value) and any(k in x for x in value for k in _PROMPT_FIELDS):
            return str(key), len(value)
    return None


def _refuse_wrapped(where: str, doc: object) -> None:
    """ConfigError naming records wrapped in one object (:func:`_records_under`), with the JSON Lines fix: such a file
    was refused as "one JSON object of columns" (on one line) or "one JSON object over N lines"."""
    if (found := _records_under(doc)) is None:
        return
    key, count = found
    raise bad_row(
        where,
        f"one JSON object holding {count} record{'s' if count != 1 else ''} under `{key}`",
        COLUMNS_EXPECTED,
        f"write the records one per line: jq -c '.{key}[]' FILE > OUT.jsonl",
    )


#: what a file of one object of columns is refused with
COLUMNS_EXPECTED = "JSON Lines (one record per line) or one JSON array of records"
COLUMNS_FIX = (
    "the datasets JSON builder (5.2.0, which GuideLLM reads a .json file with) reads one object as one row whose "
    "fields are lists, not a row per position; write one record per line: "
    "datasets.Dataset.from_dict(json.load(open(FILE))).to_json(OUT.jsonl)"
)


def _pandas_orient(doc: object) -> str | None:
    """The ``orient`` of a ``pandas.DataFrame.to_json`` table that is one object, else None: ``"split"``
    (``{"columns": [...], "index": [...], "data": [[...]]}``), ``"columns"`` (pandas' default: ``{column: {index:
    value}}``) or ``"index"`` (``{index: {column: value}}``): every value an object, all of one non-empty key set, the
    index labels pandas' default ``RangeIndex`` ("0", "1", ...; pandas 3.1.1 ``DataFrame.to_json``). A one-line JSON
    Lines row such as ``{"request": {...}}`` is not one: its inner keys are not index labels."""
    if not isinstance(doc, dict) or not doc:
        return None
    if {"columns", "data"} <= doc.keys() <= {"columns", "index", "data"} and isinstance(doc["data"], list):
        if isinstance(doc["columns"], list) and all(isinstance(row, list) for row in doc["data"]):
            return "split"
    inner = list(doc.values())
    if not all(isinstance(v, dict) and v for v in inner) or len({frozenset(v) for v in inner}) != 1:
        return None
    if all(str(k).isdigit() for k in inner[0]):  # a RangeIndex's labels "0", "1", ... under each column
        return "columns"
    return "index" if all(str(k).isdigit() for k in doc) else None


def refuse_object_file(path: Path, text: str) -> None:
    """Refuse a file that is ONE JSON object written as a table of columns (``{"prompt": [...],
    "output_tokens_count": [...]}``, as ``json.dump(Dataset.to_dict())`` writes it) or over several lines, by name;
    return for JSON Lines and text. The ``datasets`` JSON builder reads such an object as one row of lists, so no peer
    tool sends it a row per position.

    Raises:
        ConfigError: one object of columns (on one line or several), or one object over several lines (JSON Lines
            holds an object per line: it was refused as invalid JSON at line 1).
    """
    body = text.strip()
    if not body.startswith("{"):
        return
    lines = body.split("\n")
    try:
        doc = loads(body)
    except (json.JSONDecodeError, RecursionError):
        return  # JSON Lines (or broken): the line reader names the line
    if (orient := _pandas_orient(doc)) is not None:
        # a DataFrame written with pandas' to_json: the datasets JSON builder reads it as one row of objects (or of
        # lists), so GuideLLM sends no row per record; its "split" keys were named as columns, its default as a prompt
        assert isinstance(doc, dict)
        first = next(iter(doc.values()))
        if orient == "split":
            columns, count = list(doc["columns"]), len(doc["data"])
        else:
            columns, count = (list(doc), len(first)) if orient == "columns" else (list(first), len(doc))
        raise bad_row(
            f"{path}:1",
            f"one JSON object that is a pandas table (DataFrame.to_json, orient '{orient}': {count} rows of "
            f"{', '.join(map(str, columns))!s:.120})",
            COLUMNS_EXPECTED,
            f"the datasets JSON builder (which GuideLLM reads a .json file with) reads it as one row; write one record "
            f"per line: pandas.read_json(FILE, orient='{orient}').to_json(OUT.jsonl, orient='records', lines=True)",
        )
    if _is_columns(doc):
        _refuse_wrapped(f"{path}:1", doc)  # {"data": [records]} is a list of records, not a column
        assert isinstance(doc, dict)
        count = len(next(iter(doc.values())))
        raise bad_row(
            f"{path}:1",
            f"one JSON object of columns ({count} values each: {', '.join(sorted(doc))!s:.120})",
            COLUMNS_EXPECTED,
            COLUMNS_FIX,
        )
    if len(lines) == 1:
        _refuse_wrapped(f"{path}:1", doc)  # a file of one line that is records under a key, not a row
        return
    try:
        loads(lines[0])
        return  # JSON Lines whose first line is a whole object
    except (json.JSONDecodeError, RecursionError):
        pass
    refuse_foreign_layout(f"{path}:1", doc)
    _refuse_wrapped(f"{path}:1", doc)
    raise bad_row(
        f"{path}:1",
        f"one JSON object over {len(lines)} lines (keys: {sorted(doc) if isinstance(doc, dict) else '-'!s:.120})",
        COLUMNS_EXPECTED,
    )

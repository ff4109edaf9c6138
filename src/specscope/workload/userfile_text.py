"""The form of a ``--workload`` file's text, before its records are read (:mod:`specscope.workload.userfile`): a
zstd-compressed file or raw control characters refused by name, JSON parsed with integer literals held to
:data:`MAX_INT_DIGITS` digits, and the file told as ONE JSON array of records (ShareGPT V3, Alpaca), else None
(JSON Lines or text); ONE JSON object (of columns, or over several lines) refused by name. The layouts a file's text
splits into records by: its suffix (``.csv`` / ``.tsv``, text lines, JSON Lines), a CSV's header and rows, a table
header in a file read one prompt per line (refused), an AIPerf ``inputs.json`` and an SGLang agentic trace (each one
JSON object). What a record's fields mean is :mod:`specscope.workload.userfile_fields`.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from specscope import strictjson
from specscope.errors import ConfigError
from specscope.values import article
from specscope.workload.census import (
    DYNAMIC_PLAN_REFUSAL,
    GENAI_PERF_INPUTS_REFUSAL,
    GUIDELLM_TEXT_COLUMNS,
    INPUTS_JSON_SENT,
    MESSAGES_FIELDS,
    MULTI_TURN_CONFIG_REFUSAL,
    OUTPUT_LENGTH_FIELDS,
    RECORDED_BODY_MARK,
    ROW_ID_FIELDS,
    SHAREGPT_FIELDS,
    SYNTHETIC_CONFIG_SUFFIXES,
    SYNTHETIC_REFUSAL,
    SYSTEM_FIELDS,
    TEXT_FIELDS,
)
from specscope.workload.userfile_fields import (
    GUIDELLM_COLUMN,
    bad_row,
    guidellm_name,
    is_csv,
    key_twice,
    refuse_foreign_layout,
)
from specscope.workload.userfile_shapes import refuse_public_shape

__all__ = [
    "MAX_INT_DIGITS",
    "agentic_trace_records",
    "array_items",
    "csv_records",
    "inputs_json_records",
    "is_csv",
    "is_json_lines",
    "is_text_lines",
    "refuse_text_header",
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
            doc = loads(text, _where(path, text))
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


def loads(text: str, where: str | Callable[[], str]) -> Any:
    """``text`` as one JSON value, an integer literal of more than :data:`MAX_INT_DIGITS` digits kept as text: the one
    reader of a workload file's JSON (a line, or the whole file).

    Raises:
        json.JSONDecodeError: not one JSON value; its ``msg`` is :data:`specscope.strictjson.NESTED` for nesting
            deeper than the parser goes (RecursionError, raised as is where a key twice came before the depth).
        ConfigError: one JSON value with a key twice in an object, at ``where`` (:func:`key_twice`; a callable:
            asked then, where finding the place costs a second reading).
    """
    try:
        return strictjson.loads(text, unique_keys=True, parse_int=_parse_int)
    except strictjson.DuplicateKey as exc:
        json.loads(text, parse_int=_parse_int)  # not one value (JSON Lines): each line is read, and refused, alone
        raise key_twice(where if isinstance(where, str) else where(), exc) from None


def _first_line(path: Path | str, text: str) -> str:
    """``FILE:N``: the line of ``text``'s first character that is not white space."""
    line = text.count("\n", 0, len(text) - len(text.lstrip())) + 1
    return f"{path}:{line}"


def _where(path: Path | str, text: str) -> str:
    """Where a refusal of ``text`` read whole points: ``FILE:N`` when it is one line (line N), else ``FILE``."""
    return str(path) if "\n" in text.strip() else _first_line(path, text)


_JSON_KIND = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}


def refuse_json_scalar(where: str, line: str) -> None:
    """ConfigError, by line, for a line of a JSON Lines file (by its name) that is a whole JSON value but not an object
    (``"What is 2+2?"``, ``42``, ``null``): it was sent as a prompt, quotes and all, where every peer tool's JSON Lines
    reader refuses it (GuideLLM's ``datasets`` JSON builder, AIPerf's line models). A line that is no JSON is text.

    Raises:
        ConfigError: the line parses as a JSON string, number, boolean or null.
    """
    try:
        value = loads(line, where)
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
            loads(first, _first_line(path, text))
            return None  # JSON Lines whose lines are arrays: each line is refused as not an object
        except (json.JSONDecodeError, RecursionError):
            pass
    try:
        doc = loads(body, lambda: _item_where(path, text))
    except json.JSONDecodeError as exc:
        if exc.msg == strictjson.NESTED:
            raise bad_row(f"{path}:1", "JSON nested deeper than the parser allows", "a JSON array of records") from None
        lead = len(text) - len(text.lstrip())
        line = text.count("\n", 0, lead) + exc.lineno
        raise bad_row(f"{path}:{line}", f"invalid JSON ({exc.msg} at column {exc.colno})", "one JSON array") from None
    except RecursionError:
        raise bad_row(f"{path}:1", "JSON nested deeper than the parser allows", "a JSON array of records") from None
    return doc if isinstance(doc, list) else None


_BETWEEN_ITEMS = re.compile(r"[ \t\n\r,]*")


def _item_where(path: Path, text: str) -> str:
    """``FILE item N (line L)``: the first item of the JSON array ``text`` (valid JSON) that holds a key twice in an
    object, and the line it starts on; ``FILE`` when none is found (the array itself is no item)."""
    decoder = json.JSONDecoder(parse_int=_parse_int)
    pos = len(text) - len(text.lstrip()) + 1  # past the "["
    for no in itertools.count(1):
        pos = _BETWEEN_ITEMS.match(text, pos).end()  # type: ignore[union-attr]  # matches the empty string
        if pos >= len(text) or text[pos] == "]":
            break
        _, end = decoder.raw_decode(text, pos)
        try:
            strictjson.loads(text[pos:end], unique_keys=True, parse_int=_parse_int)
        except strictjson.DuplicateKey:
            line = text.count("\n", 0, pos) + 1
            return f"{path} item {no} (line {line})"
        pos = end
    return str(path)


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
    if any(all(isinstance(x, dict) and "role" in x for x in v) for v in doc.values()):
        return False  # a row whose fields are chat messages (TRL's conversational `prompt` / `completion`)
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
        if all(isinstance(x, dict) and "role" in x for x in value):
            continue  # a row's own chat messages (WildBench's `conversation_input`), not records
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


#: A row that is a JSON array (``["What is 2+2?", 5]``): a table's row without its column names, as pandas
#: ``DataFrame.to_json(orient="values")`` writes a table (one array of rows), or a JSON Lines file of such rows.
#: No reader takes it (pandas and the datasets JSON builder need column names; AIPerf's line models an object).
#: ``(what, expected, fix)``; the jq reads both file forms (an array of rows, or a row per line).
ROW_OF_VALUES = (
    "a JSON array of values, not an object (a table's row without its column names, as pandas "
    "DataFrame.to_json orient 'values' writes each row)",
    "a JSON object per record, its fields named",
    "write each row as an object of named fields, e.g. with the first value the prompt: jq -c '(if (.[0] | type) == "
    '"array" then .[] else . end) | {prompt: .[0]}\' FILE > OUT.jsonl (or write the table again with '
    "DataFrame.to_json(OUT.jsonl, orient='records', lines=True))",
)
#: JSON objects one after another, each over several lines, as ``jq`` without ``-c`` and ``json.dump(row, indent=2)``
#: per row write them: no reader takes it (pandas and the datasets JSON builder read JSON Lines a line at a time). It
#: was refused as invalid JSON at line 1.
PRETTY_OBJECTS_FIX = "write one object per line: jq -c . FILE > OUT.jsonl"


def _pretty_objects(body: str) -> int:
    """How many JSON objects ``body`` holds one after another, whitespace between them, when it holds at least two and
    nothing else; else 0."""
    decoder, at, count = json.JSONDecoder(), 0, 0
    while at < len(body):
        try:
            value, end = decoder.raw_decode(body, at)
        except (json.JSONDecodeError, RecursionError):
            return 0
        if not isinstance(value, dict):
            return 0
        count += 1
        at = len(body) - len(body[end:].lstrip())
    return count if count >= 2 else 0


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
        doc = loads(body, _where(path, text))
    except (json.JSONDecodeError, RecursionError):
        if "\n" in body and not body.split("\n", 1)[0].rstrip().endswith("}") and (count := _pretty_objects(body)):
            raise bad_row(
                f"{path}:1",
                f"{count} JSON objects, each over several lines (as jq writes them without -c)",
                COLUMNS_EXPECTED,
                PRETTY_OBJECTS_FIX,
            ) from None
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
    data = doc.get("data") if isinstance(doc, dict) else None
    if (
        isinstance(data, list)
        and data
        and all(isinstance(d, dict) and isinstance(d.get("payload"), list) for d in data)
    ):
        raise bad_row(f"{path}:1", GENAI_PERF_INPUTS_REFUSAL[0], COLUMNS_EXPECTED, GENAI_PERF_INPUTS_REFUSAL[1])
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
        loads(lines[0], _first_line(path, text))
        return  # JSON Lines whose first line is a whole object
    except (json.JSONDecodeError, RecursionError):
        pass
    refuse_foreign_layout(f"{path}:1", doc)
    refuse_public_shape(f"{path}:1", doc)
    _refuse_wrapped(f"{path}:1", doc)
    raise bad_row(
        f"{path}:1",
        f"one JSON object over {len(lines)} lines (keys: {sorted(doc) if isinstance(doc, dict) else '-'!s:.120})",
        COLUMNS_EXPECTED,
    )


#: CSV headers of request traces (token counts, no text): BurstGPT, and the Azure LLM inference traces.
_TRACE_HEADERS = {"Request tokens": "BurstGPT (vLLM BurstGPTDataset)", "ContextTokens": "an Azure LLM inference trace"}


_CSV_COUNT = re.compile(r"\d{1,12}(?:\.0*)?")


def _csv_value(key: str, value: str) -> object:
    """A CSV cell: digits in an output-length column as an int (CSV has no numbers); any other cell as text."""
    named = guidellm_name(key)
    field = named[0] if named is not None else key
    if field in OUTPUT_LENGTH_FIELDS and _CSV_COUNT.fullmatch(value.strip()):
        return int(value.strip().split(".")[0])  # "128.0": pandas writes an int column with a gap as floats
    return value


def is_text_lines(name: str) -> bool:
    """A ``.txt`` or ``.text`` file (gzip-compressed or not): one prompt per line, never parsed as JSON (GuideLLM's
    ``TextFileDatasetDeserializer`` takes these suffixes; vLLM's ``sonnet.txt`` is one)."""
    return name.lower().removesuffix(".gz").endswith((".txt", ".text"))


def is_json_lines(name: str) -> bool:
    """A ``.jsonl``, ``.ndjson`` or ``.json`` file (gzip-compressed or not): its name says each line is a JSON value
    (GuideLLM reads these suffixes with the ``datasets`` JSON builder, AIPerf's custom loaders validate each line as a
    model: a line that is a JSON string, number or null is refused by both)."""
    return name.lower().removesuffix(".gz").endswith((".jsonl", ".ndjson", ".json"))


#: column names a header line names besides GuideLLM's (:data:`GUIDELLM_COLUMN`): the census's own fields
_HEADER_NAMES = frozenset(
    n.lower() for n in (*OUTPUT_LENGTH_FIELDS, *ROW_ID_FIELDS, *SYSTEM_FIELDS, "instruction", "category", "text_input")
)
_HEADER_CELL = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,60}")  # a name without spaces: prose has them


def refuse_text_header(where: str, line: str) -> None:
    """ConfigError for the first line of a file read one prompt per line (a ``.txt``, or a file not named ``.csv`` /
    ``.tsv`` / JSON) when that line is a table header: cells split at commas, tabs or semicolons, each a column name,
    one of them a column the census reads (``prompt``, ``output_tokens_count``, GuideLLM's spellings). A CSV saved
    without its suffix was sent line by line: its header as the first prompt, each row with its count glued on
    (``Hello there,5``) and the default output length.

    Raises:
        ConfigError: the line names such columns.
    """
    sep = next((c for c in ("\t", ",", ";") if c in line), None)
    cells = [c.strip().strip('"').strip() for c in (line.split(sep) if sep else [line])]
    if not cells or not all(_HEADER_CELL.fullmatch(c) for c in cells):
        return
    named = [c for c in cells if c.lower() in _HEADER_NAMES or GUIDELLM_COLUMN.fullmatch(c)]
    if not named:
        return
    kind = {"\t": ".tsv (tab-separated)", ",": ".csv", ";": ".csv, saved with commas"}.get(sep or "", ".csv")
    raise bad_row(
        where,
        f"a table header ({', '.join(f'`{c}`' for c in cells)}) in a file read one prompt per line: its lines would "
        "be sent whole, the header as a prompt",
        "a .csv / .tsv file (read by its header: never a prompt), or prompts one per line without a header",
        f"name the file {kind} to read its columns; or delete the header line to send each line as a prompt",
    )


_DATA_CELL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?|.{41,}")  # a number, or prose longer than any column name


def _refuse_data_header(path_text: str, names: list[str]) -> None:
    """ConfigError for a CSV whose first line is a row of data: no cell names a column the census reads, and a cell
    is a number or a sentence. MMLU's CSV files (hendrycks/test ``data/test/*_test.csv``, read with ``header=None``)
    have no header: their first question became the column names and the error named line 2, a line with nothing
    wrong in it."""
    known = [n for n in names if n.lower() in _HEADER_NAMES or GUIDELLM_COLUMN.fullmatch(n)]
    if known or not any(_DATA_CELL.fullmatch(n) for n in names):
        return
    cells = ", ".join(f"`{n:.100}`" for n in names[:8]) + (", ..." if len(names) > 8 else "")
    raise bad_row(
        f"{path_text}:1",
        f"a first line that reads as data, not a header ({cells}): a CSV's first line names its columns (GuideLLM "
        "reads CSV with pandas, which takes it so), and none of these is a column specscope or GuideLLM reads",
        "a header line naming the columns (prompt, ...)",
        "add a header line naming each column, the prompt's `prompt` (for MMLU's question, four choices and answer: "
        "prompt,A,B,C,D,answer)",
    )


def csv_records(path_text: str, text: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line number where the row starts, record)`` per data row of a CSV file with a header (GuideLLM's CSV
    deserializer reads the header as column names; so does this: a header is never a prompt). Empty cells are absent
    fields; an empty header cell is the column ``unnamed column N`` (N its place, from 1). A blank line (or one of
    spaces) is no row and is skipped, as pandas' ``read_csv`` (GuideLLM reads CSV through the ``datasets`` CSV
    builder, which calls it) skips it with ``skip_blank_lines`` and as a blank line of JSON Lines is skipped; the
    rows after it keep their own line numbers.

    Raises:
        ConfigError: no header, a header that names a column twice (its last cell was sent, the first dropped), a
            header of a request trace (refused with ``--trace`` as the fix), a row with more cells than the header,
            a row of only empty cells (``,``, ``,,``, ``""``: pandas reads it as a row whose every cell is missing,
            not as a blank line), a row whose prompt cells are all empty while the header names a prompt column.
    """
    tab = path_text.lower().removesuffix(".gz").endswith(".tsv")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if tab else ",")
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise bad_row(f"{path_text}:1", "no CSV header", "a header naming the columns (prompt, ...)")
    names = [h.strip() for h in header]
    cells = [c.strip().strip('"') for c in names[0].split(";")] if len(names) == 1 and not tab else []
    if len(cells) > 1 and all(_HEADER_CELL.fullmatch(c) for c in cells):  # one column named "prompt;output_..."
        raise bad_row(f"{path_text}:1", f"a header separated by semicolons (`{names[0]:.80}`): one column, as pandas "
                      "(GuideLLM's CSV reader) splits at commas", "a header of comma-separated column names",
                      "save the file with commas (Excel: CSV UTF-8, comma delimited), or tabs as .tsv")  # fmt: skip
    twice = next((n for n in names if n and names.count(n) > 1), None)
    if twice is not None:  # csv rows as dicts keep the last such cell: the first column was never sent
        at = [str(i) for i, n in enumerate(names, 1) if n == twice]
        raise bad_row(f"{path_text}:1", f"the header names `{twice}` {len(at)} times (columns {', '.join(at)})",
                      "one name per column",
                      f"rename or remove all but one `{twice}` column (pandas, which GuideLLM reads CSV with, "
                      f"renames the others `{twice}.1`, ... and reads the first)")  # fmt: skip
    for column, source in _TRACE_HEADERS.items():
        if column in names:
            raise bad_row(f"{path_text}:1", f"a request trace header ({source}: `{column}`, token counts, no text)",
                          "a CSV with a text column (prompt, question, text, ...)",
                          "pass the file with --trace FILE")  # fmt: skip
    _refuse_data_header(path_text, names)
    # an empty header cell (pandas' ``to_csv`` writes its index so) is named by its place, never shown as ``(, A)``
    names = [n or f"unnamed column {i}" for i, n in enumerate(names, 1)]
    raw = io.StringIO(text, newline="").readlines()  # the lines the reader counts (reader.line_num)
    prompts = [i for i, n in enumerate(names) if _prompt_column(n)]
    out: list[tuple[int, dict[str, Any]]] = []
    end = reader.line_num
    for row in reader:
        # the line the record starts on: a quoted cell over several lines ends it later (reader.line_num, which
        # named such a row by its last line); a blank line is a row of no cells, so every line is counted
        line, end = end + 1, reader.line_num
        where = f"{path_text}:{line}"
        if not any(cell.strip() for cell in row):
            shown = raw[line - 1].rstrip("\r\n")
            if end == line and not shown.strip():
                continue  # a blank line: pandas' skip_blank_lines
            raise bad_row(where, f"a row of only empty cells (`{shown:.40}`)",
                          "a prompt per row; blank lines are skipped",
                          f"delete line {line}, or fill its `{names[prompts[0] if prompts else 0]}` cell")  # fmt: skip
        if len(row) > len(names):
            raise bad_row(where, f"{len(row)} cells, the header names {len(names)}",
                          "one cell per header column", "quote cells that hold commas")  # fmt: skip
        if prompts and not any(i < len(row) and row[i].strip() for i in prompts):
            column = names[prompts[0]]
            raise bad_row(where, f"empty prompt (the `{column}` cell is empty)",
                          f"the prompt's text in the `{column}` cell",
                          f"write the prompt into line {line}'s `{column}` cell, or delete line {line}")  # fmt: skip
        out.append((line, {k: _csv_value(k, v) for k, v in zip(names, row, strict=False) if v != ""}))
    return out


def _prompt_column(name: str) -> bool:
    """A CSV column a row's prompt is read from: a text field (:data:`TEXT_FIELDS`, GuideLLM's text columns in any of
    the spellings its mapper matches), chat messages, ShareGPT turns, ``turns``, ``texts`` or ``instruction``."""
    named = guidellm_name(name)
    field = named[0] if named is not None else name
    return field in {*TEXT_FIELDS, *GUIDELLM_TEXT_COLUMNS, *MESSAGES_FIELDS, *SHAREGPT_FIELDS, "turns", "texts"}


def inputs_json_records(path_text: str, text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """``(where, record)`` per payload of an AIPerf ``inputs.json`` (``{"data": [{"session_id", "payloads": [...]}]}``,
    one JSON object: ``InputsJsonPayloadLoader``), in file order, or None when the text is not one: each payload (an
    OpenAI request body carrying its conversation so far) is a record of its ``messages``, its ``max_tokens`` /
    ``max_completion_tokens``, the row id ``<session_id> turn <k>`` and, under ``extra``, the body's other sampling
    fields (not sent; ``bench`` names them). Each is sent as recorded (:data:`RECORDED_BODY_MARK`): its messages
    verbatim and its ``tools``, as AIPerf sends the payload.

    Raises:
        ConfigError: a session without payloads, a payload that is not an object or has no ``messages``.
    """
    body = text.strip()
    if not body.startswith("{"):
        return None
    try:
        doc = loads(body, _where(path_text, text))
    except (ValueError, RecursionError):  # a JSONDecodeError
        return None  # JSON Lines (a bad line is refused by the line reader, by its number)
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, list) or not data or not all(isinstance(d, dict) and "payloads" in d for d in data):
        return None
    out: list[tuple[str, dict[str, Any]]] = []
    for i, session in enumerate(data, 1):
        payloads = session["payloads"]
        if not isinstance(payloads, list) or not payloads:
            raise bad_row(f"{path_text} session {i}", "payloads is not a non-empty list", "a list of request bodies")
        for k, payload in enumerate(payloads, 1):
            where = f"{path_text} session {i} payload {k}"
            if not isinstance(payload, dict):
                raise bad_row(where, f"a JSON {type(payload).__name__}, not a request body", "a JSON object")
            if "messages" not in payload:
                raise bad_row(where, f"a payload without messages (keys: {sorted(payload)!s:.120})",
                              "a chat request body with `messages`", "write the prompt as its messages")  # fmt: skip
            record = {key: payload[key] for key in ("messages", "tools", "max_tokens") if key in payload}
            record[RECORDED_BODY_MARK] = True
            if "max_tokens" not in record and "max_completion_tokens" in payload:
                record["max_tokens"] = payload["max_completion_tokens"]
            record["id"] = f"{session.get('session_id', i)} turn {k}"
            extra = {key: v for key, v in payload.items() if key not in INPUTS_JSON_SENT}
            if extra:
                record["extra"] = extra
            out.append((where, record))
    return out


def _agentic_text(where: str, message: object) -> tuple[str, str]:
    """``(role, text)`` of one message of an agentic trace round: ``content`` a string or text parts (OpenHands'
    ``[{"type": "text", "text"}]``, joined with a newline as SGLang's ``agentic.py`` flattens them)."""
    if not isinstance(message, dict):
        what = f"a message that is {article(type(message).__name__)}"
        raise bad_row(where, what, "message objects with role and content")
    role, content = message.get("role"), message.get("content")
    if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in content):
        content = "\n".join(p["text"] for p in content)
    if not isinstance(role, str) or not isinstance(content, str) or not content.strip():
        raise bad_row(where, f"a message of role {role!r:.20} without text content", "text content in every message",
                      "write each message's content as text")  # fmt: skip
    return role, content


def agentic_trace_records(path_text: str, text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """``(where, record)`` per conversation of an SGLang agentic trace (one JSON object ``{"metadata",
    "conversations": [[{"messages", "prompt_tokens"}, ...], ...]}``: agentic_trace.py @3666ee97
    ``AgenticTraceDataset``; agentic.py @1cb4d970 writes the same), in file order, else None. Each conversation is an
    AIPerf multi-turn record: a leading system message of its first round as a system turn, then each round's one user
    message a turn (sent after the server's answer to the turn before, as SGLang replays the rounds); rounds without
    messages skipped, as SGLang skips them; row id ``conversation N``.

    Raises:
        ConfigError: a round that is not one user message (besides the first round's system message), by
            conversation and turn; a conversation without a round.
    """
    body = text.strip()
    if not body.startswith("{"):
        return None
    try:
        doc = loads(body, _where(path_text, text))
    except (ValueError, RecursionError):
        return None
    chats = doc.get("conversations") if isinstance(doc, dict) else None
    if not isinstance(chats, list) or not chats or not all(isinstance(c, list) for c in chats):
        return None
    fix = ("write the round as one user message (SGLang sends a round's messages together; specscope sends one user "
           "turn per round)")  # fmt: skip
    out: list[tuple[str, dict[str, Any]]] = []
    for i, chat in enumerate(chats, 1):
        turns: list[dict[str, Any]] = []
        rounds = [(k, t) for k, t in enumerate(chat, 1) if isinstance(t, dict) and t.get("messages")]
        for k, turn in rounds:
            where = f"{path_text} conversation {i} turn {k}"
            messages = turn["messages"]
            if not isinstance(messages, list):
                raise bad_row(where, "messages is not a list", "a list of the round's new messages")
            said = [_agentic_text(where, m) for m in messages]
            if not turns and len(said) == 2 and said[0][0] == "system":
                turns.append({"role": "system", "text": said[0][1]})
                said = said[1:]
            if len(said) != 1 or said[0][0] != "user":
                what = f"{len(said)} messages" if len(said) != 1 else f"{article(said[0][0])} message"
                raise bad_row(where, f"{what} in one round", "one user message per round", fix)
            turns.append({"text": said[0][1]})
        if not any("role" not in t for t in turns):
            raise bad_row(f"{path_text} conversation {i}", "a conversation without a user round",
                          "at least one round with a user message")  # fmt: skip
        out.append((f"{path_text} conversation {i}", {"turns": turns, "id": f"conversation {i}"}))
    return out

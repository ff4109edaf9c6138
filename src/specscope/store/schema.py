"""The tables of ``run.sqlite`` and the conversion of a cell row to the facts it holds.

Schema 2 (written now) keeps only what was observed: per cell the two ``/metrics`` scrapes, the client's
self-check, the wall-clock bounds, whether the server crashed and the reason codes observed while measuring;
per stream its :class:`~specscope.records.StreamRecord`; per cell the server's running / waiting gauges sampled
while it ran (table ``gauges``, ``[[t_ns, running, waiting], ...]``, added to schema 2 without a version change:
a run stored before it has no rows there and reads as cells without samples).
Schema 1 (written before issue 11) kept a derived summary per cell instead of the observed reasons; it is read by
taking the crash from its ``status`` column and the client limit from the stored self-check
(``client_json.self_check.client_limited``) and ignoring the summary.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from specscope.errors import StoreError
from specscope.facts import KEPT_KEYS, ServerFacts
from specscope.records import (
    CRASH_REASON,
    INT_BOUND,
    CellKey,
    CellResult,
    ClientFacts,
    GaugeSample,
    SpecCounters,
    StreamRecord,
    finite_float,
    known_fields,
)
from specscope.redact import redact

__all__ = [
    "SCHEMA_SQL",
    "CELL_COLUMNS",
    "REQUIRED_TABLES",
    "cell_row",
    "cell_from_row",
    "counters_from_json",
    "client_from_json",
    "stream_from_json",
    "gauges_from_json",
    "facts_from_json",
    "facts_record",
    "json_default",
    "cell_columns",
]

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS cells (
    config TEXT NOT NULL,
    workload TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    crashed INTEGER NOT NULL,
    reasons_json TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    before_json TEXT,
    after_json TEXT,
    client_json TEXT NOT NULL,
    PRIMARY KEY (config, workload, concurrency, repeat)
);
CREATE TABLE IF NOT EXISTS streams (
    config TEXT NOT NULL,
    workload TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    record_json TEXT NOT NULL,
    PRIMARY KEY (config, workload, concurrency, repeat, idx)
);
CREATE TABLE IF NOT EXISTS server_facts (
    config TEXT PRIMARY KEY,
    facts_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS gauges (
    config TEXT NOT NULL,
    workload TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    samples_json TEXT NOT NULL,
    PRIMARY KEY (config, workload, concurrency, repeat)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

# the tables a run of each schema version must have (``gauges`` and ``meta`` came later: optional)
REQUIRED_TABLES = {1: ("cells", "streams", "server_facts"), 2: ("cells", "streams", "server_facts")}

# the columns a cell is read from, per schema version; the first four are the key
CELL_COLUMNS = {
    1: "config, workload, concurrency, repeat, status, client_json, start_ns, end_ns, before_json, after_json",
    2: "config, workload, concurrency, repeat, crashed, reasons_json, start_ns, end_ns, before_json, after_json, "
    "client_json",
}


def json_default(o: Any) -> Any:
    """JSON for sets (sorted lists) and paths (strings); anything else is an error."""
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if hasattr(o, "__fspath__"):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def cell_columns(version: int) -> str:
    """The ``SELECT`` column list of a cell row in schema ``version``."""
    return CELL_COLUMNS[version]


def cell_row(result: CellResult) -> tuple[Any, ...]:
    """The schema-2 ``cells`` row of ``result`` (in :data:`SCHEMA_SQL` column order)."""
    k = result.key
    return (
        k.config,
        k.workload,
        k.concurrency,
        k.repeat,
        int(result.crashed),
        json.dumps(redact(list(result.reasons))),
        result.start_ns,
        result.end_ns,
        None if result.before is None else json.dumps(result.before.to_dict()),
        None if result.after is None else json.dumps(result.after.to_dict()),
        json.dumps(redact(result.client.to_dict()), default=json_default),
    )


def counters_from_json(text: str | None, version: int, where: str = "cells") -> SpecCounters | None:
    """A stored scrape, or None.

    Raises:
        StoreError: the stored object does not have the fields (and their types) of :class:`SpecCounters`, or a
            count that is no count (NaN, an infinity, a negative, 2**63 or more: a scrape never stores one, the
            rule of :func:`specscope.client.metrics` for a counter's sample), or a gauge that is not finite.
    """
    if text is None:
        return None
    raw = _json(text, where, version)
    _typed(_COUNTERS, text, where, version)
    counters: SpecCounters = _checked(SpecCounters.from_dict, raw, where, version)
    _check_counts(counters, where, version)
    return counters


_COUNTS = ("drafts", "draft_tokens", "accepted_tokens", "generation_tokens", "prompt_tokens", "rejected_tokens")
_GAUGE_VALUES = ("running", "waiting", "created")


def _check_counts(counters: SpecCounters, where: str, version: int) -> None:
    """Refuse a stored count outside 0..2**63 or not finite, and a gauge that is not finite, naming it (a 400-digit
    count or NaN drafts made every reader exit 3)."""
    for name in (*_COUNTS, "accepted_per_position"):
        value = getattr(counters, name)
        for v in value if isinstance(value, tuple) else (value,):
            f = finite_float(v) if v is not None else 0.0
            if f is None or not 0 <= f < _INT_BOUND:
                raise _bad(
                    f"{where}.{name}", f"{str(v)[:40]} is no count (a finite number from 0 to below 2**63)", version
                )
    for name in _GAUGE_VALUES:
        v = getattr(counters, name)
        if v is not None and finite_float(v) is None:
            raise _bad(f"{where}.{name}", f"{str(v)[:40]} is not a finite number", version)
    for engine, each in counters.engines.items():
        _check_counts(each, f"{where}.engines.{engine}", version)


def stream_from_json(text: str, version: int, where: str = "streams") -> StreamRecord:
    """A stored stream record.

    Raises:
        StoreError: the stored object does not have the fields (and their types) of :class:`StreamRecord`, or an
            instant / count outside +-2**63.
    """
    raw = _json(text, where, version)
    if not isinstance(raw, dict):
        raise _bad(where, f"a JSON {type(raw).__name__}, not an object", version)
    _checked(lambda d: known_fields(StreamRecord, d), raw, where, version)
    record: StreamRecord = _typed(_STREAM, text, where, version)
    for name in _STREAM_INTS:
        values = getattr(record, name)
        low = 0 if name.endswith(_COUNT_SUFFIXES) else -_INT_BOUND  # counts are >= 0; instants have any origin
        for v in values if isinstance(values, tuple) else (values,):
            if v is not None and not low <= v < _INT_BOUND:
                raise _bad(f"{where}.{name}", f"{v} is outside {low}..2**63", version)
    return record


def gauges_from_json(text: str, version: int, where: str = "gauges") -> tuple[GaugeSample, ...]:
    """A cell's stored gauge samples (``[[t_ns, running, waiting(, queue_sum_s, queue_count)], ...]``).

    Raises:
        StoreError: not a list of 3- or 5-number lists of finite numbers.
    """
    samples = _typed(_GAUGES, text, where, version)
    return tuple(GaugeSample.from_list(list(v)) for v in samples)


def facts_from_json(text: Any, version: int, where: str) -> ServerFacts:
    """One config's stored server facts: a JSON object, in which every key that names a unit
    (``kv_cache_size_tokens``, ``weights_loaded_gib``, ``model_loading_s``) holds a number, validated into a
    :class:`~specscope.facts.ServerFacts` (:func:`facts_record`).

    Raises:
        StoreError: not a JSON object (or not JSON, nested too deep), a unit-named key holding something else, or a
            key the record types holding a value of another type.
    """
    if not isinstance(text, str):
        raise _bad(where, f"a {type(text).__name__}, not JSON text", version)
    facts = _json(text, where, version)
    if not isinstance(facts, dict):
        raise _bad(where, f"a JSON {type(facts).__name__}, not an object", version)
    return facts_record(facts, where, version)


def facts_record(facts: Mapping[str, Any], where: str = "server facts", version: int = 2) -> ServerFacts:
    """``facts`` (one config's server facts as a JSON-ready object: stored, or made in memory by ``report
    --server-log`` and ``predict``) validated into a :class:`~specscope.facts.ServerFacts`: each key the record types
    has its type (strict: ``"3"`` is no k, ``true`` no count), a model or draft stated as a bare id reads as its
    name, a command line stored as a list reads joined; the object itself is kept as ``stored`` and every key
    nobody knows is named in ``unknown``.

    Raises:
        StoreError: a unit-named key that does not hold a number, or a typed key holding another type (the message
            names it and the stored value).
    """
    bad = _first_unit_mismatch(facts)
    if bad is not None:
        raise _bad(f"{where}.{bad[0]}", f"{bad[1]!r:.60} where a number is expected", version)
    typed = {k: _FACT_FORMS.get(k, _same)(v) for k, v in facts.items() if k in _FACT_KEYS}
    try:
        text = json.dumps(typed, default=json_default)
    except (TypeError, ValueError) as exc:
        raise _bad(where, str(exc), version) from None
    record: ServerFacts = _typed(_FACTS, text, where, version)
    unknown = tuple(sorted(str(k) for k in facts if k not in _FACT_KEYS and k not in KEPT_KEYS))
    return dataclasses.replace(record, stored=dict(facts), unknown=unknown)


def _same(value: Any) -> Any:
    return value


def _named(value: Any) -> Any:
    """A model or draft stated as a bare id (an OpenAI-compatible server's) is a record with that name."""
    return {"name": value} if isinstance(value, str) else value


def _joined(value: Any) -> Any:
    """A command line stored as a list of words reads as one line."""
    return " ".join(map(str, value)) if isinstance(value, list | tuple) else value


_FACT_FORMS = {"model": _named, "draft": _named, "command_line": _joined}


# the project's units-in-names rule: a key with one of these endings holds a number (or null, or a list of them)
_UNIT_ENDINGS = ("_tokens", "_bytes", "_gib", "_s", "_ns", "_ms", "_percent", "_requests", "_per_s")


def _first_unit_mismatch(value: Any, path: str = "") -> tuple[str, Any] | None:
    """The first ``(path, value)`` in ``value`` whose key names a unit but whose value is not a number."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_unit_mismatch(item, f"{path}[{i}]")
            if found:
                return found
        return None
    if not isinstance(value, dict):
        return None
    for key, item in value.items():
        where = f"{path}.{key}" if path else str(key)
        if str(key).endswith(_UNIT_ENDINGS) and not _is_number_or_numbers(item):
            return where, item
        found = _first_unit_mismatch(item, where)
        if found:
            return found
    return None


def _is_number_or_numbers(value: Any) -> bool:
    def number(v: Any) -> bool:
        return v is None or (isinstance(v, int | float) and not isinstance(v, bool))

    return number(value) or (isinstance(value, list) and all(number(v) for v in value))


def cell_from_row(row: tuple[Any, ...], streams: tuple[StreamRecord, ...], version: int) -> CellResult:
    """The facts of one cell from its row (columns :func:`cell_columns`) and its stream records.

    Raises:
        StoreError: a column of the wrong type or range, or a JSON column that does not hold what it should
            (the message names the row and the column).
    """
    names = _ROW_FIELDS[version]
    fields = dict(zip(names, row, strict=True))
    where = "cells row " + "/".join(str(v) for v in row[:4])
    try:
        _ROW_MODELS[version].model_validate(fields)
    except ValidationError as exc:
        raise _bad(f"{where}: {_first(exc)[0]}", _first(exc)[1], version) from None
    key = CellKey(*row[:4])
    client = client_from_json(fields["client_json"], version, f"{where}: client_json")
    if version == 1:
        crashed = fields["status"] == "server_crash"
        check = client.self_check or {}
        limited = check.get("client_limited")
        reasons = ((str(limited),) if limited else ()) + ((CRASH_REASON,) if crashed else ())
    else:
        crashed = bool(fields["crashed"])
        reasons = tuple(_typed(_REASONS, fields["reasons_json"], f"{where}: reasons_json", version))
    return CellResult(
        key,
        streams,
        fields["start_ns"],
        fields["end_ns"],
        counters_from_json(fields["before_json"], version, f"{where}: before_json"),
        counters_from_json(fields["after_json"], version, f"{where}: after_json"),
        client,
        crashed=crashed,
        reasons=reasons,
    )


_INT_BOUND = INT_BOUND
_ANY = TypeAdapter(Any)  # pydantic's JSON parser (jiter): nesting and number size bounded, NaN as json.dumps writes
_STREAM = TypeAdapter(StreamRecord)
_COUNTERS = TypeAdapter(SpecCounters)
_FINITE = Annotated[float, Field(allow_inf_nan=False)]
_GAUGES = TypeAdapter(list[tuple[_FINITE, _FINITE, _FINITE] | tuple[_FINITE, _FINITE, _FINITE, _FINITE, _FINITE]])
_REASONS = TypeAdapter(list[str])
_CLIENT = TypeAdapter(dict[str, Any])
_FACTS = TypeAdapter(ServerFacts)
_FACT_KEYS = frozenset(f.name for f in dataclasses.fields(ServerFacts)) - {"stored", "unknown"}
_STREAM_INTS = [f.name for f in dataclasses.fields(StreamRecord) if "int" in str(f.type)]
_COUNT_SUFFIXES = ("_tokens", "_chunks", "bytes_received", "_per_step", "http_status")


class _Clock(BaseModel):
    """The ``clock`` facts of a cell's client facts (:func:`specscope.bench.clock.clock_facts`): wall-clock instants
    (s since the epoch), the 1-minute load average at start and end, the engine's CPU seconds; each may be absent."""

    model_config = ConfigDict(strict=True, extra="allow")
    started_at_s: _FINITE | None = None
    ended_at_s: _FINITE | None = None
    load_avg_1m: list[_FINITE | None] | None = None
    engine_cpu_s: _FINITE | None = None


class _OpenLoop(BaseModel):
    """The ``open_loop`` facts (:class:`~specscope.records.OpenLoopFacts`)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    rate_per_s: _FINITE | None = None
    arrival: str | None = None
    schedule_seed: int | None = None
    requests: Annotated[int, Field(ge=0)] | None = None
    client_processes: Annotated[int, Field(ge=0)] | None = None
    client_decision: str | None = None
    max_concurrency: Annotated[int, Field(ge=1)] | None = None


class _Trace(BaseModel):
    """The ``trace`` facts (:class:`~specscope.records.TraceFacts`)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    time_scale: _FINITE = 1.0
    requests: Annotated[int, Field(ge=0)] | None = None
    scheduled_span_s: _FINITE = 0.0
    input_tokens_mean: _FINITE | None = None


class _Conversation(BaseModel):
    """One of the ``conversations`` (:class:`~specscope.records.ConversationFacts`)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    id: str
    turns_planned: Annotated[int, Field(ge=0)]
    turns_sent: Annotated[int, Field(ge=0)]


class _Client(BaseModel):
    """A cell's stored client facts (:class:`~specscope.records.ClientFacts`): each known key holds what its record
    needs; ``imported`` is any object (its figures are read one by one, a bad one named, by
    :meth:`~specscope.records.ImportedFacts.from_dict`); a key this reader does not know is kept as stored."""

    model_config = ConfigDict(strict=True, extra="allow")
    client_settings: dict[str, Any] | None = None
    warmup_prompt_id: str | None = None
    clock: _Clock | None = None
    max_tokens: Annotated[int, Field(ge=0, lt=_INT_BOUND)] | None = None
    self_check: dict[str, Any] | None = None
    rows_sent: list[str] | None = None
    counter_source: dict[str, Any] | None = None
    imported: dict[str, Any] | None = None
    open_loop: _OpenLoop | None = None
    trace: _Trace | None = None
    conversations: list[_Conversation] | None = None
    client_decision: str | None = None
    metrics_unreadable: dict[str, str] | None = None


def client_from_json(text: str, version: int, where: str = "cells: client_json") -> ClientFacts:
    """A cell's stored client facts as their record (issue 37: checked here, read as attributes past this edge).

    Raises:
        StoreError: not a JSON object, or a known key holding something else (the message names the key path and
            the stored value, e.g. ``client_json.clock.started_at_s``).
    """
    raw = _typed(_CLIENT, text, where, version)
    try:
        _Client.model_validate(raw)
    except ValidationError as exc:
        field, found = _first(exc)
        raise _bad(f"{where}.{field}", found, version) from None
    facts: ClientFacts = _checked(ClientFacts.from_dict, raw, where, version)
    return facts


class _Row(BaseModel):
    """The typed columns of a ``cells`` row (schema 2); JSON columns are checked by their own adapters."""

    model_config = ConfigDict(strict=True)
    config: Annotated[str, Field(min_length=1)]
    workload: Annotated[str, Field(min_length=1)]
    concurrency: Annotated[int, Field(ge=1, lt=_INT_BOUND)]
    repeat: Annotated[int, Field(ge=0, lt=_INT_BOUND)]
    start_ns: Annotated[int, Field(gt=-_INT_BOUND, lt=_INT_BOUND)]
    end_ns: Annotated[int, Field(gt=-_INT_BOUND, lt=_INT_BOUND)]
    before_json: str | None
    after_json: str | None
    client_json: str


class _Row2(_Row):
    crashed: Annotated[int, Field(ge=0, le=1)]
    reasons_json: str


class _Row1(_Row):
    status: str


_ROW_MODELS: dict[int, type[_Row]] = {1: _Row1, 2: _Row2}
_ROW_FIELDS = {v: tuple(c.strip() for c in cols.split(",")) for v, cols in CELL_COLUMNS.items()}


def _bad(where: str, found: str, version: int) -> StoreError:
    return StoreError(
        f"run.sqlite holds a record this specscope cannot read ({where})",
        found=found,
        expected=f"the records of run schema {version}",
        fix="restore run.sqlite from a copy, read the run with the version of specscope that wrote it, or run the "
        "benchmark again",
    )


def _json(text: Any, where: str, version: int) -> Any:
    """``text`` parsed by pydantic's JSON parser (nesting and number size bounded, NaN allowed as ``json.dumps``
    writes it)."""
    if not isinstance(text, str | bytes):
        raise _bad(where, f"a {type(text).__name__}, not JSON text", version)
    try:
        return _ANY.validate_json(text)
    except ValidationError as exc:
        raise _bad(where, f"not JSON we read: {exc.errors()[0]['msg']}", version) from None


def _typed(adapter: TypeAdapter[Any], text: Any, where: str, version: int) -> Any:
    """``text`` validated by ``adapter`` (strict JSON mode); the first error names the field."""
    if not isinstance(text, str | bytes):
        raise _bad(where, f"a {type(text).__name__}, not JSON text", version)
    try:
        return adapter.validate_json(text, strict=True)
    except ValidationError as exc:
        field, found = _first(exc)
        raise _bad(f"{where}{'.' + field if field else ''}", found, version) from None


def _first(exc: ValidationError) -> tuple[str, str]:
    """The first error of ``exc``: (field path, message with the stored value, cut to 60 characters)."""
    first = exc.errors()[0]
    return ".".join(str(p) for p in first["loc"]), f"{first['msg']} (stored {first.get('input')!r:.60})"


def _checked(parse: Any, data: Any, where: str, version: int) -> Any:
    try:
        return parse(data)
    except (ValueError, TypeError, AttributeError) as exc:
        raise _bad(where, str(exc), version) from None

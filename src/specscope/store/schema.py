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

import json
from typing import Any

from specscope.errors import StoreError
from specscope.records import CRASH_REASON, CellKey, CellResult, SpecCounters, StreamRecord
from specscope.redact import redact

__all__ = ["SCHEMA_SQL", "CELL_COLUMNS", "cell_row", "cell_from_row", "json_default", "cell_columns"]

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
        json.dumps(list(result.reasons)),
        result.start_ns,
        result.end_ns,
        None if result.before is None else json.dumps(result.before.to_dict()),
        None if result.after is None else json.dumps(result.after.to_dict()),
        json.dumps(redact(result.client), default=json_default),
    )


def counters_from_json(text: str | None, version: int) -> SpecCounters | None:
    """A stored scrape, or None.

    Raises:
        StoreError: the stored object does not have the fields of :class:`SpecCounters` (schema ``version``).
    """
    if text is None:
        return None
    return _checked(SpecCounters.from_dict, json.loads(text), version)


def stream_from_json(text: str, version: int) -> StreamRecord:
    """A stored stream record.

    Raises:
        StoreError: the stored object does not have the fields of :class:`StreamRecord` (schema ``version``).
    """
    return _checked(StreamRecord.from_dict, json.loads(text), version)


def cell_from_row(row: tuple[Any, ...], streams: tuple[StreamRecord, ...], version: int) -> CellResult:
    """The facts of one cell from its row (columns :func:`cell_columns`) and its stream records."""
    key = CellKey(*row[:4])
    if version == 1:
        status, client_json, start_ns, end_ns, before, after = row[4:]
        client = json.loads(client_json)
        crashed = status == "server_crash"
        limited = (client.get("self_check") or {}).get("client_limited")
        reasons = ((limited,) if limited else ()) + ((CRASH_REASON,) if crashed else ())
    else:
        crashed_i, reasons_json, start_ns, end_ns, before, after, client_json = row[4:]
        crashed, reasons, client = bool(crashed_i), tuple(json.loads(reasons_json)), json.loads(client_json)
    return CellResult(
        key,
        streams,
        start_ns,
        end_ns,
        counters_from_json(before, version),
        counters_from_json(after, version),
        client,
        crashed=crashed,
        reasons=reasons,
    )


def _checked(parse: Any, data: Any, version: int) -> Any:
    try:
        return parse(data)
    except (ValueError, TypeError) as exc:
        raise StoreError(
            "run.sqlite holds a record this specscope cannot read",
            found=str(exc),
            expected=f"the records of run schema {version}",
            fix="read the run with the version of specscope that wrote it, or run the benchmark again",
        ) from None

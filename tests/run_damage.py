"""A small run folder and the hand edits of issue 29 ("Reading writes") that it is damaged with.

``small_run(path)`` stores 2 configs x 1 workload x N=1,2 x 2 repeats of facts (tests.factmaker), server facts and
gauge samples. ``DAMAGE`` maps a name to ``(kind, edit, named)``: ``kind`` ``sql`` (a statement run on run.sqlite)
or ``manifest`` (a function of the manifest dict); ``named``: the table or field a refusal must name.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factmaker import cell_facts
from specscope.config import BenchOptions
from specscope.records import GaugeSample
from specscope.store import create_run

DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJ = '{"a":' * 3000 + "1" + "}" * 3000
BIG = "9" * 5000


def small_run(path: Path) -> Path:
    """A run folder with known facts (see the module docstring); returns ``path``."""
    opts = BenchOptions(configs=("base", "ngram"), workloads=("prose",), levels=(1, 2), repeats=2)
    run = create_run(path, {"kind": "bench", "options": opts.model_dump(mode="json"), "baseline": "base"})
    counters = {"drafts": 10, "draft_tokens": 30, "accepted_tokens": 20, "accepted_per_position": [8, 7, 5]}
    for n in (1, 2):
        for r in range(2):
            run.save_cell(cell_facts("base", "prose", n, r, 100.0 * n + r, counters=None))
            ngram = cell_facts("ngram", "prose", n, r, 130.0 * n + r, counters=counters)
            run.save_cell(ngram.__class__(**{**_fields(ngram), "gauges": (GaugeSample(0, 1.0, 0.0),)}))
    run.save_server_facts("ngram", {"command_line": "llama-server --spec", "log": "logs/ngram.log"})
    run.update_manifest(finished=True, cells_done=8, cells_total=8)
    run.close()
    return path


def _fields(cell: Any) -> dict[str, Any]:
    return {f: getattr(cell, f) for f in cell.__dataclass_fields__}


def _set(column: str, value: str, table: str = "cells") -> str:
    """``column`` of the first row of ``table`` set to ``value`` (one row: the key columns stay unique)."""
    return f"UPDATE {table} SET {column}={value} WHERE rowid=(SELECT min(rowid) FROM {table})"


def _rec(path: str, value: str) -> str:
    return f"UPDATE streams SET record_json=json_set(record_json,'$.{path}',json('{value}'))"


def _after(path: str, value: str) -> str:
    return f"UPDATE cells SET after_json=json_set(after_json,'$.{path}',json('{value}')) WHERE after_json IS NOT NULL"


def _opts(**kw: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda m: {**m, "options": {**m["options"], **kw}}


def _renamed(old: str, new: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda m: {**m, "options": {(new if k == old else k): v for k, v in m["options"].items()}}


DAMAGE: dict[str, tuple[str, Any, str]] = {
    "cells table dropped": ("sql", "DROP TABLE cells", "cells"),
    "streams table dropped": ("sql", "DROP TABLE streams", "streams"),
    "server_facts table dropped": ("sql", "DROP TABLE server_facts", "server_facts"),
    "cells.client_json column dropped": ("sql", "ALTER TABLE cells DROP COLUMN client_json", "client_json"),
    "reasons_json not JSON": ("sql", _set("reasons_json", "'not json'"), "reasons_json"),
    "reasons_json an object": ("sql", _set("reasons_json", "'{\"a\": 1}'"), "reasons_json"),
    "reasons_json numbers": ("sql", _set("reasons_json", "'[1, 2]'"), "reasons_json"),
    "reasons_json nested 5,000 deep": ("sql", _set("reasons_json", f"'{DEEP}'"), "reasons_json"),
    "client_json a list": ("sql", _set("client_json", "'[1]'"), "client_json"),
    "client_json a string": ("sql", _set("client_json", "'\"x\"'"), "client_json"),
    "start_ns text": ("sql", _set("start_ns", "'abc'"), "start_ns"),
    "start_ns a 5,000-digit number as text": ("sql", _set("start_ns", f"'{BIG}'"), "start_ns"),
    "concurrency text": ("sql", _set("concurrency", "'x'"), "concurrency"),
    "concurrency 0": ("sql", _set("concurrency", "0"), "concurrency"),
    "repeat -1": ("sql", _set("repeat", "-1"), "repeat"),
    "crashed 7": ("sql", _set("crashed", "7"), "crashed"),
    "config NULL-like blob": ("sql", _set("config", "x'00ff'"), "config"),
    "after_json a list": ("sql", _set("after_json", "'[1]'"), "after_json"),
    "after_json deep": ("sql", _set("after_json", f"'{DEEP_OBJ}'"), "after_json"),
    "counters drafts text": ("sql", _after("drafts", '"x"'), "drafts"),
    "counters per position text": ("sql", _after("accepted_per_position", '"abc"'), "accepted_per_position"),
    "counters per position objects": ("sql", _after("accepted_per_position", '[{"a":1}]'), "accepted_per_position"),
    "counters engines a list": ("sql", _after("engines", "[1]"), "engines"),
    "counters present a number": ("sql", _after("present", "5"), "present"),
    "stream output_tokens text": ("sql", _rec("output_tokens", '"x"'), "output_tokens"),
    "stream send_ns text": ("sql", _rec("send_ns", '"x"'), "send_ns"),
    "stream send_ns float": ("sql", _rec("send_ns", "1.5"), "send_ns"),
    "stream status unknown": ("sql", _rec("status", '"weird"'), "status"),
    "stream text a number": ("sql", _rec("text", "5"), "text"),
    "stream draft_per_step text": ("sql", _rec("draft_per_step", '"ab"'), "draft_per_step"),
    "stream output_tokens true": ("sql", _rec("output_tokens", "true"), "output_tokens"),
    "stream record a list": ("sql", _set("record_json", "'[1]'", "streams"), "record_json"),
    "stream record deep": ("sql", _set("record_json", f"'{DEEP}'", "streams"), "record_json"),
    "stream record a 5,000-digit number": ("sql", _rec("end_ns", BIG), "record_json"),
    "server facts a list": ("sql", "UPDATE server_facts SET facts_json='[1, 2]'", "facts_json"),
    "server facts deep": ("sql", f"UPDATE server_facts SET facts_json='{DEEP_OBJ}'", "facts_json"),
    "server facts log_facts a number": ("sql", "UPDATE server_facts SET facts_json='{\"log_facts\": 5}'", "log_facts"),
    "gauge samples short": ("sql", "UPDATE gauges SET samples_json='[[1, 2]]'", "samples_json"),
    "gauge samples a string": ("sql", "UPDATE gauges SET samples_json='\"x\"'", "samples_json"),
    "gauge samples text values": ("sql", 'UPDATE gauges SET samples_json=\'[["a", "b", "c"]]\'', "samples_json"),
    "manifest options levels text": ("manifest", _opts(levels="x"), "levels"),
    "manifest options configs a number": ("manifest", _opts(configs=5), "configs"),
    "manifest options not an object": ("manifest", lambda m: {**m, "options": [1]}, "options"),
    "manifest nested 5,000 deep": ("text", '{"schema_version": 2, "kind": "bench", "x": ' + DEEP + "}", "manifest"),
    "manifest a 5,000-digit schema_version": ("text", '{"schema_version": ' + BIG + "}", "manifest"),
    "manifest not UTF-8": ("text", b'{"schema_version": 2, "kind": "\xff"}', "manifest"),
    "manifest baseline a list": ("manifest", lambda m: {**m, "baseline": ["base"]}, "baseline"),
    "manifest crash_trials wrong shape": ("manifest", lambda m: {**m, "crash_trials": {"base": [1, 2]}}, "crash"),
    "manifest crashes a number": ("manifest", lambda m: {**m, "crashes": {"base": 5}}, "crashes"),
    "manifest client a list inside": ("manifest", lambda m: {**m, "client": {"busy_poll": [1]}}, "client"),
    "manifest machine wrong types": (
        "manifest",
        lambda m: {**m, "machine": {"cpu_count": "x", "memory": []}},
        "machine",
    ),
    "manifest packs wrong shape": ("manifest", lambda m: {**m, "packs": {"prose": 5}}, "packs"),
    "manifest preflight wrong shape": ("manifest", lambda m: {**m, "preflight": {"base": "x"}}, "preflight"),
    "manifest external_servers a number": ("manifest", lambda m: {**m, "external_servers": {"base": 5}}, "external"),
    "manifest versions a list": ("manifest", lambda m: {**m, "versions": ["x"]}, "versions"),
    "manifest options slo nan": ("manifest", _opts(slo_ttft_s=float("nan")), "slo"),
    "manifest options target_ci a string": ("manifest", _opts(target_ci="x"), "target_ci"),
    "manifest options rates negative": ("manifest", _opts(rates=[-1.0]), "rates"),
    "manifest options workload_files a list": ("manifest", _opts(workload_files=["x"]), "workload_files"),
    "server facts command_line a dict": (
        "sql",
        'UPDATE server_facts SET facts_json=\'{"command_line": {"a": 1}}\'',
        "facts",
    ),
    "server facts log_facts wrong inner types": (
        "sql",
        'UPDATE server_facts SET facts_json=\'{"log_facts": {"kv_cache_size_tokens": "x", "spec_decoding": 5}}\'',
        "log_facts",
    ),
    "client_json self_check a list": ("sql", _set("client_json", "'{\"self_check\": [1]}'"), "client_json"),
    "client_json decision a number": (
        "sql",
        _set("client_json", '\'{"client_decision": 5, "processes": "x"}\''),
        "client_json",
    ),
    "stream end before send": ("sql", _rec("end_ns", "-5"), "end_ns"),
    "stream output_tokens negative": ("sql", _rec("output_tokens", "-100"), "output_tokens"),
    "counters NaN drafts": (
        "sql",
        "UPDATE cells SET after_json=replace(after_json, '\"drafts\": 10', '\"drafts\": NaN')",
        "drafts",
    ),
    "cells end before start": ("sql", _set("end_ns", "-1000000000000"), "end_ns"),
    # issue 37 (R1-R8, RS1): clock facts, manifest options and the schema as a careless hand would leave them
    "client_json clock started_at_s text": (
        "sql",
        _set("client_json", '\'{"clock": {"started_at_s": "x", "load_avg_1m": [1.0, 2.0]}}\''),
        "started_at_s",
    ),
    "client_json clock load_avg_1m a number": (
        "sql",
        _set("client_json", '\'{"clock": {"load_avg_1m": 5}}\''),
        "load_avg_1m",
    ),
    "client_json clock load_avg_1m text items": (
        "sql",
        _set("client_json", '\'{"clock": {"load_avg_1m": ["a", "b"]}}\''),
        "load_avg_1m",
    ),
    "client_json clock a list": ("sql", _set("client_json", "'{\"clock\": [1]}'"), "clock"),
    "client_json clock engine_cpu_s text": (
        "sql",
        _set("client_json", '\'{"clock": {"engine_cpu_s": "x"}}\''),
        "engine_cpu_s",
    ),
    "manifest options max_tokens null": ("manifest", _opts(max_tokens=None), "max_tokens"),
    "manifest options an option renamed": (
        "manifest",
        _renamed("levels", "concurrency_levels"),
        "concurrency_levels",
    ),
    "schema a table name not UTF-8": (
        "sql",
        "CREATE TABLE extra(a); PRAGMA writable_schema=ON; "
        "UPDATE sqlite_master SET name=CAST(x'65ff' AS TEXT) WHERE name='extra'; PRAGMA writable_schema=OFF",
        "sqlite_master",
    ),
    "schema sql not UTF-8": (
        "sql",
        "CREATE TABLE extra(a); PRAGMA writable_schema=ON; "
        "UPDATE sqlite_master SET sql=CAST('CREATE TABLE extra(a) -- ' || x'ff' AS TEXT) WHERE name='extra'; "
        "PRAGMA writable_schema=OFF",
        "sqlite_master",
    ),
}


def damage(run_dir: Path, name: str) -> None:
    """Apply the hand edit ``name`` of :data:`DAMAGE` to ``run_dir``."""
    kind, edit, _named = DAMAGE[name]
    manifest = run_dir / "manifest.json"
    if kind == "sql":
        db = sqlite3.connect(run_dir / "run.sqlite")
        db.executescript(edit)
        db.commit()
        db.close()
    elif kind == "manifest":
        manifest.write_text(json.dumps(edit(json.loads(manifest.read_text()))))
    else:
        manifest.write_bytes(edit if isinstance(edit, bytes) else edit.encode())


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative name -> bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

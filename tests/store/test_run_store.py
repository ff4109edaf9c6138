"""The run folder: create, save cells atomically, reopen, refuse folders that are not runs."""

from __future__ import annotations

import json

import pytest

from specscope.errors import StoreError
from specscope.records import CellKey, CellResult, ClientFacts, SpecCounters, StreamRecord
from specscope.stats.cells import summarize_cell, summarize_run
from specscope.store import create_run, open_run


def _stream(i):
    return StreamRecord(
        f"prose-{i:03d}", 0, 0, 5, 5, 50, 100, 3, 0, 12, 7, "usage", "length", "ok", None, 200, text="hi"
    )


def test_roundtrip_and_resume_keys(tmp_path):
    run = create_run(tmp_path / "r1", {"kind": "bench", "options": {"levels": [1]}})
    key = CellKey("base", "prose", 2, 0)
    before = SpecCounters(generation_tokens=0.0, present=frozenset({"generation"}))
    after = SpecCounters(generation_tokens=24.0, present=frozenset({"generation"}))
    res = CellResult(
        key, (_stream(1), _stream(2)), 0, 100, before, after, ClientFacts.from_dict({"send_lag_p99_ns": 10})
    )
    summary = summarize_cell(res)
    run.save_cell(res)
    run.save_server_facts("base", {"kv_cache_tokens": 4096})
    run.close()

    again = open_run(tmp_path / "r1", writable=True)  # a resume: the writer holds the lock
    assert again.done_keys() == {key}
    assert again.cells() == [res]  # the facts come back as they were measured
    assert summarize_run(again) == [summary]  # and the figures are derived from them when read
    assert again.streams(key) == [_stream(1), _stream(2)]
    assert again.counters(key) == (before, after)
    assert again.server_facts.of("base").stored == {"kv_cache_tokens": 4096}  # stored as written
    assert again.server_facts.of("base").unknown == ("kv_cache_tokens",)  # a key nobody reads is named, not read
    assert again.manifest["kind"] == "bench" and again.manifest["schema_version"] == 2
    again.update_manifest(finished=True)
    assert json.loads((tmp_path / "r1" / "manifest.json").read_text())["finished"] is True
    assert not [p for p in (tmp_path / "r1").iterdir() if p.name.endswith(".tmp")]
    assert (tmp_path / "r1" / "manifest.json").stat().st_mode & 0o777 == 0o644
    again.close()


def test_not_a_run(tmp_path):
    with pytest.raises(StoreError) as e:
        open_run(tmp_path)
    assert "missing manifest.json, run.sqlite" in e.value.one_line()
    with pytest.raises(StoreError):
        open_run(tmp_path / "nope")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "junk").write_text("1")
    with pytest.raises(StoreError) as e2:
        create_run(tmp_path / "x", {})
    # a folder of other files is no run to resume (attack53: `bench --resume` refuses it); a run's folder is
    assert "--resume" not in e2.value.one_line() and "fix: choose another --out" in e2.value.one_line()
    (tmp_path / "x" / "manifest.json").write_text("{}")
    with pytest.raises(StoreError) as e3:
        create_run(tmp_path / "x", {})
    assert f"resume it with `specscope bench --resume {tmp_path / 'x'}`" in e3.value.one_line()


def test_corrupt_database_is_a_store_error(tmp_path):
    """A run.sqlite that is not SQLite gives one StoreError line, not sqlite3.DatabaseError."""
    run = create_run(tmp_path / "r", {"kind": "bench", "options": {"levels": [1]}})
    run.close()
    (tmp_path / "r" / "run.sqlite").write_bytes(b"garbage, not a database" * 10)
    with pytest.raises(StoreError) as e:
        open_run(tmp_path / "r")
    line = e.value.one_line()
    assert "run.sqlite cannot be read" in line
    assert "file is not a database" in line


def test_gate_run_is_named_as_such(tmp_path):
    """A gate run folder (manifest.json + gate.json) handed to a bench reader says what it is."""
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"schema_version": 1, "kind": "gate"}))
    (folder / "gate.json").write_text("{}")
    with pytest.raises(StoreError) as e:
        open_run(folder)
    assert e.value.one_line().startswith(f"{folder} is a gate run, not a bench run")

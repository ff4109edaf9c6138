"""The run folder keeps facts only (schema 2); figures are derived when read; schema-1 runs still open."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from factmaker import schema1_run
from hangguard import HANG_S
from specscope.errors import StoreError
from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord
from specscope.stats.cells import summarize_run
from specscope.stats.summary import CellSummary
from specscope.store import SCHEMA_VERSION, ManifestError, create_run, open_run

LIMITED = "CLIENT_LIMITED(loop lag p99 12.3 ms > 10 ms)"


def _stream(i: int, tokens: int = 12) -> StreamRecord:
    return StreamRecord(
        f"prose-{i:03d}", 0, 0, 5, 5, 50, 100, 3, 0, tokens, 7, "usage", "length", "ok", None, 200, text="hi"
    )


def test_cells_table_holds_no_summary(tmp_path):
    run = create_run(tmp_path / "r", {"kind": "bench"})
    run.close()
    db = sqlite3.connect(tmp_path / "r" / "run.sqlite")
    columns = [row[1] for row in db.execute("PRAGMA table_info(cells)")]
    db.close()
    assert columns == [
        "config",
        "workload",
        "concurrency",
        "repeat",
        "crashed",
        "reasons_json",
        "start_ns",
        "end_ns",
        "before_json",
        "after_json",
        "client_json",
    ]
    assert json.loads((tmp_path / "r" / "manifest.json").read_text()) == {"schema_version": 2, "kind": "bench"}


def test_observed_crash_and_client_limit_come_back_as_status_and_reasons(tmp_path):
    run = create_run(tmp_path / "r", {"kind": "bench"})
    limited = CellResult(CellKey("a", "prose", 2, 0), (_stream(1), _stream(2)), 0, 100, None, None, reasons=(LIMITED,))
    crash = CellResult(
        CellKey("a", "prose", 2, 1), (), 0, 3_000_000_000, None, None, crashed=True, reasons=("SERVER_CRASH",)
    )
    run.save_cell(crash)
    run.save_cell(limited)
    run.close()
    with open_run(tmp_path / "r") as again:
        assert again.cells() == [limited, crash]  # ordered by config, workload, concurrency, repeat
        first, second = summarize_run(again)
    assert (first.status, first.reasons, first.output_tokens) == ("degraded", (LIMITED,), 24)
    assert (second.status, second.reasons, second.duration_s) == ("server_crash", ("SERVER_CRASH",), 3.0)


# summary fields added after schema 1 (issue 12: what the server really ran); derived now, absent from its summaries
_AFTER_SCHEMA1 = ("decode_tok_s", "ttfo_p50_s", "running_concurrency", "waiting_mean", "running_max", "waiting_max")
_AFTER_SCHEMA1 += ("gauge_samples", "gauge_window", "capacity_limited", "queue_mean_s", "queue_p50_s")
# issue 26: the engine-neutral records of a cell (per-request pool, window reading, drafting as run, phases)
_AFTER_SCHEMA1 += ("spec_requests", "spec_window", "drafting", "phase_acceptance")
_AFTER_SCHEMA1 += ("tpot_p95_s",)  # issue 37: --slo tpot in advise (the p95 a pick must meet)
_AFTER_SCHEMA1 += ("failed_output_tokens",)  # 2026-12-06: failed streams' usage, named apart from the total


def _without_later_fields(cell: CellSummary) -> dict:
    d = {k: v for k, v in cell.to_dict().items() if k not in _AFTER_SCHEMA1}
    c = d.get("counters")
    if c and "spec" not in c.get("present", []):  # issue 26: a counter the server did not have is None, not 0
        for k in ("drafts", "draft_tokens", "accepted_tokens"):
            c[k] = None if c.get(k) == 0 else c.get(k)
    return d


def _stored_shape(cell: CellSummary) -> dict:
    """A stored schema-1 summary read back (``CellSummary.from_dict``): its counters are a ``SpecCounters`` since
    issue 37, so the fields added after schema 1 read as their defaults; left out as :func:`_schema1_shape` does."""
    d = _without_later_fields(cell)
    if d.get("counters"):
        later = ("engine_kind", "rejected_tokens", "spec_gauges", "unread", "vanished_engines", "unknown_start_engines")
        for k in ("engines", "created", "reset_engines", *later, "caveats"):
            d["counters"].pop(k)
    return d


def _schema1_shape(cell: CellSummary) -> dict:
    d = _without_later_fields(cell)
    # figures added after schema 1 (issue 15): no reasoning, no per-step data; the prompt mean is new
    assert (d.pop("reasoning_chunks"), d.pop("phase_counts")) == (0, None)
    d.update(prompt_tokens_mean=None, reasoning_chunks=0, phase_counts=None)
    d["stream_acceptance"] = []  # per-stream acceptance is derived since issue 16; schema 1 summaries lack it
    if d.get("counters"):
        assert (d["counters"].pop("engines"), d["counters"].pop("created"), d["counters"].pop("reset_engines")) == (
            {},
            None,
            [],
        )
        later = ("engine_kind", "rejected_tokens", "spec_gauges", "unread", "vanished_engines", "unknown_start_engines")
        for later_field in (*later, "caveats"):  # issue 26; caveats: the adapters' named reasons (V0's accepted count)
            d["counters"].pop(later_field)
    return d


def test_schema1_run_gives_the_figures_it_stored(tmp_path):
    """A run written before the facts-only store opens; re-derived figures equal the summaries it saved."""
    folder = schema1_run(tmp_path)
    db = sqlite3.connect(folder / "run.sqlite")
    stored = [
        CellSummary.from_dict(json.loads(r[0]))
        for r in db.execute("SELECT summary_json FROM cells ORDER BY config, workload, concurrency, repeat")
    ]
    db.close()
    with open_run(folder) as run:
        assert run.schema_version == 1
        derived = summarize_run(run)
        assert run.server_facts.of("ngram").num_speculative_tokens == 4  # a schema-1 run's facts read typed
        assert run.streams(CellKey("base", "prose", 2, 0))[0].output_tokens == 48
    # the counters gained per-engine fields after schema 1 (issue 14); empty for a one-engine server
    assert [_schema1_shape(c) for c in derived] == [_stored_shape(c) for c in stored]
    assert [(c.config, c.repeat, c.status) for c in derived] == [
        ("base", 0, "ok"),
        ("ngram", 0, "degraded"),
        ("ngram", 1, "server_crash"),
    ]
    assert derived[1].reasons == (LIMITED, "STREAM_DEGRADED(degraded:no [DONE])", "BUSY_AT_SCRAPE(after=1)")
    assert derived[1].acceptance_rate == 0.625 and derived[1].acceptance_per_position == (1.0, 0.7, 0.5, 0.3)


def test_schema1_run_is_read_only(tmp_path):
    with open_run(schema1_run(tmp_path)) as run:
        with pytest.raises(StoreError) as e:
            run.save_cell(CellResult(CellKey("base", "prose", 1, 0), (), 0, 1, None, None))
    assert "schema-1 run: it can be read but not resumed" in e.value.one_line()
    assert "fix: start a new run" in e.value.one_line()


@pytest.mark.parametrize(
    ("manifest", "found"),
    [
        ({"schema_version": 2}, "found: kind: missing field"),
        ({"schema_version": 2, "kind": "bench", "cells_done": "many"}, "found: cells_done: Input should be"),
    ],
)
def test_manifest_fields_are_checked_against_the_schema(tmp_path, manifest, found):
    run = create_run(tmp_path / "r", {"kind": "bench"})
    run.close()
    (tmp_path / "r" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ManifestError) as e:
        open_run(tmp_path / "r")
    line = e.value.one_line()
    assert line.startswith(f"{tmp_path / 'r' / 'manifest.json'} does not match run manifest schema 2; {found}")
    assert "expected: the fields of RunManifest schema_version 2" in line


def test_unknown_schema_version_is_named(tmp_path):
    run = create_run(tmp_path / "r", {"kind": "bench"})
    run.close()
    (tmp_path / "r" / "manifest.json").write_text(json.dumps({"schema_version": 7, "kind": "bench"}))
    with pytest.raises(ManifestError) as e:
        open_run(tmp_path / "r")
    assert "found: schema_version 7; expected: schema_version 1 or 2" in e.value.one_line()


def test_update_and_create_refuse_unknown_fields_and_keep_the_file(tmp_path):
    with pytest.raises(ManifestError):
        create_run(tmp_path / "new", {"kind": "bench", "speed": 1})
    assert not (tmp_path / "new").exists()
    run = create_run(tmp_path / "r", {"kind": "bench"})
    with pytest.raises(ManifestError) as e:
        run.update_manifest(colour="red")
    run.close()
    assert "colour: unknown field" in e.value.one_line()
    assert json.loads((tmp_path / "r" / "manifest.json").read_text()) == {
        "schema_version": SCHEMA_VERSION,
        "kind": "bench",
    }


def test_a_stored_record_with_an_unknown_field_is_an_error_naming_the_schema(tmp_path):
    run = create_run(tmp_path / "r", {"kind": "bench"})
    run.save_cell(CellResult(CellKey("a", "prose", 1, 0), (_stream(1),), 0, 100, SpecCounters(), None))
    run.close()
    db = sqlite3.connect(tmp_path / "r" / "run.sqlite")
    record = json.loads(db.execute("SELECT record_json FROM streams").fetchone()[0])
    db.execute("UPDATE streams SET record_json=?", (json.dumps({**record, "colour": "red"}),))
    db.commit()
    db.close()
    with open_run(tmp_path / "r") as again, pytest.raises(StoreError) as e:
        again.cells()
    line = e.value.one_line()
    assert "found: StreamRecord: unknown fields ['colour'], missing fields []" in line
    assert "expected: the records of run schema 2" in line


def test_cli_names_a_bad_manifest_in_one_line(tmp_path):
    run = create_run(tmp_path / "r", {"kind": "bench"})
    run.close()
    (tmp_path / "r" / "manifest.json").write_text(json.dumps({"schema_version": 2, "kind": "bench", "finished": "x"}))
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "advise", str(tmp_path / "r"), "--acceptance", "0.5"],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {tmp_path / 'r' / 'manifest.json'} does not match run manifest schema 2; found: finished: Input "
        "should be a valid boolean, unable to interpret input; expected: the fields of RunManifest schema_version 2; "
        "fix: restore the manifest the run wrote, or re-run the benchmark with this version of specscope"
    ]


def test_a_run_folder_that_cannot_be_created_is_a_store_error(tmp_path):
    """``--out`` under a regular file: one StoreError naming the folder (exit 2), not an OSError traceback."""
    (tmp_path / "afile").write_text("x")
    with pytest.raises(StoreError) as info:
        create_run(tmp_path / "afile" / "run", {"kind": "bench"})
    assert info.value.message == f"cannot create the run folder {tmp_path / 'afile' / 'run'}"
    assert info.value.exit_code == 2

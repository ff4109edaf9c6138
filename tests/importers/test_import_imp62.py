"""imp62: AIPerf's errors after the benchmark duration, its per-slice files told by where AIPerf wrote them, and
other writers' files read from their sources.

Fixtures: tests/data/imports (SOURCES.md)."""

from __future__ import annotations

import json
from typing import Any

from clirun import cli
from paths import DATA
from specscope.importers import aiperf_export

IMPORTS = DATA / "imports"


def _import(tmp_path, capsys, monkeypatch, *args) -> tuple[int, str]:
    code, out, err = cli(["import", *args], capsys, monkeypatch, tmp_path)
    return code, " ".join((out + err).split())


def _duration_run(errors_in_window: int | None, late: int) -> dict[str, Any]:
    """aiperf_base_r0.json as a schema-1.0 ``--benchmark-duration 60`` run (``input_config.loadgen``) whose
    ``error_summary`` counts ``errors_in_window + late`` errors, ``error_request_count`` ``errors_in_window``."""
    doc = json.loads((IMPORTS / "aiperf_base_r0.json").read_text())
    doc["input_config"] = {"loadgen": {"concurrency": 4, "benchmark_duration": 60, "benchmark_grace_period": 30}}
    total = (errors_in_window or 0) + late
    doc["error_summary"] = [
        {"error_details": {"code": 500, "type": "InternalServerError", "message": "boom"}, "count": total}
    ]
    if errors_in_window is not None:
        doc["error_request_count"] = {"unit": "requests", "avg": errors_in_window}
    return doc


def test_aiperf_errors_after_the_benchmark_duration_are_not_the_runs_failures():
    """AIPerf's ``RecordsManager._on_metric_records`` (aiperf/records/records_manager.py @db4f6397) sends a record to
    the metric processors only when it ended before ``benchmark_duration + benchmark_grace_period``
    (``_should_include_request_by_duration``: a late success is dropped from every figure), yet counts every invalid
    record in ``error_summary``, late or not; ``error_request_count`` (metrics/types/error_request_count.py, an
    ERROR_ONLY counter) counts only the errors processed. The run's failures are ``error_request_count``: with none
    processed it is absent and the window's failures are 0, not the late errors ``error_summary`` lists."""
    doc = _duration_run(None, 2)
    got = aiperf_export.parse(doc)
    assert got.facts["failed"] == 0, got.facts
    note = (
        "2 errors in error_summary are not in error_request_count (absent: 0): with loadgen.benchmark_duration 60 s "
        "AIPerf counts in its figures only the requests that ended within the duration plus its grace period, and "
        "lists the late errors in error_summary alone; they are left out of the cell's failures as the late "
        "successes are left out of its completed"
    )
    assert note in got.notes, got.notes
    doc = _duration_run(1, 3)
    got = aiperf_export.parse(doc)
    assert got.facts["failed"] == 1, got.facts
    assert any(n.startswith("3 errors in error_summary are not in error_request_count (1)") for n in got.notes)


def test_aiperf_errors_all_counted_gives_no_note():
    """``error_summary`` and ``error_request_count`` agreeing: the count, and nothing said."""
    got = aiperf_export.parse(_duration_run(2, 0))
    assert got.facts["failed"] == 2 and not any("error_summary" in n for n in got.notes), got.notes


def _sliced_run(tmp_path, slice_durations: list[float]):
    """A time-sliced AIPerf run's folder as TimesliceJsonExporter and MetricsJsonExporter write it
    (src/aiperf/exporters/timeslice_json_exporter.py @516594e9): ``profile_export_aiperf.json`` (the run: its window
    1.629 s, benchmark_duration 1.609 s) and ``timeslices/profile_export_aiperf_N.json`` per slice, each with the
    run's ``input_config`` (``output.slice_duration`` 0.9 s) and the slice's ``benchmark_duration`` from
    ``slice_durations``."""
    doc = json.loads((IMPORTS / "aiperf_base_r0.json").read_text())
    doc["input_config"]["output"] = {"slice_duration": 0.9}
    (tmp_path / "run" / "timeslices").mkdir(parents=True)
    (tmp_path / "run" / "profile_export_aiperf.json").write_text(json.dumps(doc))
    for n, secs in enumerate(slice_durations):
        doc["benchmark_duration"]["avg"] = secs
        (tmp_path / "run" / "timeslices" / f"profile_export_aiperf_{n}.json").write_text(json.dumps(doc))
    return tmp_path / "run"


def test_aiperf_slice_spanning_nearly_the_whole_run_is_refused_by_where_aiperf_wrote_it(
    tmp_path, capsys, monkeypatch
):
    """A slice's file holds the run's own keys, ``input_config``, ``error_summary`` and ``start_time`` /
    ``end_time`` (base_json_exporter.py @516594e9), and a slice whose requests started before its epoch-aligned
    boundary may end as late as the run's last response: its benchmark_duration (1.6 s here against the run's
    1.609 s) cannot tell it from the run, and it was imported as the run with the time-sliced warning. AIPerf writes
    every slice as ``timeslices/{stem}_{N}.json`` beside the run's ``{stem}.json``: a file so named in a
    ``timeslices`` folder is a slice, refused naming the run's file."""
    run = _sliced_run(tmp_path, [1.6, 0.05])
    code, text = _import(
        tmp_path, capsys, monkeypatch, run / "timeslices" / "profile_export_aiperf_0.json", "--config", "b",
        "--out", tmp_path / "r",
    )
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert "time slice 0 of an AIPerf run" in text, text
    assert f"import {run / 'profile_export_aiperf.json'} (the whole run)" in text, text


def test_aiperf_run_beside_its_timeslices_folder_imports_without_the_look_alike_warning(
    tmp_path, capsys, monkeypatch
):
    """The run's summary beside the ``timeslices`` folder that holds its slices is the run, by where AIPerf wrote
    it: imported, with no warning that it might be a slice."""
    run = _sliced_run(tmp_path, [1.6, 0.05])
    code, text = _import(
        tmp_path, capsys, monkeypatch, run / "profile_export_aiperf.json", "--config", "b", "--out", tmp_path / "r"
    )
    assert code == 0 and "b/main/c" in text, text
    assert "time-sliced" not in text, text

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

"""imp61: AIPerf's error counts, GuideLLM 0.2-0.3's uncapped throughput benchmark, and other writers' files read
from their sources.

Fixtures: tests/data/imports (SOURCES.md)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from clirun import cli
from paths import DATA
from specscope.importers import aiperf_export

IMPORTS = DATA / "imports"


def _import(tmp_path, capsys, monkeypatch, *args) -> tuple[int, str]:
    code, out, err = cli(["import", *args], capsys, monkeypatch, tmp_path)
    return code, " ".join((out + err).split())


def test_aiperf_empty_error_summary_is_no_failures_and_an_absent_one_stays_absent():
    """AIPerf writes ``error_summary`` always (``ProfileResults.error_summary``, ``default_factory=list``) and
    counts every invalid record in it (``records_manager.py`` @ v0.1.1 and db4f6397: ``valid`` is ``error is
    None``), while ``error_request_count`` exists only once an error record reached the metrics processor
    (``metric_results_processor.py``): ``[]`` without the count is AIPerf's zero; absent is unknown."""
    doc = json.loads((IMPORTS / "aiperf_base_r0.json").read_text())
    assert doc["error_summary"] == [] and "error_request_count" not in doc
    assert aiperf_export.parse(doc).facts["failed"] == 0
    del doc["error_summary"]
    assert aiperf_export.parse(doc).facts["failed"] is None
    doc["error_request_count"] = {"unit": "requests", "avg": 3}
    assert aiperf_export.parse(doc).facts["failed"] == 3


def _legacy(tmp_path: Path, profile: dict[str, Any], strategies: list[dict[str, Any]], sent: int = 16) -> Path:
    """GuideLLM 0.2-0.3's report (benchmark.py @ v0.3.0): ``args.profile`` the Profile, ``args.strategy`` each
    benchmark's; ``sent`` requests, all successful."""
    doc = json.loads((IMPORTS / "guidellm_legacy_base_r0.json").read_text())
    bench = doc["benchmarks"][0]
    doc["benchmarks"] = []
    for s in strategies:
        b = copy.deepcopy(bench)
        b["args"]["profile"], b["args"]["strategy"] = profile, s
        b["request_totals"] = {"successful": sent, "incomplete": 0, "errored": 0, "total": sent}
        doc["benchmarks"].append(b)
    path = tmp_path / f"legacy_{profile['type_']}_{sent}.json"
    path.write_text(json.dumps(doc))
    return path


SWEEP_0_3 = {"type_": "sweep", "max_concurrency": None, "sweep_size": 3, "rate_type": "constant"}
THROUGHPUT = {"type_": "throughput", "max_concurrency": None}
UNCAPPED_0_3 = (
    "throughput with no cap (the benchmark's profile max_concurrency is null): every request sent at once, N=16 "
    "(the requests sent); GuideLLM's own worker limit (settings.max_concurrency, 512 unless "
    "GUIDELLM__MAX_CONCURRENCY set another) is not in the report, its default taken"
)


def test_guidellm_0_3_uncapped_throughput_is_every_request_at_once_as_0_5s_is(tmp_path, capsys, monkeypatch):
    """GuideLLM 0.2-0.3's ``ThroughputStrategy.processing_requests_limit`` is ``max_concurrency or
    settings.max_concurrency`` (strategy.py, config.py @ v0.2.0 and v0.3.0: 512): the same rule as 0.4-0.6's worker
    limit, so the benchmark is read as 0.5.3's is (every request at once, N = the requests sent); it was refused as
    having no level."""
    alone = _legacy(tmp_path, {"type_": "throughput", "max_concurrency": None}, [THROUGHPUT])
    code, text = _import(tmp_path, capsys, monkeypatch, alone, "--config", "b", "--out", tmp_path / "r1")
    assert code == 0, text
    assert "b/imported/c16/r0" in text and UNCAPPED_0_3 in text, text
    sweep = _legacy(tmp_path, SWEEP_0_3, [{"type_": "synchronous"}, THROUGHPUT])
    code, text = _import(tmp_path, capsys, monkeypatch, sweep, "--config", "b", "--out", tmp_path / "r2")
    assert code == 0 and "b/imported/c1/r0" in text and "b/imported/c16/r0" in text, text


def test_guidellm_0_3_uncapped_throughput_past_the_default_limit_has_no_level(tmp_path, capsys, monkeypatch):
    """600 requests sent past a worker limit the report does not hold (512 unless the environment set another):
    no level specscope can name, refused by name."""
    path = _legacy(tmp_path, {"type_": "throughput", "max_concurrency": None}, [THROUGHPUT], sent=600)
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "b", "--out", tmp_path / "r")
    assert code == 2 and "has no level" in text and not (tmp_path / "r").exists(), text


def _sliced(tmp_path: Path, duration_s: float, slice_s: float = 0.5) -> Path:
    """aiperf_base_r0.json (window 1.629 s, benchmark_duration 1.609 s) as a run of ``--slice-duration slice_s``
    (``input_config.output.slice_duration``), its benchmark duration set to ``duration_s``."""
    doc = json.loads((IMPORTS / "aiperf_base_r0.json").read_text())
    doc["input_config"]["output"] = {"slice_duration": slice_s}
    doc["benchmark_duration"]["avg"] = duration_s
    path = tmp_path / f"profile_export_aiperf_{duration_s}.json"
    path.write_text(json.dumps(doc))
    return path


def test_aiperf_per_timeslice_file_is_refused_not_imported_as_the_whole_run(tmp_path, capsys, monkeypatch):
    """AIPerf's ``TimesliceJsonExporter`` (src/aiperf/exporters/timeslice_json_exporter.py and base_json_exporter.py
    @516594e9) writes ``timeslices/profile_export_aiperf_N.json`` per slice in the whole run's own schema: the run's
    ``input_config``, ``error_summary``, ``start_time`` / ``end_time``, the slice's metrics. It was imported as the
    run. A benchmark duration short of the run's window by more than half a slice is a slice: refused by name."""
    path = _sliced(tmp_path, 0.6)
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "b", "--out", tmp_path / "r")
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert "one time slice of an AIPerf run" in text and "benchmark_duration.avg 0.6 s" in text, text
    assert "the run's window 1.629417 s" in text and "input_config.output.slice_duration 0.5 s" in text, text
    assert "import profile_export_aiperf.json from the run's folder (the whole run)" in text, text


def test_aiperf_time_sliced_run_summary_imports_with_a_warning_naming_the_look_alike(tmp_path, capsys, monkeypatch):
    """The whole run's summary of a time-sliced run (its duration spans its window) imports, warned that a slice's
    file looks the same."""
    path = _sliced(tmp_path, 1.6086310400000001)
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "b", "--out", tmp_path / "r")
    assert code == 0 and "b/main/c" in text, text
    assert (
        "a time-sliced run (input_config.output.slice_duration 0.5 s): read as the whole run's summary, its "
        "benchmark_duration spanning the run's window; each slice's timeslices/profile_export_aiperf_N.json has "
        "the same keys" in text
    ), text

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


def test_aiperf_slice_spanning_nearly_the_whole_run_is_refused_by_where_aiperf_wrote_it(tmp_path, capsys, monkeypatch):
    """A slice's file holds the run's own keys, ``input_config``, ``error_summary`` and ``start_time`` /
    ``end_time`` (base_json_exporter.py @516594e9), and a slice whose requests started before its epoch-aligned
    boundary may end as late as the run's last response: its benchmark_duration (1.6 s here against the run's
    1.609 s) cannot tell it from the run, and it was imported as the run with the time-sliced warning. AIPerf writes
    every slice as ``timeslices/{stem}_{N}.json`` beside the run's ``{stem}.json``: a file so named in a
    ``timeslices`` folder is a slice, refused naming the run's file."""
    run = _sliced_run(tmp_path, [1.6, 0.05])
    code, text = _import(
        tmp_path,
        capsys,
        monkeypatch,
        run / "timeslices" / "profile_export_aiperf_0.json",
        "--config",
        "b",
        "--out",
        tmp_path / "r",
    )
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert "time slice 0 of an AIPerf run" in text, text
    assert f"import {run / 'profile_export_aiperf.json'} (the whole run)" in text, text


def test_aiperf_run_beside_its_timeslices_folder_imports_without_the_look_alike_warning(tmp_path, capsys, monkeypatch):
    """The run's summary beside the ``timeslices`` folder that holds its slices is the run, by where AIPerf wrote
    it: imported, with no warning that it might be a slice."""
    run = _sliced_run(tmp_path, [1.6, 0.05])
    code, text = _import(
        tmp_path, capsys, monkeypatch, run / "profile_export_aiperf.json", "--config", "b", "--out", tmp_path / "r"
    )
    assert code == 0 and "b/main/c" in text, text
    assert "time-sliced" not in text, text


#: genai-bench's ExperimentMetadata (genai_bench/protocol.py @025cf1c6) as cli.py writes it, the values ours
_META = {
    "cmd": "genai-bench --api-backend openai --api-base http://127.0.0.1:8000 --task text-to-text "
    "--num-concurrency 4 --execution-engine locust --distribution exponential --max-time-per-run 1",
    "benchmark_version": "0.0.3",
    "api_backend": "openai",
    "api_model_name": "qwen3-8b",
    "model": "qwen3-8b",
    "task": "text-to-text",
    "num_concurrency": [4],
    "iteration_type": "num_concurrency",
    "traffic_scenario": ["D(512,128)"],
    "max_time_per_run_s": 60,
    "max_requests_per_run": 64,
    "experiment_folder_name": "/tmp/exp",
    "metrics_time_unit": "s",
}
RUN_NAME = "D_512_128_text-to-text_num_concurrency_{level}_time_60s.json"


def _experiment(tmp_path, cmd: str | None = None, unit: str = "s", level: str = "4"):
    """A genai-bench experiment folder (cli.py @025cf1c6): experiment_metadata.json and one run file, the run being
    tests/data/imports/peers/genai_bench_concurrency_4.json with the ``_time_unit`` AggregatedMetricsCollector.save
    writes (its ttft and tpot stats times 1000 for ms, as TimeUnitConverter converts them)."""
    folder = tmp_path / "exp"
    folder.mkdir(parents=True)
    meta = {**_META, "metrics_time_unit": unit, **({"cmd": cmd} if cmd else {})}
    (folder / "experiment_metadata.json").write_text(json.dumps(meta))
    run = json.loads((IMPORTS / "peers" / "genai_bench_concurrency_4.json").read_text())
    run["_time_unit"] = unit
    if unit == "ms":
        for field in ("ttft", "tpot", "e2e_latency", "output_latency"):
            run["aggregated_metrics"]["stats"][field] = {
                k: v * 1000 for k, v in run["aggregated_metrics"]["stats"][field].items()
            }
    run["aggregated_metrics"]["num_concurrency"] = float(level)  # AggregatedMetrics.num_concurrency: float
    (folder / RUN_NAME.format(level=level)).write_text(json.dumps(run))
    return folder


def test_genai_bench_experiment_folder_imports_each_run_with_its_unit(tmp_path, capsys, monkeypatch):
    """A genai-bench experiment folder: each run file's aggregated_metrics (metrics.py, aggregated_metrics_collector.py
    @025cf1c6): run_duration 30 s, 64 completed, 0 errors, 8192 output tokens (stats.num_output_tokens.sum), TTFT
    p50 0.05 s and TPOT p50 0.02 s in its ``_time_unit`` (ms: 50 and 20), at num_concurrency 4 of a locust run
    (the metadata's cmd: a closed loop of 4)."""
    from specscope.importers import read_records

    for unit in ("s", "ms"):
        (rec,) = read_records(_experiment(tmp_path / unit, unit=unit))
        assert rec.load.concurrency == 4 and rec.load.rate_per_s is None, rec.load
        f = rec.facts
        assert (f["duration_s"], f["completed"], f["failed"], f["output_tokens"]) == (30.0, 64, 0, 8192), f
        assert abs(f["ttft_p50_s"] - 0.05) < 1e-12 and abs(f["tpot_p50_s"] - 0.02) < 1e-12, f
        assert f["file"] == "exp/" + RUN_NAME.format(level="4") and f["record"] == 1 and rec.notes == (), rec
    code, text = _import(
        tmp_path, capsys, monkeypatch, tmp_path / "s" / "exp", "--config", "b", "--out", tmp_path / "r"
    )
    assert code == 0 and "b/D(512_128)/c4/r0" in text and "genai-bench benchmark" in text, text


def test_genai_bench_open_loop_level_is_its_qps_told_by_the_experiments_command(tmp_path):
    """The async engine's open loop stores its QPS in num_concurrency under the same file name (cli.py @025cf1c6
    ``set_run_metadata(iteration=QPS, iteration_type="num_concurrency")``): the metadata's cmd (``--execution-engine
    async --qps-level 0.5 --distribution constant``) makes it a rate of 0.5 req/s, constant arrivals."""
    from specscope.importers import read_records

    cmd = "genai-bench --task text-to-text --execution-engine async --qps-level 0.5 --distribution constant"
    (rec,) = read_records(_experiment(tmp_path, cmd=cmd, level="0.5"))
    assert (rec.load.rate_per_s, rec.load.arrival, rec.load.concurrency) == (0.5, "constant", None), rec.load


def test_genai_bench_lone_run_file_is_refused_naming_the_folder(tmp_path, capsys, monkeypatch):
    """A run file alone holds its time unit (``_time_unit``) but not whether num_concurrency is streams or a QPS:
    refused, naming the experiment folder to pass instead."""
    folder = _experiment(tmp_path)
    run = folder / RUN_NAME.format(level="4")
    code, text = _import(tmp_path, capsys, monkeypatch, run, "--config", "b", "--out", tmp_path / "r")
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert "pass the experiment folder (the one holding experiment_metadata.json)" in text, text


def test_genai_bench_locust_spawn_rate_below_the_level_is_named_as_a_ramp(tmp_path):
    """The locust engine starts num_concurrency users at ``--spawn-rate`` per second (cli.py @025cf1c6
    ``environment.runner.start(concurrency, spawn_rate=spawn_rate or concurrency)``): at 0.5 users/s the level of 4
    is reached after 8 s of the run, named in a warning; imported at its level."""
    from specscope.importers import read_records

    cmd = _META["cmd"] + " --spawn-rate 0.5"
    (rec,) = read_records(_experiment(tmp_path, cmd=cmd))
    assert rec.load.concurrency == 4, rec.load
    assert rec.notes == (
        "the load ramped to its level over the first 8 s of the run (the experiment's cmd --spawn-rate 0.5: locust "
        "starts the 4 users at 0.5 per s): the level was not held for the whole window",
    ), rec.notes


def test_vllm_bench_sweep_summary_json_imports_its_runs_as_repeats(tmp_path, capsys, monkeypatch):
    """``vllm bench sweep serve`` (vllm/benchmarks/sweep/serve.py @4fa9174d ``run_comb``) writes each run's
    ``vllm bench serve --save-result`` file as ``run=N.json`` with ``run_number`` and the combination's overrides
    added, then the combination's ``summary.json``: a JSON array of those runs. The array was refused ("record 1:
    list"); its runs are repeats of one combination, imported as such, ``run_number`` known (the overrides, another
    setting of the server or the client, named as fields not understood)."""
    doc = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    runs = [{**doc, "run_number": n} for n in range(2)]
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(runs))
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "mtp", "--out", tmp_path / "r")
    assert code == 0 and "mtp/imported/c2/r0" in text and "mtp/imported/c2/r1" in text, text
    assert "not understood" not in text, text


def test_vllm_bench_sweep_summary_csv_is_named_with_the_json_to_pass(tmp_path, capsys, monkeypatch):
    """``vllm bench sweep serve``'s ``summary.csv`` (sweep/serve.py @4fa9174d ``run_combs``: pandas ``to_csv`` of every
    combination's runs, its index column unnamed, then the result's keys) was refused as "not JSON" with the general
    words: it is named, with the JSON of each combination to pass instead."""
    doc = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    keys = [k for k, v in doc.items() if not isinstance(v, list)]
    path = tmp_path / "summary.csv"
    path.write_text(",".join(["", *keys, "run_number"]) + "\n" + ",".join(["0", *(str(doc[k]) for k in keys), "0"]))
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "mtp", "--out", tmp_path / "r")
    assert code == 2 and not (tmp_path / "r").exists(), text
    assert (
        "this looks like vllm bench sweep serve's summary.csv (every combination's runs, one row each): import each "
        "combination's summary.json (or its run=N.json files) from its folder beside it"
    ) in text, text


def test_genai_bench_cmd_options_read_as_a_shell_splits_them():
    # the metadata's cmd is a command line: a quoted value is one word, --name=V is --name V (shlex.split)
    from specscope.importers.genai_bench import _option

    cmd = 'genai-bench benchmark --api-model-name "a b" --execution-engine async --qps-level=2 --spawn-rate 5'
    assert [_option(cmd, n) for n in ("--api-model-name", "--execution-engine", "--qps-level", "--spawn-rate")] == [
        "a b",
        "async",
        "2",
        "5",
    ]
    assert _option(cmd, "--distribution") is None

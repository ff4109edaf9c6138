"""imp60: AIPerf's time-slice and steady-state exports and vLLM's pooling result refused naming what they are, and
AIPerf 0.10's ``phases`` config read by its own key names (user-centric, trace replay, rate series, gamma
smoothness, ramps). Fixtures: tests/data/imports (SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"
PEERS = IMPORTS / "peers"
AIPERF_010 = IMPORTS / "aiperf_0.10.0_chatbot_c4.json"


def _import(tmp_path: Path, capsys, monkeypatch, *files: Path, run: str = "run") -> tuple[int, str]:
    code, out, err = cli(["import", *files, "--config", "base", "--out", tmp_path / run], capsys, monkeypatch, tmp_path)
    return code, " ".join((out + err).split())


def _found(text: str) -> str:
    return text.split("found:", 1)[1].split("expected:", 1)[0]


@pytest.mark.parametrize(
    ("name", "named"),
    [
        # TimesliceMetricsJsonExporter (src/aiperf/exporters/timeslice_metrics_json_exporter.py @7123bb9b):
        # {"timeslices": [{start_ns, end_ns, is_complete, <metric>: {...}}...], "input_config"}
        ("profile_export_aiperf_timeslices.json", "AIPerf's time-slice export (profile_export_aiperf_timeslices.json)"),
        # AggregateDetailedJsonExporter (src/aiperf/exporters/aggregate/aggregate_detailed_json_exporter.py @2255fde9):
        # metadata.aggregation_type "detailed"; it was said to be a per-request record lacking request_start_ns
        (
            "profile_export_aiperf_detailed.json",
            "AIPerf's detailed aggregate (aggregation_type detailed, 3 runs)",
        ),
        # SteadyStateJsonExporter (steady_state_json_exporter.py @3d522d48): {"window_metadata", "metrics"}
        (
            "profile_export_aiperf_steady_state.json",
            "AIPerf's steady-state export (profile_export_aiperf_steady_state.json)",
        ),
    ],
)
def test_aiperf_window_exports_are_refused_naming_the_run_summary(tmp_path, capsys, monkeypatch, name, named):
    """They were refused with the general words (keys found, the shapes tried) and no word of the file to pass."""
    code, text = _import(tmp_path, capsys, monkeypatch, PEERS / name)
    found = _found(text)
    assert code == 2 and named in found and "profile_export_aiperf.json" in found, text
    assert "per-request record export" not in found, text
    assert not (tmp_path / "run").exists()


def test_a_vllm_pooling_result_is_refused_as_a_pooling_run(tmp_path, capsys, monkeypatch):
    """vLLM's pooling branch of ``benchmark()`` (vllm/benchmarks/serve.py @def9ce85, ``TaskType.POOLING``) writes
    duration, completed, total_input_tokens, the throughputs and e2el only: it was refused as a vLLM result that
    'lacks: total_output_tokens, output_throughput', as if the file were damaged."""
    code, text = _import(tmp_path, capsys, monkeypatch, IMPORTS / "vllm_pooling_embeddings.json")
    found = _found(text)
    assert code == 2 and "a pooling run (endpoint_type openai-embeddings): no tokens generated" in found, text
    assert "lacks" not in found, text
    assert not (tmp_path / "run").exists()


def _phase(tmp_path: Path, name: str, **profiling) -> Path:
    """aiperf_0.10.0_chatbot_c4.json with its profiling phase replaced (src/aiperf/config/phases.py @aa0efdfd)."""
    doc = json.loads(AIPERF_010.read_text())
    phases = doc["input_config"]["phases"]
    phases[-1] = {"name": "profiling", "requests": 96, **profiling}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("phase", "found"),
    [
        # UserCentricPhase: type user_centric, rate (global), users; it was read as '4 req/s user_centric'
        (
            {"type": "user_centric", "rate": 4.0, "users": 8},
            "found: phases[profiling].type = user_centric with rate = 4.0, users = 8",
        ),
        # FixedSchedulePhase: the trace's timestamps; it was read as N=1
        ({"type": "fixed_schedule", "auto_offset": True}, "found: phases[profiling].type = fixed_schedule"),
        # RatePhaseConfig.rate_series: a piecewise-linear rate schedule; it was read as N=1 (no rate)
        (
            {"type": "poisson", "rate_series": {"points": [[0, 1.0], [10, 8.0]]}},
            "found: phases[profiling].rate_series",
        ),
        (
            {"type": "concurrency", "concurrency": 8, "prefill_concurrency": 2},
            "found: phases[profiling].prefill_concurrency = 2 (below concurrency 8",
        ),
    ],
)
def test_an_aiperf_phase_of_no_single_level_is_refused(tmp_path, capsys, monkeypatch, phase, found):
    code, text = _import(tmp_path, capsys, monkeypatch, _phase(tmp_path, "x.json", **phase))
    assert code == 2 and found in text and "fix:" in text, text
    assert not (tmp_path / "run").exists()


def test_an_aiperf_gamma_phase_keeps_its_smoothness(tmp_path, capsys, monkeypatch):
    """GammaPhase's shape is ``smoothness`` (loadgen's was ``arrival_smoothness``): it was read as Poisson."""
    path = _phase(tmp_path, "g.json", type="gamma", rate=2.0, smoothness=0.5)
    code, text = _import(tmp_path, capsys, monkeypatch, path)
    assert code == 0 and "(aiperf profile, 2 req/s gamma(burstiness=0.5))" in text, text
    path = _phase(tmp_path, "c.json", type="constant", rate=2.0)
    code, text = _import(tmp_path, capsys, monkeypatch, path, run="run2")
    assert code == 0 and "(aiperf profile, 2 req/s constant)" in text, text


def test_an_aiperf_phase_ramp_is_named(tmp_path, capsys, monkeypatch):
    """A phase's ramps are ``concurrency_ramp`` / ``prefill_ramp`` / ``rate_ramp``, seconds or ``{duration,
    strategy}`` (RampSpec): they were not seen, the run imported with no word of its ramp."""
    path = _phase(tmp_path, "x.json", type="concurrency", concurrency=4, concurrency_ramp={"duration": 10.0})
    code, text = _import(tmp_path, capsys, monkeypatch, path)
    assert code == 0 and "(aiperf profile, N=4)" in text, text
    assert (
        "the load ramped to its level over the first 10 s of the measured phase "
        '(phases[profiling].concurrency_ramp = {"duration": 10.0})' in text
    ), text
    path = _phase(tmp_path, "r.json", type="poisson", rate=2.0, rate_ramp=5)
    code, text = _import(tmp_path, capsys, monkeypatch, path, run="run2")
    assert code == 0 and "(phases[profiling].rate_ramp = 5)" in text, text


@pytest.mark.parametrize(
    ("name", "named", "instead"),
    [
        # vllm/benchmarks/throughput.py --output-json: elapsed_time, num_requests, total_num_tokens,
        # requests_per_second, tokens_per_second (prompt plus output tokens): an offline engine run, no server
        (
            "vllm_throughput_output.json",
            "vllm bench throughput's --output-json (an offline run of the engine in-process",
            "vllm bench serve --save-result",
        ),
        # convert_to_pytorch_benchmark_format (vllm/benchmarks/lib/utils.py): one record per metric, written beside the
        # result as NAME.pytorch.json when SAVE_TO_PYTORCH_BENCHMARK_FORMAT is set
        ("vllm_serve.pytorch.json", "vLLM's PyTorch-benchmark-format copy (*.pytorch.json)", "NAME.json beside it"),
        # python/sglang/bench_offline_throughput.py @00d02fb4 throughput_test_once: it was said to look like vLLM's
        (
            "sglang_offline_throughput.jsonl",
            "SGLang bench_offline_throughput's result (an offline run of the engine in-process",
            "sglang.bench_serving --output-file",
        ),
        # python/sglang/bench_one_batch_server.py @00b08c49 run_one_case: one /generate call of batch_size prompts
        (
            "sglang_one_batch_server.jsonl",
            "SGLang bench_one_batch_server's result (one /generate call per batch",
            "sglang.bench_serving --output-file",
        ),
        # trtllm-bench --report_json (tensorrt_llm/bench/dataclasses/reporting.py @02499765 get_statistics_dict):
        # engine, world_info, request_info, performance, decoding_stats (percentiles over requests) of an in-process run
        (
            "trtllm_bench_report.json",
            "trtllm-bench's --report_json (an in-process run of the LLM API, no server",
            "trtllm-serve",
        ),
        # ray-project/llmperf llm_correctness.py @fec74f4c: the summary of its number-echo test (mismatches, errors)
        (
            "llmperf_correctness_summary.json",
            "LLMPerf's correctness summary (llm_correctness.py *_correctness_summary.json)",
            "token_benchmark_ray.py",
        ),
        # genai-bench's per-run JSON (genai_bench/metrics/metrics.py @025cf1c6: AggregatedMetrics beside
        # individual_request_metrics); its num_concurrency is a concurrency or a QPS, which only the experiment's
        # cmd in experiment_metadata.json tells (imp62: the folder imports, test_import_imp62)
        (
            "genai_bench_concurrency_4.json",
            "genai-bench's per-run result (aggregated_metrics, scenario D(512,128), num_concurrency 4",
            "pass the experiment folder (the one holding experiment_metadata.json)",
        ),
    ],
)
def test_an_offline_or_one_batch_result_is_refused_by_name(tmp_path, capsys, monkeypatch, name, named, instead):
    """Each was refused with the general words (and SGLang's offline result as 'looks like vllm-bench-serve')."""
    code, text = _import(tmp_path, capsys, monkeypatch, PEERS / name)
    found = _found(text)
    assert code == 2 and named in found and instead in found and "looks like vllm-bench-serve" not in found, text
    assert not (tmp_path / "run").exists()


def test_a_workbook_is_refused_as_a_zip_archive_not_told_to_be_converted_from_cp1252(tmp_path, capsys, monkeypatch):
    """genai-bench's Excel report (an .xlsx: a ZIP archive, magic bytes 50 4B 03 04) read as CP1252 text, and the fix
    said ``iconv -f cp1252``: a converted workbook is no result file either."""
    import zipfile

    book = tmp_path / "experiment.xlsx"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>" * 8)
        z.writestr("xl/workbook.xml", "<workbook/>" * 8)
    code, text = _import(tmp_path, capsys, monkeypatch, book)
    assert code == 2 and "a ZIP archive, by its magic bytes 50 4B 03 04" in text and "iconv" not in text, text
    assert not (tmp_path / "run").exists()


def test_a_guidellm_concurrent_profile_of_two_stream_counts_is_two_cells(tmp_path, capsys, monkeypatch):
    """``--profile concurrent --rate 2,4`` (ConcurrentStrategy ``{type_: concurrent, streams: N}``, guidellm
    scheduler/strategies.py): one benchmark per stream count, each its own closed-loop cell (read right; kept)."""
    doc = json.loads((IMPORTS / "guidellm_0.5.3_sweep.json").read_text())
    first = doc["benchmarks"][0]
    benchmarks = []
    for streams in (2, 4):
        bench = json.loads(json.dumps(first))
        bench["config"]["strategy"] = {"type_": "concurrent", "streams": streams, "startup_duration": 0.0}
        benchmarks.append(bench)
    doc["benchmarks"] = benchmarks
    path = tmp_path / "concurrent.json"
    path.write_text(json.dumps(doc))
    code, text = _import(tmp_path, capsys, monkeypatch, path)
    assert code == 0 and "(guidellm benchmark, N=2)" in text and "(guidellm benchmark, N=4)" in text, text
    assert "2 cells imported" in text, text

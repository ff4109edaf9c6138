"""``specscope import`` against each tool's writer read at its source (hunt-import2): a figure the writer fills with
a placeholder is absent, never read as the placeholder. Files are built in each test from tests/data/imports
(SOURCES.md) with the fields the writer sets in the case under test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clirun import cli
from paths import DATA
from report_cli import report_json

IMPORTS = DATA / "imports"


def _run(tmp_path: Path, capsys, monkeypatch, files: dict[str, list[Path]]) -> dict[str, Any]:
    """Import each config's files into one run (the first config is the baseline); its report as JSON."""
    run = tmp_path / "run"
    for config, paths in files.items():
        code, _, err = cli(["import", *paths, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    return report_json(run)


def _write(tmp_path: Path, name: str, doc: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_vllm_draft_tokens_without_a_drafts_counter_are_not_zero_drafts(tmp_path, capsys, monkeypatch):
    """vllm bench serve (vllm/benchmarks/serve.py @ 009e6d4a) sums every ``vllm:spec_decode*_total`` it finds; a
    server exporting draft and accepted token counters but no ``num_drafts`` one gives ``spec_decode_num_drafts`` 0
    and ``spec_decode_acceptance_length`` 0.0 (its placeholder when drafts are 0) beside 120 drafted tokens. The
    import read 0 drafts: NOT_ENGAGED ('it did not speculate') and length 0.00. Right: rate 75/120 = 0.625, drafts
    and length absent and named."""
    doc = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    doc.update(
        spec_decode_num_drafts=0, spec_decode_acceptance_length=0.0, spec_decode_per_position_acceptance_rates=[]
    )
    files = {"base": [IMPORTS / "vllm_base_r0.json"], "mtp": [_write(tmp_path, "m.json", doc)]}
    report = _run(tmp_path, capsys, monkeypatch, files)
    mtp = next(c for c in report["cells"] if c["config"] == "mtp")
    assert (mtp["acceptance_rate"], mtp["acceptance_length"]) == (0.625, None)
    (cmp,) = report["comparisons"]
    assert cmp["verdict"] != "not_engaged"
    assert not any(a["code"] == "NOT_ENGAGED" for a in report["judged_alarms"])
    not_recorded = report["manifest"]["imports"][1]["not_recorded"]
    assert any("spec_decode_num_drafts = 0 beside 120 draft tokens" in r for r in not_recorded)


def test_guidellm_tpot_is_its_inter_token_latency_not_its_time_per_output_token(tmp_path, capsys, monkeypatch):
    """GuideLLM's ``time_per_output_token_ms`` is (last token - request start) / output tokens, the first token's
    wait included (guidellm src/guidellm/schemas/request_stats.py @ v0.7.3; 0.2's was (last - first token) /
    tokens); its ``inter_token_latency_ms`` is (last - first token) / (tokens - 1), specscope's TPOT. The import read
    the first: 5.880 ms in guidellm_spec_r0.json (GuideLLM 0.8.1's own report) where the TPOT is 4.770 ms."""
    report = _run(tmp_path, capsys, monkeypatch, {"spec": [IMPORTS / "guidellm_spec_r0.json"]})
    (cell,) = report["cells"]
    assert cell["tpot_p50_s"] == 4.769542942876401 / 1000
    assert cell["tpot_p95_s"] == 5.040738893591839 / 1000


def test_aiperf_output_tokens_are_its_output_sequence_length_reasoning_included(tmp_path, capsys, monkeypatch):
    """AIPerf's ``total_output_tokens`` sums ``output_token_count``, the answer's tokens without the reasoning ones;
    ``total_osl`` sums ``output_sequence_length`` = output + reasoning tokens (the completion tokens, AIPerf's own
    throughput numerator: ai-dynamo/aiperf aiperf/metrics/types/output_sequence_length_metric.py and
    output_token_throughput_metrics.py @ v0.1.1). A reasoning model's 42 thinking tokens of 192 were left out."""
    doc = json.loads((IMPORTS / "aiperf_spec_r0.json").read_text())
    doc["total_output_tokens"]["avg"] = 150.0
    doc["total_reasoning_tokens"] = {"unit": "tokens", "avg": 42.0}
    report = _run(tmp_path, capsys, monkeypatch, {"spec": [_write(tmp_path, "reasoning.json", doc)]})
    (cell,) = report["cells"]
    assert cell["output_tokens"] == 192
    assert cell["output_tok_s"] == 192 / doc["benchmark_duration"]["avg"]


def test_an_sglang_trace_replay_is_refused_as_having_no_single_level(tmp_path, capsys, monkeypatch):
    """SGLang's bench_serving writes ``request_rate`` ``"trace"`` when it replays a trace's own timestamps
    (``--use-trace-timestamps``); the import called the tool's own word a hand-edited value."""
    line = json.loads((IMPORTS / "sglang_eagle.jsonl").read_text().splitlines()[0])
    line["request_rate"] = "trace"
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(line) + "\n")
    code, _, err = cli(["import", path, "--config", "spec", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "a trace replay has no single level" in err and "hand-edited" not in err
    assert not (tmp_path / "run").exists()


def test_a_field_no_census_row_names_is_a_named_warning_and_the_known_ones_are_silent(tmp_path, capsys, monkeypatch):
    """Every key each tool writes at the releases read (the shape modules' docstrings) is read or knowingly left out;
    a key none of them writes (a later release's, a --metadata KEY=VALUE) is named on stderr, never silently
    dropped. The files the tools wrote themselves import with no warning."""
    real = [
        IMPORTS / "vllm_cpu_mtp_r0.json",
        IMPORTS / "sglang_eagle.jsonl",
        IMPORTS / "aiperf_spec_r0.json",
        IMPORTS / "aiperf_0.10.0_chatbot_c4.json",
        IMPORTS / "guidellm_spec_r0.json",
        IMPORTS / "guidellm_legacy_spec_r0.json",
    ]
    for i, path in enumerate(real):
        code, _, err = cli(
            ["import", path, "--config", "x", "--out", tmp_path / f"r{i}"], capsys, monkeypatch, tmp_path
        )
        assert code == 0 and "warning" not in err, (path.name, err)
    vllm = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    vllm.update(spec_decode_mean_accepted_per_step=2.9, gpu="H100")
    aiperf = json.loads((IMPORTS / "aiperf_spec_r0.json").read_text())
    aiperf["energy_summary"] = {"joules": 1.0}
    guidellm = json.loads((IMPORTS / "guidellm_spec_r0.json").read_text())
    guidellm["benchmarks"][0]["spec_decode"] = {"acceptance": 0.5}
    for name, doc, expected in (
        ("v.json", vllm, "gpu, spec_decode_mean_accepted_per_step"),
        ("a.json", aiperf, "energy_summary"),
        ("g.json", guidellm, "benchmarks[0].spec_decode"),
    ):
        run = tmp_path / f"run-{name}"
        code, _, err = cli(
            ["import", _write(tmp_path, name, doc), "--config", "x", "--out", run], capsys, monkeypatch, tmp_path
        )
        assert code == 0, err
        assert "record 1" in err and f"fields not understood, left out: {expected}" in err, err


def test_a_vllm_result_without_spec_fields_names_every_reason_vllm_leaves_them_out(tmp_path, capsys, monkeypatch):
    """vllm bench serve writes the spec_decode_* fields only when the server's drafted-token counter rose during the
    run (serve.py @ 009e6d4a: ``if delta_draft_tokens > 0``), and releases before them never write them; the import
    said 'no vllm:spec_decode counters on the server's /metrics', one of three causes the file cannot tell apart."""
    report = _run(tmp_path, capsys, monkeypatch, {"base": [IMPORTS / "vllm_base_r0.json"]})
    (reason,) = [r for r in report["manifest"]["imports"][0]["not_recorded"] if r.startswith("speculative")]
    assert reason == (
        "speculative counters (no spec_decode_* fields: the server exported no spec-decode counters, drafted no token "
        "during the run, or this vllm bench serve predates them)"
    )


def test_a_guidellm_0_4_report_names_its_model_from_its_args(tmp_path, capsys, monkeypatch):
    """GuideLLM 0.4-0.6 reports keep the command line in ``args`` (``GenerativeBenchmarksReport.args``, the model in
    ``args.model``; guidellm src/guidellm/benchmark/schemas/generative/report.py @ v0.4.0), 0.7+ in ``config.spec``:
    the model of a 0.4 report was not recorded."""
    doc = json.loads((IMPORTS / "guidellm_spec_r0.json").read_text())
    del doc["config"], doc["metadata"]
    doc["args"] = {"target": "http://127.0.0.1:8000", "model": "Qwen/Qwen3-8B", "backend": "openai_http"}
    report = _run(tmp_path, capsys, monkeypatch, {"spec": [_write(tmp_path, "g04.json", doc)]})
    assert report["server_facts"]["spec"]["model"] == "Qwen/Qwen3-8B"


def test_a_peer_tools_other_files_are_refused_naming_the_file_to_pass(tmp_path, capsys, monkeypatch):
    """AIPerf writes beside profile_export_aiperf.json its per-request records (profile_export.jsonl: one
    {metadata, metrics, error} object per request, aiperf/post_processors/record_export_results_processor.py @ v0.1.1)
    and a CSV summary; GuideLLM writes its report as YAML for --output-path *.yaml and as CSV for *.csv (the CSV was
    refused as 'line 1 is not JSON' after the YAML was named). Each was refused naming only what it held ('record 1:
    error, metadata, metrics', 'line 1 is not JSON'), not the file to pass."""
    cases = {
        "profile_export.jsonl": '{"metadata": {"x_request_id": "a", "session_num": 0}, "metrics": {"time_to_first_'
        'token": {"value": 12.0, "unit": "ms"}}, "error": null}\n',
        "profile_export_aiperf.csv": "Metric,avg,min,max,p99,p90,p50,std\nTime to First Token (ms),18.2,11.2,106.3,"
        "68.8,27.7,16.6,12.0\n",
        "benchmarks.yaml": "metadata:\n  version: 2\nbenchmarks:\n- type_: generative_benchmark\n",
        # GuideLLM's --output-path *.csv: three header rows (group, field, unit), then a row per benchmark
        # (vllm-project/guidellm src/guidellm/benchmark/outputs/csv.py @53af291c GenerativeBenchmarkerCSV)
        "benchmarks.csv": "Run Info,Run Info,Benchmark,Benchmark,Timings,Request Counts\nRun ID,Run Index,Type,"
        "Strategy,Duration,Successful\n,,,,Sec,\nr1,0,generative_benchmark,synchronous,30.0,42\n",
    }
    wanted = {
        "profile_export.jsonl": "profile_export_aiperf.json",
        "profile_export_aiperf.csv": "profile_export_aiperf.json",
        "benchmarks.yaml": "--output-path FILE.json",
        "benchmarks.csv": "GuideLLM's CSV report",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code, _, err = cli(["import", path, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
        assert code == 2 and wanted[name] in err.split("found:", 1)[1].split("expected:", 1)[0], (name, err)


def test_a_vllm_v0_4_result_imports_silently_with_its_failed_count_named_absent(tmp_path, capsys, monkeypatch):
    """vLLM v0.4's benchmarks/benchmark_serving.py writes ``request_inthroughput`` and ``input_throughput`` (no
    ``failed``, no per-request arrays) beside ``best_of`` / ``use_beam_search``: known keys, no warning."""
    doc = {
        "date": "20240501-101500", "backend": "vllm", "model_id": "m", "tokenizer_id": "m", "best_of": 1,
        "use_beam_search": False, "num_prompts": 4, "request_rate": "inf", "duration": 2.0, "completed": 4,
        "total_input_tokens": 400, "total_output_tokens": 128, "request_inthroughput": 2.0, "input_throughput": 200.0,
        "output_throughput": 64.0, "mean_ttft_ms": 40.0, "median_ttft_ms": 40.0, "p99_ttft_ms": 41.0,
        "mean_tpot_ms": 18.0, "median_tpot_ms": 18.0, "p99_tpot_ms": 19.0,
    }  # fmt: skip
    run = tmp_path / "run"
    code, _, err = cli(
        ["import", _write(tmp_path, "v04.json", doc), "--config", "x", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0 and "warning" not in err, err
    (cell,) = report_json(run)["cells"]
    assert (cell["concurrency"], cell["tpot_p50_s"], cell["output_tok_s"]) == (4, 0.018, 64.0)


def test_aggregates_a_file_lacks_are_named_not_recorded(tmp_path, capsys, monkeypatch):
    """Without per-request arrays the cell's TTFT / TPOT are the tool's own percentiles: vllm bench serve writes those
    of --metric-percentiles (99 alone by default), SGLang's bench_serving the median and p99 only. The missing p95s
    were absent with no reason."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    for k in ("input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "generated_texts", "errors"):
        doc.pop(k, None)
    line = json.loads((IMPORTS / "sglang_base.jsonl").read_text().splitlines()[0])
    for k in ("input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"):
        line.pop(k, None)
    sglang = tmp_path / "s.jsonl"
    sglang.write_text(json.dumps(line) + "\n")
    for path, reason in (
        (
            _write(tmp_path, "v.json", doc),
            "TTFT p95, TPOT p95 (not among the tool's percentiles: p95_ttft_ms, p95_tpot_ms absent)",
        ),
        (sglang, "TTFT p95, TPOT p95 (not among the tool's percentiles: p95_ttft_ms, p95_tpot_ms absent)"),
    ):
        report = _run(tmp_path / path.stem, capsys, monkeypatch, {"x": [path]})
        (cell,) = report["cells"]
        assert cell["ttft_p95_s"] is None and cell["tpot_p95_s"] is None and cell["tpot_p50_s"] is not None
        assert reason in report["manifest"]["imports"][0]["not_recorded"], path.name


def test_docs_imports_md_is_the_census_the_shapes_hold():
    """docs/imports.md is generated from the shape modules (python scripts/gen_imports_doc.py): every field each
    tool writes, read / derived / left out, and the keys known; stale, it would misstate what import reads."""
    from paths import ROOT
    from specscope.importers.census_doc import render

    assert (ROOT / "docs" / "imports.md").read_text("utf-8") == render()

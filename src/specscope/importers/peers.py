"""The peer tools' files that hold no cell specscope can import, named in the refusal with the file to pass instead.

:func:`text_hint` names a text file that is not JSON by its first line (``"; this looks like ..."``):

- AIPerf's CSV summary ``profile_export_aiperf.csv``: ``Metric,`` then its ``STAT_KEYS`` (``avg,min,max,sum,p1,...``,
  src/aiperf/exporters/metrics_csv_exporter.py @309c4e8c, src/aiperf/common/constants.py @0562da4a);
- GenAI-Perf's CSV summary ``profile_export_genai_perf.csv``: ``Metric,avg,min,max,p99,p95,p90,p75,p50,p25``
  (``REQUEST_METRICS_HEADER``, its percentiles from p99 down; triton-inference-server/perf_analyzer
  genai-perf/genai_perf/export_data/csv_exporter.py @09628cd6): it opened like AIPerf's and was told to be AIPerf's;
- ``vllm bench sweep serve``'s ``summary.csv`` (vllm/benchmarks/sweep/serve.py @4fa9174d ``run_combs``: pandas
  ``to_csv`` of every run of every combination, its index column unnamed, then ``date``... and ``run_number``): each
  combination's ``summary.json`` (or ``run=N.json``) beside it imports (:mod:`specscope.importers.vllm_serve`);
- GuideLLM's YAML report (``type_: generative_benchmark``), its 0.7+ CSV (three header rows, the first opening with
  the group ``Run Info``: vllm-project/guidellm src/guidellm/benchmark/outputs/csv.py @53af291c) and its 0.2-0.6 CSV
  (one header row opening ``Type,Run Id,Id,Name``: ``_benchmark_desc_headers_and_values`` of
  src/guidellm/benchmark/output.py @0d8c8bf7).

:func:`document_hint` names a JSON document of no known shape:

- specscope's own report JSON (``report -f json``, ``schema`` ``specscope.report/N``): the run it names is a run
  already; a speculation profile (``speculation_profile.json``, NVIDIA Model-Optimizer
  examples/specdec_bench/specdec_bench/speculation_profile.py ``build_profile``, as ``export --to profile`` writes
  it): acceptance per draft position, no timing and no token totals: no cell's facts;
- GenAI-Perf's summary ``profile_export_genai_perf.json``: its metric blocks (``{"unit": ..., "avg": ...}``) and
  ``input_config`` (the command line, ``profile_export_file`` and ``artifact_dir`` among it; genai-perf
  export_data/json_exporter.py @09628cd6). It holds per-request statistics and rates, no duration of the run and no
  token totals: no cell's facts;
- the perf_analyzer export GenAI-Perf reads (``profile_export.json``: ``experiments``, each with its ``requests`` of
  send and response timestamps and raw response texts): no token is counted in it;
- LLMPerf's summary (ray-project/llmperf ``token_benchmark_ray.py``: ``{name}_summary.json`` of ``results_*`` means
  and quantiles beside ``num_concurrent_requests``) and its per-request list (``{name}_individual_responses.json``:
  ``ttft_s``, ``end_to_end_latency_s``, ``number_output_tokens``... per request, no send instant): no duration of
  the run in either; nor in its correctness test's summary (``llm_correctness.py`` @fec74f4c:
  ``num_mismatched_requests``, ``mismatch_rate``, the error counts, beside ``num_concurrent_requests``);
- AIPerf's time-slice export ``profile_export_aiperf_timeslices.json`` (``TimesliceMetricsJsonExporter``,
  ai-dynamo/aiperf src/aiperf/exporters/timeslice_metrics_json_exporter.py @7123bb9b: ``timeslices``, a list of
  ``{start_ns, end_ns, is_complete, <metric>: {unit, avg, ...}}``, beside ``input_config``) and its steady-state
  export ``profile_export_aiperf_steady_state.json`` (``SteadyStateJsonExporter``, steady_state_json_exporter.py
  @3d522d48: ``window_metadata`` and ``metrics`` of ``{unit, avg, min, max, p50, p90, p95, p99, std}``): windows of
  one run, each a part of it; the run's own summary, ``profile_export_aiperf.json`` in the same folder, imports;
- AIPerf's server-metrics export ``server_metrics_export.json`` (docs/server_metrics/server_metrics_json_schema.md:
  ``summary`` of ``endpoints_configured``..., ``metrics`` by Prometheus name, a counter's ``stats.total`` its increase
  over the collection): the server's counters, no request the client counted; its spec-decode counters are named, not
  read; the run's summary imports;
- vLLM's pooling result (``vllm bench serve`` against an embeddings or other pooling endpoint: the
  ``TaskType.POOLING`` branch of ``benchmark()`` in vllm/benchmarks/serve.py @def9ce85 writes ``duration``,
  ``completed``, ``total_input_tokens``, ``request_throughput``, ``total_token_throughput`` and e2el figures only,
  no ``total_output_tokens``, ``output_throughput`` or TTFT): no token is generated, so nothing is drafted;
- the engines' offline and one-batch benchmarks, no serving level in any: ``vllm bench throughput --output-json``
  (vllm/benchmarks/throughput.py: ``elapsed_time``, ``num_requests``, ``total_num_tokens`` of prompt and output,
  ``requests_per_second``, ``tokens_per_second``), SGLang's ``bench_offline_throughput`` (python/sglang/
  bench_offline_throughput.py @00d02fb4 ``throughput_test_once``: ``backend`` engine or runtime,
  ``successful_requests``, ``total_latency``, the token totals and throughputs: it looked like vLLM's serving result)
  and ``bench_one_batch_server`` (bench_one_batch_server.py @00b08c49 ``run_one_case``: ``run_name``,
  ``batch_size``, ``input_len``, ``output_len``, ``latency``, ``output_throughput`` from batch x output_len, the
  tokens asked for, not counted);
- vLLM's PyTorch-benchmark-format copy ``NAME.pytorch.json`` (``convert_to_pytorch_benchmark_format`` of
  vllm/benchmarks/lib/utils.py, written beside the result when ``SAVE_TO_PYTORCH_BENCHMARK_FORMAT`` is set: a list
  of ``{benchmark: {name: "vLLM benchmark", ...}, model, metric: {name, benchmark_values, extra_info}}``);
- ``trtllm-bench throughput --report_json`` (NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py
  @02499765 ``get_statistics_dict``: ``engine``, ``world_info``, ``request_info``, ``performance``, optional
  ``streaming_metrics`` and ``decoding_stats``, ``dataset``): a run of the LLM API in-process, no server; its
  ``decoding_stats`` are percentiles over requests, with no sums to derive the run's rate from;
- ``vllm bench sweep serve``'s record of a failed run (``--continue-on-error``: vllm/benchmarks/sweep/serve.py
  @0031557f ``run_comb`` writes ``run=N.failure.json`` of ``run_number``, ``error_type``, ``error``,
  ``serve_overrides``, ``bench_overrides``; ``run_combs`` a failed server combination's ``SERVE-...-failure.json``,
  without ``run_number``): nothing measured;
- genai-bench's per-run JSON (sgl-project/genai-bench genai_bench/metrics/metrics.py @025cf1c6: ``aggregated_metrics``,
  an ``AggregatedMetrics`` of ``scenario``, ``num_concurrency`` ("or QPS for open-loop mode"), ``run_duration``,
  the request counts and ``stats`` per field, beside ``individual_request_metrics`` and ``_time_unit``): its level is
  streams or a QPS by the experiment's command line (experiment_metadata.json, another file), so the file alone is
  refused naming its experiment folder, which imports (:mod:`specscope.importers.genai_bench`).

- AIPerf's multi-run aggregates (:func:`_aiperf_aggregate`) and a per-request record lacking its start instant
  (:func:`_aiperf_sibling`), moved here from :mod:`specscope.importers.shapes` (imp60).

A hint is words only: what is refused, and how, is :mod:`specscope.importers.shapes`' (exit 2, nothing written).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.importers.record import spelled
from specscope.textsafe import shell_word

__all__ = ["document_hint", "text_hint"]

#: the file a refused peer file's user can make instead
_INSTEAD = (
    "measure the load with a tool whose file imports: AIPerf (it takes GenAI-Perf's --concurrency and "
    "--request-rate; import its profile_export_aiperf.json), vllm bench serve --save-result, SGLang bench_serving "
    "or GuideLLM"
)
_GENAI_PERF_CSV = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25"


def text_hint(text: str) -> str:
    """``"; this looks like ..."`` naming the file to pass for a peer tool's text that is not JSON (module doc),
    else ""."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith(_GENAI_PERF_CSV):
        return (
            "; this looks like GenAI-Perf's CSV summary (profile_export_genai_perf.csv): per-request statistics and "
            f"rates, no duration of the run and no token totals, so no cell can be read from it; {_INSTEAD}"
        )
    if first.startswith("Metric,"):
        return (
            "; this looks like AIPerf's CSV summary (profile_export_aiperf.csv): import profile_export_aiperf.json "
            "from the same folder"
        )
    if first.startswith(",date,") and {"completed", "duration", "run_number"} <= set(first.split(",")):
        return (
            "; this looks like vllm bench sweep serve's summary.csv (every combination's runs, one row each): import "
            "each combination's summary.json (or its run=N.json files) from its folder beside it"
        )
    if "type_: generative_benchmark" in text:
        return "; this looks like GuideLLM's YAML report: save the report as JSON (guidellm --output-path FILE.json)"
    if first.startswith(("Run Info,", "Type,Run Id,Id,Name,")):
        return "; this looks like GuideLLM's CSV report: save the report as JSON (guidellm --output-path FILE.json)"
    return ""


def _genai_perf(doc: Mapping[str, Any]) -> bool:
    cfg = doc.get("input_config")
    return (
        isinstance(cfg, Mapping)
        and "profile_export_file" in cfg
        and "benchmark_duration" not in doc
        and any(isinstance(v, Mapping) and "unit" in v for v in doc.values())
    )


def _llmperf_request(item: Any) -> bool:
    return isinstance(item, Mapping) and "ttft_s" in item and "end_to_end_latency_s" in item


def _aiperf_window(doc: Mapping[str, Any]) -> str:
    """The words for AIPerf's time-slice or steady-state export (module doc), else ""."""
    slices = doc.get("timeslices")
    if isinstance(slices, list) and slices and all(isinstance(t, Mapping) and "start_ns" in t for t in slices):
        what = f"AIPerf's time-slice export (profile_export_aiperf_timeslices.json): {len(slices)} windows of one run"
    elif isinstance(doc.get("window_metadata"), Mapping) and isinstance(doc.get("metrics"), Mapping):
        what = "AIPerf's steady-state export (profile_export_aiperf_steady_state.json): one window of a run"
    elif isinstance(doc.get("summary"), Mapping) and "endpoints_configured" in doc["summary"]:
        return _aiperf_server_metrics(doc.get("metrics"))
    else:
        return ""
    return (
        f"; looks like {what}, statistics over part of it, no run's totals; import profile_export_aiperf.json from "
        "the same folder (the whole run's summary)"
    )


def _aiperf_server_metrics(metrics: Any) -> str:
    """The words for AIPerf's server-metrics export (module doc), naming the spec-decode counters it holds."""
    names = sorted(str(k) for k in metrics if "spec_decode" in str(k)) if isinstance(metrics, Mapping) else []
    held = f" (spec-decode counters among them: {', '.join(names[:4])}, not read)" if names else ""
    return (
        "; looks like AIPerf's server-metrics export (server_metrics_export.json): the server's Prometheus metrics "
        f"over the run{held}, no request counted by the client; import profile_export_aiperf.json from the same folder "
        "(the run's summary)"
    )


def _vllm_pooling(doc: Mapping[str, Any]) -> str:
    """The words for vLLM's pooling result (module doc), else ""."""
    endpoint = doc.get("endpoint_type", doc.get("backend"))
    if endpoint is None or "duration" not in doc or "total_input_tokens" not in doc:
        return ""
    if any(k in doc for k in ("total_output_tokens", "output_throughput", "mean_ttft_ms")):
        return ""
    return (
        f"; looks like vllm bench serve's result of a pooling run (endpoint_type {endpoint}): no tokens generated "
        "(only total_input_tokens and end-to-end latencies), so nothing drafted and no cell to read; import a run "
        "against a generating endpoint (--backend openai or openai-chat)"
    )


#: the file a user of an offline or one-batch benchmark makes instead
_SERVE_VLLM = "measure the served model under load instead: vllm bench serve --save-result"
_SERVE_SGLANG = "measure the served model under load instead: python -m sglang.bench_serving --output-file"


def _offline(doc: Mapping[str, Any]) -> str:
    """The words for an engine's offline or one-batch benchmark result (module doc), else ""."""
    if {"elapsed_time", "num_requests", "total_num_tokens", "tokens_per_second"} <= doc.keys():
        return (
            "; looks like vllm bench throughput's --output-json (an offline run of the engine in-process, every "
            "prompt at once): no server, no level and no output-token total (total_num_tokens counts prompts too); "
            + _SERVE_VLLM
        )
    if {"successful_requests", "total_latency", "total_output_tokens"} <= doc.keys():
        return (
            f"; looks like SGLang bench_offline_throughput's result (an offline run of the engine in-process, backend "
            f"{doc.get('backend')}, every prompt at once): no server and no level; " + _SERVE_SGLANG
        )
    if {"batch_size", "input_len", "output_len", "latency"} <= doc.keys():
        return (
            f"; looks like SGLang bench_one_batch_server's result (one /generate call per batch, batch_size "
            f"{doc.get('batch_size')}): the batch's prompts in one request, its output tokens the ones asked for "
            "(batch_size x output_len), not counted; " + _SERVE_SGLANG
        )
    return ""


#: the keys of a speculation profile (NVIDIA Model-Optimizer examples/specdec_bench/specdec_bench/
#: speculation_profile.py ``build_profile``, as specscope.export.profile writes it)
_PROFILE_KEYS = frozenset({"conditional_accept_rates", "acceptance_length_histogram", "num_speculative_tokens"})


def _own_document(doc: Mapping[str, Any]) -> str:
    """The words for specscope's own report JSON and for a speculation profile (module doc), else ""."""
    schema = doc.get("schema")
    if isinstance(schema, str) and schema.startswith("specscope.report/"):
        run = doc.get("run")
        instead = (
            f"its run folder {run} is a run already: `specscope report {shell_word(run)}`"
            if isinstance(run, str) and run
            else "report the run folder it was made from"
        )
        return f"; looks like specscope's own report (report -f json, schema {schema}): {instead}"
    if _PROFILE_KEYS <= doc.keys():
        return (
            "; looks like a speculation profile (speculation_profile.json: specdec_bench's schema, as specscope "
            "export --to profile writes it): acceptance per draft position and no timing or token totals, so no cell "
            "can be read from it; import the benchmark files the profile's run was measured with"
        )
    return ""


def _said(value: Any) -> str:
    """A text the file holds as written (at most 200 characters), any other value as JSON (:func:`spelled`)."""
    return (value if len(value) <= 200 else value[:197] + "...") if isinstance(value, str) else spelled(value)


def _other_tool(doc: Mapping[str, Any]) -> str:
    """The words for trtllm-bench's report, vllm bench sweep serve's failure record and genai-bench's per-run JSON
    (module doc), else ""."""
    if {"engine", "world_info", "request_info", "performance"} <= doc.keys():
        engine = doc["engine"] if isinstance(doc["engine"], Mapping) else {}
        return (
            f"; looks like trtllm-bench's --report_json (an in-process run of the LLM API, no server; backend "
            f"{engine.get('backend')}, version {engine.get('version')}): percentiles over requests, no served level; "
            f"serve the model (trtllm-serve) and {_INSTEAD}"
        )
    if {"error_type", "error", "serve_overrides"} <= doc.keys():
        run = f"run {spelled(doc['run_number'])}" if "run_number" in doc else "its server combination"
        return (
            f"; looks like vllm bench sweep serve's record of a failed run ({run}: {_said(doc['error_type'])}: "
            f"{_said(doc['error'])}): nothing was measured; import the combination's run=N.json files that "
            "succeeded, or its summary.json"
        )
    agg = doc.get("aggregated_metrics")
    if isinstance(agg, Mapping) and "individual_request_metrics" in doc:
        return (
            f"; looks like genai-bench's per-run result (aggregated_metrics, scenario {agg.get('scenario')}, "
            f"num_concurrency {agg.get('num_concurrency')}): num_concurrency is a number of streams, or an async "
            "open loop's QPS under the same name, and only the experiment's command line in experiment_metadata.json "
            "tells which; pass the experiment folder (the one holding experiment_metadata.json)"
        )
    return ""


#: AIPerf's multi-run aggregates by ``aggregation_type``: what each holds (:func:`_aiperf_aggregate`)
_AGGREGATES = {
    "sweep": "per-combination means over its trials",
    "confidence": "each metric's mean and spread over runs",
    "detailed": "every run's per-request values pooled into one distribution",
}


def _aiperf_aggregate(doc: Any) -> str:
    """``"; looks like ..."`` naming AIPerf's multi-run aggregates and the files to import instead, else "".

    AIPerf (ai-dynamo/aiperf ``src/aiperf/exporters/aggregate/``): the sweep aggregate
    ``profile_export_aiperf_sweep.json`` (``aggregate_sweep_json_exporter.py`` @ 4f2a10ab: ``aggregation_type``
    "sweep", ``num_profile_runs``, ``num_successful_runs``, ``failed_runs``, ``metadata``, ``per_combination_metrics``
    of ``{parameters, metrics}``, ``best_configurations``, ``pareto_optimal``) and the confidence aggregate
    ``profile_export_aiperf_aggregate.json`` (``aggregate_confidence_json_exporter.py`` @ 008358d8: ``schema_version``,
    ``aiperf_version``, ``metadata`` holding ``aggregation_type`` "confidence" and ``num_profile_runs``, ``metrics`` of
    mean / std / min / max / cv / se / ci per metric) and the detailed aggregate ``profile_export_aiperf_detailed.json``
    (``aggregate_detailed_json_exporter.py`` @2255fde9: the same ``metadata``, ``aggregation_type`` "detailed", and
    ``metrics`` of every run's per-request values pooled into one distribution, with ``per_run``; it was told to be a
    per-request record lacking its start instant). All hold statistics over runs, no run's own totals (its duration,
    requests, tokens): no cell can be read from them, so they are refused by name; each run of the sweep or repeat
    writes its own ``profile_export_aiperf.json``, which imports."""
    if not isinstance(doc, Mapping):
        return ""
    meta = doc.get("metadata")
    kind = doc.get("aggregation_type", meta.get("aggregation_type") if isinstance(meta, Mapping) else None)
    if kind not in _AGGREGATES or not ("per_combination_metrics" in doc or "metrics" in doc):
        return ""
    runs = doc.get("num_profile_runs", meta.get("num_profile_runs") if isinstance(meta, Mapping) else None)
    what = _AGGREGATES[kind]
    return (
        f"; looks like AIPerf's {kind} aggregate (aggregation_type {kind}, {runs} runs): {what}, no run's own "
        "totals; import each run's own profile_export_aiperf.json instead (one per combination and trial, in that "
        "run's artifact folder), each config's runs with its --config"
    )


def _aiperf_sibling(doc: Any) -> str:
    """``"; looks like ..."`` for a document of AIPerf's per-request record export that lacks what every record holds
    (its request's start instant), else ""."""
    if _aiperf_aggregate(doc):
        return ""
    if (
        isinstance(doc, Mapping)
        and isinstance(doc.get("metadata"), Mapping)
        and isinstance(doc.get("metrics"), Mapping)
    ):
        return (
            "; looks like AIPerf's per-request record export (profile_export.jsonl) but lacks "
            "metadata.request_start_ns, which AIPerf writes on every record; its run summary "
            "profile_export_aiperf.json in the same folder imports too"
        )
    return ""


def _vllm_pytorch(doc: list[Any]) -> bool:
    first = doc[0] if doc else None
    if not isinstance(first, Mapping):
        return False
    bench = first.get("benchmark")
    return isinstance(bench, Mapping) and bench.get("name") == "vLLM benchmark" and "metric" in first


def document_hint(doc: Any) -> str:
    """``"; looks like ..."`` naming a peer tool's JSON document that holds no cell (module doc), else ""."""
    if isinstance(doc, list) and doc and all(_llmperf_request(d) for d in doc):
        return (
            "; looks like LLMPerf's per-request file (*_individual_responses.json): no send instant and no duration "
            f"of the run, so no cell can be read from it; {_INSTEAD}"
        )
    if isinstance(doc, list) and _vllm_pytorch(doc):
        return (
            "; looks like vLLM's PyTorch-benchmark-format copy (*.pytorch.json): one record per metric; import the "
            "result it was made from, NAME.json beside it (vllm bench serve --save-result)"
        )
    if not isinstance(doc, Mapping):
        return ""
    if hint := _own_document(doc) or _aiperf_window(doc) or _vllm_pooling(doc) or _offline(doc) or _other_tool(doc):
        return hint
    if hint := _aiperf_aggregate(doc) or _aiperf_sibling(doc):
        return hint
    if _genai_perf(doc):
        return (
            "; looks like GenAI-Perf's summary (profile_export_genai_perf.json): per-request statistics and rates, "
            f"no duration of the run and no token totals, so no cell can be read from it; {_INSTEAD}"
        )
    experiments = doc.get("experiments")
    if (
        isinstance(experiments, list)
        and experiments
        and all(isinstance(e, Mapping) and "requests" in e for e in experiments)
    ):
        return (
            "; looks like the perf_analyzer export GenAI-Perf reads (profile_export.json): raw response texts, no "
            f"token counted, so no cell can be read from it; {_INSTEAD}"
        )
    if {"num_mismatched_requests", "mismatch_rate"} <= doc.keys():
        return (
            "; looks like LLMPerf's correctness summary (llm_correctness.py *_correctness_summary.json): mismatch and "
            "error counts of its number-echo test, no timing, so no cell can be read from it (its load test, "
            f"token_benchmark_ray.py, writes none either); {_INSTEAD}"
        )
    if "num_concurrent_requests" in doc and any(str(k).startswith("results_") for k in doc):
        return (
            "; looks like LLMPerf's summary (token_benchmark_ray.py *_summary.json): means and quantiles over "
            f"requests, no duration of the run, so no cell can be read from it; {_INSTEAD}"
        )
    return ""

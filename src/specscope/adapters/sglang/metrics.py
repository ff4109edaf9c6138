"""SGLang's Prometheus ``/metrics`` (``--enable-metrics``; labelled ``model_name``): ``SchedulerMetricsCollector`` and
``TokenizerMetricsCollector`` of ``python/sglang/srt/metrics/collector.py``. Its one speculative counter is the verify
step count; drafted and accepted tokens have no counter, only ``mostrecent`` gauges."""

from __future__ import annotations

from specscope.adapters.declare import Row

PREFIXES = ("sglang:",)
_COL = "python/sglang/srt/metrics/collector.py (index id 57855696515; observability/metrics_collector.py @ 54cadad)"
_CMD = "tests/cli/test_counters_engines_cli.py::"
_GAUGE = "GAUGE_NOT_WINDOW: a mostrecent gauge"

ROWS = (
    Row("prometheus", "spec_verify_calls_total", "counter", "read", "drafts", _COL, _CMD + "test_sglang_counters"),
    Row(
        "prometheus",
        "generation_tokens_total",
        "counter",
        "read",
        "generation_tokens",
        _COL,
        _CMD + "test_sglang_counters",
    ),
    Row("prometheus", "prompt_tokens_total", "counter", "read", "prompt_tokens", _COL, _CMD + "test_sglang_counters"),
    Row(
        "prometheus",
        "num_running_reqs",
        "gauge",
        "read",
        "running",
        _COL,
        "tests/bench/test_gauges_engines_bench.py::test_sglang_gauges_sampled_through_bench",
    ),
    Row(
        "prometheus",
        "num_queue_reqs",
        "gauge",
        "read",
        "waiting",
        _COL,
        "tests/bench/test_gauges_engines_bench.py::test_sglang_gauges_sampled_through_bench",
    ),
    Row("prometheus", "spec_accept_rate", "spec_gauge", "ignored", _GAUGE, _COL),
    Row("prometheus", "spec_accept_length", "spec_gauge", "ignored", _GAUGE, _COL),
    Row("prometheus", "spec_num_steps", "spec_gauge", "ignored", _GAUGE, _COL),
    Row("prometheus", "spec_num_draft_tokens", "spec_gauge", "ignored", _GAUGE, _COL),
    Row("prometheus", "spec_cap_length", "spec_gauge", "ignored", _GAUGE, _COL),
    Row("prometheus", "spec_block_accept_length", "spec_gauge", "ignored", _GAUGE, _COL),
)

#: how the engine serves its metrics (an error's fix names it)
ENABLE_METRICS = "--enable-metrics"
#: what the engine counts inside one series set without labelling it apart (``counters`` says so)
UNLABELLED_TRAFFIC = "requests to LoRA adapters served on the model (the collector's labels name the served model)"

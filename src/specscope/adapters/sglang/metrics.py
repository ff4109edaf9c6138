"""SGLang's Prometheus ``/metrics`` (``--enable-metrics``; labelled ``model_name``): ``SchedulerMetricsCollector`` and
``TokenizerMetricsCollector`` of ``python/sglang/srt/metrics/collector.py``. Its one speculative counter is the verify
step count; drafted and accepted tokens have no counter, only ``mostrecent`` gauges."""

from __future__ import annotations

from specscope.adapters.declare import Detail, Row

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
#: labels whose values mark copies of one count, never replicas (``client/metrics.py`` reads one series per copy group:
#: the lowest rank's). SGLang 0.5.23 ``observability/metrics_collector.py`` ``SchedulerMetricsCollector.init_new``
#: labels every scheduler series ``model_name``, ``engine_type``, ``tp_rank``, ``pp_rank``, ``moe_ep_rank`` and, under
#: data parallelism, ``dp_rank``; the scheduler of attention-TP rank 0 of each DP group and PP stage writes them, and
#: with ``--enable-metrics-for-all-schedulers`` every TP rank does. The TP ranks of one DP group hold one batch (the
#: requests are broadcast to them, ``request_receiver.py``) and each PP stage is handed the previous stage's requests,
#: so their ``num_running_reqs`` / ``num_queue_reqs`` / ``spec_*`` gauges are copies; ``dp_rank`` marks a replica. The
#: tokenizer's counters (``spec_verify_calls_total``, ``generation_tokens_total``, ``prompt_tokens_total``) carry no
#: rank label: one process counts each finished request once (its ``spec_verify_ct`` from rank 0's output).
COPY_LABELS = ("tp_rank", "pp_rank", "moe_ep_rank")


#: How the window reading treats this engine's series beyond its rows (docs/engines.md's window rules; each rule
#: names the tests that pin it, at least one through a command).
WINDOW_RULES: tuple[Detail, ...] = (
    Detail(
        "collector",
        "a gauge-only build (no `spec_verify_calls_total`)",
        "read as a state",
        "`gauge_only`, no figure",
        (
            "tests/cli/test_counters_unseen.py::test_sglang_gauges_only_is_read_as_gauge_only_never_refused",
            "tests/cli/test_window_cases_cli.py::test_counters_reads_each_window_case[sglang-gauges-only]",
            "tests/integration/test_engine_shapes_bench.py::test_gauge_only_server_warns_and_gives_no_acceptance",
        ),
    ),
)

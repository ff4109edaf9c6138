"""vLLM's Prometheus ``/metrics``: the speculative counters of ``v1/spec_decode/metrics.py`` (``SpecDecodingProm``),
the scheduler gauges and token counters of ``v1/metrics/loggers.py`` (``PrometheusStatLogger``), and V0's
(``vllm/engine/metrics.py``, 0.6.x). Every series is labelled ``model_name`` and ``engine``."""

from __future__ import annotations

from specscope.adapters.declare import Row

PREFIXES = ("vllm:",)
_V1 = "v1/spec_decode/metrics.py, vLLM 0.32.0 and main @ ee4ceaae"
_LOG = "v1/metrics/loggers.py, vLLM 0.32.0"
_V0 = "vllm/engine/metrics.py, vLLM 0.6.x (V0)"
_CMD = "tests/cli/test_counters_engines_cli.py::"
_GAUGES = "tests/bench/test_gauges_engines_bench.py::test_vllm_gauges_sampled_through_bench"

ROWS = (
    Row("prometheus", "spec_decode_num_drafts_total", "counter", "read", "drafts", _V1, _CMD + "test_vllm_counters"),
    Row(
        "prometheus",
        "spec_decode_num_draft_tokens_total",
        "counter",
        "read",
        "draft_tokens",
        _V1,
        _CMD + "test_vllm_counters",
    ),
    Row(
        "prometheus",
        "spec_decode_num_accepted_tokens_total",
        "counter",
        "read",
        "accepted_tokens",
        _V1,
        _CMD + "test_vllm_counters",
    ),
    Row(
        "prometheus",
        "spec_decode_num_accepted_tokens_per_pos_total",
        "per_pos",
        "read",
        "accepted_per_position",
        _V1,
        _CMD + "test_vllm_counters",
    ),
    Row(
        "prometheus",
        "spec_decode_num_rejected_tokens_total",
        "counter",
        "read",
        "rejected_tokens",
        "v1/spec_decode/metrics.py, vLLM main @ ee4ceaae",
        _CMD + "test_vllm_counters",
    ),
    Row(
        "prometheus",
        "generation_tokens_total",
        "counter",
        "read",
        "generation_tokens",
        _LOG,
        _CMD + "test_vllm_counters",
    ),
    Row("prometheus", "prompt_tokens_total", "counter", "read", "prompt_tokens", _LOG, _CMD + "test_vllm_counters"),
    Row("prometheus", "num_requests_running", "gauge", "read", "running", _LOG, _GAUGES),
    Row("prometheus", "num_requests_waiting", "gauge", "read", "waiting", _LOG, _GAUGES),
    Row(
        "prometheus",
        "request_queue_time_seconds_sum",
        "queue_sum",
        "read",
        "queue time sum (s), per cell",
        _LOG,
        _GAUGES,
    ),
    Row(
        "prometheus",
        "request_queue_time_seconds_count",
        "queue_count",
        "read",
        "queue time count, per cell",
        _LOG,
        _GAUGES,
    ),
    Row(
        "prometheus",
        "spec_decode_acceptance_rate",
        "spec_gauge",
        "ignored",
        "GAUGE_NOT_WINDOW: a current mean",
        "v1/spec_decode/metrics.py, vLLM main @ ee4ceaae",
    ),
    Row(
        "prometheus",
        "spec_decode_effective_tokens_per_forward",
        "spec_gauge",
        "ignored",
        "GAUGE_NOT_WINDOW: a current mean",
        "v1/spec_decode/metrics.py, vLLM main @ ee4ceaae",
    ),
    Row(
        "prometheus",
        "spec_decode_draft_acceptance_rate",
        "spec_gauge",
        "ignored",
        "GAUGE_NOT_WINDOW: a current mean",
        _V0,
    ),
    Row("prometheus", "spec_decode_efficiency", "spec_gauge", "ignored", "GAUGE_NOT_WINDOW: a current mean", _V0),
    Row(
        "prometheus",
        "spec_decode_capability",
        "ignored",
        "ignored",
        "configuration info, not acceptance",
        "v1/spec_decode/metrics.py, vLLM main @ ee4ceaae",
    ),
    Row(
        "prometheus",
        "spec_decode_proposer_latency_seconds",
        "ignored",
        "ignored",
        "phase timing, not acceptance",
        "v1/spec_decode/metrics.py, vLLM main @ ee4ceaae",
    ),
    Row(
        "prometheus",
        "spec_decode_verification_latency_seconds",
        "ignored",
        "ignored",
        "phase timing, not acceptance",
        "v1/spec_decode/metrics.py, vLLM main @ ee4ceaae",
    ),
    Row(
        "prometheus",
        "spec_decode_num_emitted_tokens",
        "caveat",
        "ignored",
        "V0_ACCEPTED_ANY_POSITION(vllm:spec_decode_num_emitted_tokens is V0's: its accepted counter counts every draft "
        "position that matched, one after a rejected position too (the rejection sampler's accepted.sum(), "
        "vllm/model_executor/layers/spec_decode_base_sampler.py), so the rate is V0's own, at or above the "
        "accepted-prefix rate V1 and serve --parse-log give; emitted tokens give that only with k, not in /metrics)",
        _V0,
    ),
    Row(
        "prometheus",
        "lora_requests_info",
        "caveat",
        "ignored",
        "LORA_ADAPTERS(vllm:lora_requests_info is in the scrape: the server runs with LoRA adapters; "
        "PrometheusStatLogger creates this gauge only with a LoRA config, v1/metrics/loggers.py)",
        _LOG,
        "tests/cli/test_counters_engines_cli.py::test_the_lora_caveat_rests_on_the_scrape",
    ),
)

#: how the engine serves its metrics (an error's fix names it)
ENABLE_METRICS = "served by default at /metrics"
#: what the engine counts inside one series set without labelling it apart (``counters`` says so when the scrape
#: shows it: ``UNLABELLED_TRAFFIC_SIGN``, the caveat of ``vllm:lora_requests_info``)
UNLABELLED_TRAFFIC_SIGN = "LORA_ADAPTERS"
UNLABELLED_TRAFFIC = (
    "requests to LoRA adapters served on the model (PrometheusStatLogger labels by the served model name, "
    "v1/metrics/loggers.py)"
)

"""vLLM's Prometheus ``/metrics``: the speculative counters of ``v1/spec_decode/metrics.py`` (``SpecDecodingProm``),
the scheduler gauges and token counters of ``v1/metrics/loggers.py`` (``PrometheusStatLogger``), and V0's
(``vllm/engine/metrics.py``, 0.6.x). Every series is labelled ``model_name`` and ``engine``."""

from __future__ import annotations

from specscope.adapters.declare import Detail, Row

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


#: How the window reading treats this engine's series beyond its rows (docs/engines.md's window rules; each rule
#: names the tests that pin it, at least one through a command).
WINDOW_RULES: tuple[Detail, ...] = (
    Detail(
        "any",
        "no `spec_decode_*` series (SpecDecodingProm creates none without a speculative config)",
        "read as a state",
        "`not_configured`",
        ("tests/cli/test_window_cases_cli.py::test_counters_reads_each_window_case[vllm-not-configured]",),
    ),
    Detail(
        "any",
        "`*_created`",
        "read",
        "restart of one engine (compared only while the same counter families are there)",
        (
            "tests/cli/test_counters_restart_windows.py::test_one_engine_restarted_the_other_gives_its_full_window",
            "tests/cli/test_counters_restart_windows.py::test_both_engines_restarted_give_their_post_restart_windows_marked_partial",
            "tests/stats/test_counters_engines.py::test_created_moving_alone_is_a_restart",
        ),
    ),
    Detail(
        "any (shape of PR #24049's 8-engine query)",
        "an `engine` label absent from the after scrape; speculative series gone while `generation_tokens_total` rises",
        "read as a state",
        "`ENGINE_VANISHED(e)` / `SERIES_VANISHED`, not a restart",
        (
            "tests/stats/test_windows_newuser.py::test_one_engine_vanished_and_another_restarted_are_two_statements",
            "tests/stats/test_windows_newuser.py::test_spec_series_vanished_while_generation_rose_is_no_restart",
        ),
    ),
    Detail(
        "V0 0.6.x (`vllm/engine/metrics.py`)",
        "the accepted / drafted counters alone",
        "read",
        "`accepted_tokens`, `draft_tokens` (no drafts counter: no length); V0's accepted counts every matching "
        "position (`accepted.sum()`), so the rate is V0's own, named `V0_ACCEPTED_ANY_POSITION` when its emitted "
        "counter is there",
        ("tests/stats/test_windows_newuser.py::test_v0_accepted_counter_is_named_as_v0s_own_count",),
    ),
    Detail(
        "any",
        "`vllm:spec_decode_num_tree_nodes_total` and other unknown spec names",
        "ignored",
        "`UNREAD_SPEC_FIELD`",
        ("tests/cli/test_window_cases_cli.py::test_counters_reads_each_window_case[unknown-spec-series]",),
    ),
)

"""llama.cpp's Prometheus ``/metrics`` (``llama-server --metrics``; no labels): the speculative counters it shares with
vLLM's names (``server-context.cpp`` of the xllamacpp 2026.10 build), PR #25327's names (closed upstream unmerged;
they live on in a public fork's server tests), tokens and the slot gauges."""

from __future__ import annotations

from specscope.adapters.declare import Detail, Row

PREFIXES = ("llamacpp:",)
_XLC = "tools/server/server-context.cpp, xllamacpp 2026.10 (llama.cpp b9251)"
_PR = "PR #25327 (closed unmerged; a public fork's server tests)"
_SRV = "tools/server/server.cpp metrics handler, llama.cpp b9251"
_CMD = "tests/cli/test_counters_engines_cli.py::"

ROWS = (
    Row(
        "prometheus", "spec_decode_num_drafts_total", "counter", "read", "drafts", _XLC, _CMD + "test_llamacpp_counters"
    ),
    Row(
        "prometheus",
        "spec_decode_num_draft_tokens_total",
        "counter",
        "read",
        "draft_tokens",
        _XLC,
        _CMD + "test_llamacpp_counters",
    ),
    Row(
        "prometheus",
        "spec_decode_num_accepted_tokens_total",
        "counter",
        "read",
        "accepted_tokens",
        _XLC,
        _CMD + "test_llamacpp_counters",
    ),
    Row(
        "prometheus",
        "spec_decode_num_accepted_tokens_per_pos_total",
        "per_pos",
        "read",
        "accepted_per_position",
        _XLC,
        _CMD + "test_llamacpp_counters",
    ),
    Row(
        "prometheus",
        "draft_verify_steps_total",
        "counter",
        "read",
        "drafts",
        _PR,
        _CMD + "test_llamacpp_pr25327_counters",
    ),
    Row(
        "prometheus",
        "draft_tokens_total",
        "counter",
        "read",
        "draft_tokens",
        _PR,
        _CMD + "test_llamacpp_pr25327_counters",
    ),
    Row(
        "prometheus",
        "draft_tokens_accepted_total",
        "counter",
        "read",
        "accepted_tokens",
        _PR,
        _CMD + "test_llamacpp_pr25327_counters",
    ),
    Row("prometheus", "draft_acceptance_rate", "spec_gauge", "ignored", "GAUGE_NOT_WINDOW: a current mean", _PR),
    Row("prometheus", "draft_mean_accept_len", "spec_gauge", "ignored", "GAUGE_NOT_WINDOW: a current mean", _PR),
    Row(
        "prometheus",
        "tokens_predicted_total",
        "counter",
        "read",
        "generation_tokens",
        _SRV,
        _CMD + "test_llamacpp_counters",
    ),
    Row("prometheus", "prompt_tokens_total", "counter", "read", "prompt_tokens", _SRV, _CMD + "test_llamacpp_counters"),
    Row(
        "prometheus",
        "requests_processing",
        "gauge",
        "read",
        "running",
        _SRV,
        "tests/bench/test_gauges_engines_bench.py::test_llamacpp_gauges_sampled_through_bench",
    ),
    Row(
        "prometheus",
        "requests_deferred",
        "gauge",
        "read",
        "waiting",
        _SRV,
        "tests/bench/test_gauges_engines_bench.py::test_llamacpp_gauges_sampled_through_bench",
    ),
)

#: how the engine serves its metrics (an error's fix names it)
ENABLE_METRICS = "llama-server --metrics"
#: what the engine counts inside one series set without labelling it apart (``counters`` says so)
UNLABELLED_TRAFFIC = "every request of the server: its metrics carry no labels"


#: How the window reading treats this engine's series beyond its rows (docs/engines.md's window rules; each rule
#: names the tests that pin it, at least one through a command).
WINDOW_RULES: tuple[Detail, ...] = (
    Detail(
        "xllamacpp 2026.10",
        "series start after the first speculative request",
        "read",
        "counted from 0",
        ("tests/cli/test_window_cases_cli.py::test_counters_reads_each_window_case[llamacpp-zero-counters]",),
    ),
)

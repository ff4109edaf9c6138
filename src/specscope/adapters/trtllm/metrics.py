"""TensorRT-LLM's metrics: the Prometheus names of ``tensorrt_llm/metrics/collector.py`` (served at
``/prometheus/metrics`` with ``return_perf_metrics: true``; Dynamo re-exports them as ``trtllm:``), and the two JSON
endpoints of ``trtllm-serve`` (``tensorrt_llm/serve/openai_server.py``, ``get_iteration_stats`` and
``get_perf_metrics``) that drain on read:

- ``GET /metrics`` (``enable_iter_perf_stats``): a JSON list, one item per executor iteration since the previous GET.
  Read per item: ``specDecodingStats.numDraftTokens`` (drafted), ``numAcceptedTokens`` (accepted),
  ``numRequestsWithDraftTokens`` (requests that drafted in that iteration: its verify steps)
  (``cpp/include/tensorrt_llm/executor/types.h`` ``SpecDecodingStats``); ``iter`` (the iteration number: gaps are
  named), ``numActiveRequests`` / ``numQueuedRequests`` (running / waiting at that iteration; an iteration with no
  active request and no drafted token is idle and left out; ``specDecodingStats`` is null in an iteration that did
  not draft). ``acceptanceLength`` and ``draftOverhead`` are per-iteration means, derived.
  Items of ``attentionDpRank`` other than 0 are skipped: with attention data parallelism every rank's row carries
  rank 0's spec stats (a public reproduction script notes the fan-out).
- ``GET /perf_metrics`` (``return_perf_metrics``, ``perf_metrics_max_requests`` > 0): a JSON list, one item per
  finished request since the previous GET: ``{"request_id", "perf_metrics": {"first_iter", "last_iter",
  "timing_metrics", "kv_cache_metrics", "speculative_decoding"}}``; ``speculative_decoding`` (present only when the
  request drafted: ``total_draft_tokens > 0``) holds ``total_draft_tokens``, ``total_accepted_draft_tokens`` and the
  derived ``acceptance_rate``. No verify-step count: the window has a rate, no length.
"""

from __future__ import annotations

import math
from typing import Any

from specscope.adapters.declare import Row
from specscope.adapters.drained import DrainedSlice
from specscope.records import SpecCounters

__all__ = ["PREFIXES", "ROWS", "read_iteration_stats", "read_json_metrics", "read_perf_metrics"]

PREFIXES = ("trtllm_", "trtllm:")
_COL = "tensorrt_llm/metrics/collector.py (/prometheus/metrics; inventory index id 52496190885), TensorRT-LLM 1.1"
_ITER = "serve/openai_server.py get_iteration_stats + executor/types.h SpecDecodingStats, TensorRT-LLM @ 00057725"
_PERF = "serve/openai_server.py get_perf_metrics, TensorRT-LLM @ 00057725"
_CMD = "tests/cli/test_counters_engines_cli.py::"
_BENCH = "tests/integration/test_trtllm_json_bench.py::test_bench_reads_the_drained_iteration_stats_exactly"

ROWS = (
    Row(
        "prometheus",
        "spec_decode_num_draft_tokens_total",
        "counter",
        "read",
        "draft_tokens",
        _COL,
        _CMD + "test_trtllm_prometheus_counters",
    ),
    Row(
        "prometheus",
        "spec_decode_num_accepted_tokens_total",
        "counter",
        "read",
        "accepted_tokens",
        _COL,
        _CMD + "test_trtllm_prometheus_counters",
    ),
    Row(
        "prometheus",
        "num_requests_running",
        "gauge",
        "read",
        "running",
        _COL,
        "tests/bench/test_gauges_engines_bench.py::test_trtllm_gauges_sampled_through_bench",
    ),
    Row(
        "prometheus",
        "num_requests_waiting",
        "gauge",
        "read",
        "waiting",
        _COL,
        "tests/bench/test_gauges_engines_bench.py::test_trtllm_gauges_sampled_through_bench",
    ),
    Row(
        "prometheus", "spec_decode_acceptance_length", "spec_gauge", "ignored", "GAUGE_NOT_WINDOW: a current mean", _COL
    ),
    Row("prometheus", "spec_decode_draft_overhead", "spec_gauge", "ignored", "GAUGE_NOT_WINDOW: a current mean", _COL),
    Row("prometheus", "speculative_config_info", "ignored", "ignored", "configuration info, not acceptance", _COL),
    Row(
        "iteration-json",
        "specDecodingStats.numDraftTokens",
        "json",
        "read",
        "draft_tokens",
        _ITER,
        _CMD + "test_trtllm_json_counters",
    ),
    Row(
        "iteration-json",
        "specDecodingStats.numAcceptedTokens",
        "json",
        "read",
        "accepted_tokens",
        _ITER,
        _CMD + "test_trtllm_json_counters",
    ),
    Row(
        "iteration-json",
        "specDecodingStats.numRequestsWithDraftTokens",
        "json",
        "read",
        "drafts (verify steps)",
        _ITER,
        _CMD + "test_trtllm_json_counters",
    ),
    Row(
        "iteration-json",
        "iter",
        "json",
        "read",
        "iteration number: ITERATIONS_LOST for a gap",
        _ITER,
        _CMD + "test_trtllm_json_lost_iterations_are_named",
    ),
    Row("iteration-json", "numActiveRequests", "json", "read", "running; 0: idle iteration, left out", _ITER, _BENCH),
    Row("iteration-json", "numQueuedRequests", "json", "read", "waiting", _ITER, _BENCH),
    Row(
        "iteration-json",
        "attentionDpRank",
        "json",
        "read",
        "rows of rank != 0 repeat rank 0's: ADP_DUPLICATE",
        _ITER,
        _CMD + "test_trtllm_json_counters",
    ),
    Row("iteration-json", "specDecodingStats.acceptanceLength", "json", "derived", "a per-iteration mean", _ITER),
    Row("iteration-json", "specDecodingStats.draftOverhead", "json", "ignored", "a per-iteration time share", _ITER),
    Row("iteration-json", "iterLatencyMS", "json", "ignored", "iteration time, not speculation", _ITER),
    Row(
        "perf-json",
        "perf_metrics.speculative_decoding.total_draft_tokens",
        "json",
        "read",
        "draft_tokens",
        _PERF,
        _CMD + "test_trtllm_perf_metrics_counters",
    ),
    Row(
        "perf-json",
        "perf_metrics.speculative_decoding.total_accepted_draft_tokens",
        "json",
        "read",
        "accepted_tokens",
        _PERF,
        _CMD + "test_trtllm_perf_metrics_counters",
    ),
    Row(
        "perf-json",
        "perf_metrics.speculative_decoding.acceptance_rate",
        "json",
        "derived",
        "accepted / drafted of one request",
        _PERF,
    ),
    Row(
        "perf-json",
        "perf_metrics.timing_metrics, kv_cache_metrics, first_iter, last_iter",
        "json",
        "ignored",
        "not speculation",
        _PERF,
    ),
)

_SPEC = (
    ("numRequestsWithDraftTokens", "drafts"),
    ("numDraftTokens", "draft_tokens"),
    ("numAcceptedTokens", "accepted_tokens"),
)


def _count(value: Any) -> float | None:
    """A JSON count (a finite non-negative number that is not a bool) as a float, else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        try:
            out = float(value)
        except OverflowError:  # an integer beyond float range
            return None
        return out if math.isfinite(out) else None
    return None


def _gauge(item: dict[str, Any], key: str) -> float | None:
    return _count(item.get(key))


def read_iteration_stats(items: Any) -> DrainedSlice:
    """One drained slice of ``GET /metrics`` iteration stats (module doc): drafted, accepted and verify steps summed
    over the non-idle rank-0 items; None where no item carried them. Reasons: ``WRONG_TYPE`` (a malformed item),
    ``ADP_DUPLICATE`` (skipped rows)."""
    reasons: list[str] = []
    sums = {"drafts": 0.0, "draft_tokens": 0.0, "accepted_tokens": 0.0}
    seen, idle, numbers = False, 0, []
    running = waiting = None
    body = items if isinstance(items, list) else []
    if not isinstance(items, list):
        reasons.append(f"WRONG_TYPE(iteration stats: {type(items).__name__}, expected a list)")
    for i, item in enumerate(body):
        if not isinstance(item, dict):
            reasons.append(f"WRONG_TYPE(item {i}: {type(item).__name__})")
            continue
        if item.get("attentionDpRank", 0) != 0:
            reasons.append(f"ADP_DUPLICATE(item {i}: attentionDpRank {item.get('attentionDpRank')})")
            continue
        if isinstance(item.get("iter"), int) and not isinstance(item.get("iter"), bool):
            numbers.append(item["iter"])
        running, waiting = _gauge(item, "numActiveRequests"), _gauge(item, "numQueuedRequests")
        spec = item.get("specDecodingStats")  # null (or absent) in an iteration that did not draft
        if running == 0 and not (isinstance(spec, dict) and _count(spec.get("numDraftTokens"))):
            idle += 1  # nothing active and nothing drafted (an iteration whose requests all ended still counts)
            continue
        if spec is None:
            continue
        values = {k: _count(spec.get(src)) if isinstance(spec, dict) else None for src, k in _SPEC}
        if any(v is None for v in values.values()):
            reasons.append(f"WRONG_TYPE(item {i}: specDecodingStats)")
            continue
        seen = True
        for k, v in values.items():
            sums[k] += v or 0.0
    counts = SpecCounters(engine_kind="trtllm")
    if seen:
        counts = SpecCounters(
            drafts=sums["drafts"],
            draft_tokens=sums["draft_tokens"],
            accepted_tokens=sums["accepted_tokens"],
            present=frozenset({"spec"}),
            engine_kind="trtllm",
        )
    return DrainedSlice("iteration stats", counts, len(body), tuple(numbers), idle, tuple(reasons), running, waiting)


def read_perf_metrics(items: Any) -> DrainedSlice:
    """One drained slice of ``GET /perf_metrics`` (module doc): drafted and accepted tokens summed over the requests
    that carry ``speculative_decoding``; the others are named (``REQUESTS_WITHOUT_SPEC(n)``), never counted as 0."""
    reasons: list[str] = []
    drafted = accepted = 0.0
    seen, without = False, 0
    body = items if isinstance(items, list) else []
    for i, item in enumerate(body):
        perf = item.get("perf_metrics") if isinstance(item, dict) else None
        if not isinstance(perf, dict):
            reasons.append(f"WRONG_TYPE(item {i}: no perf_metrics object)")
            continue
        spec = perf.get("speculative_decoding")
        if spec is None:
            without += 1
            continue
        d = _count(spec.get("total_draft_tokens")) if isinstance(spec, dict) else None
        a = _count(spec.get("total_accepted_draft_tokens")) if isinstance(spec, dict) else None
        if d is None or a is None:
            reasons.append(f"WRONG_TYPE(item {i}: perf_metrics.speculative_decoding)")
            continue
        seen = True
        drafted, accepted = drafted + d, accepted + a
    if without:
        reasons.append(f"REQUESTS_WITHOUT_SPEC({without} of {len(body)} requests carry no speculative_decoding)")
    counts = SpecCounters(engine_kind="trtllm")
    if seen:
        counts = SpecCounters(
            draft_tokens=drafted, accepted_tokens=accepted, present=frozenset({"spec"}), engine_kind="trtllm"
        )
    return DrainedSlice("per-request perf metrics", counts, len(body), reasons=tuple(reasons))


def read_json_metrics(body: Any) -> DrainedSlice | None:
    """The slice of a JSON metrics body of trtllm-serve, or None when the body is not one of its shapes (a list of
    objects with ``perf_metrics``, or with an iteration's ``iter`` / ``numActiveRequests`` / ``specDecodingStats``).
    An empty list is an empty iteration-stats slice (the server ran nothing since the previous GET)."""
    if not isinstance(body, list):
        return None
    first = next((x for x in body if isinstance(x, dict)), None)
    if not body:
        return read_iteration_stats(body)
    if first is None:
        return None
    if "perf_metrics" in first:
        return read_perf_metrics(body)
    if {"iter", "numActiveRequests", "specDecodingStats", "iterLatencyMS"} & set(first):
        return read_iteration_stats(body)
    return None


#: how the engine serves its metrics (an error's fix names it)
ENABLE_METRICS = "enable_iter_perf_stats (JSON /metrics), return_perf_metrics (/perf_metrics, /prometheus/metrics)"
#: the JSON bodies :func:`read_json_metrics` reads, for an error's "expected"
JSON_SHAPES = "trtllm-serve's JSON /metrics (a list of iteration stats) or /perf_metrics (a list of requests)"
#: what the engine counts inside one series set without labelling it apart (``counters`` says so): the collector's
#: Prometheus series carry one model_name label per server
UNLABELLED_TRAFFIC = "every request of the server: one model_name label per server"
#: the same for a pair of drained JSON bodies (:func:`read_json_metrics`), whose items carry no labels at all
DRAINED_UNLABELLED_TRAFFIC = "every request of the server: trtllm-serve's JSON bodies carry no labels"

"""SGLang ``python -m sglang.bench_serving --output-file FILE.jsonl``: one JSON object per line, one per run.

Source: SGLang ``python/sglang/bench_serving.py`` (commit 0033168f0f58b2bc05aa0273bd475d9c01bafb1c), ``benchmark()``:
the line holds ``backend``, ``dataset_name``, ``request_rate`` (``inf`` is written as JSON ``Infinity``),
``max_concurrency``, ``duration`` (s), ``completed``, ``total_input_tokens``, ``total_output_tokens``,
``total_output_tokens_retokenized``, ``output_throughput`` (tok/s), ``mean_/median_/std_/p99_{e2e_latency,ttft,tpot,
itl}_ms``, ``concurrency`` (the mean in flight it measured: ``calculate_metrics``' sum of the successful requests'
e2e latencies over the benchmark duration, stored as the tool's own figure, :data:`CONCURRENCY_SOURCE`) and
``accept_length`` (the server's ``avg_spec_accept_length`` from ``/get_server_info`` for an sglang backend, else
null: an average since the server's last cache flush or start, :data:`WINDOW_UNKNOWN`). With ``--output-details``
the per-request arrays follow: ``input_lens``, ``output_lens``, ``ttfts`` (s), ``itls`` (s), ``generated_texts``,
``errors``. The file records no failed count (``completed`` counts the successes) and no per-request latency (it is
``ttft + sum(itls)``, SGLang's own e2e figure per request).

Load: a finite ``request_rate`` is an open loop with Poisson arrivals, capped at ``max_concurrency`` when set;
``inf`` with ``max_concurrency`` N is a closed loop of N; ``inf`` without one sends everything at once (N = the
line's ``num_prompts`` where it has one, else the number of requests, ``completed`` plus the errors it lists:
``completed`` counts the successes only). Later versions write ``request_rate`` ``"trace"`` for a
replay at the trace's own timestamps (``--use-trace-timestamps``): no single level, refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from specscope.errors import ConfigError
from specscope.importers.record import (
    Imported,
    Load,
    count,
    latencies_from_itls,
    level,
    not_understood,
    num,
    rate,
    seconds,
    seconds_list,
    spelled,
    tokens_list,
    tool_percentiles,
    uneven_arrays,
    uneven_arrays_left_out,
    warning_notes,
)

#: ``accept_length`` is the scheduler's ``cum_spec_accept_length / cum_spec_accept_count``, which only a cache flush
#: (``flush_cache``) or a restart resets (python/sglang/srt/managers/scheduler.py at the same commit); bench_serving
#: flushes only with ``--flush-cache`` and the line does not say whether it did
WINDOW_UNKNOWN = (
    "the window accept_length covers (SGLang's server average since its last cache flush or start: the warm-up and "
    "earlier runs are in it unless bench_serving ran with --flush-cache)"
)

#: what the line's ``concurrency`` is (``calculate_metrics`` at the commit above): the tool's own figure, stored as
#: written; the line holds no start instants, so it cannot be derived here (:mod:`specscope.stats.imported`)
#: a key the line does not hold (told apart from one written null)
_ABSENT = object()

CONCURRENCY_SOURCE = (
    "concurrency = sum of the successful requests' e2e latencies / the benchmark duration (from the first send to "
    "after the last response and the server-info query)"
)

__all__ = ["KNOWN_FAMILY", "KNOWN_KEYS", "SHAPE", "TOOL", "parse", "recognise"]

SHAPE = "sglang-bench-serving"
TOOL = "sglang bench_serving"
_KEYS = ("duration", "completed", "total_output_tokens", "total_output_tokens_retokenized", "output_throughput")
#: the totals a record must hold (named when a near miss lacks one)
REQUIRED_KEYS = _KEYS


#: every other key the versions write, read or left out: the run's setup (``tag``, the dataset's lengths,
#: ``server_info``: the server's arguments), the rates and peaks SGLang derives (throughput is derived here from the
#: totals), the retokenized total, the vision / text input split, the mean in flight it measured (``concurrency``),
#: the texts; ``timestampe`` and ``num_prompts`` (2024's multi-rate lines)
_KNOWN = frozenset(
    {
        *_KEYS,
        *("backend", "dataset_name", "request_rate", "max_concurrency", "sharegpt_output_len", "fixed_output_len"),
        *("random_input_len", "random_output_len", "random_range_ratio", "tag", "server_info", "timestampe"),
        *("num_prompts", "total_input_tokens", "total_input_text_tokens", "total_input_vision_tokens"),
        *("request_throughput", "input_throughput", "total_throughput", "concurrency", "accept_length"),
        *("max_output_tokens_per_s", "max_concurrent_requests", "input_lens", "output_lens", "ttfts", "itls"),
        *("generated_texts", "errors"),
    }
)
#: ``mean_/median_/std_/pNN_/max_{e2e_latency,ttft,tpot,itl}_ms``
_AGGREGATE = re.compile(r"(mean|median|std|max|p\d+(\.\d+)?)_(e2e_latency|ttft|tpot|itl)_ms")
#: the census (docs/imports.md): the keys known, and the family the pattern accepts
KNOWN_KEYS = _KNOWN
KNOWN_FAMILY = "mean_/median_/std_/max_/pNN_{e2e_latency,ttft,tpot,itl}_ms (ms)"


def recognise(doc: Any) -> bool:
    """True for one line of ``--output-file`` (its retokenized total is SGLang's own)."""
    return isinstance(doc, Mapping) and all(k in doc for k in _KEYS) and "request_rate" in doc


def _load(doc: Mapping[str, Any], n_requests: int) -> Load:
    """The load (module docstring).

    Raises:
        BadFigure: a request rate or cap that is not one (NaN, 0, 2.5 streams...).
        ConfigError: a trace replay (``request_rate`` ``"trace"``: the trace's own timestamps, no one level).
    """
    if doc.get("request_rate") == "trace":
        raise ConfigError(
            "a trace replay has no single level",
            found='request_rate = "trace" (bench_serving --use-trace-timestamps: each request sent at its trace time)',
            expected="a run at one load: a request rate, or max_concurrency with request_rate inf",
            fix="import runs made at one rate or concurrency (bench_serving --request-rate R or --max-concurrency N)",
        )
    per_s, cap = rate(doc.get("request_rate"), "request_rate"), level(doc.get("max_concurrency"), "max_concurrency")
    if per_s is not None:
        return Load(concurrency=cap, rate_per_s=per_s, arrival="poisson")
    if cap is not None:
        return Load(concurrency=cap)
    # every request sent at once: the prompts the line says it sent (2024's lines write num_prompts), else those it
    # counts (completed plus the errors it lists)
    return Load(concurrency=level(doc.get("num_prompts"), "num_prompts") or max(n_requests, 1))


def parse(doc: Mapping[str, Any]) -> Imported:
    """The record's facts (:mod:`specscope.stats.imported`), load and workload (its ``dataset_name``).

    Raises:
        BadFigure: a total or load that is not what its field means (NaN, a string, a fraction of a request...).
    """
    errors = doc.get("errors")
    failed = sum(1 for e in errors if e) if isinstance(errors, list) else None
    facts: dict[str, Any] = {
        "tool": TOOL,
        "shape": SHAPE,
        "duration_s": seconds(doc.get("duration"), "duration"),
        "completed": count(doc.get("completed"), "completed"),
        "failed": failed,
        "output_tokens": count(doc.get("total_output_tokens"), "total_output_tokens", "tokens"),
        "input_tokens": count(doc.get("total_input_tokens"), "total_input_tokens", "tokens"),
        "not_recorded": [],
    }
    notes: list[str] = []
    uneven = uneven_arrays(doc, ("ttfts", "itls", "output_lens", "input_lens", "errors"))
    if uneven is not None and isinstance(doc.get("ttfts"), list) and isinstance(doc.get("itls"), list):
        notes.append(uneven_arrays_left_out(uneven, facts, doc))
    elif isinstance(doc.get("ttfts"), list) and isinstance(doc.get("itls"), list):
        facts["ttfts_s"] = seconds_list(doc, "ttfts")
        facts["output_lens_tokens"] = tokens_list(doc, "output_lens")
        facts["input_lens_tokens"] = tokens_list(doc, "input_lens")
        facts["latencies_s"] = latencies_from_itls(doc["ttfts"], doc["itls"], facts["not_recorded"])
        facts["errors"] = [bool(e) for e in errors] if isinstance(errors, list) else None
    else:
        bad = [k for k in ("ttfts", "itls") if k in doc and not isinstance(doc[k], list)]
        why = f"{bad[0]} is {spelled(doc[bad[0]])}, not a list" if bad else "run without --output-details"
        facts["not_recorded"] += ["failed requests", f"per-request arrays ({why})"]
        tool_percentiles(doc, facts)
    length = num(doc, "accept_length")
    if length is not None:
        facts["acceptance_length"] = length
        facts["not_recorded"].append("acceptance rate and per-position acceptance (SGLang writes the length only)")
        facts["not_recorded"].append(WINDOW_UNKNOWN)
    else:
        raw = doc.get("accept_length", _ABSENT)
        why = (
            "no accept_length field"
            if raw is _ABSENT
            else "accept_length null"
            if raw is None
            else f"accept_length {spelled(raw)}, not a number"
        )
        facts["not_recorded"].append(f"speculative acceptance ({why})")
    mean_in_flight = num(doc, "concurrency")
    if mean_in_flight is not None and mean_in_flight > 0:
        facts["tool_concurrency"] = mean_in_flight
        facts["tool_concurrency_source"] = CONCURRENCY_SOURCE
    n = (facts["completed"] or 0) + (failed or 0)
    dataset = doc.get("dataset_name")
    unread = not_understood(doc, _KNOWN, lambda k: _AGGREGATE.fullmatch(k) is not None)
    notes += warning_notes(unread)
    return Imported(TOOL, SHAPE, _load(doc, n), facts, str(dataset) if dataset else None, None, tuple(notes))

"""genai-bench's experiment folder (``genai-bench benchmark``): ``experiment_metadata.json`` beside one result file
per traffic scenario and level.

Source: sgl-project/genai-bench @025cf1c6. ``genai_bench/cli/cli.py`` writes the folder: ``experiment_metadata.json``
(``ExperimentMetadata`` of ``genai_bench/protocol.py``: ``cmd``, the command line rebuilt from the options, each set
option as ``--name value``; ``benchmark_version``, ``model``, ``task``, ``iteration_type``, ``metrics_time_unit``...),
then per scenario and level ``{scenario}_{task}_{iteration_type}_{level}_time_{max_time_per_run}s.json`` (the name
``genai_bench/analysis/experiment_loader.py`` matches: :data:`RUN_FILE`), which
``AggregatedMetricsCollector.save`` (``genai_bench/metrics/aggregated_metrics_collector.py``) writes as
``{"aggregated_metrics": AggregatedMetrics, "individual_request_metrics": [...], "_time_unit": "s" | "ms"}``.

Read from a run file's ``aggregated_metrics``: ``run_duration`` (s: the run's monotonic end - start, never converted),
``num_completed_requests``, ``num_error_requests``, ``stats.num_output_tokens.sum`` (tokens), and the ``p50`` /
``p95`` of ``stats.ttft`` and ``stats.tpot`` (``tpot``: output latency / (output tokens - 1), specscope's TPOT) in the
file's ``_time_unit`` (the only fields ``TimeUnitConverter`` converts: ``ttft``, ``tpot``, ``e2e_latency``,
``output_latency``; a file written before the option existed, 3e5b65e, has no ``_time_unit``: seconds, as is the
metadata's ``metrics_time_unit`` default).

The level is ``num_concurrency``, whose meaning the run file does not hold: the async engine's open loop
(``--execution-engine async`` with ``--qps-level``) stores its QPS there ("for compatibility") under the same file
name and ``iteration_type``, and both engines' runs set ``arrival_requests_per_second``. The experiment's ``cmd``
tells them: with ``--qps-level`` under the async engine the level is a rate of ``--distribution`` arrivals
(``exponential``: Poisson, ``constant``, ``uniform`` on [0, 2/rate]: ``async_runner/open_loop.py``), else
``num_concurrency`` streams (the locust engine's users, or the async closed loop). So a lone run file is refused,
naming the folder to pass (:mod:`specscope.importers.peers`); a ``batch_size`` experiment (embeddings) has no level.
The locust engine starts the N users at ``--spawn-rate`` per s (unset: N per s): a slower start is a ramp, imported at
its level with a warning naming it (:func:`_ramp`).
The metadata's other fields and ``aggregated_metrics``' throughputs, rates and error figures are the tool's own
derivations or descriptions, left out; a key beside them and the ``stats`` fields of ``MetricStats`` is named in a
warning.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from specscope.errors import ConfigError
from specscope.importers.record import (
    Imported,
    Load,
    count,
    level,
    not_understood,
    num,
    rate,
    seconds,
    spelled,
    warning_notes,
)

__all__ = ["KNOWN_FAMILY", "KNOWN_KEYS", "METADATA", "RUN_FILE", "SHAPE", "SOURCE", "TOOL", "parse_run"]

SHAPE = "genai-bench-experiment"
TOOL = "genai-bench benchmark"
SOURCE = "genai_bench/cli/cli.py, genai_bench/metrics/aggregated_metrics_collector.py (a folder, not a file)"
#: a run file's keys and its ``aggregated_metrics``' (``AggregatedMetrics`` of genai_bench/metrics/metrics.py)
KNOWN_KEYS = frozenset(
    {
        *("aggregated_metrics", "individual_request_metrics", "_time_unit", "scenario", "num_concurrency"),
        *("batch_size", "iteration_type", "run_duration", "mean_output_throughput_tokens_per_s"),
        *("mean_input_throughput_tokens_per_s", "mean_total_tokens_throughput_tokens_per_s", "error_rate"),
        *("mean_total_chars_per_hour", "requests_per_second", "error_codes_frequency", "num_error_requests"),
        *("num_completed_requests", "num_requests", "total_arrivals", "arrival_requests_per_second", "stats"),
    }
)
#: ``stats``' fields (``MetricStats``), each a ``StatField`` of min, max, mean, stddev, sum and percentiles
_STATS = frozenset(
    {
        *("ttft", "tpot", "e2e_latency", "output_latency", "output_inference_speed", "num_input_tokens"),
        *("num_output_tokens", "total_tokens", "input_throughput", "output_throughput"),
    }
)
KNOWN_FAMILY = "stats.<field> of MetricStats: " + ", ".join(sorted(_STATS))
#: the experiment's metadata file, in the folder
METADATA = "experiment_metadata.json"
#: a run file's name (``load_one_experiment`` of genai_bench/analysis/experiment_loader.py @025cf1c6)
RUN_FILE = re.compile(r"^.+_.+_(?:concurrency|batch_size)_[\d.]+_time_\d+s\.json$")
#: seconds per unit of ``_time_unit`` / ``metrics_time_unit`` (genai_bench/time_units.py: "s" or "ms")
_UNIT_S = {"s": 1.0, "ms": 1e-3}
#: ``--distribution``'s arrivals in specscope's words (async_runner/open_loop.py)
_ARRIVAL = {"exponential": "poisson", "constant": "constant", "uniform": "uniform"}


def _option(cmd: str, name: str) -> str | None:
    """The value of ``--name`` in the metadata's ``cmd`` (the first; ``--name V`` or ``--name=V``, the line split as a
    shell splits it, :func:`shlex.split`), None when the option is not there."""
    try:
        words = shlex.split(cmd)
    except ValueError:  # an unbalanced quote: the words as written
        words = cmd.split()
    for i, w in enumerate(words):
        if w == name and i + 1 < len(words):
            return words[i + 1]
        if w.startswith(name + "="):
            return w[len(name) + 1 :]
    return None


def _load(meta: Mapping[str, Any], agg: Mapping[str, Any]) -> Load:
    """The run's load (module doc).

    Raises:
        ConfigError: no ``cmd`` in the metadata, or a ``batch_size`` experiment.
        BadFigure: a level that is not one.
    """
    cmd = meta.get("cmd")
    if not isinstance(cmd, str) or not cmd:
        raise ConfigError(
            "the experiment's metadata does not say what its level is",
            found=f"{METADATA} cmd = {spelled(cmd)}",
            expected="the command line genai-bench benchmark wrote (--execution-engine, --qps-level...)",
            fix="pass the experiment folder genai-bench wrote, unchanged",
        )
    if agg.get("iteration_type") == "batch_size" or meta.get("iteration_type") == "batch_size":
        raise ConfigError(
            "a batch-size experiment has no serving level",
            found=f"iteration_type batch_size (task {spelled(meta.get('task'))}: one batch of N inputs per request)",
            expected="an experiment of num_concurrency levels or --qps-level rates",
            fix="import a text-generation experiment (genai-bench benchmark --num-concurrency N or --qps-level R)",
        )
    if _option(cmd, "--execution-engine") == "async" and _option(cmd, "--qps-level") is not None:
        dist = (_option(cmd, "--distribution") or "exponential").lower()
        per_s = rate(agg.get("num_concurrency"), "aggregated_metrics.num_concurrency (the QPS of an open loop)")
        return Load(rate_per_s=per_s, arrival=_ARRIVAL.get(dist, dist))
    n = level(agg.get("num_concurrency"), "aggregated_metrics.num_concurrency")
    return Load(concurrency=n if n is not None else 1)


def _ramp(meta: Mapping[str, Any], load: Load) -> tuple[str, ...]:
    """A warning when the locust engine's ``--spawn-rate`` (users per s; unset: all N at once) brought a closed loop
    of N to its level over more than a second (cli.py @025cf1c6 ``environment.runner.start``)."""
    cmd = meta.get("cmd")
    spawn = _option(cmd, "--spawn-rate") if isinstance(cmd, str) else None
    try:
        per_s = float(spawn) if spawn is not None else None
    except ValueError:
        per_s = None
    n = load.concurrency
    if per_s is None or per_s <= 0 or n is None or load.rate_per_s is not None or n / per_s <= 1:
        return ()
    return (
        f"the load ramped to its level over the first {n / per_s:g} s of the run (the experiment's cmd --spawn-rate "
        f"{spawn}: locust starts the {n} users at {per_s:g} per s): the level was not held for the whole window",
    )


def _stat(agg: Mapping[str, Any], field: str, stat: str, scale: float | None) -> float | None:
    stats = agg.get("stats")
    block = stats.get(field) if isinstance(stats, Mapping) else None
    v = num(block, stat) if isinstance(block, Mapping) else None
    return None if v is None or scale is None else v * scale


def parse_run(doc: Mapping[str, Any], meta: Mapping[str, Any]) -> Imported:
    """One run file's record, with the experiment's metadata ``meta`` (module doc).

    Raises:
        ConfigError: no level to name (:func:`_load`), or a time unit that is neither ``s`` nor ``ms``.
        BadFigure: a figure that is not what its field means.
    """
    agg: Mapping[str, Any] = doc["aggregated_metrics"]
    unit = doc.get("_time_unit", meta.get("metrics_time_unit", "s"))
    scale = _UNIT_S.get(str(unit))
    if scale is None:
        raise ConfigError(
            "a genai-bench time unit specscope does not know",
            found=f"_time_unit = {spelled(unit)}",
            expected="s or ms (genai_bench/time_units.py)",
            fix="pass the experiment folder genai-bench wrote, unchanged",
        )
    stats = agg.get("stats")
    out_tok = stats.get("num_output_tokens") if isinstance(stats, Mapping) else None
    facts: dict[str, Any] = {
        "tool": TOOL,
        "shape": SHAPE,
        "tool_version": meta.get("benchmark_version"),
        "duration_s": seconds(agg.get("run_duration"), "aggregated_metrics.run_duration"),
        "completed": count(agg.get("num_completed_requests"), "aggregated_metrics.num_completed_requests"),
        "failed": count(agg.get("num_error_requests"), "aggregated_metrics.num_error_requests"),
        "output_tokens": count(out_tok.get("sum"), "stats.num_output_tokens.sum", "tokens")
        if isinstance(out_tok, Mapping)
        else None,
        "ttft_p50_s": _stat(agg, "ttft", "p50", scale),
        "ttft_p95_s": _stat(agg, "ttft", "p95", scale),
        "tpot_p50_s": _stat(agg, "tpot", "p50", scale),
        "tpot_p95_s": _stat(agg, "tpot", "p95", scale),
        "not_recorded": [
            "per-request arrays (individual_request_metrics, not read)",
            "speculative acceptance (genai-bench records none)",
        ],
    }
    unread = not_understood(doc, KNOWN_KEYS) + not_understood(agg, KNOWN_KEYS, at="aggregated_metrics.")
    unread += not_understood(stats, _STATS, at="aggregated_metrics.stats.") if isinstance(stats, Mapping) else []
    scenario = agg.get("scenario")
    workload = re.sub(r"[/\\,=\s]", "_", str(scenario)) if scenario else None
    model = meta.get("api_model_name") or meta.get("model")
    load = _load(meta, agg)
    notes = _ramp(meta, load) + warning_notes(unread)
    return Imported(TOOL, SHAPE, load, facts, workload, str(model) if model else None, notes=notes)

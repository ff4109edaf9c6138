"""GuideLLM ``guidellm benchmark run --output-path FILE.json`` (the report: one object, one entry per benchmark).

Source: vllm-project/guidellm 0.8.1 (the wheel's ``guidellm/benchmark/schemas/report.py``, ``benchmark.py``,
``metrics.py``, ``base.py`` and ``guidellm/schemas/base/statistics.py``): ``GenerativeBenchmarksReport`` holds
``metadata`` (``version`` 2, ``guidellm_version``), ``config`` (the scenario) and ``benchmarks``, each a
``GenerativeBenchmark`` (``type_`` ``"generative_benchmark"``) with ``config.strategy`` (``type_`` ``synchronous``,
``concurrent`` with ``streams``, ``throughput``, ``constant`` / ``poisson`` with ``rate`` and optional
``max_concurrency``, ``trace``), ``duration`` (s, its measured window), and ``metrics`` whose figures are
``StatusDistributionSummary`` objects (``successful`` / ``errored`` / ``incomplete`` / ``total``, each a
``DistributionSummary``: ``mean``, ``median``, ``count``, ``total_sum``, ``percentiles.p95``...):
``request_totals`` (counts by status), ``output_token_count`` (tokens per request: the successful ``total_sum`` is
the total), ``time_to_first_token_ms`` and ``inter_token_latency_ms`` (per request (last - first token) / (output
tokens - 1): specscope's TPOT; the distribution is weighted by each request's tokens - 1, so its median is a token's,
not a request's). Its ``time_per_output_token_ms`` is not TPOT and is not read: (last token - request start) /
output tokens, the first token's wait included (``guidellm/schemas/request_stats.py``; GuideLLM 0.2-0.3's was
(last - first token) / output tokens), 5.88 ms against an inter-token latency of 4.77 ms in
tests/data/imports/guidellm_spec_r0.json. Its per-request list ``requests`` is a sample
(``sample_size``), so no per-request arrays are taken from it, but for the achieved concurrency: each kept request's
``info.timings.request_start`` and ``request_end`` (s) when the list holds every successful request the metrics
count (``request_totals.successful``); a sample leaves it absent, named.

GuideLLM's earlier report schema (``src/guidellm/benchmark/benchmark.py`` and ``output.py`` @ 47ce2924, the
``GenerativeBenchmarksReport`` of ``benchmarks`` only) has the same ``type_`` and ``metrics`` but keeps the strategy
in ``args.strategy``, the counts by status in ``request_totals`` beside ``metrics`` and the model in
``worker.backend_model``, and has no ``metadata``; ``duration`` is its computed end - start of the requests. Each
benchmark is read from whichever place holds it.

GuideLLM 0.4-0.6 write the 0.8.1 benchmark schema in a report of ``args`` (the command line: the model in
``args.model``; ``src/guidellm/benchmark/schemas/generative/report.py`` @ v0.4.0) and ``benchmarks``; 0.7+ keep
``metadata`` and the scenario ``config`` (the model in ``config.spec.backend.model``).

Load: ``synchronous`` is a closed loop of 1, ``concurrent`` of ``streams``, ``throughput`` of ``max_concurrency``;
``constant`` and ``poisson`` are open loops at ``rate`` req/s. A ``throughput`` benchmark without a
``max_concurrency`` and a ``trace`` replay have no level specscope can name: beside benchmarks that have one they are
left out, each named (:attr:`~specscope.importers.record.Imported.left_out`); a report of none that has one is
refused. ``--profile throughput`` without ``--rate`` (0.7+: the scenario's ``config.spec.profile`` of ``kind``
throughput and ``max_concurrency`` null) writes a ``max_concurrency`` all the same: the worker group's own limit
(``guidellm/scheduler/worker_group.py``: ``min(strategy, backend requests_limit) or settings.max_concurrency``, 512 by
default, 10240 with ``GUIDELLM__MAX_CONCURRENCY=10240``) that ``init_processes_timings`` stores in the strategy. That
is no level the client was set to: such a benchmark sends every request at once and is read as vLLM's ``--request-rate
inf`` without ``--max-concurrency`` is (:mod:`specscope.importers.vllm_serve`: a closed loop of its requests), N = the
requests sent (successful + errored + incomplete, at most the worker limit), with a warning naming the limit not
taken. 0.4-0.6 reports have no scenario: each benchmark's ``config.profile`` is the ``Profile`` itself (``type_``
``throughput`` or ``sweep``, ``max_concurrency`` as the user set it, null without ``--rate``; ``profiles.py`` @
v0.4.0-v0.6.1), read the same way (tests/data/imports/guidellm_0.5.3_*.json). 0.2-0.3 keep the ``Profile`` in
``args.profile`` and write the strategy's ``max_concurrency`` null: their ``ThroughputStrategy`` limits the requests
in flight to ``max_concurrency or settings.max_concurrency`` (``scheduler/strategy.py``, ``config.py`` @ v0.2.0 and
v0.3.0: 512), the same rule, so N = the requests sent while they are at most that default (the note names the limit
the report does not hold); past it the limit binds at a value not written, and the benchmark has no level.

GuideLLM's default profile ``sweep`` (``guidellm/benchmark/profiles/sweep.py`` of 0.8.1, and ``profile.py`` of the
earlier schema) runs a ``synchronous`` benchmark, then a ``throughput`` one, then ``constant`` or ``poisson``
benchmarks at rates spread between the two measured request rates (``np.linspace``, the first left out): closed and
open loops in one report. The throughput benchmark's ``max_concurrency`` is the sweep's (512 by default since 0.7);
the earlier schema (0.2-0.3) writes none, and 0.4-0.6 the client's own in-flight limit the worker group set
(``settings.max_concurrency``, 512) while the sweep profile's ``max_concurrency`` is null: both read uncapped, as
above.
Which loop kind is imported is :func:`specscope.importers.write.import_files`'s choice. The rates are derived from
the report's own measurements, so another sweep (another config, or a repeat) shares none of them: levels pair only
at equal rates, and a note on the report's first request-rate benchmark says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
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

__all__ = ["KNOWN_FAMILY", "KNOWN_KEYS", "SHAPE", "TOOL", "parse_all", "recognise"]

SHAPE = "guidellm-benchmarks-report"
TOOL = "guidellm benchmark"


#: the report's keys (module doc): ``args`` is 0.4-0.6's command line, ``config`` 0.7+'s scenario, ``conclusions``
#: GuideLLM's own reading of the run
_KNOWN_REPORT = frozenset({"benchmarks", "metadata", "config", "args", "conclusions"})
#: a benchmark's keys in either schema: the load and figures read, and the run's ids, timings, scheduler and worker
#: states, samples and warnings left out (the figures they hold are derived from the metrics read)
_KNOWN_BENCHMARK = frozenset(
    {
        *("type_", "id_", "run_id", "args", "config", "run_stats", "worker", "request_loader", "extras"),
        *("scheduler_state", "scheduler_metrics", "metrics", "request_totals", "request_samples", "requests"),
        *("start_time", "end_time", "duration", "warmup_duration", "cooldown_duration", "warnings"),
    }
)


#: the census (docs/imports.md): the report's keys and each benchmark's (``benchmarks[].KEY``)
KNOWN_KEYS = _KNOWN_REPORT | {f"benchmarks[].{k}" for k in _KNOWN_BENCHMARK}
KNOWN_FAMILY = None


def recognise(doc: Any) -> bool:
    """True for a GuideLLM report (``benchmarks`` of ``generative_benchmark`` entries)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("benchmarks"), list) or not doc["benchmarks"]:
        return False
    return all(isinstance(b, Mapping) and b.get("type_") == "generative_benchmark" for b in doc["benchmarks"])


def _obj(d: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    v = d.get(key)
    return v if isinstance(v, Mapping) else {}


def _summary(metrics: Mapping[str, Any], name: str, status: str = "successful") -> Mapping[str, Any]:
    m = metrics.get(name)
    s = m.get(status) if isinstance(m, Mapping) else None
    return s if isinstance(s, Mapping) else {}


def _ms(summary: Mapping[str, Any], key: str) -> float | None:
    if key.startswith("p"):
        pct = summary.get("percentiles")
        v = num(pct, key) if isinstance(pct, Mapping) else None
    else:
        v = num(summary, key)
    return None if v is None else v / 1000.0


def _load(strategy: Mapping[str, Any], path: str) -> Load | None:
    """The load (module docstring), None for a strategy that names no level; ``path``: the strategy's place in the
    report, for a figure that is not one.

    Raises:
        BadFigure: streams, a cap or a rate that is not one (NaN, 0, 2.5 streams...).
    """
    kind = strategy.get("type_")
    cap = level(strategy.get("max_concurrency"), f"{path}.max_concurrency")
    streams = level(strategy.get("streams"), f"{path}.streams")
    per_s = rate(strategy.get("rate"), f"{path}.rate")
    if kind == "synchronous":
        return Load(concurrency=1)
    if kind == "concurrent" and streams is not None:
        return Load(concurrency=streams)
    if kind == "throughput" and cap is not None:
        return Load(concurrency=cap)
    if kind in ("constant", "poisson") and per_s is not None:
        return Load(concurrency=cap, rate_per_s=per_s, arrival=str(kind))
    return None


def _no_level(strategy: Mapping[str, Any]) -> str:
    """Why a strategy :func:`_load` names no level has none, for the note that leaves its benchmark out."""
    kind = strategy.get("type_")
    if kind == "throughput":
        return "throughput with no max_concurrency: as many requests in flight as the client sends, no level to name"
    if kind == "trace":
        return "a trace replay: each request at its trace's own instant, no single level"
    return f"strategy {kind!r} names no level (its streams, cap or rate absent)"


#: GuideLLM's ``settings.max_concurrency`` default (``config.py`` @ v0.2.0-v0.3.0): 0.2-0.3's uncapped throughput
#: strategy's in-flight limit, not written in the report (module docstring)
_DEFAULT_LIMIT = 512
_UNRECORDED_LIMIT = (
    f"GuideLLM's own worker limit (settings.max_concurrency, {_DEFAULT_LIMIT} unless GUIDELLM__MAX_CONCURRENCY set "
    "another) is not in the report, its default taken"
)

#: the profiles whose ``throughput`` strategy runs at the profile's ``max_concurrency`` (module docstring)
_UNCAPPED_KINDS = ("throughput", "sweep")


def _profile(doc: Mapping[str, Any], bench: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """The profile that made ``bench``'s strategy and where it was read: the 0.7+ scenario's ``config.spec.profile``,
    else the benchmark's own ``config.profile`` (0.4-0.6 record no scenario: their benchmark's profile is the
    ``Profile`` object itself, ``type_`` and ``max_concurrency`` as the user set it; ``profiles.py`` @ v0.4.0-v0.6.1)
    or, in 0.2-0.3's schema, ``args.profile`` (``profile.py`` @ v0.3.0);
    ``{}`` when neither is a throughput or sweep profile."""
    for profile, where in (
        (_obj(_obj(_obj(doc, "config"), "spec"), "profile"), "the scenario's profile"),
        (_obj(_obj(bench, "config"), "profile"), "the benchmark's profile"),
        (_obj(_obj(bench, "args"), "profile"), "the benchmark's profile"),
    ):
        if profile.get("kind", profile.get("type_")) in _UNCAPPED_KINDS:
            return profile, where
    return {}, ""


def _uncapped(
    doc: Mapping[str, Any], bench: Mapping[str, Any], strategy: Mapping[str, Any], facts: Mapping[str, Any]
) -> tuple[Load, str] | None:
    """A ``throughput`` benchmark run with no cap (module docstring): every request at once, N = the requests sent,
    and the note naming the worker limit not taken; None for any other benchmark, one whose report does not say, or
    one of more requests than the unrecorded default limit (0.2-0.3: module docstring)."""
    profile, where = _profile(doc, bench)
    if strategy.get("type_") != "throughput" or not profile:
        return None
    if "max_concurrency" not in profile or profile["max_concurrency"] is not None:
        return None
    counts = [facts.get(k) for k in ("completed", "failed", "incomplete")]
    sent = sum(int(v) for v in counts if v is not None)
    if None in counts or not sent:
        return None
    limit = strategy.get("max_concurrency")
    if isinstance(limit, int) and limit > 0:
        why = f"the strategy's max_concurrency {spelled(limit)} is GuideLLM's own worker limit, not a level the client "
        why += "was set to"
    elif sent <= _DEFAULT_LIMIT:  # 0.2-0.3 record no limit: settings.max_concurrency (module doc)
        limit, why = sent, _UNRECORDED_LIMIT
    else:
        return None
    n = min(sent, limit)
    return Load(concurrency=n), (
        f"throughput with no cap ({where} max_concurrency is null): every request sent at once, N={n} (the requests "
        f"sent); {why}"
    )


def _refusal(strategy: Mapping[str, Any], where: str) -> ConfigError:
    """The refusal of a report none of whose benchmarks names a level (``where``: the first one)."""
    return ConfigError(
        f"{where}: a GuideLLM benchmark of strategy {strategy.get('type_')!r} has no level specscope can name",
        found=dict(strategy),
        expected="synchronous, concurrent (streams), throughput with max_concurrency, constant or poisson (rate)",
        fix="import a report of benchmarks at a level (guidellm --profile concurrent ..., or constant at fixed rates)",
    )


def _request_instants(bench: Mapping[str, Any], facts: dict[str, Any]) -> None:
    """Each successful request's ``info.timings.request_start`` and its latency to ``request_end`` (s, epoch) into
    ``facts`` (``start_times_s``, ``latencies_s``: the achieved concurrency, :mod:`specscope.stats.imported`) when the
    report's ``requests.successful`` holds every successful request it counted and each has both instants; else
    named not recorded (a sample: the in-flight count of a sample understates the load)."""
    kept = _obj(bench, "requests").get("successful")
    counted = facts["completed"]
    starts: list[float] = []
    latencies: list[float] = []
    for r in kept if isinstance(kept, list) else ():
        timings = _obj(_obj(r, "info"), "timings") if isinstance(r, Mapping) else {}
        start, end = num(timings, "request_start"), num(timings, "request_end")
        if start is None or end is None or end <= start:
            break
        starts.append(start)
        latencies.append(end - start)
    if counted and isinstance(kept, list) and len(kept) == counted == len(starts):
        facts["start_times_s"], facts["latencies_s"] = starts, latencies
    else:
        facts["not_recorded"].append(
            "achieved concurrency (the report's requests are a sample, or lack request_start / request_end)"
        )


def _one(doc: Mapping[str, Any], bench: Mapping[str, Any], i: int) -> Imported:
    at = f"benchmarks[{i - 1}]"
    metrics = _obj(bench, "metrics")
    older = "config" not in bench and isinstance(bench.get("args"), Mapping)  # the earlier schema (module doc)
    totals_at = f"{at}.request_totals" if older else f"{at}.metrics.request_totals"
    totals = _obj(bench, "request_totals") if older else _obj(metrics, "request_totals")
    out = count(
        _summary(metrics, "output_token_count").get("total_sum"),
        f"{at}.metrics.output_token_count.successful.total_sum",
        "tokens",
    )
    # TPOT is GuideLLM's inter-token latency: its time_per_output_token_ms includes the first token (module doc)
    ttft, tpot = _summary(metrics, "time_to_first_token_ms"), _summary(metrics, "inter_token_latency_ms")
    meta = _obj(doc, "metadata")
    facts: dict[str, Any] = {
        "tool": TOOL,
        "shape": SHAPE,
        "tool_version": meta.get("guidellm_version"),
        "benchmark": i,
        "duration_s": seconds(bench.get("duration"), f"{at}.duration"),
        "completed": count(totals.get("successful"), f"{totals_at}.successful"),
        "failed": count(totals.get("errored"), f"{totals_at}.errored"),
        "incomplete": count(totals.get("incomplete"), f"{totals_at}.incomplete"),
        "output_tokens": out,
        "ttft_p50_s": _ms(ttft, "median"),
        "ttft_p95_s": _ms(ttft, "p95"),
        "tpot_p50_s": _ms(tpot, "median"),
        "tpot_p95_s": _ms(tpot, "p95"),
        "not_recorded": [
            "per-request arrays (GuideLLM keeps a sample of the requests)",
            "speculative acceptance (GuideLLM's report carries none)",
            "TPOT percentiles over requests (GuideLLM's inter-token latency distribution weights each request by "
            "its tokens - 1: the TPOT p50 / p95 shown are a token's)",
        ],
    }
    if not older:
        _request_instants(bench, facts)
    strategy_at = f"{at}.args.strategy" if older else f"{at}.config.strategy"
    strategy = _obj(_obj(bench, "args" if older else "config"), "strategy")
    load = _load(strategy, strategy_at)
    uncapped = _uncapped(doc, bench, strategy, facts)
    if uncapped is not None:
        load, note = uncapped
    backend = _obj(_obj(_obj(doc, "config"), "spec"), "backend")  # the scenario's spec.backend (kind, target, model)
    model = (
        _obj(bench, "worker").get("backend_model") if older else backend.get("model") or _obj(doc, "args").get("model")
    )
    unread = not_understood(bench, _KNOWN_BENCHMARK, at=f"{at}.")
    if i == 1:  # the report's own keys are named once, with its first benchmark
        unread = not_understood(doc, _KNOWN_REPORT) + unread
    return Imported(
        TOOL,
        SHAPE,
        load or Load(),
        facts,
        None,
        str(model) if model else None,
        (*warning_notes(unread), *([note] if uncapped is not None else [])),
        left_out=None if load is not None else _no_level(strategy),
    )


def _strategy(doc: Mapping[str, Any], i: int) -> Mapping[str, Any]:
    bench = doc["benchmarks"][i - 1]
    older = "config" not in bench and isinstance(bench.get("args"), Mapping)
    return _obj(_obj(bench, "args" if older else "config"), "strategy")


def parse_all(doc: Mapping[str, Any]) -> list[Imported]:
    """One record per benchmark of the report, in its order; a benchmark whose strategy names no level is left out,
    named (:attr:`~specscope.importers.record.Imported.left_out`), when another names one.

    Raises:
        ConfigError: no benchmark's strategy names a level (see the module docstring).
        BadFigure: a total or load that is not what its field means (NaN, a string, a fraction of a request...).
    """
    records = [_one(doc, b, i) for i, b in enumerate(doc["benchmarks"], 1)]
    kept = [r for r in records if r.left_out is None]
    if not kept:
        raise _refusal(_strategy(doc, 1), "benchmark 1")
    if {r.load.open_loop for r in kept} == {True, False}:  # a sweep: its rates are this report's own (module doc)
        i = records.index(next(r for r in kept if r.load.open_loop))
        records[i] = replace(records[i], notes=(*records[i].notes, SWEEP_NOTE))
    return records


#: the note on a report mixing closed and open loops (a sweep) that its rates are its own (module doc)
SWEEP_NOTE = (
    "its request rates are derived from this report's own measured rates (GuideLLM's sweep): another config's or "
    "repeat's sweep shares none of them, and levels pair only at equal rates; to compare configs, run GuideLLM at "
    "fixed rates (profile kind=constant with a list of rates) for each"
)

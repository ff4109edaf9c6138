"""AIPerf ``aiperf profile``'s ``profile_export_aiperf.json`` (one object per run).

Source: ai-dynamo/aiperf ``src/aiperf/exporters/metrics_json_exporter.py`` (commit
96ebaea396aaba0b5a5879e6320986a9c022c3e7) writes ``JsonExportData`` of
``src/aiperf/common/models/export_models.py`` (schema_version ``"1.0"``; commit
26240f9e48bd11b1890ec0bfab778fd82481869f) with ``exclude_none``: ``schema_version``, ``aiperf_version``,
``input_config`` (the run's ``UserConfig``: ``loadgen.concurrency``, ``loadgen.request_rate``,
``loadgen.arrival_pattern``...; AIPerf 0.10.0 writes schema ``"1.3"`` with ``phases`` instead, each with its
``type``, ``concurrency`` or rate and ``exclude_from_results`` for the warm-up), ``was_cancelled``,
``error_summary``, ``start_time`` / ``end_time``, and one ``JsonMetricResult`` per metric tag
(``{"unit": ..., "avg", "p50", "p99", "min", "max", "std", ...}``):
``benchmark_duration`` (sec), ``total_osl`` (tokens: the sum of each request's ``output_sequence_length``, its
output plus reasoning tokens, the completion tokens and AIPerf's own throughput numerator; ``total_output_tokens``
sums the output tokens alone, the reasoning ones left out, and is read only where ``total_osl`` is absent, with
``total_reasoning_tokens`` added when present: ``aiperf/metrics/types/output_sequence_length_metric.py``,
``output_token_count.py`` and ``output_token_throughput_metrics.py`` @ v0.1.1), ``request_count`` and
``error_request_count`` (requests), ``time_to_first_token`` and ``inter_token_latency`` (ms; AIPerf's ITL per request is
(latency - TTFT) / (output tokens - 1), specscope's TPOT), ``output_token_throughput`` (tokens/sec),
``input_sequence_length`` (tokens). Per-request records live in another file (``profile_export.jsonl``), imported
on its own (:mod:`specscope.importers.aiperf_records`). Newer releases (0.13.0 in
tests/data/imports/aiperf_spec_r0.json) add ``effective_concurrency`` (unit ``requests``): its ``avg`` is stored as
the tool's own mean in flight, :data:`CONCURRENCY_SOURCE` (its definition is not in the AIPerf source read here, so
the figure is named by its field and unit only, never recomputed); a summary without it, or in another unit, leaves
the cell's achieved concurrency absent (the per-request export gives it).
When the server reported per-request speculative acceptance, AIPerf adds the run's sums
(``src/aiperf/metrics/types/spec_decode_metrics.py`` @ 1849cd1baf9f1bfc88e4d047c4028bc291d091a4):
``total_spec_decode_steps`` (verify steps), ``total_draft_tokens``, ``total_accepted_draft_tokens`` (bonus token
excluded), each ``{"unit": ..., "avg": N}``; they are the cell's drafts, drafted and accepted tokens, and its rate and
length are derived from them (Σaccepted / Σdrafted, 1 + Σaccepted / Σsteps: AIPerf's own
``spec_decode_overall_draft_acceptance_rate`` and ``spec_decode_token_weighted_acceptance_length``; its
``spec_decode_acceptance_length`` and ``spec_decode_draft_acceptance_rate`` are means of per-request means, not read).

Failures are ``error_request_count``, else ``error_summary``'s counts; with ``loadgen.benchmark_duration`` the
errors after the duration plus its grace period, in ``error_summary`` alone, are left out and named (:func:`_failed`).
A time slice's summary is told from the run's by where AIPerf wrote it (:mod:`specscope.importers.aiperf_slices`).

The cell's duration is ``benchmark_duration``: AIPerf 0.10.0's ``output_token_throughput`` equals
``total_osl / benchmark_duration``; 0.13.0's does not (285.0 against 192 / 0.6545 s = 293.4 tok/s in
tests/data/imports/aiperf_spec_r0.json: another window, not named in the file), so the figure derived here is the
total over the benchmark duration, the definition of every other cell.

Load: ``loadgen.request_rate`` set is an open loop (``arrival_pattern``, default Poisson; ``gamma`` with its
``arrival_smoothness``, vLLM's ``burstiness`` by another name, :func:`~specscope.importers.record.gamma_arrival`),
capped at ``loadgen.concurrency`` when set; else ``loadgen.concurrency`` N is a closed loop of N. A fixed-schedule run
(``input.fixed_schedule`` true: AIPerf 0.1.1's ``validate_timing_mode`` in ``aiperf/common/config/user_config.py``
sends each request at its trace timestamp and sets no concurrency) has no single level and is refused, as are a
user-centric run (``loadgen.user_centric_rate`` with ``num_users``: each user's next turn ``num_users / rate`` s after
its previous one, users joining on a schedule) and a prefill cap that binds (``loadgen.prefill_concurrency`` with no
concurrency, or below it: only the requests awaiting their first token are capped); both were read as one stream
(``validate_timing_mode`` of ``src/aiperf/common/config/user_config.py`` @90153c83: with neither a request rate nor
a concurrency the run is a burst capped by the prefill concurrency alone). A ramp of the measured phase
(``loadgen.concurrency_ramp_duration``, ``prefill_concurrency_ramp_duration``, ``request_rate_ramp_duration``, s: to
the level over that time, ``loadgen_config.py`` @199d8a36) is imported at its level with a warning naming it
(:func:`ramp_notes`, the per-request export's too). AIPerf 0.10's ``phases`` name the same settings otherwise
(``src/aiperf/config/phases.py`` @aa0efdfd): the phase's ``type`` (``concurrency``, ``poisson``, ``gamma`` with its
``smoothness``, ``constant``, ``user_centric`` with ``rate`` and ``users``, ``fixed_schedule``), its ``rate`` or a
``rate_series`` (a piecewise-linear schedule: no single level, refused), ``prefill_concurrency``, and the ramps
``concurrency_ramp`` / ``prefill_ramp`` / ``rate_ramp`` (seconds, or ``{duration, strategy}``); each is read by its
own key and named ``phases[NAME].key`` in a message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.errors import ConfigError
from specscope.importers.record import (
    Imported,
    Load,
    count,
    gamma_arrival,
    level,
    not_understood,
    num,
    rate,
    seconds,
    spelled,
    warning_notes,
)

__all__ = [
    "CONCURRENCY_SOURCE",
    "KNOWN_FAMILY",
    "KNOWN_KEYS",
    "SHAPE",
    "TOOL",
    "load_of",
    "model_of",
    "parse",
    "ramp_notes",
    "recognise",
]

SHAPE = "aiperf-profile-export"
TOOL = "aiperf profile"
#: the source of the tool's own mean in flight (module doc)
CONCURRENCY_SOURCE = "effective_concurrency.avg (unit requests), as the summary names it; its definition not read"
#: seconds per unit as AIPerf writes a metric's ``unit`` (both its summary and its per-request records)
UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0}


def _metric(doc: Mapping[str, Any], tag: str) -> Mapping[str, Any] | None:
    m = doc.get(tag)
    return m if isinstance(m, Mapping) and isinstance(m.get("unit"), str) else None


#: the export's keys besides its metric blocks (``{"unit": ...}``, each a metric AIPerf computed: those named in the
#: module doc are read, the others are figures specscope derives itself or does not judge): the run's identity,
#: config, state and timestamps, the GPU telemetry (``telemetry_data``) and ``run_info``
_KNOWN = frozenset(
    {
        *("schema_version", "aiperf_version", "benchmark_id", "input_config", "was_cancelled", "is_complete"),
        *("error_summary", "start_time", "end_time", "run_info", "telemetry_data", "records"),
    }
)


#: the census (docs/imports.md): the keys known, and the family accepted
KNOWN_KEYS = _KNOWN
KNOWN_FAMILY = 'every metric block ({"unit": ..., "avg": ...}): those the module doc names are read, the rest left out'


def recognise(doc: Any) -> bool:
    """True for a ``profile_export_aiperf.json`` object (its metric results carry a unit; it names its config)."""
    return (
        isinstance(doc, Mapping)
        and isinstance(doc.get("input_config"), Mapping)
        and _metric(doc, "output_token_throughput") is not None
        and _metric(doc, "benchmark_duration") is not None
    )


def _stat(doc: Mapping[str, Any], tag: str, stat: str, *, seconds: bool = False) -> float | None:
    m = _metric(doc, tag)
    if m is None:
        return None
    v = num(m, stat)
    if v is None or not seconds:
        return v
    scale = UNIT_SECONDS.get(str(m["unit"]).lower())
    return None if scale is None else v * scale


def _measured(cfg: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """The measured phase's load settings and their name in messages: ``input_config.phases`` (AIPerf 0.10, schema
    1.3: the phase not ``exclude_from_results``, e.g. ``{"name": "profiling", "type": "concurrency", "concurrency":
    4}``; ``phases[profiling]``), else ``input_config.loadgen`` (schema 1.0; ``loadgen``)."""
    phases = cfg.get("phases")
    if isinstance(phases, list):
        measured = [p for p in phases if isinstance(p, Mapping) and not p.get("exclude_from_results")]
        if measured:
            return f"phases[{measured[-1].get('name', len(phases) - 1)}]", measured[-1]
    lg = cfg.get("loadgen")
    return "loadgen", lg if isinstance(lg, Mapping) else {}


#: what a refused AIPerf load is told to import instead
_ONE_LEVEL = "a run at one load: loadgen.concurrency, or loadgen.request_rate"
_ONE_LEVEL_FIX = "import runs made at one concurrency or rate (aiperf profile --concurrency N or --request-rate R)"


def _no_single_level(what: str, found: str) -> ConfigError:
    return ConfigError(what, found=found, expected=_ONE_LEVEL, fix=_ONE_LEVEL_FIX)


def _no_level(where: str, lg: Mapping[str, Any], conc: int | None) -> None:
    """Refuse the loads of no single level (module docstring): a user-centric run, a trace replay or rate series of
    the phases config, a prefill cap that binds.

    Raises:
        ConfigError: ``user_centric_rate`` set (or a ``user_centric`` phase), a ``fixed_schedule`` phase, a phase's
            ``rate_series``, or ``prefill_concurrency`` with no concurrency or below it.
        BadFigure: a prefill cap that is not a number of streams.
    """
    how = (
        "(aiperf profile --user-centric-rate: each user sends its next turn num_users / rate s after its previous "
        "one ends, new users joining on a schedule)"
    )
    if lg.get("user_centric_rate") is not None:
        raise _no_single_level(
            "a user-centric run has no single level",
            f"{where}.user_centric_rate = {spelled(lg['user_centric_rate'])} with num_users = "
            f"{spelled(lg.get('num_users'))} {how}",
        )
    if lg.get("type") == "user_centric":
        raise _no_single_level(
            "a user-centric run has no single level",
            f"{where}.type = user_centric with rate = {spelled(lg.get('rate'))}, users = {spelled(lg.get('users'))} "
            f"{how}",
        )
    if lg.get("type") == "fixed_schedule":
        raise _no_single_level(
            "a trace replay has no single level",
            f"{where}.type = fixed_schedule (aiperf profile --fixed-schedule: each request sent at its trace "
            "timestamp)",
        )
    if lg.get("rate_series") is not None:
        raise _no_single_level(
            "a rate schedule has no single level",
            f"{where}.rate_series = {spelled(lg['rate_series'])} (a piecewise-linear request rate through the phase)",
        )
    prefill = level(lg.get("prefill_concurrency"), f"{where}.prefill_concurrency")
    if prefill is not None and (conc is None or prefill < conc):
        which = "no concurrency" if conc is None else f"below concurrency {conc}"
        raise ConfigError(
            "a prefill-limited run has no level specscope can name",
            found=f"{where}.prefill_concurrency = {prefill} ({which}: at most {prefill} requests wait for their "
            "first token, those past it are not counted against the cap)",
            expected=_ONE_LEVEL + ", with no prefill cap below the concurrency",
            fix="import runs made without --prefill-concurrency (or with it at least --concurrency)",
        )


def load_of(cfg: Mapping[str, Any]) -> Load:
    """The load (module docstring).

    Raises:
        BadFigure: a request rate or concurrency that is not one (NaN, 0, 2.5 streams...).
        ConfigError: a fixed-schedule replay (``input.fixed_schedule``: the trace's own timestamps, no one level), a
            user-centric run, a rate series or a binding prefill cap (:func:`_no_level`).
    """
    inp = cfg.get("input")
    if isinstance(inp, Mapping) and inp.get("fixed_schedule") is True:
        raise _no_single_level(
            "a trace replay has no single level",
            "input_config.input.fixed_schedule = true (aiperf profile --fixed-schedule: each request sent at "
            "its trace timestamp)",
        )
    where, lg = _measured(cfg)
    key = "request_rate" if lg.get("request_rate") is not None else "rate"
    per_s, conc = rate(lg.get(key), f"{where}.{key}"), level(lg.get("concurrency"), f"{where}.concurrency")
    _no_level(where, lg, conc)
    if per_s is not None:
        arrival = str(lg.get("arrival_pattern") or lg.get("request_rate_mode") or lg.get("type") or "poisson").lower()
        if arrival == "gamma":  # its shape (None: AIPerf's 1.0), named as vLLM's burstiness is
            shape = "arrival_smoothness" if "arrival_smoothness" in lg else "smoothness"  # loadgen's; a phase's
            arrival = gamma_arrival(lg.get(shape), f"{where}.{shape}")
        return Load(concurrency=conc, rate_per_s=per_s, arrival=arrival)
    return Load(concurrency=conc if conc is not None else 1)


#: the ramps of the measured phase, s: loadgen's (loadgen_config.py @199d8a36: the session or prefill concurrency from
#: 1, the rate from a fraction of it, to the target over the duration) and a phase's (src/aiperf/config/phases.py
#: @aa0efdfd ``RampSpec``: seconds, or ``{"duration": s, "strategy": ...}``)
_RAMPS = ("concurrency_ramp_duration", "prefill_concurrency_ramp_duration", "request_rate_ramp_duration")
_PHASE_RAMPS = ("concurrency_ramp", "prefill_ramp", "rate_ramp")


def ramp_notes(cfg: Mapping[str, Any]) -> tuple[str, ...]:
    """A warning for each ramp of the measured phase the run's config sets: its level was not held for the whole
    window the cell's figures cover (imported all the same, named)."""
    where, lg = _measured(cfg)
    notes = []
    for key in (*_RAMPS, *_PHASE_RAMPS):
        ramp = lg.get(key)
        secs = num(ramp, "duration") if isinstance(ramp, Mapping) else num(lg, key)
        if secs is not None and secs > 0:
            notes.append(
                f"the load ramped to its level over the first {secs:g} s of the measured phase ({where}.{key} = "
                f"{spelled(ramp)}): the level was not held for the whole window"
            )
    return tuple(notes)


def model_of(cfg: Mapping[str, Any]) -> str | None:
    """The model served: ``input_config.models.items[0].name`` (0.10), else ``endpoint.model_names[0]``."""
    models = cfg.get("models")
    items = models.get("items") if isinstance(models, Mapping) else None
    if isinstance(items, list) and items and isinstance(items[0], Mapping) and items[0].get("name"):
        return str(items[0]["name"])
    ep = cfg.get("endpoint")
    names = ep.get("model_names") if isinstance(ep, Mapping) else None
    return str(names[0]) if isinstance(names, list) and names else None


def _count(doc: Mapping[str, Any], tag: str, unit: str = "requests") -> int | None:
    """The ``avg`` of the metric ``tag`` as a count (None when the export has no such metric or value).

    Raises:
        BadFigure: a value that is not a whole number (NaN, a string, a fraction).
    """
    m = _metric(doc, tag)
    return None if m is None else count(m.get("avg"), f"{tag}.avg", unit)


def _summary_errors(doc: Mapping[str, Any]) -> int | None:
    """The errors ``error_summary`` lists (``[{"error_details": ..., "count": N}]``), None when it is absent.

    Raises:
        BadFigure: an entry whose ``count`` is not a whole number.
    """
    summary = doc.get("error_summary")
    if not isinstance(summary, list):
        return None
    return sum(
        count(e.get("count"), f"error_summary[{i}].count") or 0 for i, e in enumerate(summary) if isinstance(e, Mapping)
    )


def _failed(doc: Mapping[str, Any], errors: int | None) -> tuple[int | None, tuple[str, ...]]:
    """Failed requests and a note on the errors left out: ``error_request_count``; absent, 0 when the run had a
    benchmark duration, else the counts of ``error_summary`` (empty: none), else unknown.

    AIPerf writes ``error_summary`` always (``ProfileResults.error_summary``, ``default_factory=list``) and lists
    every invalid record in it (``records_manager.py`` @ v0.1.1 and db4f6397: a record is invalid only with an
    ``error``), while ``error_request_count`` exists only once an error record reached the metrics processor
    (``metric_results_processor.py``): ``[]`` without the count is AIPerf's own zero. With ``--benchmark-duration``
    (``loadgen.benchmark_duration``, s) a record ending after the duration plus ``benchmark_grace_period`` reaches
    no metric processor (``_should_include_request_by_duration`` @db4f6397): a late success is in no figure, a late
    error in ``error_summary`` alone. The window's failures are then ``error_request_count`` (absent: 0); the late
    errors are named in the note.

    Raises:
        BadFigure: an ``error_summary`` entry whose ``count`` is not a whole number.
    """
    listed = _summary_errors(doc)
    _, lg = _measured(doc["input_config"])
    window = num(lg, "benchmark_duration")
    if window is None:
        return (errors if errors is not None else listed), ()
    failed = errors if errors is not None else 0
    if listed is None or listed <= failed:
        return failed, ()
    counted = "absent: 0" if errors is None else str(errors)
    return failed, (
        f"{listed - failed} errors in error_summary are not in error_request_count ({counted}): with "
        f"loadgen.benchmark_duration {window:g} s AIPerf counts in its figures only the requests that ended within "
        "the duration plus its grace period, and lists the late errors in error_summary alone; they are left out of "
        "the cell's failures as the late successes are left out of its completed",
    )


def _spec(doc: Mapping[str, Any], facts: dict[str, Any]) -> None:
    """The run's speculative sums (module doc) into ``facts``; what the export lacks is named, never 0.

    Raises:
        BadFigure: a sum that is not a whole number.
    """
    steps = _count(doc, "total_spec_decode_steps", "verify steps")
    drafted = _count(doc, "total_draft_tokens", "tokens")
    accepted = _count(doc, "total_accepted_draft_tokens", "tokens")
    if steps is None and drafted is None and accepted is None:
        facts["not_recorded"].append(
            "speculative acceptance (no spec_decode totals: the server reported none per request)"
        )
        return
    facts.update(drafts=steps, draft_tokens=drafted, accepted_tokens=accepted)
    if accepted is not None and drafted:
        facts["acceptance_rate"] = accepted / drafted
    if accepted is not None and steps:
        facts["acceptance_length"] = 1.0 + accepted / steps
    missing = [t for t, v in (("total_spec_decode_steps", steps), ("total_draft_tokens", drafted)) if v is None]
    missing += ["total_accepted_draft_tokens"] if accepted is None else []
    if missing:
        facts["not_recorded"].append(f"speculative totals ({', '.join(missing)} absent)")


def _generated(doc: Mapping[str, Any]) -> int | None:
    """The tokens generated (module doc): ``total_osl``, else ``total_output_tokens`` plus ``total_reasoning_tokens``
    when the export has them, else ``total_output_tokens``.

    Raises:
        BadFigure: a total that is not a whole number.
    """
    osl = _count(doc, "total_osl", "tokens")
    if osl is not None:
        return osl
    out, reasoning = _count(doc, "total_output_tokens", "tokens"), _count(doc, "total_reasoning_tokens", "tokens")
    return out + reasoning if out is not None and reasoning is not None else out


def parse(doc: Mapping[str, Any]) -> Imported:
    """The record's facts (:mod:`specscope.stats.imported`), load and model.

    Raises:
        BadFigure: a total or load that is not what its field means (NaN, a string, a fraction of a request...).
    """
    duration = _metric(doc, "benchmark_duration")
    scale = UNIT_SECONDS.get(str(duration["unit"]).lower()) if duration is not None else None
    facts: dict[str, Any] = {
        "tool": TOOL,
        "shape": SHAPE,
        "tool_version": doc.get("aiperf_version"),
        "duration_s": None
        if duration is None or scale is None
        else seconds(duration.get("avg"), "benchmark_duration.avg", scale),
        "completed": _count(doc, "request_count"),
        "output_tokens": _generated(doc),
        "ttft_p50_s": _stat(doc, "time_to_first_token", "p50", seconds=True),
        "ttft_p95_s": _stat(doc, "time_to_first_token", "p95", seconds=True),
        "tpot_p50_s": _stat(doc, "inter_token_latency", "p50", seconds=True),
        "tpot_p95_s": _stat(doc, "inter_token_latency", "p95", seconds=True),
        "not_recorded": ["per-request arrays (in profile_export.jsonl, not read)"],
    }
    facts["failed"], late = _failed(doc, _count(doc, "error_request_count"))
    _spec(doc, facts)
    in_flight = _metric(doc, "effective_concurrency")
    mean_in_flight = num(in_flight, "avg") if in_flight is not None and in_flight["unit"] == "requests" else None
    notes = (
        (
            f"effective_concurrency in unit {spelled(in_flight['unit'])}, not requests: the tool's mean requests in "
            "flight is left absent",
        )
        if in_flight is not None and in_flight["unit"] != "requests"
        else ()
    )
    if mean_in_flight is not None and mean_in_flight > 0:
        facts["tool_concurrency"] = mean_in_flight
        facts["tool_concurrency_source"] = CONCURRENCY_SOURCE
    if doc.get("was_cancelled"):
        facts["not_recorded"].append("a complete run (was_cancelled: true)")
    cfg: Mapping[str, Any] = doc["input_config"]
    datasets = cfg.get("datasets")
    first = datasets[0] if isinstance(datasets, list) and datasets and isinstance(datasets[0], Mapping) else {}
    workload = first.get("dataset") or first.get("name")
    unread = not_understood(doc, _KNOWN, lambda k: _metric(doc, k) is not None)
    return Imported(
        TOOL,
        SHAPE,
        load_of(cfg),
        facts,
        str(workload) if workload else None,
        model_of(cfg),
        notes + late + ramp_notes(cfg) + warning_notes(unread),
    )

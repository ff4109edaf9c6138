"""AIPerf ``aiperf profile``'s per-request record export ``profile_export.jsonl`` (one JSON object per request).

Source: ai-dynamo/aiperf ``src/aiperf/common/models/record_models.py`` (commit
96ebaea396aaba0b5a5879e6320986a9c022c3e7), ``MetricRecordInfo``: each line holds ``metadata``
(``MetricRecordMetadata``: ``session_num``, ``x_request_id``, ``x_correlation_id``, ``conversation_id``,
``turn_index``, ``credit_issued_ns``, ``request_start_ns`` and ``request_end_ns`` (wall clock, ``time.time_ns()``; for
a failed request the end is the time of the error), ``request_ack_ns``, ``worker_id``, ``record_processor_id``,
``benchmark_phase`` (``warmup`` or ``profiling``), ``was_cancelled``, ``cancellation_time_ns``, ``agent_depth``,
``parent_correlation_id``), ``metrics`` (each record metric AIPerf computed for the request, ``{"value": ...,
"unit": ...}`` in its display unit), ``error`` (``ErrorDetails``, null when the request succeeded) and, with a trace
config, ``trace_data``.

Read, per request of the ``profiling`` phase (the warm-up's are left out, as AIPerf's own summary leaves them out):
``time_to_first_token`` (the TTFT), ``request_latency`` (the latency), ``output_sequence_length`` (its output plus
reasoning tokens, the summary's ``total_osl`` per request, :mod:`specscope.importers.aiperf_export`),
``input_sequence_length``, and ``request_start_ns`` (the instant it was sent: with the latencies, the achieved
concurrency, :mod:`specscope.stats.imported`). A request with an ``error``, or ``was_cancelled``, is a failed request,
counted and named; the others are the completed ones. The cell's duration is the successful requests' first start to
last end (start + latency), the window a measured cell's rate is taken over. The other record metrics
(``inter_token_latency``, ``inter_chunk_latency``...) are figures derived here from these, or not judged; left out.

The file records no load: AIPerf writes it beside ``profile_export_aiperf.json`` in one artifact folder, and the
load (concurrency or request rate), the model and the workload are read from that summary's ``input_config``
(:mod:`specscope.importers.aiperf_export`); without it the file is refused, naming the file to keep beside it. The
summary's run totals (speculative sums included) are not read from it here: import the summary itself for those.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from specscope import strictjson
from specscope.errors import ConfigError
from specscope.importers import aiperf_export
from specscope.importers.record import (
    BadFigure,
    Imported,
    count,
    not_understood,
    num,
    warning_notes,
)

__all__ = ["KNOWN_FAMILY", "KNOWN_KEYS", "SHAPE", "SUMMARY", "TOOL", "parse_file", "recognise"]

SHAPE = "aiperf-profile-records"
TOOL = aiperf_export.TOOL
#: the summary AIPerf writes into the same artifact folder, read for the load
SUMMARY = "profile_export_aiperf.json"

#: a line's keys (``MetricRecordInfo``); the engine-neutral per-request acceptance a later release adds is left out
_KNOWN = frozenset({"metadata", "metrics", "error", "trace_data", "spec_decode_acceptance"})
KNOWN_KEYS = _KNOWN
KNOWN_FAMILY = ""


def recognise(doc: Any) -> bool:
    """True for one line of ``profile_export.jsonl`` (its request metadata and its record metrics)."""
    return (
        isinstance(doc, Mapping)
        and isinstance(doc.get("metadata"), Mapping)
        and isinstance(doc.get("metrics"), Mapping)
        and "request_start_ns" in doc["metadata"]
    )


def _value(metrics: Mapping[str, Any], tag: str, *, seconds: bool = False) -> float | None:
    m = metrics.get(tag)
    if not isinstance(m, Mapping):
        return None
    v = num(m, "value")
    if v is None or not seconds:
        return v
    scale = aiperf_export.UNIT_SECONDS.get(str(m.get("unit")).lower())
    return None if scale is None else v * scale


def _tokens(metrics: Mapping[str, Any], tag: str, where: str) -> int | None:
    # the one count rule of every import (0 to below 2**63): 2**63 tokens was stored as a count (issue 37)
    return count(_value(metrics, tag), f"{where}.metrics.{tag}.value", "tokens")


def _summary(path: Path) -> Mapping[str, Any]:
    """The summary beside ``path`` (module doc).

    Raises:
        ConfigError: no readable summary of AIPerf's shape beside it.
    """
    beside = path.parent / SUMMARY
    doc: Any = None
    if beside.is_file():
        try:
            doc = strictjson.loads(beside.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            doc = None
    if not aiperf_export.recognise(doc):
        raise ConfigError(
            f"{path} is AIPerf's per-request record export, which records no load",
            found=f"no readable {SUMMARY} beside it in {path.parent}",
            expected=f"the {SUMMARY} AIPerf wrote into the same artifact folder (its input_config holds the "
            "concurrency or request rate)",
            fix=f"keep the artifact folder as AIPerf wrote it, or import {SUMMARY} itself",
        )
    assert isinstance(doc, Mapping)
    return doc


def parse_file(path: Path, docs: Sequence[Mapping[str, Any]]) -> Imported:
    """The file's one record (one cell): its requests' facts (module doc), the load, model and workload of the
    summary beside it.

    Raises:
        ConfigError: no summary beside it, or no request of the profiling phase.
        BadFigure: a start instant or token count that is not one.
    """
    summary = _summary(path)
    ttfts: list[float | None] = []
    lats: list[float | None] = []
    outs: list[int | None] = []
    ins: list[int | None] = []
    starts: list[float | None] = []
    errors: list[bool] = []
    unread: set[str] = set()
    warmup = 0
    for i, doc in enumerate(docs, 1):
        meta, metrics = doc["metadata"], doc["metrics"]
        if meta.get("benchmark_phase") == "warmup":
            warmup += 1
            continue
        where = f"line {i}"
        start = meta.get("request_start_ns")
        if isinstance(start, bool) or not isinstance(start, int) or start <= 0:
            raise BadFigure(f"{where}.metadata.request_start_ns", start, "a positive whole number of nanoseconds")
        failed = doc.get("error") is not None or bool(meta.get("was_cancelled"))
        errors.append(failed)
        starts.append(start / 1e9)
        ttfts.append(_value(metrics, "time_to_first_token", seconds=True))
        lats.append(_value(metrics, "request_latency", seconds=True))
        outs.append(_tokens(metrics, "output_sequence_length", where))
        ins.append(_tokens(metrics, "input_sequence_length", where))
        unread.update(not_understood(doc, _KNOWN))
    if not errors:
        raise ConfigError(
            "no request of the profiling phase",
            found=f"{len(docs)} records, {warmup} of the warm-up",
            expected="the records of a profiling run (metadata.benchmark_phase profiling)",
            fix=f"import the export of a run that measured, or its {SUMMARY}",
        )
    ok = [i for i, e in enumerate(errors) if not e]
    not_recorded: list[str] = []
    spans = [(starts[i], lats[i]) for i in ok]
    ends = [s + lat for s, lat in spans if s is not None and lat is not None]
    duration = max(ends) - min(s for s, _ in spans if s is not None) if ends and len(ends) == len(ok) else None
    if duration is None and ok:
        not_recorded.append("the duration (a successful request without its request_latency)")
    tokens = [outs[i] for i in ok]
    if any(t is None for t in tokens):
        not_recorded.append("output tokens of every successful request (an output_sequence_length missing)")
    not_recorded.append(f"speculative acceptance (the per-request export; the run's sums are in {SUMMARY})")
    facts: dict[str, Any] = {
        "tool": TOOL,
        "shape": SHAPE,
        "tool_version": summary.get("aiperf_version"),
        "duration_s": duration if duration and duration > 0 else None,
        "completed": len(ok),
        "failed": len(errors) - len(ok),
        "output_tokens": None if any(t is None for t in tokens) else sum(t for t in tokens if t is not None),
        "ttfts_s": ttfts,
        "latencies_s": lats,
        "output_lens_tokens": outs,
        "input_lens_tokens": ins,
        "start_times_s": starts,
        "errors": errors,
        "not_recorded": not_recorded,
    }
    cfg: Mapping[str, Any] = summary["input_config"]
    datasets = cfg.get("datasets")
    first = datasets[0] if isinstance(datasets, list) and datasets and isinstance(datasets[0], Mapping) else {}
    workload = first.get("dataset") or first.get("name")
    notes = aiperf_export.ramp_notes(cfg) + warning_notes(sorted(unread))
    return Imported(
        TOOL,
        SHAPE,
        aiperf_export.load_of(cfg),
        facts,
        str(workload) if workload else None,
        aiperf_export.model_of(cfg),
        notes,
    )

"""AIPerf's per-slice summaries: ``timeslices/profile_export_aiperf_N.json`` of a run made with ``--slice-duration``.

Source: ai-dynamo/aiperf ``src/aiperf/exporters/timeslice_json_exporter.py`` and ``base_json_exporter.py``
(@516594e9) write one file per time slice (``{stem}_{N}.json`` under ``timeslices/``, ``N`` from 0) in the whole
run's own schema (``JsonExportData``): the run's ``input_config`` (``output.slice_duration`` in s), its
``error_summary`` and its ``start_time`` / ``end_time``, beside the slice's metric blocks.
``timeslice_metric_results_processor.py`` puts each request in the slice ``request_start_ns // slice_duration``
(epoch-aligned, not from the run's start). Nothing in such a file says it is a slice; the run's own
``profile_export_aiperf.json`` of the same run has the same keys and the same ``slice_duration``.

Read here: a summary whose ``benchmark_duration`` (its requests' first send to last response) falls short of the
run's window (``end_time - start_time``) by more than half a slice is a slice, refused; the run's summary spans its
window (within 0.04 s in tests/data/imports/aiperf_*.json). A slice spanning nearly the whole window (a run of two
slices whose boundary falls near an end) cannot be told from the run: every summary of a time-sliced run that is
read is warned about (:func:`sliced_note`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from specscope.errors import ConfigError

__all__ = ["refuse_slice", "sliced_note"]


def _slice_s(doc: Mapping[str, Any]) -> float | None:
    out = doc.get("input_config")
    out = out.get("output") if isinstance(out, Mapping) else None
    s = out.get("slice_duration") if isinstance(out, Mapping) else None
    return float(s) if isinstance(s, int | float) and not isinstance(s, bool) and s > 0 else None


def _window_s(doc: Mapping[str, Any]) -> float | None:
    """``end_time - start_time`` (s; ISO 8601 local times, as ``datetime.fromtimestamp`` wrote them), else None."""
    try:
        return (datetime.fromisoformat(doc["end_time"]) - datetime.fromisoformat(doc["start_time"])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


def refuse_slice(doc: Mapping[str, Any], duration_s: float | None) -> None:
    """Refuse one slice's summary (module docstring); ``duration_s``: its ``benchmark_duration`` (s).

    Raises:
        ConfigError: naming the duration, the run's window and the slice duration.
    """
    slice_s, window = _slice_s(doc), _window_s(doc)
    if slice_s is None or window is None or duration_s is None or window - duration_s <= slice_s / 2:
        return
    raise ConfigError(
        "this looks like one time slice of an AIPerf run (timeslices/profile_export_aiperf_N.json), not the run",
        found=(
            f"benchmark_duration.avg {duration_s:g} s against the run's window {window} s (end_time - start_time) "
            f"of input_config.output.slice_duration {slice_s:g} s"
        ),
        expected="the whole run's summary, whose benchmark duration spans the run's window",
        fix="import profile_export_aiperf.json from the run's folder (the whole run)",
    )


def sliced_note(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The warning on a time-sliced run's summary that is read (module docstring), else ()."""
    slice_s = _slice_s(doc)
    if slice_s is None:
        return ()
    return (
        f"a time-sliced run (input_config.output.slice_duration {slice_s:g} s): read as the whole run's summary, its "
        "benchmark_duration spanning the run's window; each slice's timeslices/profile_export_aiperf_N.json has the "
        "same keys",
    )

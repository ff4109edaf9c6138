"""AIPerf's per-slice summaries: ``timeslices/profile_export_aiperf_N.json`` of a run made with ``--slice-duration``.

Source: ai-dynamo/aiperf ``src/aiperf/exporters/timeslice_json_exporter.py`` and ``base_json_exporter.py``
(@516594e9) write one file per time slice (``{stem}_{N}.json`` under ``timeslices/``, ``N`` from 0) in the whole
run's own schema (``JsonExportData``): the run's ``input_config`` (``output.slice_duration`` in s), its
``error_summary`` and its ``start_time`` / ``end_time``, beside the slice's metric blocks.
``timeslice_metric_results_processor.py`` puts each request in the slice ``request_start_ns // slice_duration``
(epoch-aligned, not from the run's start). Nothing in such a file says it is a slice; the run's own
``profile_export_aiperf.json`` of the same run has the same keys and the same ``slice_duration``.

Nothing in a slice's file tells it from the run's in every case: a slice holds the requests *started* in its
epoch-aligned interval, so one spanning nearly the whole run (the first of two whose boundary falls near the end,
its last request ending with the run's last response) has the run's window and nearly its duration. Where AIPerf
wrote it does (:func:`vet`): ``{artifact_dir}/timeslices/{stem}_{N}.json`` is slice N, refused naming
``{artifact_dir}/{stem}.json``; a summary beside a ``timeslices`` folder holding ``{stem}_0.json`` is the run.

A summary found elsewhere (copied or renamed) is judged by its content: a summary whose ``benchmark_duration`` (its
requests' first send to last response) falls short of the run's window (``end_time - start_time``) by more than half
a slice is a slice, refused; the run's summary spans its window (within 0.04 s in tests/data/imports/aiperf_*.json).
A slice spanning nearly the whole window cannot be told from the run so: every such summary of a time-sliced run
that is read is warned about (:func:`sliced_note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.importers.record import Imported

__all__ = ["refuse_slice", "sliced_note", "vet"]

#: the folder AIPerf writes a run's per-slice summaries to (``OutputDefaults.TIMESLICES_SUBDIRECTORY``)
TIMESLICES = "timeslices"
#: a slice's file name, ``{stem}_{N}.json`` (``TimesliceJsonExporter.export``)
_SLICE_NAME = re.compile(r"(?P<stem>.+)_(?P<n>[0-9]+)\.json")


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


def vet(path: Path, doc: Mapping[str, Any], rec: Imported) -> Imported:
    """The summary ``rec`` read from ``path``, judged by where AIPerf wrote it, else by its content (module doc).

    Raises:
        ConfigError: a slice's file (by its place, or by a duration short of the run's window).
    """
    slice_s = _slice_s(doc)
    if slice_s is None:
        return rec
    named = _SLICE_NAME.fullmatch(path.name)
    if named is not None and path.parent.name == TIMESLICES:
        run = path.parent.parent / f"{named['stem']}.json"
        raise ConfigError(
            f"this is time slice {named['n']} of an AIPerf run, not the run",
            found=(
                f"{path}: {path.name} in a {TIMESLICES} folder, where AIPerf writes each slice's summary "
                f"(input_config.output.slice_duration {slice_s:g} s)"
            ),
            expected="the whole run's summary, beside its timeslices folder",
            fix=f"import {run} (the whole run)",
        )
    if (path.parent / TIMESLICES / f"{path.stem}_0.json").is_file():
        return rec
    refuse_slice(doc, rec.facts.get("duration_s"))
    return replace(rec, notes=(*rec.notes, *sliced_note(doc)))

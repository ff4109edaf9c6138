"""When a cell ran and how loaded the machine was: the facts behind pairing by time and the drift check.

Stored per cell in the client facts under ``clock`` (``CellResult.client.clock``), read back as the
``started_at_s`` / ``ended_at_s`` / ``load_avg_1m`` / ``engine_cpu_s`` fields of the cell summary:

* ``started_at_s`` / ``ended_at_s``: wall-clock instants (seconds since the Unix epoch, ``time.time()``) just
  before the first stream is sent and just after the last one ended;
* ``load_avg_1m``: the machine's 1-minute load average (``os.getloadavg()``) at the start and at the end;
* ``engine_cpu_s``: CPU time (user + system, seconds) the local engine process spent during the cell, from
  ``/proc/PID/stat`` fields 14 and 15 (clock ticks, ``os.sysconf("SC_CLK_TCK")``); None for a remote server
  or where ``/proc`` is missing.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from specscope.records import ClockFacts

__all__ = ["ClockMark", "mark", "clock_facts", "process_cpu_s"]


def process_cpu_s(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` (its children not counted), or None."""
    if pid is None:
        return None
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 is fields[0]
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load_1m() -> float | None:
    try:
        return float(os.getloadavg()[0])
    except OSError:
        return None


@dataclass(frozen=True)
class ClockMark:
    """One instant: wall clock (s since the epoch), load average (1 min), engine CPU time (s) or None."""

    wall_s: float
    load_1m: float | None
    engine_cpu_s: float | None


def mark(pid: int | None) -> ClockMark:
    """The clock, the load and the engine's CPU time now."""
    return ClockMark(time.time(), _load_1m(), process_cpu_s(pid))


def clock_facts(start: ClockMark, end: ClockMark) -> ClockFacts:
    """The ``clock`` facts of one cell from the marks at its start and end."""
    cpu = None
    if start.engine_cpu_s is not None and end.engine_cpu_s is not None:
        cpu = round(end.engine_cpu_s - start.engine_cpu_s, 3)
    return ClockFacts(round(start.wall_s, 6), round(end.wall_s, 6), (start.load_1m, end.load_1m), cpu)

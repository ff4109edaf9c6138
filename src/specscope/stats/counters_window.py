"""Which window each series set of two ``/metrics`` scrapes holds, and what the evidence says happened between them.

Rules (issue 35, "Counters per engine window"), over the per-series-set deltas of
:func:`specscope.stats.counters.counters_delta`:

- a set that did not restart holds its **full** window (after - before);
- a set that restarted (a counter went down, or its ``*_created`` moved) holds a **partial** window: its counts since
  the restart (Prometheus ``increase()``: the value after), what ran before the restart inside the window is lost;
- a set gone after the window (**vanished**) or absent before with an unknown start (**unknown_start**) holds none.

The pool (:func:`pool_window`) sums the full windows when there is one, else the partial ones, and says which.

Evidence (:func:`clock_evidence`): the process start time (``process_start_time_seconds``, the Prometheus client's
standard process collector, Unix s) and each series set's ``*_created`` (the largest, Unix s) of both scrapes. One
moved forward: a restart, never swapped files; the process start or every ``*_created`` moved back: the files
were swapped (AFTER was scraped from the earlier process). With no clock that moved there is no evidence either
way (None). A vanished speculative series is named (:func:`vanished_cause`): speculation switched off (generation
still counted), at a restart when the clocks say so; a series set whose every series is gone: the model unloaded or
the engine stopped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from specscope.records import SpecCounters
from specscope.stats.counters import short_series_names, sum_counters

__all__ = ["Clocks", "PoolWindow", "clock_evidence", "engine_window", "pool_window", "vanished_cause"]

Window = Literal["full", "partial", "vanished", "unknown_start"]


@dataclass(frozen=True, slots=True)
class Clocks:
    """What the two scrapes' clocks say: ``moved`` ``forward`` (a restart), ``back`` (swapped files), ``mixed`` or
    None (no clock in both scrapes); ``said``: the evidence in words, e.g. ``process start time moved forward
    (1785538740 -> 1785542340 s); every _created moved forward``."""

    moved: Literal["forward", "back", "mixed"] | None
    said: str


@dataclass(frozen=True, slots=True)
class PoolWindow:
    """The pooled delta, the window it holds (``full``, ``partial`` or ``none``) and the series sets it sums."""

    delta: SpecCounters
    window: Literal["full", "partial", "none"]
    engines: tuple[str, ...]


def engine_window(name: str, d: SpecCounters, delta: SpecCounters) -> Window:
    """The window one series set ``name`` (its delta ``d``) holds in ``delta`` (rules in the module doc)."""
    if name in delta.vanished_engines:
        return "vanished"
    if name in delta.unknown_start_engines:
        return "unknown_start"
    return "partial" if d.reset else "full"


def pool_window(delta: SpecCounters) -> PoolWindow:
    """The pooled delta: the full windows' sum (``delta`` itself) when a set holds one, else the partial windows'
    sum (the restarted sets' own post-restart counts; ``delta`` itself for a scrape without named sets)."""
    engines = delta.engines or {"": delta}
    windows = {e: engine_window(e, d, delta) for e, d in engines.items()}
    full = tuple(e for e, w in windows.items() if w == "full")
    if full and not delta.reset:
        return PoolWindow(delta, "full", full)
    partial = tuple(e for e, w in windows.items() if w == "partial")
    if not partial:
        return PoolWindow(delta, "none", ())
    pooled = sum_counters([engines[e] for e in partial]) if delta.engines else delta
    return PoolWindow(pooled, "partial", partial)


def _sets(snap: SpecCounters) -> Mapping[str, SpecCounters]:
    return snap.engines or {"": snap}


def clock_evidence(before: SpecCounters, after: SpecCounters, start_s: tuple[float | None, float | None]) -> Clocks:
    """What the process start times ``start_s`` (before, after; Unix s, None when absent) and the ``*_created``
    times of the series sets in both scrapes say about their order."""
    said: list[str] = []
    moves: set[str] = set()
    b, a = start_s
    if b is not None and a is not None and a != b:
        moves.add("forward" if a > b else "back")
        said.append(f"process start time moved {'forward' if a > b else 'back'} ({b:.0f} -> {a:.0f} s)")
    sb, sa = _sets(before), _sets(after)
    pairs = [(e, sb[e].created, sa[e].created) for e in sb if e in sa]
    timed = [(e, x, y) for e, x, y in pairs if x is not None and y is not None]
    for way, sign in (("forward", 1.0), ("back", -1.0)):
        moved = [e for e, x, y in timed if (y - x) * sign > 0]
        every = bool(moved) and len(moved) == len(pairs)
        if moved and (way == "forward" or every):  # swapped files move every clock back; a restart moves one on
            moves.add(way)
        if moved:
            short = short_series_names(set(sb) | set(sa))  # the names the delta gives them
            who = "every _created" if every else "_created of " + ", ".join(short[e] or "the server" for e in moved)
            said.append(f"{who} moved {way}")
    moved_way: Literal["forward", "back", "mixed"] | None = None
    if len(moves) > 1:
        moved_way = "mixed"
    elif moves:
        moved_way = "forward" if "forward" in moves else "back"
    return Clocks(moved_way, "; ".join(said))


def vanished_cause(before: SpecCounters, after: SpecCounters, delta: SpecCounters, clocks: Clocks) -> str | None:
    """What the evidence says made series vanish, or None when none did: ``speculation switched off at a restart
    (...)`` / ``speculation switched off`` (the speculative series gone, generation still counted), and for each set
    whose every series is gone, ``model unloaded or engine stopped (engine 1: every series gone)``."""
    out = []
    if "spec" in before.present and "spec" not in after.present and "generation" in after.present:
        restart = clocks.moved == "forward"
        out.append(
            "speculation switched off"
            + (f" at a restart ({clocks.said})" if restart else "")
            + ": the speculative series are gone after the window, generation is still counted"
        )
    if delta.vanished_engines:
        names = ", ".join(delta.vanished_engines)
        out.append(f"model unloaded or engine stopped ({names}: every series gone after the window)")
    return "; ".join(out) or None

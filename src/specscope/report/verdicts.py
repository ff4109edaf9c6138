"""The comparisons of a bench run, explained: one row per config x workload x N against the baseline.

Each row: rounds paired (nearest in time, :mod:`specscope.stats.pairing`), the speedup with its interval and the
honest name of that interval for its number of rounds, the verdict after the A/A and drift rules
(:mod:`specscope.stats.noise`), and why a ``within noise`` / ``undetermined`` verdict is what it is. Units: the
speedup in x, effects in % (the same in every format).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from specscope.report import units
from specscope.report.document import Alarm, Column, Table, text_cell
from specscope.report.tables import RunCells
from specscope.stats.noise import DriftCheck
from specscope.stats.speedup import Speedup
from specscope.stats.summary import CellSummary

__all__ = ["comparisons", "comparisons_table", "design_note", "drift_notes", "verdict_lines"]


def comparisons(rc: RunCells) -> tuple[list[Speedup], DriftCheck] | None:
    """The judged speedups of a run and its drift check; None without a baseline and another config."""
    return rc.judged  # computed once per run (RunCells.judged): the tables' speedups are the same figures


def comparisons_table(judged: list[Speedup], baseline: str) -> Table:
    """One row per comparison, with its interval's name and the reason for its verdict."""
    rows = [
        [
            text_cell(s.config),
            text_cell(s.workload),
            units.count(s.concurrency),
            units.count(s.repeats),
            units.ratio_ci(s.speedup, s.ci_low, s.ci_high, s.verdict),
            text_cell(s.interval),
            text_cell(s.verdict),
            text_cell(s.why or units.DASH),
        ]
        for s in judged
    ]
    return Table(
        "comparisons",
        f"Comparisons with {baseline} (cells paired nearest in time)",
        [
            Column("config"),
            Column("workload"),
            Column("N", "streams"),
            Column("rounds"),
            Column("speedup", "x"),
            Column("interval"),
            Column("verdict"),
            Column("why"),
        ],
        rows,
        "A win needs an interval above 1.00x and an effect beyond the run's A/A noise floor and its group's drift.",
    )


#: Above this many within-noise (or undetermined) comparisons of one config, its headline line gives their places
#: and the range of their speedups instead of each figure.
GROUP_ABOVE = 4


def _short(s: Speedup) -> str:
    """``prose N=1 1.02x [0.97x, 1.08x]`` (``(1 round)`` in place of an interval that does not exist)."""
    if s.speedup is None:
        return f"{s.workload} N={s.concurrency} {units.DASH}"
    if s.ci_low is None or s.ci_high is None:
        return f"{s.workload} N={s.concurrency} {s.speedup:.2f}x ({s.repeats} round{'s' if s.repeats != 1 else ''})"
    why = " (A/A spread)" if "A/A spread" in s.why else " (drift)" if "drift" in s.why else ""
    return f"{s.workload} N={s.concurrency} {s.speedup:.2f}x [{s.ci_low:.2f}x, {s.ci_high:.2f}x]{why}"


def _grouped(verdict: str, config: str, rows: list[Speedup]) -> str:
    """One headline line for a config's comparisons with one verdict: each one, or their places and range if many."""
    if len(rows) <= GROUP_ABOVE:
        return f"{verdict}: {config} " + "; ".join(_short(s) for s in rows)
    places: dict[str, list[str]] = {}
    for s in rows:
        places.setdefault(s.workload, []).append(str(s.concurrency))
    where = "; ".join(f"{w} N={','.join(ns)}" for w, ns in places.items())
    xs = [s.speedup for s in rows if s.speedup is not None]
    spread = f", {min(xs):.2f}x to {max(xs):.2f}x" if xs else ""
    return f"{verdict}: {config} on {len(rows)} comparisons ({where}){spread}"


def verdict_lines(judged: list[Speedup]) -> list[str]:
    """The headline: one line per win, loss and A/A control (the same text as the table), then per config one line
    for its ``within noise`` comparisons and one for its ``undetermined`` ones, so that it answers for every
    comparison (e.g. ``within noise: ngram prose N=1 1.02x [0.97x, 1.08x]``; see the comparisons table for why)."""
    out = []
    rest: dict[tuple[str, str], list[Speedup]] = {}
    for s in judged:
        if s.verdict in ("wins", "loses") or s.why.startswith("A/A"):
            cell = units.ratio_ci(s.speedup, s.ci_low, s.ci_high, s.verdict)
            tail = f" ({s.why})" if s.why else ""
            out.append(f"{s.config} on {s.workload} at N={s.concurrency}: {cell.text}{tail}")
        else:
            rest.setdefault((s.verdict, s.config), []).append(s)
    for verdict in ("within noise", "undetermined"):
        out += [_grouped(verdict, cfg, rows) for (v, cfg), rows in rest.items() if v == verdict]
    return out


def drift_notes(judged: list[Speedup], drift: DriftCheck, baseline: str) -> tuple[list[str], list[Alarm]]:
    """A note with the run's drift, and an alarm when the drift is as large as an effect the run reports."""
    if drift.drift is None or drift.group is None:
        return [], []
    w, n = drift.group
    note = (
        f"drift: baseline tok/s moved {drift.drift * 100:.1f} % between the early and the late half of the run "
        f"(largest on {w} at N={n}; {drift.cells} baseline-side cells)"
    )
    # the effects the run would report: wins and losses, and those the drift rule has just overruled
    effects = [
        abs(s.gain) for s in judged if s.gain is not None and (s.verdict in ("wins", "loses") or "drift" in s.why)
    ]
    if effects and drift.drift >= min(effects):
        alarm = Alarm(
            "DRIFT",
            baseline,
            None,
            note + ", as large as an effect this run reports",
            "the machine's load or state changed during the run",
            ("the cells' started_at_s and load_avg_1m in the JSON report", "re-run on a quieter machine"),
        )
        return [note], [alarm]
    return [note], []


def design_note(cells: Sequence[CellSummary], options: Mapping[str, Any]) -> list[str]:
    """For an adaptive run (``target_ci`` in the options): the rounds each comparison got and the cell time spent
    against the fixed design's estimate (every cell ``max_repeats`` rounds, at each config's mean time per cell)."""
    if not options.get("target_ci"):
        return []
    timed = [c for c in cells if c.started_at_s is not None and c.ended_at_s is not None]
    spent_s = sum((c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in timed)
    per_config: dict[str, list[float]] = {}
    for c in timed:
        per_config.setdefault(c.config, []).append((c.ended_at_s or 0.0) - (c.started_at_s or 0.0))
    groups = {(c.config, c.workload, c.concurrency) for c in cells}
    fixed_s = sum(int(options.get("max_repeats") or 0) * float(np.mean(per_config.get(g[0]) or [0.0])) for g in groups)
    rounds = sorted({(g, sum(1 for c in cells if (c.config, c.workload, c.concurrency) == g)) for g in groups})
    listing = ", ".join(f"{g[0]}/{g[1]}/N={g[2]}: {n}" for g, n in rounds)
    return [
        f"adaptive repeats (target {float(options['target_ci']) * 100:.1f} %): {len(cells)} cells, {spent_s:.1f} s of "
        f"cell time; the fixed design ({options.get('max_repeats')} rounds of every cell) would take about "
        f"{fixed_s:.1f} s. Rounds per cell: {listing}"
    ]

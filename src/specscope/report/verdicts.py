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
            Column("rounds", "rounds"),
            Column("speedup", "x"),
            Column("interval"),
            Column("verdict"),
            Column("why"),
        ],
        rows,
        "A win needs an interval above 1.00x and an effect larger than the A/A spread and the run's drift.",
    )


def verdict_lines(judged: list[Speedup]) -> list[str]:
    """One line per comparison (wins and losses, and the A/A control), with the same text as the table."""
    out = []
    for s in judged:
        if s.verdict in ("wins", "loses") or s.why.startswith("A/A"):
            cell = units.ratio_ci(s.speedup, s.ci_low, s.ci_high, s.verdict)
            tail = f" ({s.why})" if s.why else ""
            out.append(f"{s.config} on {s.workload} at N={s.concurrency}: {cell.text}{tail}")
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

"""The speedup-by-k table of a run that swept the draft length (``bench --k``, issue 16; seed 003's shape).

Configs named ``NAME-kK`` (:mod:`specscope.kaxis`) are grouped by ``NAME``; per workload and concurrency the
table gives each k's paired speedup over the baseline (ratio of mean output tok/s over the rounds, paired bootstrap
interval, verdict after the A/A and drift rules: the same figures as the speedup table,
:func:`specscope.stats.noise.judged_speedups`) and marks the best k; a k with no
round paired with an ok baseline round shows no speedup and 0 rounds.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.kaxis import split_k_name
from specscope.report import units
from specscope.report.document import Column, Table, text_cell
from specscope.stats.noise import judged_speedups
from specscope.stats.speedup import Speedup
from specscope.stats.summary import CellSummary

__all__ = ["k_table", "best_k"]


def _k_speedups(
    cells: Sequence[CellSummary], baseline: str, speedups: Sequence[Speedup] | None = None
) -> list[tuple[str, int, str, int, Speedup | None]]:
    """(method, k, workload, N, speedup or None) of every config on the k axis, one per workload and N it ran;
    None when no round pairs with the baseline (degraded or missing cells). Configs not named ``NAME-kK`` are
    left out. ``speedups``: the run's judged speedups (``RunCells.judged``, the report's one source of them);
    computed here (:func:`specscope.stats.noise.judged_speedups`) when not given."""
    groups = sorted({(c.config, c.workload, c.concurrency) for c in cells if split_k_name(c.config)[1] is not None})
    if speedups is None and groups and baseline in {c.config for c in cells}:
        speedups = judged_speedups(cells, baseline)[0]
    found = {(s.config, s.workload, s.concurrency): s for s in speedups or ()}
    out = []
    for config, workload, level in groups:
        method, k = split_k_name(config)
        out.append((method, k or 0, workload, level, found.get((config, workload, level))))
    return out


def best_k(rows: Sequence[tuple[str, int, str, int, Speedup | None]]) -> dict[tuple[str, str, int], int]:
    """(method, workload, concurrency) -> the k with the highest speedup (the smaller k on a tie)."""
    best: dict[tuple[str, str, int], tuple[float, int]] = {}
    for method, k, workload, level, s in rows:
        if s is None or s.speedup is None:
            continue
        key = (method, workload, level)
        if key not in best or (s.speedup, -k) > (best[key][0], -best[key][1]):
            best[key] = (s.speedup, k)
    return {key: k for key, (_, k) in best.items()}


def k_table(cells: Sequence[CellSummary], baseline: str, speedups: Sequence[Speedup] | None = None) -> list[Table]:
    """``[Table]`` of speedup by k, or ``[]`` when the run has no ``NAME-kK`` config (``speedups``: the run's
    judged speedups, so that this table shows the figures and verdicts of the speedup table)."""
    rows = _k_speedups(cells, baseline, speedups)
    if not rows:
        return []
    best = best_k(rows)
    rows.sort(key=lambda r: (r[2], r[3], r[0], r[1]))
    table_rows = []
    for method, k, workload, level, s in rows:
        mark = "best" if best.get((method, workload, level)) == k else ""
        speed = units.ratio_ci(s.speedup, s.ci_low, s.ci_high, s.verdict) if s is not None else units.missing()
        table_rows.append(
            [
                text_cell(workload),
                units.count(level),
                text_cell(method),
                units.count(k),
                speed,
                units.count(s.repeats if s is not None else 0),
                text_cell(mark),
            ]
        )
    columns = [
        Column("workload"),
        Column("N", "streams"),
        Column("method"),
        Column("k", "tokens"),
        Column(f"speedup vs {baseline}", "x"),
        Column("rounds"),
        Column("best k"),
    ]
    note = (
        "Speedup: ratio of mean output tok/s over paired rounds with its 95 % paired bootstrap interval; "
        "best k: the highest speedup per workload, N and method."
    )
    return [Table("speedup-by-k", "Speedup by draft length k", columns, table_rows, note)]

"""The "Crash trials" table: each server crash, its confirming trials on fresh servers and the levels not run.

Read from the run manifest's ``crash_trials`` (:mod:`specscope.bench.crash_trials`); the cells' statuses give the
highest stable level (the highest level below the crash at which that config's server answered every cell).
Trials are never cells, so nothing here enters an average.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from specscope.report import units
from specscope.report.document import Column, Table, text_cell
from specscope.stats.summary import CellSummary
from specscope.store.manifest import CrashRecord, RunManifest

__all__ = ["crash_lines", "crash_trials_table", "stable_levels"]


def _stable(cells: Sequence[CellSummary], config: str, level: int) -> int | None:
    """The highest level below ``level`` at which the server of ``config`` survived and answered every stored cell
    (``ok`` or ``degraded``: a flag such as a busy client is not instability; ``failed`` or ``server_crash`` is);
    None if none."""
    levels = {c.concurrency for c in cells if c.config == config and c.concurrency < level}
    mine = [c for c in cells if c.config == config]
    stable = [n for n in levels if all(c.status in ("ok", "degraded") for c in mine if c.concurrency == n)]
    return max(stable) if stable else None


def _stable_part(cells: Sequence[CellSummary], config: str, level: int) -> str:
    """``highest stable N=2 (1 cell, every one answered)``: the stable level and how many cells measured it (all
    answered: the rule of :func:`_stable`); ``highest stable N=— (no level below N=4 was answered in every cell)``."""
    stable = _stable(cells, config, level)
    if stable is None:
        return f"highest stable N={units.DASH} (no level below N={level} was answered in every cell)"
    n = sum(1 for c in cells if c.config == config and c.concurrency == stable)
    return f"highest stable N={stable} ({n} cell{'s' * (n != 1)}, every one answered)"


def stable_levels(cells: Sequence[CellSummary]) -> dict[str, int]:
    """Config -> the highest level at which every stored cell of it was measured (``ok`` / ``degraded``), for the
    configs that have one: what a failure signature's fix names as the level the run showed stable."""
    out: dict[str, int] = {}
    for config in {c.config for c in cells}:
        level = _stable(cells, config, 1 << 62)
        if level is not None:
            out[config] = level
    return out


def _not_run(record: CrashRecord) -> str:
    items = record.levels_not_run
    return ", ".join(f"{x.level} ({x.cells} cell{'s' * (x.cells != 1)}: {x.why})" for x in items) or "none"


def crash_lines(manifest: RunManifest, cells: Sequence[CellSummary]) -> list[str]:
    """One line per crash: ``CONFIG/WORKLOAD: crashed at N=4 in 3 of 3 trials; highest stable N=2 (1 cell, every
    one answered); levels not run: ...``: the trials the crash level got, the cells that measured the stable one."""
    out = []
    for config, records in (manifest.crash_trials or {}).items():
        for r in records:
            level = r.level
            head = f"{config}/{r.workload}: crashed at N={level}"
            head += f" in {r.crashed_in} of {r.of} trials" if r.of else " (not retried)"
            head += "; " + _stable_part(cells, config, level)
            out.append(f"{head}; levels not run: {_not_run(r)}; {r.note}.")
    return out


def _stats(stats: Mapping[str, Any] | None) -> str:
    if not stats:
        return units.DASH
    parts = []
    if "running" in stats:
        parts.append(f"running {stats['running']:g}, waiting {stats['waiting']:g}")
    log = stats.get("log") or {}
    if log.get("kv_cache_usage_percent") is not None:
        parts.append(f"log: running {log.get('running_reqs')}, KV cache {log['kv_cache_usage_percent']:g} %")
    return "; ".join(parts) or units.DASH


def crash_trials_table(manifest: RunManifest, cells: Sequence[CellSummary]) -> list[Table]:
    """The table (a list of one, or empty when the run had no crash)."""
    rows = []
    for config, records in (manifest.crash_trials or {}).items():
        for r in records:
            for t in r.trials:
                if t.error is not None:
                    result, requests = f"did not run: {t.error}", units.DASH
                else:
                    result = "server died" if t.crashed else "survived"
                    requests = f"{t.ok} / {t.failed} / {t.not_sent} of {t.planned}"
                rows.append(
                    [text_cell(config), units.count(r.level), units.count(t.trial), text_cell(result)]
                    + [text_cell(requests), text_cell(_stats(t.last_engine_stats)), text_cell(t.log)]
                )
    lines = crash_lines(manifest, cells)
    if not lines:
        return []
    cols = [Column("config"), Column("N", "streams"), Column("trial"), Column("result")]
    cols += [Column("requests ok / failed / not sent"), Column("last engine stats"), Column("log")]
    note = " ".join(lines) + " Trials run on freshly started servers and never enter an average."
    return [Table("crash_trials", "Crash trials", cols, rows, note)]

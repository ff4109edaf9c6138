"""How a finished bench run went, for its exit code: the configs that produced no figures.

``specscope bench`` exits 1 (the command ran and found a problem) when any config of the run has no cell with
figures (every cell ``failed`` or ``server_crash``): the comparison the run was made for cannot be read. A
``degraded`` cell has figures, flagged with its reasons (e.g. ``CLIENT_LIMITED`` on a loaded machine), so a config
of degraded cells does not fail the run; nor do a few failed cells of a config that also has cells with figures:
exit 0, the reasons are in the report's "Cells not ok".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from specscope.stats.cells import summarize_run
from specscope.stats.groups import level_axis
from specscope.stats.summary import CellSummary
from specscope.store import open_run

__all__ = ["FailedConfig", "WITH_FIGURES", "configs_without_ok_cell", "failed_configs_line"]

#: Cell statuses whose figures the report shows (a degraded cell with its reasons).
WITH_FIGURES = ("ok", "degraded")


@dataclass(frozen=True, slots=True)
class FailedConfig:
    """A config of a run with no cell with figures.

    Attributes:
        config: the config's name (controls such as ``base-again`` included).
        cells: its stored cells (0: planned, none measured).
        first: the first of its cells in the report's order (workload, N, repeat) with status and reasons,
            e.g. ``prose/N=1/r0 failed: STREAM_DEGRADED(failed:http 503)``; ``no cell was measured`` when none.
    """

    config: str
    cells: int
    first: str


def configs_without_ok_cell(run_dir: Path) -> list[FailedConfig]:
    """The configs of the run at ``run_dir`` that have no cell with figures (ok or degraded), in the order of the
    run's cells; planned configs (manifest ``options.configs``) with no stored cell are listed too.

    Raises:
        StoreError: ``run_dir`` is not a run folder.
    """
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        planned = (run.manifest.get("options") or {}).get("configs") or []
    by_config: dict[str, list[CellSummary]] = {str(name): [] for name in planned}
    for c in cells:
        by_config.setdefault(c.config, []).append(c)
    out = []
    axis = level_axis(cells)
    for config, cs in by_config.items():
        if any(c.status in WITH_FIGURES for c in cs):
            continue
        if not cs:
            out.append(FailedConfig(config, 0, "no cell was measured"))
            continue
        c = cs[0]
        why = "; ".join(c.reasons) or "no reason recorded"
        out.append(
            FailedConfig(
                config, len(cs), f"{c.workload} {axis.label(c.concurrency)} round {c.repeat} {c.status}: {why}"
            )
        )
    return out


def failed_configs_line(failed: list[FailedConfig], run_dir: Path) -> str:
    """One line for stderr naming each config with no cell with figures, its first failure, and what to do."""
    names = ", ".join(f.config for f in failed)
    what = "; ".join(f"{f.config}: 0 of {f.cells} cells ok or degraded, first {f.first}" for f in failed)
    return (
        f"no cell with figures for config {names} ({what}); the run folder and report are written: {run_dir}; "
        f"fix: check that config's server, then: specscope bench --resume {run_dir} --retry-failed"
    )

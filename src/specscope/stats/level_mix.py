"""Where ``advise`` takes its cells from: a run folder or a CSV of cells measured elsewhere.

(The level-mix arithmetic is :mod:`specscope.stats.mix`, its picks :mod:`specscope.stats.choices`.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from specscope.errors import ConfigError
from specscope.facts import RunFacts

__all__ = ["level_mix_input"]


def level_mix_input(
    run: Path | None, from_csv: Path | None, open_run: Callable[[Path], Any]
) -> tuple[list[Any], RunFacts, Mapping[str, Any], list[str]]:
    """The cells, server facts, manifest and notes ``advise`` works on: a run folder (opened with ``open_run``; no
    notes) or a CSV (no facts, no manifest; notes on how its header was read,
    :func:`specscope.stats.csv_cells.read_cells_csv_noted`).

    Raises:
        ConfigError: neither or both given.
    """
    if from_csv is not None and run is None:
        from specscope.stats.csv_cells import read_cells_csv_noted

        cells, notes = read_cells_csv_noted(from_csv)
        return cells, RunFacts(), {}, notes
    if run is not None and from_csv is None:
        from specscope.stats.cells import summarize_run

        with open_run(run) as r:
            return summarize_run(r), r.server_facts, r.manifest, []
    raise ConfigError(
        "advise needs one source of cells",
        found="both a RUN and --from-csv" if run is not None else "no RUN and no --from-csv",
        expected="a run folder, or --from-csv FILE",
        fix="e.g. specscope advise runs/run-1 --level-mix 1=0.6,4=0.4, or advise --from-csv results.csv",
    )

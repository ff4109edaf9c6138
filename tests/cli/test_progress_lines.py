"""One line per finished cell when stderr is a log file, with an ETA weighted by each config's time per cell."""

from __future__ import annotations

import io

from rich.console import Console

from specscope.bench.runner import BenchProgress
from specscope.cli.progress import EtaModel, format_hms, progress
from specscope.records import CellKey
from specscope.stats.summary import CellSummary


def cell(config: str, tok_s: float | None, status: str = "ok") -> CellSummary:
    return CellSummary(
        config, "prose", 1, 0, status, (), 1, 1, 48, "usage", 1.0, tok_s, (), None, None, None, None, None, None,
        (), None, None, None,
    )  # fmt: skip


def test_eta_weighs_cells_left_by_the_measured_time_per_cell_of_each_config():
    eta = EtaModel()
    assert eta.eta_s({"base": 3}) is None
    eta.add("base", 10.0)
    eta.add("draft", 40.0)
    eta.add("draft", 20.0)
    # base 10 s a cell, draft 30 s a cell, ngram unmeasured: the mean over all cells, (10 + 40 + 20) / 3
    assert eta.eta_s({"base": 2, "draft": 1, "ngram": 3}) == 2 * 10.0 + 30.0 + 3 * 70.0 / 3
    assert format_hms(3725.4) == "1:02:05" and format_hms(None) == "?"


def test_a_log_gets_one_plain_line_per_cell():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, width=200)
    events = [
        BenchProgress(
            1, 4, CellKey("base", "prose", 1, 0), cell("base", 41.25), 100, 12.0, 12.0, {"base": 1, "draft": 2}
        ),
        BenchProgress(
            2,
            4,
            CellKey("draft", "prose", 1, 0),
            cell("draft", None, "failed"),
            100,
            42.0,
            30.0,
            {"base": 1, "draft": 1},
        ),
    ]
    with progress(console) as on_cell:
        for e in events:
            on_cell(e)
    assert buf.getvalue().splitlines() == [
        "[1/4] base/prose/c1/r0 ok 41.2 tok/s elapsed 0:00:12 ETA 0:00:36",
        "[2/4] draft/prose/c1/r0 failed - elapsed 0:00:42 ETA 0:00:42",
    ]

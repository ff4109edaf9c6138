"""One line per finished cell when stderr is a log file, with an ETA weighted by each config's time per cell."""

from __future__ import annotations

import io
import re

import pytest
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


def test_a_rate_cell_is_named_by_its_rate_and_a_trace_cell_as_a_replay():
    from specscope.bench.openloop_cell import cell_label
    from specscope.config import BenchOptions

    key = CellKey("base", "prose", 2, 0)
    assert cell_label(BenchOptions(levels=(1, 2)), key) == "base/prose/c2/r0"
    assert cell_label(BenchOptions(rates=(0.5, 4.0)), key) == "base/prose/4req/s/r0"  # level 2 = the second rate
    assert cell_label(BenchOptions(rates=(0.5, 4.0)), CellKey("base", "prose", 1, 3)) == "base/prose/0.5req/s/r3"
    assert cell_label(BenchOptions(trace="/t.jsonl"), CellKey("base", "trace", 1, 0)) == "base/trace/replay/r0"
    buf = io.StringIO()
    with progress(Console(file=buf, force_terminal=False, width=200)) as on_cell:
        on_cell(BenchProgress(1, 2, key, cell("base", 40.0), 48, 1.0, 1.0, {"base": 1}, "base/prose/4req/s/r0"))
    assert buf.getvalue().startswith("[1/2] base/prose/4req/s/r0 ok 40.0 tok/s")


@pytest.mark.integration
def test_a_rate_run_reports_its_cells_by_rate_and_names_the_run_folder_once(tmp_path, capsys, monkeypatch):
    """A real rate run (truth server, 8 req/s for the cell's 8 s window) through the CLI: each progress line names
    the rate, and the run folder is printed once (at the start; the report that follows names it too)."""
    from clirun import cli
    from specscope.truth import TruthScript, TruthServer

    with TruthServer(TruthScript()) as ts:
        argv = ["bench", "--server", f"base={ts.base_url}", "--request-rate", "8", "--workloads", "prose"]
        argv += ["--repeats", "1", "--max-tokens", "4", "--out", tmp_path, "-f", "json", "-o", tmp_path / "r.json"]
        code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    run = next(tmp_path.glob("run-*"))
    assert err.count("run folder: ") == 1 and err.startswith(f"run folder: {run}\n")
    # the cell's name is the point; its status may be degraded (CLIENT_LIMITED) on a loaded machine
    assert re.search(r"^\[1/1\] base/prose/8req/s/r0 (ok|degraded) ", err, re.M) and "/c1/" not in err, err

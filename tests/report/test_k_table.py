"""The speedup-by-k table (issue 16): configs NAME-kK grouped by NAME, best k marked, exact figures."""

from __future__ import annotations

from pathlib import Path

from factmaker import cell_facts
from specscope.report.build import load_run_report
from specscope.report.k_tables import k_table
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import judge
from specscope.store import create_run, open_run


def _k_table(cells):
    """The k table of a run as report builds it: from the run's one judgement."""
    return k_table(cells, "base", None, judge(cells, "base"))


# output tok/s per config, the same in both repeats
TOK_S = {"base": 10.0, "draft-k1": 12.0, "draft-k2": 15.0, "draft-k4": 13.0}


def _run(tmp_path: Path) -> Path:
    run = create_run(tmp_path / "run", {"kind": "bench", "engine": "embedded"})
    for cfg, tok_s in TOK_S.items():
        for rep in range(2):
            run.save_cell(cell_facts(cfg, "edit", 1, rep, tok_s))
    run.close()
    return tmp_path / "run"


def test_speedup_by_k_rows_and_best_k(tmp_path):
    with open_run(_run(tmp_path)) as run:
        cells = summarize_run(run)
    (table,) = k_table(cells, "base", None, judge(cells, "base"))
    assert table.headers == [
        "workload",
        "N (streams)",
        "method",
        "k (tokens)",
        "speedup vs base (x)",
        "rounds",
        "best k",
    ]
    assert [[c.text for c in row] for row in table.cells] == [
        ["edit", "1", "draft", "1", "1.20x [1.20x, 1.20x] faster", "2", ""],
        ["edit", "1", "draft", "2", "1.50x [1.50x, 1.50x] faster", "2", "best"],
        ["edit", "1", "draft", "4", "1.30x [1.30x, 1.30x] faster", "2", ""],
    ]


def test_runs_without_a_k_axis_have_no_k_table(tmp_path):
    run = create_run(tmp_path / "plain", {"kind": "bench", "engine": "embedded"})
    for cfg in ("base", "draft"):
        run.save_cell(cell_facts(cfg, "edit", 1, 0, 10.0))
    run.close()
    with open_run(tmp_path / "plain") as opened:
        assert _k_table(summarize_run(opened)) == []


def test_the_report_carries_the_k_table(tmp_path):
    report = load_run_report(_run(tmp_path))
    assert "speedup-by-k" in [t.key for t in report.tables]


def test_a_k_without_an_ok_round_still_has_its_row(tmp_path):
    run = create_run(tmp_path / "degraded", {"kind": "bench", "engine": "embedded"})
    run.save_cell(cell_facts("base", "edit", 1, 0, 10.0))
    run.save_cell(cell_facts("draft-k1", "edit", 1, 0, 12.0))
    run.save_cell(cell_facts("draft-k2", "edit", 1, 0, 15.0, reasons=("CLIENT_LIMITED(loop lag)",)))
    run.close()
    with open_run(tmp_path / "degraded") as opened:
        (table,) = _k_table(summarize_run(opened))
    assert [[c.text for c in row] for row in table.cells] == [
        ["edit", "1", "draft", "1", "1.20x (undetermined)", "1", "best"],
        ["edit", "1", "draft", "2", "—", "0", ""],
    ]

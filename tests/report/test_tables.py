"""Report tables from hand-made cell summaries: exact display values."""

import math

from cellsummary import counters_of
from specscope.report.document import Document, Section
from specscope.report.render import markdown_document
from specscope.report.tables import bench_tables
from specscope.stats.summary import CellSummary


def cell(config, workload, n, r, tok_s, status="ok", acc=None, streams=(1.0, 2.0), ttft=0.1, achieved=None, reasons=()):
    counters = None
    src = None
    if acc is not None:
        counters = counters_of({"drafts": acc[0], "draft_tokens": acc[1], "accepted_tokens": acc[2]})
        src = "counter_delta"
    return CellSummary(
        config,
        workload,
        n,
        r,
        status,
        tuple(reasons),
        n,
        n,
        100,
        "usage",
        1.0,
        tok_s,
        tuple(streams),
        ttft,
        ttft,
        0.01,
        achieved if achieved is not None else float(n),
        None,
        None,
        (),
        src,
        counters,
        100.0,
    )


def test_tables_exact():
    cells = [
        cell("base", "edit", 1, 0, 10.0),
        cell("base", "edit", 1, 1, 12.0),
        cell("ngram", "edit", 1, 0, 20.0, acc=(10, 40, 30)),
        cell("ngram", "edit", 1, 1, 24.0, acc=(10, 40, 10)),
        cell("ngram", "edit", 1, 2, 999.0, status="degraded", acc=(1, 1, 1), reasons=("COUNTER_RESET",)),
    ]
    t = {x.key: x for x in bench_tables(cells)}
    # pooled acceptance over ok cells: 40 / 80 = 0.5; length 1 + 40 / 20 = 3.0; it rests on 20 rounds (< 50)
    assert t["acceptance"].rows == [["ngram", "50.0% (len 3.00; 20 verify steps, 80 drafted; few verify steps)"]]
    assert t["acceptance"].cells[0][1].value == 0.5
    # per N: the same pool, as there is one level
    assert t["acceptance_by_n"].headers == ["N (streams)", "ngram edit (%)"]
    assert t["acceptance_by_n"].rows == [["1", "50.0% (20 verify steps, 80 drafted; few verify steps)"]]
    # mean tok/s 11.0 vs 22.0 -> 2.00x, the degraded 999 is not averaged in
    assert t["throughput:edit"].headers == ["N (streams)", "base (tok/s)", "ngram (tok/s)", "ngram vs base (x)"]
    assert t["throughput:edit"].rows == [["1", "11.0", "22.0", "2.00x"]]
    assert t["stream_spread"].rows == [["edit", "1.00 / 1.05 / 1.50 / 1.95 / 2.00", "1.00 / 1.05 / 1.50 / 1.95 / 2.00"]]
    # the degraded cell stays beside the mean of the ok ones, marked and left out of it by name (issue 35)
    assert t["concurrency"].rows == [
        ["base", "edit", "1.00 / 1"],
        ["ngram", "edit", "1.00 / 1; left out: round 2 degraded 1.00 / 1"],
    ]
    assert t["ttft"].rows == [["edit", "1", "0.100 s", "0.100 s"]]
    # CV of (10, 12): sd 1.41421 / mean 11 = 12.9 %
    assert t["cv"].rows[0] == ["base", "edit", "12.9%"]
    assert t["not_ok"].rows == [["ngram", "edit", "1", "2", "degraded", "1.00 / 1", "—", "COUNTER_RESET"]]
    md = markdown_document(Document("x", [Section("s", "s", list(t.values()))]))
    assert "| 1 | 11.0 | 22.0 | 2.00x |" in md


def test_speedup_table_and_zero_drafts():
    cells = [
        cell("base", "edit", 1, 0, 10.0),
        cell("base", "edit", 1, 1, 12.0),
        cell("ngram", "edit", 1, 0, 20.0, acc=(0, 0, 0)),
        cell("ngram", "edit", 1, 1, 30.0, acc=(0, 0, 0)),
    ]
    t = {x.key: x for x in bench_tables(cells)}
    # ngram never drafted (its counters say 0; the name says n-gram): said plainly instead of an empty row, and its
    # verdict says it
    assert t["acceptance"].rows == [["ngram", "0 drafts (not engaged)"]]
    # geometric mean of the per-round ratios 2.0 and 2.5; their t-interval on 2 rounds is wide: [0.52x, 9.6x]
    lo, hi = math.log(2.0), math.log(2.5)
    half = math.tan(math.pi * 0.475) * (hi - lo) / 2
    ci = f"[{math.exp((lo + hi) / 2 - half):.2f}x, {math.exp((lo + hi) / 2 + half):.2f}x]"
    assert t["speedup"].rows == [["edit", "1", f"2.24x {ci} not engaged"]]
    assert "t-interval on the log of the paired per-round ratios" in t["speedup"].note


def test_empty_run_is_not_called_ok():
    t = {x.key: x for x in bench_tables([])}
    assert t["not_ok"].title == "No cells" and "no finished cell" in t["not_ok"].note

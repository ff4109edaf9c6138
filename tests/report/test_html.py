"""The self-contained HTML page: content checks on a real run folder, and headless Chromium rendering."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import show
from cells import summary as _summary

from factmaker import cell_facts
from serverfacts import manifest
from specscope.report.build import run_data
from specscope.report.html import RunView, render_html, write_html
from specscope.stats.summary import CellSummary
from specscope.store import create_run, open_run

ALL_CHARTS = {"throughput", "speedup_heatmap", "acceptance", "positions", "stream_bands", "ttft", "achieved"}


def _cells() -> list[CellSummary]:
    """base and a k=2 draft on prose and edit at 1 and 4 streams, 3 rounds; a C16-like client-limited cell."""
    out = []
    for wl, speed, acc in (("prose", 1.1, (60.0, 30.0)), ("edit", 2.0, (95.0, 90.0))):
        for conc in (1, 4):
            for r in range(3):
                drift = 1 + 0.01 * (r - 1)
                out.append(_summary("base", wl, conc, r, 10.0 * conc * drift))
                counters = {
                    "drafts": 100.0,
                    "draft_tokens": 200.0,
                    "accepted_tokens": sum(acc),
                    "accepted_per_position": list(acc),
                }
                out.append(_summary("draft", wl, conc, r, 10.0 * conc * speed / drift, counters=counters))
    # C16: target 4 but the client only ever had 3 in flight; flagged degraded with the reason
    out.append(
        _summary("base", "prose", 4, 3, 30.0, achieved_concurrency=3.0, status="degraded", reasons=("CLIENT_LIMITED",))
    )
    return out


def _store_run(tmp_path: Path, name: str, cells: list[CellSummary]) -> Path:
    run = create_run(tmp_path / name, {"kind": "bench", "engine": "embedded", "model_bytes": 270_000_000})
    for c in cells:  # the store keeps facts: streams and scrapes that derive to the same figures
        counters = c.counters.to_dict() if c.counters else None
        run.save_cell(
            cell_facts(
                c.config,
                c.workload,
                c.concurrency,
                c.repeat,
                c.output_tok_s,
                ttft_s=c.ttft_p50_s or 0.1,
                counters=counters,
                reasons=tuple(c.reasons),
            )
        )
    run.save_server_facts("draft", {"k": 2, "draft_bytes": 40_000_000, "kv_cache_tokens": 16384})
    run.close()
    return tmp_path / name


def test_page_has_tables_facts_degraded_cells_and_no_network_resources(tmp_path):
    path = _store_run(tmp_path, "run-a", _cells())
    with open_run(path) as run:
        page = render_html([run_data(run)])
    assert page.startswith("<!DOCTYPE html>")
    # the degraded C16 round (3 of 4 streams) is not averaged into achieved concurrency, TTFT or tok/s
    assert "<td>4.00 / 4</td>" in page and "3.75" not in page
    assert "CLIENT_LIMITED" in page and "degraded" in page
    # server facts are a table (k = 2 for the draft config), not a JSON dump
    assert '<table class="server_facts">' in page
    # the unread key is named once, in the note (issue 37), not shown as a fact
    assert page.count("kv_cache_tokens") == 1 and "server facts of draft: &#x27;kv_cache_tokens&#x27; not read" in page
    assert "model_bytes" in page  # the manifest stays available, folded
    # edit, 1 stream: base rounds 9.9 / 10 / 10.1, draft 20/0.99 / 20 / 20/1.01 -> per-round ratios 2.0406, 2.0,
    # 1.9606, geometric mean 2.000133 -> 2.00x, faster (the verdict is the cell's class, set where it was built)
    assert re.search(
        r'<td class="l">edit</td><td>1</td><td class="faster">2\.00x \[1\.\d\dx, 2\.\d\dx\] faster</td>', page
    )
    assert re.search(r'<td class="l">prose</td><td>1</td><td class="faster">1\.10x \[', page)
    # run, acceptance, acceptance by N, acceptance per position, throughput per workload (2), speedup, per-stream
    # spread, TTFT, concurrency, CV, cells not ok, comparisons, picks, candidates, aggregate / decode rates,
    # servers (no comparison of runs for one run)
    assert page.count("<table") == 17
    assert "LENGTH_IDENTITY" not in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "<script" not in page
    for chart in ALL_CHARTS:
        assert f'data-chart="{chart}"' in page


def test_several_runs_are_compared_and_written_atomically(tmp_path):
    a = RunView("spark-1", manifest(), _cells())
    faster = [
        _summary(c.config, c.workload, c.concurrency, c.repeat, c.output_tok_s * 1.1, counters=c.counters)
        for c in _cells()
        if c.status == "ok"
    ]
    b = RunView("spark-2", manifest(), faster)
    out = write_html(tmp_path / "out" / "report.html", [a, b])
    page = out.read_text(encoding="utf-8")
    assert "<h2>Comparison</h2>" in page
    assert "spark-2 (tok/s)" in page and "<td>1.10x</td>" in page
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]  # no temp file left behind


def test_identity_violation_is_shown(tmp_path):
    bad = {"drafts": 100.0, "draft_tokens": 200.0, "accepted_tokens": 150.0, "accepted_per_position": [60.0, 30.0]}
    cells = [_summary("base", "prose", 1, 0, 10.0), _summary("draft", "prose", 1, 0, 12.0, counters=bad)]
    page = render_html([RunView("x", manifest(), cells)])
    assert "LENGTH_IDENTITY: acceptance length 2.500 != 1 + sum of per-position rates 1.900" in page


def test_without_matplotlib_the_page_says_how_to_get_charts(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    page = render_html([RunView("x", manifest(), _cells())])
    assert "charts need matplotlib: pip install &#x27;specscope[charts]&#x27;" in page
    assert "<img" not in page
    assert "<td>1.00 / 1</td>" in page


@pytest.mark.browser
def test_page_renders_in_headless_chromium(tmp_path):
    path = _store_run(tmp_path, "run-a", _cells())
    with open_run(path) as run:
        page_path = write_html(tmp_path / "report.html", [run_data(run), RunView("run-b", manifest(), _cells())])
    shown = show(page_path, tmp_path)
    assert shown.errors == []
    assert [u for u in shown.requests if not u.startswith("file://") and not u.startswith("data:")] == []
    assert len(shown.images) == 2 * len(ALL_CHARTS)
    assert {name for name, *_ in shown.images} == ALL_CHARTS
    assert all(complete and w > 100 and h > 100 for _, complete, w, h in shown.images), shown.images
    classes = [c for c, _ in shown.tables]
    assert classes.count("throughput") == 4 and classes.count("speedup") == 2 and classes.count("acceptance") == 2
    assert "compare" in classes and "not_ok" in classes
    assert all(n > 1 for _, n in shown.tables)  # every table has a header and at least one row
    assert shown.shot.stat().st_size > 50_000

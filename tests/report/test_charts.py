"""Charts: the data is computed once (chart_data), drawn as valid self-contained SVG, the same bytes each time."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from test_html import _cells, _summary

from specscope.report.acceptance_tables import shown_positions
from specscope.report.chart_data import run_charts
from specscope.report.tables import RunCells


def _by_name(cells):
    return {c.name: c for c in run_charts(RunCells.of(cells))}


def test_chart_data_order_and_ok_cells_only():
    charts = _by_name(_cells())
    assert list(charts) == [
        "throughput",
        "speedup_heatmap",
        "acceptance",
        "positions",
        "stream_bands",
        "ttft",
        "achieved",
    ]
    (panel,) = charts["achieved"].panels
    # the requested line comes last so it is drawn on top, dashed; base at 4 streams is 4.0 (the degraded round's
    # 3.0 is not averaged in)
    assert panel.series[-1].label == "requested" and panel.series[-1].style == "reference"
    base = next(s for s in panel.series if s.label == "base")
    assert base.xs == (1.0, 4.0) and base.ys == (1.0, 4.0)
    # heatmap: prose at 4 streams has a degraded base round, which the judgement keeps (3 rounds, 1.10x faster): the
    # chart shows that judgement, never a verdict of its own ("deg" before 2026-12-05); edit at 1 stream 2.00x
    heat = charts["speedup_heatmap"].panels[0]
    judged = {(c.workload, c.level): c for c in RunCells.of(_cells()).comparisons}
    assert judged[("prose", 4)].verdict == "faster" and judged[("prose", 4)].rounds == 3
    assert heat.grey == () and heat.grid_text[0][1] == "1.10x" and heat.grid_text[1][0] == "2.00x"


def test_positions_stop_below_one_percent_and_say_so():
    assert shown_positions([0.5, 0.2, 0.02, 0.009, 0.0]) == 3
    assert shown_positions([0.0, 0.0]) == 1
    assert shown_positions([0.4, 0.3]) == 2
    per_position = [40.0, 20.0, 5.0] + [0.0] * 61  # an n-gram drafter reporting 64 positions
    counters = {"drafts": 100.0, "draft_tokens": 6400.0, "accepted_tokens": 65.0, "accepted_per_position": per_position}
    cells = [_summary("base", "edit", 1, 0, 10.0), _summary("ngram", "edit", 1, 0, 12.0, counters=counters)]
    chart = _by_name(cells)["positions"]
    (panel,) = chart.panels
    assert [s.xs for s in panel.series] == [(1.0, 2.0, 3.0)] * 2
    assert panel.series[0].ys == (0.4, 0.2, 0.05)
    assert chart.note == "Positions shown until acceptance falls below 1% (ngram edit: 3 of 64)."


def test_every_chart_is_self_contained_svg_and_deterministic():
    pytest.importorskip("matplotlib")
    from specscope.report.charts import draw_charts

    data = run_charts(RunCells.of(_cells()))
    first = draw_charts(data)
    assert len(first) == 7
    for ch in first:
        root = ET.fromstring(ch.svg.encode("utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert "@font-face" not in ch.svg  # text is drawn as paths: no font needed
        hrefs = re.findall(r'href="([^"]*)"', ch.svg)
        assert all(h.startswith(("#", "data:image/png;base64,")) for h in hrefs), ch.name  # nothing outside the file
        assert ch.data_uri.startswith("data:image/svg+xml;base64,")
    assert [c.svg for c in draw_charts(data)] == [c.svg for c in first]
    heat = next(c for c in first if c.name == "speedup_heatmap")
    assert heat.svg.count('fill="#bdbdbd"') + heat.svg.count("fill: #bdbdbd") == 0  # every group judged: none grey


def test_acceptance_bars_leave_unmeasured_acceptance_out_never_a_zero_bar():
    """ngram counted no drafts on prose (its server has no counter there) and mtp-off reported 0 drafts (not engaged):
    the acceptance table says '—' and '0 drafts (not engaged)', and the chart drew a 0 % bar for each, a measured
    acceptance of zero that nothing measured (fresh-user finding, 2026-12-05)."""
    ngram = {"drafts": 100.0, "draft_tokens": 400.0, "accepted_tokens": 300.0}
    off = {"drafts": 0.0, "draft_tokens": 0.0, "accepted_tokens": 0.0}
    cells = [
        _summary("base", "edit", 1, 0, 10.0),
        _summary("base", "prose", 1, 0, 10.0),
        _summary("ngram", "edit", 1, 0, 14.0, counters=ngram),
        _summary("ngram", "prose", 1, 0, 10.0),
        _summary("mtp-off", "edit", 1, 0, 10.0, counters=off),
        _summary("mtp-off", "prose", 1, 0, 10.0, counters=off),
    ]
    (panel,) = _by_name(cells)["acceptance"].panels
    assert panel.x_labels == ("edit", "prose")
    bars = {s.label: s.ys for s in panel.series}
    assert bars["ngram"] == (0.75, None)
    assert bars.get("mtp-off", (None, None)) == (None, None)

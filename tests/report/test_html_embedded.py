"""A real run on the embedded engine (llama.cpp serving SmolLM2-135M on 127.0.0.1): the HTML page opens in
headless Chromium with every chart and table rendered, and ``advise`` names the measured winner per cell."""

from __future__ import annotations

import pytest

pytest.importorskip("xllamacpp")

from browser import show  # noqa: E402

from specscope.report.advice import advise  # noqa: E402
from specscope.report.html import write_report_html  # noqa: E402
from specscope.stats.cells import summarize_run  # noqa: E402
from specscope.stats.judgement import judge  # noqa: E402
from specscope.store import open_run  # noqa: E402

pytestmark = [pytest.mark.integration]


def test_advise_names_the_measured_winner_where_it_is_faster(embedded_run):
    with open_run(embedded_run) as run:
        cells = summarize_run(run)
    adv = advise(cells, {"prose": 0.5, "edit": 0.5})
    comparisons = judge(cells, "base").comparisons  # the report's judgement of the same cells
    checked = 0
    for lv in adv.choices.levels:
        for wl, chosen in lv.per_workload.items():
            here = [s for s in comparisons if s.workload == wl and s.level == lv.level and not s.control]
            winners = [s for s in here if s.verdict == "faster"]
            if winners:
                assert chosen == max(winners, key=lambda s: s.speedup or 0.0).config
            else:
                assert chosen == "base"
            checked += 1
    # both levels, unless the client's self-check dropped a level's rounds on a loaded machine (CLIENT_LIMITED cells:
    # a fresh clone's make test at load 7 left N=2 without a paired round, 2026-12-06); never a level dropped otherwise
    limited = {c.concurrency for c in cells if any(r.startswith("CLIENT_LIMITED") for r in c.reasons)}
    shown = [lv.level for lv in adv.choices.levels]
    assert set(shown) <= {1, 2} and {1, 2} - set(shown) <= limited, (shown, limited)
    if not shown:  # at load 7+ (a fresh clone's make test, 2026-12-06) both levels lost their pairs: nothing to compare
        pytest.skip(f"the client's self-check left out cells at every level ({sorted(limited)}): no level to advise on")
    assert checked == 2 * len(shown) and all(set(lv.per_workload) == {"prose", "edit"} for lv in adv.choices.levels)


@pytest.mark.browser
def test_embedded_run_page_renders_in_chromium(embedded_run, tmp_path):
    shown = show(write_report_html([embedded_run], tmp_path / "report.html"), tmp_path)
    assert shown.errors == []
    assert len(shown.images) >= 5 and all(done and w > 0 for _, done, w, _ in shown.images)
    assert {"throughput", "speedup", "acceptance"} <= {c for c, _ in shown.tables}
    assert all(n > 1 for _, n in shown.tables)
    assert shown.shot.stat().st_size > 10_000

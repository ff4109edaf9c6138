"""A real run on the embedded engine (llama.cpp serving SmolLM2-135M on 127.0.0.1): the HTML page opens in
headless Chromium with every chart and table rendered, and ``advise`` names the measured winner per cell."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

from specscope.report.advice import advise  # noqa: E402
from specscope.report.html import write_report_html  # noqa: E402
from specscope.stats.cells import summarize_run  # noqa: E402
from specscope.stats.speedup import paired_speedups  # noqa: E402
from specscope.store import open_run  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [pytest.mark.integration]


def test_advise_names_the_measured_winner_where_it_is_outside_noise(embedded_run):
    with open_run(embedded_run) as run:
        cells = summarize_run(run)
    adv = advise(cells, {"prose": 0.5, "edit": 0.5})
    speedups = paired_speedups(cells)
    checked = 0
    for lv in adv.levels:
        for wl, chosen in lv.per_workload.items():
            here = [s for s in speedups if s.workload == wl and s.concurrency == lv.concurrency]
            winners = [s for s in here if s.verdict == "wins"]
            if winners:
                assert chosen == max(winners, key=lambda s: s.speedup).config
                checked += 1
            elif all(s.verdict == "loses" for s in here):
                assert chosen == "base"
                checked += 1
    assert [lv.concurrency for lv in adv.levels] == [1, 2]
    assert all(set(lv.per_workload) == {"prose", "edit"} for lv in adv.levels)
    print(f"{checked} cells had a winner or loser outside noise")


@pytest.mark.browser
def test_embedded_run_page_renders_in_chromium(embedded_run, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium: apt-get update && apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    page_path = write_report_html([embedded_run], tmp_path / "report.html")
    errors: list[str] = []
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        try:
            page = ctx.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri(), wait_until="load")
            images = page.eval_on_selector_all("figure.chart img", "els => els.map(e => [e.complete, e.naturalWidth])")
            tables = page.eval_on_selector_all("table", "els => els.map(e => [e.className, e.rows.length])")
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            ctx.close()
    assert errors == []
    assert len(images) >= 5 and all(done and w > 0 for done, w in images)
    assert {"throughput", "speedups", "acceptance"} <= {c for c, _ in tables}
    assert all(n > 1 for _, n in tables)
    assert (tmp_path / "report.png").stat().st_size > 10_000

"""Open a report page in headless Chromium (playwright, Debian's /usr/bin/chromium) and read what it shows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Shown:
    """Console errors, requested URLs, ``[chart, complete, width_px, height_px]`` per chart image,
    ``[class, rows]`` per table, and the full-page screenshot's path."""

    errors: list[str]
    requests: list[str]
    images: list[list]
    tables: list[list]
    shot: Path


def show(page_path: Path, tmp_path: Path) -> Shown:
    """Load ``page_path`` from disk in a fresh profile; skip the test when Chromium is missing."""
    if not CHROMIUM.exists():
        pytest.skip("needs /usr/bin/chromium: apt-get update && apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    shot = tmp_path / "report.png"
    with sync_playwright() as p:
        # a fresh profile folder: playwright passes it to Chromium as --user-data-dir
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            viewport={"width": 1280, "height": 900},
            args=_ARGS,
        )
        try:
            page = ctx.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_path.as_uri(), wait_until="load")
            images = page.eval_on_selector_all(
                "figure.chart img",
                "els => els.map(e => [e.closest('figure').dataset.chart, e.complete, e.naturalWidth, e.naturalHeight])",
            )
            tables = page.eval_on_selector_all("table", "els => els.map(e => [e.className, e.rows.length])")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            ctx.close()
    return Shown(errors, requests, images, tables, shot)

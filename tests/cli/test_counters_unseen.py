"""`specscope counters` on scrapes the repository never had (tests/data/engines/counters, SOURCES.md there): an SGLang
`/metrics` with its speculative gauges only (a draft and a unified engine type), which `counters` refused as holding
"no counter sample of any engine's names" although it names SGLang's own gauges."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from specscope.cli import app

COUNTERS = Path(__file__).parent.parent / "data" / "engines" / "counters"


def test_sglang_gauges_only_is_read_as_gauge_only_never_refused() -> None:
    scrape = str(COUNTERS / "sglang_gauges_only_draft_and_unified.prom")
    r = CliRunner().invoke(app, ["counters", scrape, scrape, "--format", "json"])
    assert r.exit_code == 0, r.output  # not 2 "holds no speculative or generation counters"
    doc = json.loads(r.output)
    assert (doc["engine_kind"], doc["state"]) == ("sglang", "gauge_only")
    # a gauge is a current mean, never a window's count: no rate, no length, no count (absent, not 0)
    assert doc["acceptance_rate"] is None and doc["acceptance_length"] is None
    assert doc["deltas"]["drafts"] is None and doc["deltas"]["accepted_tokens"] is None
    assert doc["warnings"] == ["GAUGE_NOT_WINDOW(sglang:spec_accept_length, sglang:spec_accept_rate)"]
    text = CliRunner().invoke(app, ["counters", scrape, scrape])
    assert text.exit_code == 0 and "gauge_only: the server shows speculative gauges only" in text.output

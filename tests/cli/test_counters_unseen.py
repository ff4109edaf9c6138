"""`specscope counters` on scrapes the repository never had (tests/data/engines/counters, SOURCES.md there): an SGLang
`/metrics` with its speculative gauges only (a draft and a unified engine type), which `counters` refused as holding
"no counter sample of any engine's names" although it names SGLang's own gauges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app, main

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


def test_a_json_body_with_the_docs_elisions_is_named_as_broken_json(capsys: pytest.CaptureFixture[str]) -> None:
    """TensorRT-LLM's own `/metrics` example (docs/source/commands/trtllm-serve.rst @ 000d7718) elides two objects with
    `...`; copied as a file it is JSON that does not parse. It was refused as "not Prometheus text; found: ValueError:
    invalid metric name:[" (an exception's name, and the wrong form); now the JSON error and where it is."""
    body = str(COUNTERS / "trtllm_serve_doc_metrics_example_elided.json")
    with pytest.raises(SystemExit) as ei:
        main(["counters", body, body])
    assert ei.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"error: {body} is JSON that does not parse; found: Expecting property name enclosed in")
    assert "at line 5, column 13" in err[0] and "ValueError" not in err[0]

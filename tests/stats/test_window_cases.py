"""Window readings of /metrics per engine (issue 26): counter deltas, None where no counter exists and 0 only where one
says 0, the state of speculation in the window (not configured / idle / vanished / accepting nothing / gauge only /
drafting) and the named warnings. Cases from the engines' public sources: tests/data/engines/window_cases.json."""

from __future__ import annotations

import json
from typing import Any

import pytest

from paths import DATA
from specscope.client.metrics import parse_metrics
from specscope.stats.counters import spec_window

CASES = json.loads((DATA / "engines" / "window_cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_window_reads_to_its_right_answer(case: dict[str, Any]) -> None:
    w = spec_window(parse_metrics(case["before"]), parse_metrics(case["after"]))
    want = case["expected"]
    assert w.engine_kind == want["engine_kind"]
    d = w.delta
    want_counts = (want["drafts"], want["draft_tokens"], want["accepted_tokens"])
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == want_counts
    if "rejected_tokens" in want:
        assert d.rejected_tokens == want["rejected_tokens"]
    assert w.state == want["state"]
    assert w.acceptance_rate == want["acceptance_rate"]
    assert w.acceptance_length == want["acceptance_length"]
    assert [x.split("(")[0] for x in w.warnings] == want["warnings"], w.warnings


def test_four_silences_are_four_statements() -> None:
    by_state = {c["expected"]["state"]: c for c in CASES}
    for state in ("not_configured", "idle", "vanished", "accepting_nothing"):
        c = by_state[state]
        w = spec_window(parse_metrics(c["before"]), parse_metrics(c["after"]))
        assert w.state == state and w.statement
    assert len({by_state[s]["id"] for s in ("not_configured", "idle", "vanished", "accepting_nothing")}) == 4
    alarm = spec_window(
        parse_metrics(by_state["accepting_nothing"]["before"]), parse_metrics(by_state["accepting_nothing"]["after"])
    )
    assert alarm.alarm and "1,500 drafts" in alarm.statement


def test_trtllm_gauges_and_names_read() -> None:
    """TensorRT-LLM ``trtllm_num_requests_running`` / ``_waiting`` are the running / waiting gauges (collector.py)."""
    c = next(x for x in CASES if x["id"] == "trtllm-prometheus")
    snap = parse_metrics(c["after"])
    assert (snap.engine_kind, snap.running) == ("trtllm", 0.0)
    assert snap.spec_gauges == {"trtllm_spec_decode_acceptance_length": 2.4}
    dynamo = parse_metrics('trtllm:spec_decode_num_draft_tokens_total{model_name="m"} 7\n')
    assert (dynamo.engine_kind, dynamo.draft_tokens, dynamo.drafts) == ("trtllm", 7.0, None)

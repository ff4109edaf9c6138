"""vLLM per-request spec-decode metrics (fixture from vLLM PR #48915 via llama-swap #1032) and reconciliation."""

from __future__ import annotations

import json

import pytest

from paths import FIXTURES
from specscope.errors import ConfigError
from specscope.launch.spec_metrics import (
    PerRequestSpecDecode,
    read_per_request_spec_decode,
    reconcile_with_counters,
)

FIXTURE = FIXTURES / "vllm_per_request_spec_decode_metrics_example.json"


def _fixture() -> dict:
    return json.loads(FIXTURE.read_text())


def test_reads_fixture_counts():
    m = read_per_request_spec_decode(_fixture())
    assert m is not None
    assert m.num_draft_tokens == 129
    assert m.num_accepted_draft_tokens == 10
    assert m.num_spec_steps == 43
    assert m.num_spec_tokens == 3
    assert m.acceptance_histogram == [39, 1, 0, 3]
    assert m.mean_acceptance_length == pytest.approx(1 + 10 / 43, abs=1e-15)
    assert m.draft_acceptance_rate == pytest.approx(10 / 129, abs=1e-15)
    assert m.inconsistencies() == []


@pytest.mark.parametrize("level", ["response", "metrics", "object"])
def test_accepts_each_nesting_level(level):
    doc = _fixture()
    payload = {"response": doc, "metrics": doc["metrics"], "object": doc["metrics"]["speculative_decoding"]}[level]
    assert read_per_request_spec_decode(payload).num_draft_tokens == 129


def test_absent_metrics_give_none():
    assert read_per_request_spec_decode({"choices": [], "usage": {"completion_tokens": 5}}) is None
    assert read_per_request_spec_decode({"metrics": {}}) is None


def test_malformed_metrics_raise():
    doc = _fixture()
    doc["metrics"]["speculative_decoding"]["num_spec_steps"] = "many"
    with pytest.raises(ConfigError) as info:
        read_per_request_spec_decode(doc)
    assert info.value.message == "malformed per-request spec-decode metrics"


def test_inconsistent_object_is_reported():
    doc = _fixture()["metrics"]["speculative_decoding"]
    bad = PerRequestSpecDecode.model_validate({**doc, "num_draft_tokens": 130, "acceptance_histogram": [39, 1, 0, 2]})
    assert bad.inconsistencies() == [
        "num_draft_tokens 130 > num_spec_steps 43 * num_spec_tokens 3",
        "sum(acceptance_histogram) 42 != num_spec_steps 43",
        "sum(i*histogram[i]) 7 != num_accepted_draft_tokens 10",
    ]


def test_reconcile_two_requests_with_counter_deltas():
    one = read_per_request_spec_decode(_fixture())
    two = PerRequestSpecDecode(
        mean_acceptance_length=2.0,
        draft_acceptance_rate=1 / 3,
        acceptance_histogram=[0, 4, 0, 0],
        num_spec_steps=4,
        num_accepted_draft_tokens=4,
        num_draft_tokens=12,
        num_spec_tokens=3,
    )
    ok = reconcile_with_counters([one, two], counter_drafted_tokens=141, counter_accepted_tokens=14, counter_drafts=47)
    assert (ok.requests, ok.drafted_tokens, ok.accepted_tokens, ok.drafts) == (2, 141, 14, 47)
    assert (ok.drafted_match, ok.accepted_match, ok.drafts_match) == (True, True, True)
    off = reconcile_with_counters([one, two], counter_drafted_tokens=145, counter_accepted_tokens=14)
    assert (off.drafted_match, off.accepted_match, off.drafts_match) == (False, True, None)

"""Per-response speculative fields of vLLM, SGLang, llama.cpp and TensorRT-LLM read into one engine-neutral record
(issue 26). The cases are built from each engine's public source or bug reports (tests/data/engines/SOURCES.md); the
right reading of each is stated in the case file and checked exactly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from paths import DATA
from specscope.client.spec_fields import merge_spec, read_spec
from specscope.records import SpecRequest, StreamRecord

CASES = json.loads((DATA / "engines" / "per_request_cases.json").read_text(encoding="utf-8"))["cases"]


def _read(chunks: list[dict[str, Any]]) -> SpecRequest | None:
    found: SpecRequest | None = None
    for chunk in chunks:
        found = merge_spec(found, read_spec(chunk))
    return found


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_public_shape_reads_to_its_right_answer(case: dict[str, Any]) -> None:
    got = _read(case["chunks"])
    want = case["expected"]
    if want is None:
        assert got is None, case["source"]
        return
    assert got is not None, case["source"]
    assert (got.engine, got.shape) == (want["engine"], want["shape"])
    assert (got.accepted_tokens, got.draft_tokens, got.verify_steps) == (
        want["accepted_tokens"],
        want["draft_tokens"],
        want["verify_steps"],
    )
    assert dict(got.histogram) == {int(k): v for k, v in want["histogram"].items()}
    assert got.configured_k == want["configured_k"]
    assert list(got.draft_per_step) == want.get("draft_per_step", [])
    assert list(got.accepted_per_step) == want.get("accepted_per_step", [])
    assert [w.split("(")[0] for w in got.warnings] == want["warnings"], got.warnings
    assert got.source_fields, "every reading names the fields it read"


def test_histogram_is_keyed_by_accepted_count_without_a_fixed_k() -> None:
    """TRT-LLM under draft_len_schedule sends no k: the histogram still sums to the steps, keys are accepted counts."""
    got = _read(next(c for c in CASES if c["id"] == "trtllm-draft-len-schedule")["chunks"])
    assert got is not None and got.configured_k is None
    assert sum(n for _, n in got.histogram) == got.verify_steps == 6
    assert sum(j * n for j, n in got.histogram) == got.accepted_tokens == 8


@pytest.mark.parametrize(
    "chunk",
    [
        {"metrics": "x"},
        {"metrics": {"speculative_decoding": [1, 2]}},
        {"metrics": {"speculative_decoding": {"num_draft_tokens": True, "num_accepted_draft_tokens": -1}}},
        {"meta_info": {"spec_verify_ct": None, "spec_num_correct_drafts": {"a": 1}}},
        {"sglext": {"spec_tokens_details": "oops"}},
        {"timings": {"draft_n": 1.5, "draft_n_accepted": "2"}},
        {"choices": ["x", {"speculative_decoding": {"total_draft_tokens": [], "total_accepted_draft_tokens": 1}}]},
        {"choices": [{"speculative_decoding_stats": {"acceptance_histogram": {"x": 1}, "num_spec_steps": 1}}]},
    ],
)
def test_wrong_types_give_named_reasons_never_exceptions(chunk: dict[str, Any]) -> None:
    got = read_spec(chunk)
    if got is not None:
        assert all(w.split("(")[0].isupper() for w in got.warnings)
        for v in (got.accepted_tokens, got.draft_tokens, got.verify_steps):
            assert v is None or (isinstance(v, int) and v >= 0)


def test_unknown_spec_fields_are_named() -> None:
    got = read_spec({"choices": [], "usage": {"completion_tokens": 3}, "speculative_tree_stats": {"nodes": 4}})
    assert got is not None and got.engine == "unknown"
    assert got.warnings == ("UNREAD_SPEC_FIELD(speculative_tree_stats)",)
    assert (got.accepted_tokens, got.draft_tokens, got.verify_steps) == (None, None, None)


def test_stream_record_round_trips_its_spec_record() -> None:
    spec = _read(CASES[1]["chunks"])
    assert spec is not None
    rec = StreamRecord(
        prompt_id="p",
        intended_ns=0,
        send_ns=0,
        first_token_ns=1,
        first_content_ns=1,
        last_token_ns=2,
        end_ns=3,
        content_chunks=1,
        reasoning_chunks=0,
        output_tokens=11,
        prompt_tokens=8,
        token_source="usage",
        finish_reason="stop",
        status="ok",
        reason=None,
        http_status=200,
        spec=spec,
    )
    back = StreamRecord.from_dict(json.loads(json.dumps(rec.to_dict())))
    assert back == rec and back.spec == spec


def test_counts_beyond_the_configured_k_are_named() -> None:
    """A step drafts at most k tokens and accepts at most k of them: vLLM's object (PR #48915, the llama-swap #1032
    quote) with one drafted token too many and a histogram that lost a step, then one with a bucket above k."""
    case = next(c for c in CASES if c["id"] == "vllm-summary-llamaswap-1032")
    payload = case["chunks"][0]["metrics"]["speculative_decoding"]
    bad = {**payload, "num_draft_tokens": 130, "acceptance_histogram": [39, 1, 0, 2]}
    got = read_spec({"choices": [], "metrics": {"speculative_decoding": bad}})
    assert got is not None and got.warnings == (
        "SPEC_IDENTITY(histogram sums to 42, steps 43)",
        "SPEC_IDENTITY(histogram accepts 7, accepted 10)",
        "SPEC_IDENTITY(drafted 130 > 43 steps x k 3)",
    )
    beyond = {**payload, "acceptance_histogram": [39, 1, 0, 1, 1]}  # 43 steps accepting 1 + 3 + 4 = 8 != 10
    got = read_spec({"choices": [], "metrics": {"speculative_decoding": beyond}})
    assert got is not None and got.warnings == (
        "SPEC_IDENTITY(histogram sums to 42, steps 43)",
        "SPEC_IDENTITY(histogram accepts 8, accepted 10)",
        "SPEC_IDENTITY(histogram bucket 4 > k 3)",
    )
    fine = read_spec({"choices": [], "metrics": {"speculative_decoding": payload}})
    assert fine is not None and fine.warnings == () and fine.draft_tokens == 129 == 43 * 3

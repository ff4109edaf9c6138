"""TensorRT-LLM's iteration stats and llama.cpp's /slots (issue 26), from their sources: TRT-LLM
``cpp/include/tensorrt_llm/executor/types.h`` ``SpecDecodingStats`` (numDraftTokens, numAcceptedTokens,
numRequestsWithDraftTokens, acceptanceLength, iterLatencyMS, draftOverhead) served as a JSON list by ``trtllm-serve``
``/metrics`` with ``enable_iter_perf_stats``; a public reproduction script notes that with attention DP every rank's
row repeats rank 0's spec stats. llama.cpp ``/slots``: ``params["speculative.n_max"]`` and friends per slot."""

from __future__ import annotations

from specscope.adapters.llamacpp.slots import slots_spec_config
from specscope.adapters.trtllm.metrics import read_iteration_stats


def parse_trtllm_iteration_stats(items):
    """(the slice's counts, its reasons): the adapter's reading of one drained body."""
    got = read_iteration_stats(items)
    return got.counts, got.reasons


def _it(i: int, drafted: int, accepted: int, requests: int, rank: int | None = None) -> dict:
    spec = {
        "numDraftTokens": drafted,
        "numAcceptedTokens": accepted,
        "numRequestsWithDraftTokens": requests,
        "acceptanceLength": (accepted + requests) / requests if requests else 0.0,
        "iterLatencyMS": 1.5,
        "draftOverhead": 0.2,
    }
    item = {"iter": i, "iterLatencyMS": 10.0, "specDecodingStats": spec}
    if rank is not None:
        item["attentionDpRank"] = rank
    return item


def test_iteration_stats_sum_to_the_window() -> None:
    items = [_it(1, 0, 0, 0), _it(2, 12, 7, 4), _it(3, 9, 3, 3), {"iter": 4, "iterLatencyMS": 9.0}]
    window, reasons = parse_trtllm_iteration_stats(items)
    assert (window.drafts, window.draft_tokens, window.accepted_tokens) == (7, 21, 10)
    assert window.acceptance_rate == 10 / 21 and window.acceptance_length == 1 + 10 / 7
    assert window.engine_kind == "trtllm" and reasons == ()


def test_attention_dp_fanout_rows_are_not_counted_twice() -> None:
    items = [_it(2, 12, 7, 4, rank=0), _it(2, 12, 7, 4, rank=1), _it(2, 12, 7, 4, rank=2)]
    window, reasons = parse_trtllm_iteration_stats(items)
    assert (window.drafts, window.draft_tokens, window.accepted_tokens) == (4, 12, 7)
    assert [r.split("(")[0] for r in reasons] == ["ADP_DUPLICATE", "ADP_DUPLICATE"]


def test_no_spec_stats_is_unknown_not_zero_and_wrong_types_are_named() -> None:
    window, reasons = parse_trtllm_iteration_stats([{"iter": 1}])
    assert window.drafts is None and window.draft_tokens is None and reasons == ()
    _, bad = parse_trtllm_iteration_stats([{"specDecodingStats": {"numDraftTokens": "9"}}, 3])
    assert [r.split("(")[0] for r in bad] == ["WRONG_TYPE", "WRONG_TYPE"]
    _, whole = parse_trtllm_iteration_stats({"error": "x"})
    assert whole[0].startswith("WRONG_TYPE(iteration stats")


def test_llamacpp_slots_give_the_configured_k() -> None:
    slots = [
        {
            "id": 0,
            "speculative": True,
            "params": {"speculative.n_max": 16, "speculative.n_min": 0, "speculative.p_min": 0.75},
        },
        {"id": 1, "speculative": False, "params": {"speculative.types": "none", "speculative.n_max": 0}},
        {"id": 2, "params": {"speculative.n_max": "8"}},
    ]
    got = slots_spec_config(slots)
    assert got["slots"] == 3 and got["n_max"] == [16, 0, None] and got["speculative"] == [True, False, None]
    assert got["types"] == [None, "none", None] and got["reasons"] == ["WRONG_TYPE(slot 2: speculative.n_max '8')"]

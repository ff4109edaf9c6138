"""Cell summaries from hand-made stream records: exact values."""

from __future__ import annotations

import pytest

from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord
from specscope.stats.cells import summarize_cell
from specscope.stats.counters import counters_delta
from specscope.stats.speedup import coefficient_of_variation
from specscope.stats.timeline import percentile

MS = 1_000_000  # ns per ms


def rec(pid, send_ms, first_ms, last_ms, end_ms, tokens, status="ok", reason=None, draft=None, acc=None):
    return StreamRecord(
        prompt_id=pid,
        intended_ns=send_ms * MS,
        send_ns=send_ms * MS,
        first_token_ns=first_ms * MS,
        first_content_ns=first_ms * MS,
        last_token_ns=last_ms * MS,
        end_ns=end_ms * MS,
        content_chunks=tokens,
        reasoning_chunks=0,
        output_tokens=tokens,
        prompt_tokens=10,
        token_source="usage" if tokens is not None else "missing",
        finish_reason="length",
        status=status,
        reason=reason,
        http_status=200,
        server_draft_tokens=draft,
        server_accepted_tokens=acc,
    )


def test_percentile_and_cv_use_numpy_linear():
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([10.0, 20.0], 95) == pytest.approx(19.5)
    assert percentile([], 50) is None
    assert coefficient_of_variation([10.0, 12.0]) == pytest.approx(1.4142135623730951 / 11.0)
    assert coefficient_of_variation([5.0]) is None


def snap(drafts, dt, acc, per_pos, gen, running=0.0):
    return SpecCounters(
        drafts=drafts,
        draft_tokens=dt,
        accepted_tokens=acc,
        accepted_per_position=tuple(per_pos),
        generation_tokens=gen,
        prompt_tokens=0.0,
        running=running,
        waiting=0.0,
        present=frozenset({"spec", "per_pos", "generation"}),
    )


def test_counter_delta_and_reset():
    d = counters_delta(snap(10, 30, 12, [6, 4, 2], 100), snap(150, 450, 270, [120, 92, 58], 400))
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (140, 420, 258)
    assert d.accepted_per_position == (114, 88, 56)
    assert d.acceptance_rate == 258 / 420
    assert d.acceptance_length == 1 + 258 / 140
    assert d.acceptance_per_position == (114 / 140, 88 / 140, 56 / 140)
    assert d.generation_tokens == 300 and d.reset is False
    r = counters_delta(snap(150, 450, 270, [120, 92, 58], 400), snap(5, 15, 9, [4, 3, 2], 20))
    assert r.reset is True


def test_summarize_ok_cell_exact():
    streams = (rec("p-1", 0, 100, 1100, 1100, 101), rec("p-2", 0, 200, 2200, 2200, 101))
    res = CellResult(
        CellKey("ngram", "edit", 2, 0),
        streams,
        0,
        2200 * MS,
        snap(0, 0, 0, [0, 0], 1000),
        snap(40, 160, 100, [35, 30, 20, 15], 1202),
    )
    s = summarize_cell(res)
    assert s.status == "ok" and s.reasons == ()
    assert s.output_tokens == 202 and s.token_source == "usage"
    assert s.duration_s == 2.2
    assert s.output_tok_s == 202 / 2.2
    assert s.stream_tok_s == (101 / 2.2, 101 / 1.1)
    assert s.ttft_p50_s == pytest.approx(0.15)
    assert s.achieved_concurrency == (1100 + 2200) / 2200
    assert s.acceptance_rate == 100 / 160 and s.acceptance_length == 1 + 100 / 40
    assert s.acceptance_per_position == (35 / 40, 30 / 40, 20 / 40, 15 / 40)  # k = 4 positions, summing to 100
    assert s.acceptance_source == "counter_delta"
    assert s.tpot_p50_s == pytest.approx((1.0 / 100 + 2.0 / 100) / 2)


def test_summarize_flags_mismatch_busy_and_degraded_streams():
    streams = (
        rec("p-1", 0, 100, 1100, 1100, 50),
        rec("p-2", 0, 100, 900, 900, 40, status="degraded", reason="no [DONE]"),
    )
    res = CellResult(
        CellKey("base", "prose", 2, 1), streams, 0, 1100 * MS, snap(0, 0, 0, [], 0, running=1.0), snap(0, 0, 0, [], 95)
    )
    s = summarize_cell(res)
    assert s.status == "degraded"
    assert s.reasons == (
        "STREAM_DEGRADED(degraded:no [DONE])",
        "BUSY_AT_SCRAPE(before=1)",
        "TOKENS_MISMATCH(client=90, server=95)",
    )
    assert s.acceptance_rate is None and s.acceptance_source is None


def test_summarize_per_request_fallback_and_failed():
    streams = (rec("p-1", 0, 10, 20, 20, 30, draft=20, acc=15),)
    s = summarize_cell(CellResult(CellKey("draft", "code", 1, 0), streams, 0, 20 * MS, None, None))
    assert s.acceptance_rate == 0.75 and s.acceptance_source == "per_request"
    assert s.per_request_draft_tokens == 20 and s.counters is None
    failed = StreamRecord(
        "p-9", 0, 0, None, None, None, 5 * MS, 0, 0, None, None, "missing", None, "failed", "http 503", 503
    )
    f = summarize_cell(CellResult(CellKey("draft", "code", 1, 1), (failed,), 0, 5 * MS, None, None))
    assert f.status == "failed" and f.output_tokens == 0 and f.token_source == "missing"


def test_per_request_fields_reconciled_with_counters():
    streams = (rec("p-1", 0, 10, 20, 20, 30, draft=20, acc=15), rec("p-2", 0, 10, 20, 20, 30, draft=12, acc=3))
    agree = CellResult(
        CellKey("draft", "code", 2, 0), streams, 0, 20 * MS, snap(0, 0, 0, [], 0), snap(10, 32, 18, [], 60)
    )
    s = summarize_cell(agree)
    assert s.status == "ok" and s.acceptance_source == "counter_delta" and s.acceptance_rate == 18 / 32
    assert (s.per_request_draft_tokens, s.per_request_accepted_tokens) == (32, 18)
    disagree = CellResult(
        CellKey("draft", "code", 2, 1), streams, 0, 20 * MS, snap(0, 0, 0, [], 0), snap(10, 40, 18, [], 60)
    )
    d = summarize_cell(disagree)
    assert d.status == "degraded"
    assert d.reasons == ("PER_REQUEST_MISMATCH(draft 32/40, accepted 18/18 responses/counters)",)


def test_per_request_verify_steps_reconciled_with_the_drafts_counter():
    """Two vLLM responses (PR #48915's object: 43 steps drafting 129, accepting 10; and 4 steps drafting 12, accepting
    4) against counter deltas: 47 drafts agree, 48 are named (the reconciliation launch/spec_metrics.py duplicated)."""
    from dataclasses import replace

    from specscope.records import SpecRequest

    shape = "vllm.metrics.speculative_decoding"
    one = SpecRequest(engine="vllm", shape=shape, accepted_tokens=10, draft_tokens=129, verify_steps=43)
    two = SpecRequest(engine="vllm", shape=shape, accepted_tokens=4, draft_tokens=12, verify_steps=4)
    streams = tuple(
        replace(rec(f"p-{i}", 0, 10, 20, 20, 30, draft=s.draft_tokens, acc=s.accepted_tokens), spec=s)
        for i, s in enumerate((one, two))
    )
    key = CellKey("draft", "code", 2, 0)
    agree = summarize_cell(CellResult(key, streams, 0, 20 * MS, snap(0, 0, 0, [], 0), snap(47, 141, 14, [], 60)))
    assert agree.status == "ok" and agree.reasons == () and agree.acceptance_rate == 14 / 141
    off = summarize_cell(CellResult(key, streams, 0, 20 * MS, snap(0, 0, 0, [], 0), snap(48, 141, 14, [], 60)))
    assert off.status == "degraded"
    assert off.reasons == ("PER_REQUEST_MISMATCH(verify steps 47/48 responses/counters)",)

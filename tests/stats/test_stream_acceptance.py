"""Per-stream acceptance by path (issue 16): distribution, histogram from the counters, a reason on disagreement."""

from __future__ import annotations

from dataclasses import replace

from cellmaker import cell, counters

from specscope.report.stream_acceptance_table import stream_acceptance_table
from specscope.stats.acceptance_dist import accepted_length_histogram, stream_acceptance


def test_histogram_from_per_position_counts():
    # 1000 steps; 936 accepted position 1, 815 position 2, 681 position 3 (seed 003's first three u_i)
    assert accepted_length_histogram(1000, [936, 815, 681]) == (64, 121, 134, 681)
    assert accepted_length_histogram(0, [1]) == ()


def test_distribution_paths_and_disagreement_reason():
    agree = cell(
        "draft",
        "edit",
        1,
        0,
        10.0,
        counters=counters(10, [8, 4]),  # 12 of 20 accepted
        per_request_draft_tokens=20,
        per_request_accepted_tokens=12,
    )
    agree = replace(agree, stream_acceptance=(0.6,))
    streams = tuple(i / 20 for i in range(21))  # 0.00, 0.05, ..., 1.00: 21 responses
    spread = replace(
        cell("ngram", "code", 1, 0, 10.0, per_request_draft_tokens=20, per_request_accepted_tokens=10),
        stream_acceptance=streams,
        counters=counters(10, [7, 5]),  # counters say 12 of 20: 0.6 against the responses' 0.5
    )
    views = stream_acceptance([agree, spread])
    a, s = views[("draft", "edit")], views[("ngram", "code")]
    assert (a.streams, a.quantiles, a.per_request_rate, a.counter_rate) == (1, (0.6,) * 5, 0.6, 0.6)
    assert a.histogram == (2, 4, 4) and a.reason == ""
    assert s.quantiles == (0.0, 0.05, 0.5, 0.95, 1.0)
    assert (s.per_request_rate, s.counter_rate) == (0.5, 0.6)
    assert s.reason.startswith("per-request 0.500 != counters 0.600")
    (table,) = stream_acceptance_table([agree, spread])
    assert [c.text for c in table.cells[1]][:10] == [
        "ngram",
        "code",
        "21",
        "0.0%",
        "5.0%",
        "50.0%",
        "95.0%",
        "100.0%",
        "50.0%",
        "60.0%",
    ]
    assert table.cells[0][10].text == "0:2 1:4 2:4"


def test_the_note_names_every_per_response_reader_from_its_adapter():
    """The per-request path is named from the readers' declarations (``WHERE``), TensorRT-LLM's included (issue 34)."""
    agree = replace(cell("draft", "edit", 1, 0, 10.0, per_request_draft_tokens=20), stream_acceptance=(0.6,))
    (table,) = stream_acceptance_table([agree])
    assert (
        "(per-request path: vLLM metrics.speculative_decoding, SGLang meta_info / sglext.spec_tokens_details,"
        " llama.cpp timings, TensorRT-LLM choices[].speculative_decoding);"
    ) in table.note

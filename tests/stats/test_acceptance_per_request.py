"""Pooled acceptance prefers the server's per-response fields (issue 16) and says which path it took."""

from __future__ import annotations

import pytest
from cellmaker import cell, counters

from specscope.stats.acceptance import pooled_acceptance


def test_cells_with_only_per_request_fields_get_an_acceptance_rate():
    # llama.cpp without /metrics: timings.draft_n / draft_n_accepted only
    cells = [
        cell("draft", "edit", 1, r, 10.0, per_request_draft_tokens=200, per_request_accepted_tokens=150) for r in (0, 1)
    ]
    view = pooled_acceptance(cells)[("draft", "edit")]
    assert view.acceptance_rate == 300 / 400
    assert view.acceptance_length is None  # no drafts counted: the length needs the counters
    assert view.source == "per_request"


def test_per_request_wins_over_counters_and_counters_alone_say_so():
    both = cell(
        "draft",
        "edit",
        1,
        0,
        10.0,
        counters=counters(100, [80, 40]),  # counters: 120 accepted of 200
        per_request_draft_tokens=200,
        per_request_accepted_tokens=110,  # this cell's requests only: 110 of 200
    )
    view = pooled_acceptance([both])[("draft", "edit")]
    assert view.acceptance_rate == 110 / 200
    assert view.acceptance_length == pytest.approx(1 + 110 / 100)
    assert view.source == "per_request"
    only_counters = cell("ngram", "edit", 1, 0, 10.0, counters=counters(100, [80, 40]))
    mixed = [
        only_counters,
        cell("ngram", "edit", 1, 1, 10.0, per_request_draft_tokens=10, per_request_accepted_tokens=5),
    ]
    assert pooled_acceptance([only_counters])[("ngram", "edit")].source == "counter_delta"
    assert pooled_acceptance(mixed)[("ngram", "edit")].source == "mixed"
    assert pooled_acceptance(mixed)[("ngram", "edit")].acceptance_rate == (120 + 5) / (200 + 10)

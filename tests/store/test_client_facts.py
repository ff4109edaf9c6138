"""A cell's client facts are a typed record past the store (issue 37): checked where they are read back, written
and reported as they were stored, an unknown key kept as stored and never read for a figure."""

from __future__ import annotations

import json

import pytest

from specscope.errors import StoreError
from specscope.records import CellKey, CellResult, ClientFacts, ClockFacts, OpenLoopFacts, SpecCounters
from specscope.stats.cells import summarize_cell
from specscope.stats.summary import CellSummary
from specscope.store import SCHEMA_VERSION
from specscope.store.schema import cell_from_row, cell_row

KEY = CellKey("base", "prose", 1, 0)


def _stored(client_json: str) -> CellResult:
    row = list(cell_row(CellResult(KEY, (), 0, 10**9, None, None)))
    row[-1] = client_json
    return cell_from_row(tuple(row), (), SCHEMA_VERSION)


def test_stored_facts_read_back_as_records_and_write_back_as_stored():
    # keys in an order of their own, a null engine CPU (a remote server), a key no reader knows
    stored = {
        "clock": {"ended_at_s": 2.5, "started_at_s": 1.5, "load_avg_1m": [0.5, None], "engine_cpu_s": None},
        "max_tokens": 64,
        "zz_newer": {"x": 1},
        "open_loop": {"rate_per_s": 4, "arrival": "poisson", "schedule_seed": 7, "requests": 8},
        "client_settings": {"api_key": None},
    }
    cell = _stored(json.dumps(stored))
    assert cell.client.clock == ClockFacts(1.5, 2.5, (0.5, None), None)
    assert cell.client.open_loop == OpenLoopFacts(4.0, "poisson", 7, 8)
    assert cell.client.max_tokens == 64 and cell.client.extra == {"zz_newer": {"x": 1}}
    assert cell.client.to_dict() == stored and list(cell.client.to_dict()) == list(stored)
    assert cell_row(cell)[-1] == json.dumps(stored)  # a rewrite keeps the stored text
    summary = summarize_cell(cell)
    assert summary.client.to_dict() == stored  # the JSON report's cells[].client, as stored
    assert (summary.started_at_s, summary.ended_at_s, summary.load_avg_1m) == (1.5, 2.5, (0.5, None))


@pytest.mark.parametrize(
    ("client", "where"),
    [
        ({"open_loop": {"rate_per_s": "4", "arrival": "poisson"}}, "client_json.open_loop.rate_per_s"),
        ({"open_loop": {"rate_per_s": 4.0, "arival": "poisson"}}, "client_json.open_loop.arival"),
        ({"trace": {"time_scale": 1.0, "scheduled_span_s": None}}, "client_json.trace.scheduled_span_s"),
        ({"conversations": [{"id": "a", "turns_planned": 2}]}, "client_json.conversations.0.turns_sent"),
        ({"max_tokens": "64"}, "client_json.max_tokens"),
        ({"rows_sent": "r1"}, "client_json.rows_sent"),
        ({"clock": {"started_at_s": "noon"}}, "client_json.clock.started_at_s"),
    ],
)
def test_a_stored_fact_that_is_not_what_its_key_says_is_refused_by_name(client, where):
    """Before issue 37 a stored rate of "4" read back as a dict and the readers skipped it: the level axis lost the
    cell's rate without a word (goodput would have raised on float("x")). Now the store names the key path."""
    with pytest.raises(StoreError) as exc:
        _stored(json.dumps(client))
    assert where in exc.value.message


def test_built_facts_store_in_the_writers_order():
    facts = ClientFacts(
        client_settings={"workers": 1},
        warmup_prompt_id="short-warmup",
        clock=ClockFacts(1.0, 2.0, (0.1, 0.2), None),
        max_tokens=32,
        self_check={"client_limited": None},
        counter_source={"kind": "scrape", "urls": ["http://127.0.0.1:1"]},
        client_decision="1 client process(es)",
    )
    assert list(facts.to_dict()) == [
        "client_settings",
        "warmup_prompt_id",
        "clock",
        "max_tokens",
        "self_check",
        "counter_source",
        "client_decision",
    ]
    assert facts.to_dict()["clock"] == {"started_at_s": 1.0, "ended_at_s": 2.0, "load_avg_1m": [0.1, 0.2],
                                        "engine_cpu_s": None}  # fmt: skip
    assert _stored(cell_row(CellResult(KEY, (), 0, 1, None, None, facts))[-1]).client == facts


def test_a_report_cell_reads_back_with_typed_counters_and_old_zeros_stay_absent():
    """A JSON report cell written before issue 26: a server without speculative counters wrote 0 drafts; read back,
    the counters are a record whose drafts are None (absent, never 0)."""
    cell = summarize_cell(CellResult(KEY, (), 0, 10**9, None, None))
    d = cell.to_dict()
    d["counters"] = {"drafts": 0, "draft_tokens": 0, "accepted_tokens": 0, "generation_tokens": 48.0,
                     "present": ["generation"]}  # fmt: skip
    back = CellSummary.from_dict(d)
    assert isinstance(back.counters, SpecCounters)
    assert (back.counters.drafts, back.counters.generation_tokens) == (None, 48.0)
    assert CellSummary.from_dict(cell.to_dict()) == cell

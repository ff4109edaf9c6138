"""`counters` and the window reading on /metrics shapes a new user brought (tests/data/engines/counters, SOURCES.md):
series that vanished while generation rose (not a restart), one data-parallel engine vanished beside another that
restarted, llama.cpp PR #25327's names, V0 gauges, an unread series named as the file has it, and the exit code of the
accepting-nothing alarm."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from specscope.cli import app
from specscope.client.metrics import parse_metrics
from specscope.records import CellKey, CellResult, SpecCounters
from specscope.stats.acceptance import acceptance_view
from specscope.stats.cells import summarize_cell
from specscope.stats.counters import counter_checks, counters_delta, spec_window

DATA = Path(__file__).parent.parent / "data" / "engines" / "counters"


def scrape(name: str) -> SpecCounters:
    return parse_metrics((DATA / name).read_text())


def counters(before: str, after: str, *extra: str):
    return CliRunner().invoke(app, ["counters", str(DATA / before), str(DATA / after), *extra])


def test_spec_series_vanished_while_generation_rose_is_no_restart() -> None:
    before, after = scrape("vllm_dp8_before_with_gen.prom"), scrape("vllm_dp8_after_spec_vanished_gen_rises.prom")
    d = counters_delta(before, after)
    assert d.reset is False and d.reset_engines == () and d.vanished_engines == ()
    assert [d.engines[str(e)].generation_tokens for e in range(8)] == [200, 400, 600, 800, 1000, 1200, 1400, 1600]
    w = spec_window(before, after)
    assert w.state == "vanished" and w.acceptance_rate is None and w.acceptance_length is None
    assert "SERIES_VANISHED(per_pos, spec)" in w.warnings
    r = counters("vllm_dp8_before_with_gen.prom", "vllm_dp8_after_spec_vanished_gen_rises.prom", "-f", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["state"] == "vanished" and doc["reasons"] == []  # not COUNTER_RESET
    assert all(not e["reset"] and not e["vanished"] for e in doc["engines"].values())
    assert doc["deltas"]["generation_tokens"] == 7200 and doc["deltas"]["drafts"] is None


def test_every_series_but_one_generation_counter_vanished_is_read_not_refused() -> None:
    r = counters("vllm_dp8_before_with_gen.prom", "vllm_dp8_after_all_vanished.prom", "-f", "json")
    assert r.exit_code == 0, r.output  # not 2 "the files may be swapped"
    doc = json.loads(r.output)
    assert doc["state"] == "vanished"
    assert doc["engines"]["0"] == {
        "reset": False,
        "window": "full",
        "vanished": False,
        "unknown_start": False,
        "deltas": {
            "drafts": None,
            "draft_tokens": None,
            "accepted_tokens": None,
            "accepted_per_position": [],
            "generation_tokens": 899,
            "prompt_tokens": None,
        },
    }
    assert [e for e, v in doc["engines"].items() if v["vanished"]] == ["1", "2", "3", "4", "5", "6", "7"]
    assert doc["reasons"] == ["ENGINE_VANISHED(1, 2, 3, 4, 5, 6, 7)"]
    assert "SERIES_VANISHED(per_pos, spec)" in doc["warnings"]


def test_one_engine_vanished_and_another_restarted_are_two_statements() -> None:
    before, after = scrape("vllm_dp8_before.prom"), scrape("vllm_dp8_after_e3_vanished_e5_restarted.prom")
    d = counters_delta(before, after)
    assert d.reset_engines == ("5",) and d.vanished_engines == ("3",) and d.reset is False
    # engines 0, 1, 2, 4, 6, 7: 74 drafts of 4 tokens, half accepted
    assert (d.drafts, d.draft_tokens, d.accepted_tokens) == (74, 296, 148)
    r = counters("vllm_dp8_before.prom", "vllm_dp8_after_e3_vanished_e5_restarted.prom")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[3].startswith("engine 3: vanished") and "not a restart" in lines[3]
    assert lines[5].startswith("engine 5: reset: true")
    assert lines[5].endswith(
        "(partial window: restarted between the scrapes, counts since the restart; left out of the pool)"
    )
    assert "acceptance (engines 0, 1, 2, 4, 6, 7): rate 50.0%  length 3.00  k 4" in lines
    assert "reasons: ENGINE_RESET(5), ENGINE_VANISHED(3)" in lines


def test_llamacpp_pr25327_names_are_read() -> None:
    w = spec_window(scrape("llamacpp_pr25327_before.prom"), scrape("llamacpp_pr25327_after.prom"))
    assert w.engine_kind == "llamacpp" and w.state == "drafting"
    d = w.delta
    assert (d.drafts, d.draft_tokens, d.accepted_tokens, d.generation_tokens) == (100, 400, 200, 400)
    assert w.acceptance_rate == 0.5 and w.acceptance_length == 3.0
    assert w.warnings == ("GAUGE_NOT_WINDOW(llamacpp:draft_acceptance_rate, llamacpp:draft_mean_accept_len)",)


def test_speculative_series_present_but_unread_is_its_own_state() -> None:
    before = parse_metrics("vllm:spec_decode_num_tree_nodes_total 10\nvllm:generation_tokens_total 100\n")
    after = parse_metrics("vllm:spec_decode_num_tree_nodes_total 40\nvllm:generation_tokens_total 300\n")
    w = spec_window(before, after)
    assert w.state == "unread" and w.acceptance_rate is None
    assert w.statement.startswith("speculative series present but not read")
    assert w.warnings == ("UNREAD_SPEC_FIELD(vllm:spec_decode_num_tree_nodes_total)",)


def test_accepting_nothing_exits_1_like_parse_logs_alarm() -> None:
    r = counters("vllm_zero_accept_before.prom", "vllm_zero_accept_after.prom")
    assert r.exit_code == 1, r.output
    assert "speculation: accepting_nothing: 4,000 drafts and none accepted" in r.output
    assert "ALARM ACCEPTING_NOTHING(4,000 drafts and none accepted)" in r.output
    doc = json.loads(counters("vllm_zero_accept_before.prom", "vllm_zero_accept_after.prom", "-f", "json").output)
    assert doc["alarms"] == ["ACCEPTING_NOTHING(4,000 drafts and none accepted)"]


def test_low_acceptance_over_the_counters_is_the_same_alarm_as_a_log(tmp_path: Path) -> None:
    before = tmp_path / "b.prom"
    after = tmp_path / "a.prom"
    before.write_text(
        "vllm:spec_decode_num_drafts_total 0\nvllm:spec_decode_num_draft_tokens_total 0\n"
        "vllm:spec_decode_num_accepted_tokens_total 0\n"
    )
    after.write_text(
        "vllm:spec_decode_num_drafts_total 1000\nvllm:spec_decode_num_draft_tokens_total 3000\n"
        "vllm:spec_decode_num_accepted_tokens_total 30\n"
    )
    r = CliRunner().invoke(app, ["counters", str(before), str(after), "-f", "json"])
    assert r.exit_code == 1, r.output
    assert json.loads(r.output)["alarms"] == [
        "LOW_ACCEPTANCE(unknown method accepts 1.0% of drafted tokens over 1,000 drafts, < 5%)"
    ]


def test_drafts_zero_with_draft_tokens_fails_the_check() -> None:
    # truth script llamacpp_pr12603.json: the drafts counter says 0 while 2 x 347 tokens were drafted, 2 x 65 accepted
    delta = SpecCounters(drafts=0, draft_tokens=694, accepted_tokens=130, present=frozenset({"spec"}))
    assert counter_checks(delta).reasons == ("DRAFT_TOKENS_WITHOUT_DRAFTS(draft tokens 694 over 0 drafts)",)
    w = spec_window(SpecCounters(drafts=0, draft_tokens=0, accepted_tokens=0, present=frozenset({"spec"})), delta)
    assert w.state == "drafting" and "DRAFT_TOKENS_WITHOUT_DRAFTS(draft tokens 694 over 0 drafts)" in w.warnings
    view = acceptance_view(0, 694, 130, ())
    assert view.flags == ("DRAFT_TOKENS_WITHOUT_DRAFTS: 694 drafted tokens over 0 drafts",)
    assert not view.consistent


def test_unread_series_is_named_as_the_file_has_it() -> None:
    w = spec_window(scrape("sglang_dp4_unknown_before.prom"), scrape("sglang_dp4_unknown_after.prom"))
    assert "UNREAD_SPEC_FIELD(sglang:spec_total_num_accepted_tokens)" in w.warnings  # no "_total" the file lacks


def test_counters_names_an_unread_series_as_the_file_has_it() -> None:
    """The same through ``counters BEFORE AFTER -f json`` (docs/engines.md's window rules: a counter family written
    without ``_total`` is named without the suffix prometheus_client would add)."""
    r = counters("sglang_dp4_unknown_before.prom", "sglang_dp4_unknown_after.prom", "-f", "json")
    assert "UNREAD_SPEC_FIELD(sglang:spec_total_num_accepted_tokens)" in json.loads(r.output)["warnings"], r.output


def test_v0_gauges_are_gauges() -> None:
    w = spec_window(scrape("vllm_v0_063_before.prom"), scrape("vllm_v0_063_after.prom"))
    assert w.warnings[0] == "GAUGE_NOT_WINDOW(vllm:spec_decode_draft_acceptance_rate, vllm:spec_decode_efficiency)"
    assert (w.delta.draft_tokens, w.delta.accepted_tokens, w.delta.drafts) == (7311, 4547, None)
    assert w.acceptance_rate == 4547 / 7311 and w.acceptance_length is None


def test_a_cell_whose_drafts_counter_says_0_beside_drafted_tokens_is_not_ok() -> None:
    # the counters of the truth script's cell (llamacpp_pr12603.json): 347 drafted and 65 accepted per request, drafts 0
    spec = frozenset({"spec", "generation"})
    before = SpecCounters(drafts=0, draft_tokens=694, accepted_tokens=130, generation_tokens=400, present=spec)
    after = SpecCounters(drafts=0, draft_tokens=1041, accepted_tokens=195, generation_tokens=600, present=spec)
    s = summarize_cell(CellResult(CellKey("llama", "prose", 1, 0), (), 0, 10**9, before, after))
    assert s.status != "ok"
    assert "DRAFT_TOKENS_WITHOUT_DRAFTS(draft tokens 347 over 0 drafts)" in s.reasons


def test_v0_accepted_counter_is_named_as_v0s_own_count() -> None:
    """V0's rejection sampler counts every draft position that matched (``accepted.sum()``, a position after a
    rejected one included; vllm/model_executor/layers/spec_decode_base_sampler.py of 0.5-0.6), which V1 and the
    V0 log reader (Δemitted - steps) do not: the counters' rate (4,547 / 7,311 = 0.622) is V0's own, above the
    accepted-prefix rate. It was printed beside V1's rates with nothing said."""
    w = spec_window(scrape("vllm_v0_063_before.prom"), scrape("vllm_v0_063_after.prom"))
    (named,) = [x for x in w.warnings if x.startswith("V0_ACCEPTED_ANY_POSITION(")]
    assert "accepted.sum()" in named and "vllm:spec_decode_num_emitted_tokens" in named
    r = counters("vllm_v0_063_before.prom", "vllm_v0_063_after.prom")
    assert r.exit_code == 0 and "V0_ACCEPTED_ANY_POSITION(" in r.output
    # a V1 scrape has no emitted counter: nothing named
    v1 = spec_window(scrape("vllm_zero_accept_before.prom"), scrape("vllm_zero_accept_after.prom"))
    assert not any(x.startswith("V0_ACCEPTED_ANY_POSITION(") for x in v1.warnings)


def test_a_bench_cell_against_a_v0_server_notes_the_v0_count() -> None:
    from specscope.report.spec_notes import spec_notes

    before, after = scrape("vllm_v0_063_before.prom"), scrape("vllm_v0_063_after.prom")
    s = summarize_cell(CellResult(CellKey("v0", "prose", 1, 0), (), 0, 10**9, before, after))
    assert any(r.startswith("V0_ACCEPTED_ANY_POSITION(") for r in s.reasons)
    assert any("V0_ACCEPTED_ANY_POSITION" in n and "V0's own" in n for n in spec_notes([s]))

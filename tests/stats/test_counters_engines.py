"""Per-engine counter deltas (issue 14, "Counters"): a restart of one data-parallel engine is flagged and left
out; a series absent before starts from 0; consistency checks. Scrapes in tests/data/counters (SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from specscope.client.metrics import parse_metrics
from specscope.records import CellKey, CellResult, SpecCounters
from specscope.stats.cells import summarize_cell
from specscope.stats.counters import counter_checks, counters_delta

DATA = Path(__file__).parent.parent / "data" / "counters"


E0, E1 = (f'{{engine="{e}",model_name="/models/v4-flash-0731"}}' for e in "01")  # a snapshot's keys: selectors


def scrape(name: str) -> SpecCounters:
    return parse_metrics((DATA / name).read_text())


def test_engine_series_and_created_times_are_kept():
    before = scrape("vllm_dp2_before.prom")
    assert before.drafts == 1800 and before.accepted_per_position == (1600, 1400, 1050, 550)  # the sum, as before
    assert set(before.engines) == {E0, E1}
    assert before.engines[E0].drafts == 1000 and before.engines[E1].accepted_per_position == (700, 600, 450, 250)
    assert before.engines[E1].created == 1785538744.139015  # the largest *_created of the engine's counters
    assert before.engines[E0].running == 0


def test_one_engine_restarted_is_flagged_and_left_out():
    before, after = scrape("vllm_dp2_before.prom"), scrape("vllm_dp2_after_engine1_restarted.prom")
    assert after.drafts > before.drafts and after.accepted_tokens > before.accepted_tokens  # the sum still rises
    d = counters_delta(before, after)
    assert d.reset_engines == ("1",) and d.reset is False
    assert d.engines["0"].reset is False and d.engines["1"].reset is True
    # engine 0 alone: 1000 drafts of 4 tokens, 2500 accepted (900 / 700 / 500 / 400 by position)
    assert (d.drafts, d.draft_tokens, d.accepted_tokens, d.generation_tokens) == (1000, 4000, 2500, 5000)
    assert d.acceptance_rate == 0.625 and d.acceptance_length == 3.5
    assert d.acceptance_per_position == (0.9, 0.7, 0.5, 0.4)
    assert counter_checks(d).k == 4 and counter_checks(d).reasons == ()


def test_created_moving_alone_is_a_restart():
    before = scrape("vllm_dp2_before.prom")
    e1 = before.engines[E1]
    moved = SpecCounters(
        drafts=e1.drafts + 10,
        draft_tokens=e1.draft_tokens + 40,
        accepted_tokens=e1.accepted_tokens + 20,
        accepted_per_position=tuple(v + 5 for v in e1.accepted_per_position),
        present=e1.present,
        created=e1.created + 60,  # every counter rose, but the engine was recreated
    )
    after = SpecCounters(engines={"0": before.engines[E0], "1": moved})
    d = counters_delta(before, after)
    assert d.reset_engines == ("1",) and d.drafts == 0 and d.acceptance_rate is None


def test_both_engines_restarted_is_a_counter_reset():
    before = scrape("vllm_dp2_after_engine1_restarted.prom")
    after = SpecCounters(engines={"0": SpecCounters(drafts=1), "1": SpecCounters(drafts=1)})
    d = counters_delta(before, after)
    assert d.reset is True and d.reset_engines == ("0", "1")


def test_llamacpp_before_without_per_position_series_starts_from_zero():
    before, after = scrape("llamacpp_before_no_per_pos.prom"), scrape("llamacpp_after.prom")
    assert "per_pos" not in before.present and before.engines == {}
    d = counters_delta(before, after)
    assert d.reset is False and "per_pos" in d.present
    assert d.acceptance_rate == 150 / 240 and d.acceptance_length == 1 + 150 / 60
    assert d.acceptance_per_position == (54 / 60, 45 / 60, 33 / 60, 18 / 60)
    assert d.generation_tokens == 480 and d.prompt_tokens == 240


def test_consistency_violations_are_reasons():
    bad = SpecCounters(drafts=10, draft_tokens=50, accepted_tokens=20, accepted_per_position=(9, 8, 4))
    checks = counter_checks(bad)
    assert checks.k == 5
    assert checks.reasons == (
        "PER_POSITION_SUM(sum 21 != accepted 20)",
        "DRAFT_TOKENS_OVER_K(draft tokens 50 > drafts x 3)",
    )
    assert counter_checks(SpecCounters(drafts=3, draft_tokens=7, accepted_tokens=2)).k is None  # variable k


def test_cell_with_one_engine_restarted_keeps_the_other_engines_acceptance():
    before, after = scrape("vllm_dp2_before.prom"), scrape("vllm_dp2_after_engine1_restarted.prom")
    s = summarize_cell(CellResult(CellKey("mtp", "prose", 1, 0), (), 0, 10**9, before, after))
    assert "ENGINE_RESET(1)" in s.reasons and "COUNTER_RESET" not in s.reasons
    assert s.acceptance_rate == 0.625 and s.acceptance_length == 3.5 and s.acceptance_source == "counter_delta"
    assert s.acceptance_per_position == (0.9, 0.7, 0.5, 0.4)
    assert s.counters is not None and s.counters.reset_engines == ("1",)
    assert SpecCounters.from_dict(s.counters.to_dict()).engines["1"].reset is True  # round-trips through the store form


def test_a_restarted_engines_row_holds_no_window_figures():
    """ENGINE_RESET (engine 1 restarted, engine 0 not): engine 1's row held its since-restart values (0.0 after a
    scrape of zeros), which no window of the cell holds; they are absent, as a COUNTER_RESET cell's are
    (``window_counts``), and engine 0's row and the cell's figures stay."""
    before, after = scrape("vllm_dp2_before.prom"), scrape("vllm_dp2_after_engine1_restarted.prom")
    s = summarize_cell(CellResult(CellKey("mtp", "prose", 1, 0), (), 0, 10**9, before, after))
    assert s.counters is not None
    e0, e1 = s.counters.engines["0"], s.counters.engines["1"]
    assert e1.reset is True
    assert (e1.drafts, e1.draft_tokens, e1.accepted_tokens, e1.generation_tokens) == (None, None, None, None)
    assert e1.accepted_per_position == ()
    assert (e0.drafts, e0.draft_tokens, e0.accepted_tokens, e0.generation_tokens) == (1000, 4000, 2500, 5000)
    assert (s.counters.drafts, s.counters.accepted_tokens) == (1000, 2500)


def test_the_clock_evidence_names_a_restarted_engine_as_the_delta_does():
    """Series sets are keyed by selector in a snapshot; the clocks' statement names engine 1 as the delta does."""
    from specscope.stats.counters_window import clock_evidence

    clocks = clock_evidence(
        scrape("vllm_dp2_before.prom"), scrape("vllm_dp2_after_engine1_restarted.prom"), (None, None)
    )
    assert clocks.said == "_created of 1 moved forward"

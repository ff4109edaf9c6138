"""Adaptive repeats: after the minimum, only comparisons whose verdict is not decided get another round; the stop
is the report's own verdict rule (pure data)."""

from __future__ import annotations

from specscope.bench.adaptive import decided, next_round
from specscope.config import BenchOptions
from specscope.records import CellKey, SpecCounters
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison


def cell(config: str, workload: str, repeat: int, tok_s: float, drafts: float | None = None) -> CellSummary:
    t = 100.0 * repeat
    counters = None if drafts is None else SpecCounters(drafts=drafts, present=frozenset({"spec"}))
    return CellSummary(
        config, workload, 1, repeat, "ok", (), 1, 1, 48, "usage", 1.0, tok_s, (), None, None, None, None, None, None,
        (), None, counters, None, started_at_s=t, ended_at_s=t + 5.0,
    )  # fmt: skip


def cmp(verdict: str, low: float | None, high: float | None, speedup: float = 1.0) -> Comparison:
    return Comparison(
        "x", "base", "prose", 1, "output_tok_s", 3, 0, 1.0, 1.0, speedup, low, high, "t_log_ratio", "", verdict
    )  # type: ignore[arg-type]


def test_decided_is_the_reports_verdict_or_a_precise_interval_near_one():
    for v in ("faster", "slower", "equivalent", "not_engaged"):
        assert decided(cmp(v, 0.5, 2.0), 0.05, 0.02)
    assert not decided(cmp("undetermined", 0.90, 1.10), 0.05, 0.02)  # wide, across 1
    assert not decided(cmp("undetermined", None, None), 0.05, 0.02)
    # precise (half-width 1.5 %) inside 1 +- 2 x 2 %: more rounds cannot make it faster or slower by much
    assert decided(cmp("undetermined", 1.005, 1.035, 1.02), 0.05, 0.02)
    assert not decided(cmp("undetermined", 1.02, 1.05, 1.035), 0.05, 0.02)  # reaches past 1.04


def test_only_the_undecided_comparison_and_its_baseline_get_the_next_round():
    opts = BenchOptions(
        configs=("base", "draft", "ngram"), workloads=("edit", "prose"), levels=(1,), target_ci=0.05, max_repeats=4
    )
    cells = []
    for r in range(2):
        cells += [cell("base", "edit", r, 10.0), cell("draft", "edit", r, 20.0 + r)]  # 2.0x, 2.1x: faster
        cells += [cell("ngram", "edit", r, 11.0 + r)]  # 1.1 and 1.2: undetermined
        cells += [cell("base", "prose", r, 10.0), cell("draft", "prose", r, 10.0), cell("ngram", "prose", r, 10.0)]
    done = {CellKey(c.config, c.workload, c.concurrency, c.repeat) for c in cells}
    nxt = next_round(opts, cells, done)
    # draft on edit is faster after 2 rounds; prose 1.0 twice is equivalent: only ngram on edit goes on
    assert sorted(nxt) == [CellKey("base", "edit", 1, 2), CellKey("ngram", "edit", 1, 2)]
    cells += [cell("base", "edit", 2, 10.0), cell("ngram", "edit", 2, 13.0)]
    done |= set(nxt)
    # 1.1 / 1.2 / 1.3: still across 1, and not futile (4 rounds as steady could exclude it). These cells carry no
    # TTFT / TPOT, so no round is a cold start (stats/noise.py): 1.0 / 1.2 / 1.4 was once read on 2 rounds (round 0
    # a cold start on tok/s) and is futile on 3
    nxt = next_round(opts, cells, done)
    assert sorted(nxt) == [CellKey("base", "edit", 1, 3), CellKey("ngram", "edit", 1, 3)]
    # at max_repeats nothing more is asked
    cells += [cell("base", "edit", 3, 10.0), cell("ngram", "edit", 3, 10.0)]
    done |= set(nxt)
    assert next_round(opts, cells, done) == []
    assert next_round(opts.model_copy(update={"target_ci": None}), cells, done) == []


def test_a_config_that_never_drafts_stops_at_the_minimum_and_the_aa_control_rides_along():
    opts = BenchOptions(
        configs=("base", "ngram", "draft"), workloads=("prose",), levels=(1,), aa=True, target_ci=0.05, max_repeats=6
    )
    cells = []
    for r, (b, aa, ng, dr) in enumerate([(10.0, 10.8, 10.5, 13.0), (10.0, 9.2, 9.6, 11.0)]):
        cells += [cell("base", "prose", r, b), cell("base-again", "prose", r, aa)]
        cells += [cell("ngram", "prose", r, ng, drafts=0.0), cell("draft", "prose", r, dr, drafts=40.0)]
    done = {CellKey(c.config, c.workload, c.concurrency, c.repeat) for c in cells}
    methods = {"ngram": "ngram", "draft": "draft", "base": None, "base-again": None}
    # ngram: 0 drafts (not engaged, decided); draft 1.3x and 1.1x: undetermined -> one more round with base and A/A
    assert sorted(next_round(opts, cells, done, methods)) == [
        CellKey(c, "prose", 1, 2) for c in ("base", "base-again", "draft")
    ]
    # without the facts the counters say it: drafts counted 0 in every cell
    assert CellKey("ngram", "prose", 1, 2) not in next_round(opts, cells, done)


def test_a_comparison_that_max_repeats_could_not_decide_stops_as_futile():
    """Over 3 rounds, a centre of 1.00 with the interval [0.95, 1.05]: projected to 6 rounds the log half-width is
    log(1.05 / 0.95) / 2 x t(5) / t(2) x sqrt(3 / 6) = 0.05004 x 2.5706 / 4.3027 x 0.7071 = 0.02114, so it could be
    neither faster nor slower (centre 0 <= 0.02114) nor equivalent (0 + 0.02114 > log 1.02 = 0.01980): stop."""
    from specscope.bench.adaptive import futile
    from specscope.stats.speedup import projected_half_width

    h = projected_half_width(0.95, 1.05, 3, 6)
    assert h is not None and round(h, 5) == 0.02114
    assert futile(cmp("undetermined", 0.95, 1.05, 1.0), 6, 0.02)
    assert decided(cmp("undetermined", 0.95, 1.05, 1.0), 0.05, 0.02, max_repeats=6)
    assert not decided(cmp("undetermined", 0.95, 1.05, 1.0), 0.05, 0.02)  # the clause needs max_repeats
    # the same spread around 1.10 could still be faster at 6 rounds (0.0953 > 0.02114 and > 0.0198): go on
    assert not futile(cmp("undetermined", 1.045, 1.157, 1.10), 6, 0.02)
    # a narrower interval around 1.00 could still become equivalent (0 + h <= 0.0198): go on
    assert not futile(cmp("undetermined", 0.97, 1.03, 1.0), 6, 0.02)
    # at 2 rounds (t(1) = 12.7 makes any projection a guess) and at the maximum itself: no futility
    two = Comparison(
        "x", "base", "prose", 1, "output_tok_s", 2, 0, 1.0, 1.0, 1.0, 0.95, 1.05, "t_log_ratio", "", "undetermined"
    )  # type: ignore[arg-type]  # noqa: E501
    assert not futile(two, 6, 0.02)
    assert not futile(cmp("undetermined", 0.95, 1.05, 1.0), 3, 0.02)

"""Adaptive repeats: after the minimum, only unsettled comparisons get another round (pure data)."""

from __future__ import annotations

from specscope.bench.adaptive import next_round, settled
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.speedup import Speedup
from specscope.stats.summary import CellSummary


def cell(config: str, workload: str, repeat: int, tok_s: float) -> CellSummary:
    t = 100.0 * repeat
    return CellSummary(
        config, workload, 1, repeat, "ok", (), 1, 1, 48, "usage", 1.0, tok_s, (), None, None, None, None, None, None,
        (), None, None, None, started_at_s=t, ended_at_s=t + 5.0,
    )  # fmt: skip


def sp(low: float | None, high: float | None, speedup: float = 1.0) -> Speedup:
    return Speedup("x", "base", "prose", 1, "output_tok_s", 2, 1.0, 1.0, speedup, low, high, "wins", None, None)


def test_settled_by_half_width_or_by_a_clear_interval():
    assert settled(sp(0.97, 1.03), 0.05)  # half-width 3 %
    assert not settled(sp(0.90, 1.10), 0.05)  # 10 % and straddles 1
    assert settled(sp(1.60, 2.40, 2.0), 0.05)  # 20 % wide but far above 1.05
    assert not settled(sp(None, None), 0.05)


def test_only_the_unsettled_comparison_and_its_baseline_get_the_next_round():
    opts = BenchOptions(
        configs=("base", "draft", "ngram"), workloads=("edit", "prose"), levels=(1,), target_ci=0.05, max_repeats=3
    )
    cells = []
    for r in range(2):
        cells += [cell("base", "edit", r, 10.0), cell("draft", "edit", r, 20.0 + r)]  # clear win: settled
        cells += [cell("ngram", "edit", r, 10.0 + 2 * r)]  # 1.0 and 1.2: not settled
        cells += [cell("base", "prose", r, 10.0), cell("draft", "prose", r, 10.0), cell("ngram", "prose", r, 10.0)]
    done = {CellKey(c.config, c.workload, c.concurrency, c.repeat) for c in cells}
    nxt = next_round(opts, cells, done)
    assert sorted(nxt) == [CellKey("base", "edit", 1, 2), CellKey("ngram", "edit", 1, 2)]
    # at max_repeats nothing more is asked
    cells += [cell("base", "edit", 2, 10.0), cell("ngram", "edit", 2, 14.0)]
    done |= set(nxt)
    assert next_round(opts, cells, done) == []
    assert next_round(opts.model_copy(update={"target_ci": None}), cells, done) == []

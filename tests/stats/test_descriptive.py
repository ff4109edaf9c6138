"""stats/descriptive.py: the report's descriptive figures over a group's cells, with exact values (issue 33: the
screens render these and compute none)."""

from __future__ import annotations

import pytest
from cellmaker import cell

from specscope.stats.descriptive import (
    group_mean,
    mean_ratio,
    mean_stream_quantiles,
    pooled_median,
    pooled_stream_quantiles,
)
from specscope.stats.stopping import design_cost


def _two():
    a = cell("mtp", "prose", 2, 0, 100.0, tpot_p50_s=0.02, stream_tok_s=(10.0, 20.0, 30.0), decode_tok_s=(40.0, 60.0))
    b = cell("mtp", "prose", 2, 1, 120.0, tpot_p50_s=0.025, stream_tok_s=(20.0, 40.0), ttft_p50_s=None)
    return [a, b]


def test_group_mean_reads_a_metric_the_way_speedups_do_and_leaves_absent_figures_out():
    cells = _two()
    assert group_mean(cells, "output_tok_s") == 110.0
    assert group_mean(cells, "decode_tok_s") == pytest.approx(45.0)  # 1 / TPOT p50: (50 + 40) / 2, not the tuple
    assert group_mean(cells, "ttft_p50_s") == 0.2  # the second cell has none: left out, not counted as 0
    assert group_mean(cells, "queue_mean_s") is None and group_mean([], "output_tok_s") is None


def test_a_ratio_of_means_is_absent_without_a_reference():
    cells = _two()
    assert mean_ratio(cells[1:], cells[:1], "output_tok_s") == 1.2
    assert mean_ratio(cells, [], "output_tok_s") is None


def test_stream_figures_pooled_or_per_cell():
    cells = _two()
    assert pooled_median(cells, "stream_tok_s") == 20.0  # 10, 20, 20, 30, 40
    assert pooled_median(cells, "decode_tok_s") == 50.0  # 40, 60
    assert pooled_median(cells[1:], "decode_tok_s") is None
    assert pooled_stream_quantiles(cells) == pytest.approx((10.0, 12.0, 20.0, 38.0, 40.0))  # numpy's linear percentiles
    # per cell (10, 11, 20, 29, 30) and (20, 21, 30, 39, 40), then their mean
    assert mean_stream_quantiles(cells) == pytest.approx((15.0, 16.0, 25.0, 34.0, 35.0))
    assert mean_stream_quantiles([cell("b", "prose", 1, 0, 5.0)]) is None


def test_design_cost_spends_what_the_cells_took_and_prices_the_fixed_design_per_config():
    cells = [
        cell("base", "prose", 1, 0, 10.0, started_at_s=100.0, ended_at_s=104.0),
        cell("base", "prose", 1, 1, 10.0, started_at_s=110.0, ended_at_s=116.0),
        cell("mtp", "prose", 1, 0, 12.0, started_at_s=120.0, ended_at_s=122.0),
        cell("mtp", "code", 1, 0, 12.0),  # no instants: not spent, its config's mean prices it
    ]
    cost = design_cost(cells, max_repeats=3)
    assert cost.spent_s == 12.0
    assert cost.fixed_s == 3 * 5.0 + 3 * 2.0 + 3 * 2.0  # base/prose, mtp/prose, mtp/code

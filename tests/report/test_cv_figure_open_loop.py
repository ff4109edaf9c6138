"""The CV table names the figure it shows (new-user finding, 2026-12-05): a trace run of one config (no comparison)
titled its table "Coefficient of variation of aggregate tok/s" while the values were of decode tok/s (the figure an
open loop is judged on), 101.9 % where the aggregate rates 7.55 and 8.51 vary by 8.4 %."""

from __future__ import annotations

from cellsummary import make_cell
from specscope.report.tables import RunCells, cv_table
from specscope.stats.groups import METRIC_WORDS

SHAPE = {"output_tokens": 64, "duration_s": 8.0, "ttft_p50_s": 0.2, "ttft_p95_s": 0.3}


def test_one_config_open_loop_cv_is_titled_with_the_figure_it_shows():
    trace = {"open_loop": {"rate_per_s": 1.0, "arrival": "trace"}}
    cells = [
        make_cell("base", "trace", 1, r, tok, tpot_p50_s=tpot, client=trace, **SHAPE)
        for r, (tok, tpot) in enumerate(((7.55, 0.1), (8.51, 0.02)))
    ]
    table = cv_table(RunCells.of(cells))
    assert table.title == f"Coefficient of variation of {METRIC_WORDS['decode_tok_s']} across repeats"
    closed = [make_cell("base", "chat", 1, r, tok, **SHAPE) for r, tok in enumerate((7.55, 8.51))]
    assert cv_table(RunCells.of(closed)).title == (
        f"Coefficient of variation of {METRIC_WORDS['output_tok_s']} across repeats"
    )

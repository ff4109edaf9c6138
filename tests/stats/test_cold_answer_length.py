"""A round whose answers stop early is not a cold start (:mod:`specscope.stats.noise`).

The rounds of a cell take different prompts, and the quick profile's 03:03 run (benchmarks/RESULTS.md, ``repeat`` at
128 tokens, 2026-12-07) left every server's round 0 of ``repeat`` out as a "cold start": repeat-052 stopped after 26
tokens, so its cell read 26.9 tok/s against 51.1-52.4 later, at the same TTFT and TPOT. SOURCE: the figures below are
that run's cells (``specscope report`` of /tmp/exp/qR1/run-20261207-030321 on the helpers' machine, not kept): output
tokens, duration, TTFT p50, TPOT p50 and mean prompt tokens of base and ngram-k8 x repeat x N=1, rounded as printed.
"""

from __future__ import annotations

import pytest

from cellsummary import make_cell
from specscope.stats.judgement import judge
from specscope.stats.noise import cold_starts


def _cell(config, repeat, at_s, out, tok_s, ttft_s, tpot_s, prompt, workload="repeat"):
    return make_cell(
        config,
        workload,
        1,
        repeat,
        tok_s,
        output_tokens=out,
        duration_s=out / tok_s,
        ttft_p50_s=ttft_s,
        ttft_p95_s=None,
        tpot_p50_s=tpot_s,
        prompt_tokens_mean=prompt,
        started_at_s=at_s,
        ended_at_s=at_s + out / tok_s,
    )


#: (round, output tokens, tok/s, TTFT s, TPOT s, prompt tokens)
BASE = [(0, 26, 26.9, 0.583, 0.0147, 92.0), (1, 128, 52.4, 0.530, 0.0151, 92.0)]
BASE += [(2, 128, 51.1, 0.551, 0.0154, 92.0), (3, 128, 51.6, 0.560, 0.0151, 86.0)]
NGRAM = [(0, 26, 31.0, 0.530, 0.0124, 92.0), (1, 128, 75.5, 0.502, 0.0094, 92.0)]
NGRAM += [(2, 128, 69.8, 0.559, 0.0100, 92.0), (3, 128, 76.9, 0.476, 0.0093, 86.0)]


def _run(base=BASE, ngram=NGRAM):
    cells = []
    for (r, *b), (_, *n) in zip(base, ngram, strict=True):
        cells += [_cell("base", r, 100.0 * r, *b), _cell("ngram-k8", r, 100.0 * r + 50.0, *n)]
    return cells


def test_a_round_with_short_answers_at_the_same_per_token_timing_is_no_cold_start():
    # before: base round 0 read 26.9 against min 51.1 tok/s (47 % slower) and ngram-k8's 31.0 against 69.8: both cold
    cells = _run()
    assert cold_starts(cells) == ()
    j = judge(cells, "base")
    (cmp,) = j.comparisons
    assert cmp.rounds == 4 and not cmp.has("COLD_START")


def test_the_same_cells_with_a_slow_first_round_are_a_cold_start_at_the_exact_rate():
    """Round 0 of base with TTFT and TPOT twice as long: tok/s per request 26 / (2 x 0.583 + 25 x 2 x 0.0147), the
    later cells' at its 26 tokens and 92 prompt tokens 26 / (TTFT_d x 92 / P_d + 25 x TPOT_d)."""
    slow = [(0, 26, 26.9 / 2, 2 * 0.583, 2 * 0.0147, 92.0), *BASE[1:]]
    (cold,) = cold_starts(_run(base=slow))
    own = 26 / (2 * 0.583 + 25 * 2 * 0.0147)
    later = sorted(26 / (t * 92.0 / p + 25 * tpot) for _, _, _, t, tpot, p in BASE[1:])
    assert (cold.key, cold.metric) == (("base", "repeat", 1, 0), "request_tok_s")
    assert cold.tok_s == pytest.approx(own, rel=1e-12) and cold.later_tok_s == pytest.approx(later[1], rel=1e-12)
    assert (round(own, 2), round(later[1], 2)) == (13.68, 27.78)
    assert cold.text == (
        "base repeat N=1 round 0: 13.7 tok/s per request (TTFT + (tokens - 1) x TPOT, the later cells' at its prompt "
        "and answer lengths) against 27.8 in the same cells later (51 % slower), among the server's first 2 cells: a "
        "cold start, left out"
    )


def test_a_cell_without_ttft_or_tpot_is_not_judged():
    """Nothing says such a cell was cold: its tok/s alone does not (it holds the answer length)."""
    cells = [_cell("base", r, 100.0 * r, 48, v, None, None, 92.0) for r, v in enumerate([10.0, 30.0, 31.0])]
    assert cold_starts(cells) == ()
    no_tpot = [_cell("base", r, 100.0 * r, 48, v, 0.1, None, 92.0) for r, v in enumerate([10.0, 30.0, 31.0])]
    assert cold_starts(no_tpot) == ()

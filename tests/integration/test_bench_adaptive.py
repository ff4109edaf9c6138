"""``--target-ci`` end to end: the runner asks for more rounds only where the verdict is not decided.

Three configs on three ground-truth servers, one workload file of two prompts at N=1 sampled one row per repeat
(``--sample-rows 1``; by default a cell sends every row), so rounds alternate between them
(:func:`specscope.workload.schedule.schedule`: repeat r takes prompt ``r mod 2`` of the shuffled pack). ``base``
answers every prompt after 250 ms, then 100 ms apart (12 tokens in 3 chunks: 450 ms a request); ``faster`` after
100 ms on both (300 ms): per-round ratios 1.5x twice, a verdict (``faster``) after the 2 minimum rounds, so it
stops there. ``flaky`` answers one prompt after 100 ms and the other after 400 ms (300 / 600 ms a request):
per-round ratios 1.5x and 0.75x, an interval across 1: after 3 rounds (logs 0.405, -0.288, 0.405: centre 0.174,
t-half-width 0.994, projected to 4 rounds 0.637) even ``max_repeats`` = 4 could not decide it, so it and the
baseline stop there as futile (:func:`specscope.bench.adaptive.futile`), one round short of the maximum.
"""

from __future__ import annotations

import pytest

from sent_rows import assert_rows_sent
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import judge
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

# wall-clock: the ratios come from the servers' delays, and a starved client's cells are CLIENT_LIMITED (dropped)
pytestmark = [pytest.mark.integration, pytest.mark.timing]

PROMPTS = ("Alpha: say something.", "Beta: say something else.")


def plan(ttft_ms: float) -> ResponsePlan:
    """12 tokens in 3 chunks, the first after ``ttft_ms``, then 100 ms apart."""
    return ResponsePlan(
        output_tokens=12, tokens_per_chunk=4, finish_reason="length", ttft_ms=ttft_ms, inter_chunk_ms=100
    )


@pytest.fixture(scope="module")
def run_cells(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adaptive")
    wl = tmp / "two.txt"
    wl.write_text("\n".join(PROMPTS) + "\n")
    opts = BenchOptions(
        configs=("base", "faster", "flaky"),
        workloads=("two",),
        workload_files={"two": str(wl)},
        sample_rows=1,  # one row per round, alternating (issue 35: without it each cell sends both rows)
        levels=(1,),
        max_tokens=12,
        prefix_cache="allow",
        target_ci=0.2,  # wide enough that a stall of a loaded machine cannot unsettle `faster`
        min_repeats=2,
        max_repeats=4,
    )
    flaky = TruthScript(default=plan(250), by_prompt={PROMPTS[0]: plan(100), PROMPTS[1]: plan(400)})
    with TruthServer(TruthScript(default=plan(250))) as b, TruthServer(TruthScript(default=plan(100))) as s:
        with TruthServer(flaky) as f:
            run_dir = run_bench(opts, servers={"base": b.base_url, "faster": s.base_url, "flaky": f.base_url}, out=tmp)
            logs = {"base": b.served(), "faster": s.served(), "flaky": f.served()}
    texts = {"line 1": PROMPTS[0], "line 2": PROMPTS[1]}
    for cfg, log in logs.items():  # one row per round (--sample-rows 1), each what that server received
        assert set(assert_rows_sent(run_dir, log, texts, config=cfg).values()) == {1}
    with open_run(run_dir) as run:
        assert run.manifest["finished"] is True
        return summarize_run(run)


def test_only_the_undecided_comparison_gets_more_rounds(run_cells):
    rounds = {cfg: sorted(c.repeat for c in run_cells if c.config == cfg) for cfg in ("base", "faster", "flaky")}
    assert rounds == {"base": [0, 1, 2], "faster": [0, 1], "flaky": [0, 1, 2]}
    assert all(c.status == "ok" and c.output_tokens == 12 for c in run_cells)


def test_the_verdicts_rest_on_the_rounds_each_comparison_got(run_cells):
    got = {s.config: s for s in judge(run_cells, "base").comparisons}
    faster = got["faster"]
    assert faster.rounds == 2 and faster.verdict == "faster"  # 450 / 300 ms a request
    assert faster.speedup == pytest.approx(1.5, abs=0.15) and faster.low > 1.02  # a busy CPU stretches a request
    # by tens of ms
    flaky = got["flaky"]
    assert flaky.rounds == 3 and flaky.verdict == "undetermined"
    assert flaky.low < 0.85 and flaky.high > 1.35  # per-round 0.75x and 1.5x: across 1

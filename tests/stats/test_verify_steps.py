"""Verify steps from the counters subtract each request's first token, which prefill samples (vLLM spec_decode
metrics: ``num_drafts`` counts verify steps that drafted; each step emits 1 + its accepted tokens)."""

from __future__ import annotations

from cellmaker import cell

from cellsummary import counters_of
from specscope.records import SpecCounters
from specscope.stats.predict_run import draft_fraction
from specscope.stats.verify_steps import first_token_requests, verify_steps


def _spec(drafts: float, accepted: float, generated: float) -> SpecCounters:
    d = {"drafts": drafts, "draft_tokens": 4 * drafts, "accepted_tokens": accepted, "generation_tokens": generated}
    return counters_of(d)


def test_a_draft_model_that_drafts_on_every_step_drafted_on_all_of_them():
    """4 requests x 48 tokens = 192 generated, 92 accepted: 192 - 92 - 4 = 96 verify steps. A drafter with 96
    drafts drafted on exactly every step (the old generated - accepted said 96 / 100 = 0.96); with 48, on half."""
    every = cell("draft", "edit", 4, 0, 30.0, output_tokens=192, counters=_spec(96.0, 92.0, 192.0))
    assert first_token_requests(every) == 4
    assert verify_steps(every) == 96.0
    assert draft_fraction([every], "draft", "edit") == 1.0
    half = cell("draft", "edit", 4, 0, 30.0, output_tokens=192, counters=_spec(48.0, 92.0, 192.0))
    assert draft_fraction([half], "draft", "edit") == 0.5


def test_failed_streams_without_tokens_leave_no_first_token_and_with_tokens_leave_the_count_unknown():
    """A failed stream that carried no token produced no prefill token (3 of 4 count: 192 - 92 - 3 = 97 steps);
    one whose tokens are in the counter, or a cell that does not record them, leaves the count unknown: None."""
    kw = dict(output_tokens=192, counters=_spec(97.0, 92.0, 192.0), streams_ok=3)
    quiet = cell("draft", "edit", 4, 0, 30.0, failed_output_tokens=0, **kw)
    assert first_token_requests(quiet) == 3 and verify_steps(quiet) == 97.0
    for failed in (5, None):
        loud = cell("draft", "edit", 4, 0, 30.0, failed_output_tokens=failed, **kw)
        assert first_token_requests(loud) is None and verify_steps(loud) is None


def test_the_quick_runs_counters_are_an_engines(tmp_path):
    """tests/quickrun's stand-in counters add up as an engine's do (generated = verify steps + accepted + one prefill
    token per request): its drafters draft on every step, so each speculative cell's verify steps are its drafts,
    and ``predict`` on it says nothing of a drafted share (it said 91.7 % for draft/edit when the prefill token was
    left out)."""
    from quickrun import make_quick_run
    from specscope.stats.cells import summarize_run
    from specscope.store import open_run

    with open_run(make_quick_run(tmp_path / "q")) as run:
        cells = [c for c in summarize_run(run) if c.counters is not None and c.counters.drafts]
    assert cells
    assert [verify_steps(c) for c in cells] == [c.counters.drafts for c in cells if c.counters is not None]
    assert {draft_fraction(cells, c.config, c.workload) for c in cells} == {1.0}

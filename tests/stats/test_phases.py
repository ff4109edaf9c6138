"""Acceptance split by phase from per-step data: a step belongs to the phase of its first emitted token."""

from __future__ import annotations

from specscope.records import StreamRecord
from specscope.stats.phases import phase_counts


def _stream(draft: tuple[int, ...], accepted: tuple[int, ...], reasoning: int | None) -> StreamRecord:
    return StreamRecord(
        prompt_id="p",
        intended_ns=0,
        send_ns=0,
        first_token_ns=1,
        first_content_ns=1,
        last_token_ns=2,
        end_ns=3,
        content_chunks=1,
        reasoning_chunks=1,
        output_tokens=10,
        prompt_tokens=5,
        token_source="usage",
        finish_reason="stop",
        status="ok",
        reason=None,
        http_status=200,
        draft_per_step=draft,
        accepted_per_step=accepted,
        reasoning_tokens=reasoning,
    )


def test_a_step_straddling_the_boundary_counts_where_it_starts():
    # steps emit 4, 3, 2, 1 tokens starting at tokens 0, 4, 7, 9; with 5 reasoning tokens step 1 (tokens 4-6)
    # starts inside the reasoning phase, so reasoning = steps 0-1 (5 of 6), answer = steps 2-3 (1 of 6)
    s = _stream((3, 3, 3, 3), (3, 2, 1, 0), 5)
    assert phase_counts([s, s]) == {
        "reasoning_draft_tokens": 12,
        "reasoning_accepted_tokens": 10,
        "answer_draft_tokens": 12,
        "answer_accepted_tokens": 2,
    }


def test_no_per_step_data_or_no_boundary_gives_none():
    assert phase_counts([_stream((), (), 5)]) is None
    assert phase_counts([_stream((3,), (1,), None)]) is None


def test_phase_rate_length_and_per_position():
    """Issue 26: per phase, verify steps, rate, length and per-position acceptance from the per-step arrays."""
    from specscope.stats.phases import phase_acceptance

    s = _stream((3, 3, 3, 3), (3, 2, 1, 0), 5)  # 10 output tokens = 4 + 3 + 2 + 1: every token from a listed step
    got = phase_acceptance([s, s])
    assert got is not None and got["streams"] == 2 and got["exact"]
    r, a = got["reasoning"], got["answer"]
    assert (r["drafts"], r["draft_tokens"], r["accepted_tokens"]) == (4, 12, 10)
    assert (a["drafts"], a["draft_tokens"], a["accepted_tokens"]) == (4, 12, 2)
    assert r["accepted_per_position"] == [4, 4, 2] and a["accepted_per_position"] == [2]
    assert (r["acceptance_rate"], r["acceptance_length"]) == (10 / 12, 1 + 10 / 4)
    assert r["acceptance_per_position"] == [1.0, 1.0, 0.5] and a["acceptance_per_position"] == [0.5]


def test_the_prefill_token_comes_before_the_first_step():
    """vLLM samples the first token at prefill: 11 output tokens over steps emitting 10 put the boundary one later."""
    from specscope.stats.phases import phase_acceptance

    s = _stream((3, 3, 3, 3), (3, 2, 1, 0), 4)
    s = StreamRecord(
        **{
            **s.to_dict(),
            "output_tokens": 11,
            "draft_per_step": s.draft_per_step,
            "accepted_per_step": s.accepted_per_step,
        }
    )
    got = phase_acceptance([s])
    assert got is not None and got["exact"]
    # tokens: 0 prefill, steps start at 1, 5, 8, 10; 4 reasoning tokens: step 0 only starts inside
    assert (got["reasoning"]["drafts"], got["answer"]["drafts"]) == (1, 3)
    unlisted = StreamRecord(
        **{
            **s.to_dict(),
            "output_tokens": 14,
            "draft_per_step": s.draft_per_step,
            "accepted_per_step": s.accepted_per_step,
        }
    )
    assert phase_acceptance([unlisted])["exact"] is False

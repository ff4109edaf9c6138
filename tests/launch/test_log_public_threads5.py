"""`serve --parse-log` on server-log shapes not seen before (hunt of 2026-12-07, round 59; tests/data/engines/logs,
SOURCES.md there): llama-server's per-verify-step debug line, ``accepted A/D draft tokens, new n_tokens = N``
(tools/server/server-context.cpp ``SLT_DBG``, printed once per verify step at ``-v``; its drafted count printed 0
before llama.cpp PR #18211). Each figure read right, or the line named; never dropped unnamed."""

from __future__ import annotations

from parselog import parse_log
from parselog import parse_log_json as _json


def _only_pool(name: str, code: int) -> dict:
    (pool,) = _json(name, code)["log_pools"]
    return pool


def test_per_step_lines_without_a_request_line_are_read_as_the_requests_rounds() -> None:
    # llama.cpp PR #18211's "after" block (a -v log cut before the request's print_timing line): five verify steps,
    # 1 + 2 + 16 + 16 + 3 = 38 of 16 + 16 + 16 + 16 + 4 = 68 drafted. Before, the log was refused as holding "no
    # speculative statistics".
    pool = _only_pool("llamacpp_pr18211_rounds_after.log", 0)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (68, 38, 5)
    assert pool["acceptance_rate"] == 38 / 68 and pool["acceptance_length"] == 1 + 38 / 5
    assert pool["verify_steps_estimated"] is False
    assert pool["forms"] == ["per-step (debug)"]
    (warning,) = pool["warnings"]
    assert warning.startswith("REQUEST_FROM_STEPS(slot 3 task 0: 5 verify steps at lines 1-5")
    text = parse_log("llamacpp_pr18211_rounds_after.log")
    assert text.exit_code == 0 and "68 drafted, 38 accepted over 5 steps" in text.output


def test_per_step_lines_printing_zero_drafted_leave_the_drafted_count_absent() -> None:
    # PR #18211's "before" block: 'accepted 11/0 draft tokens' (the drafted count cleared before it was printed).
    # 44 accepted over 5 steps is right; the drafted tokens are unknown, never 0 (11 of 0 would read as an
    # impossible rate), so nothing is pooled and the reason is named.
    out = _json("llamacpp_pr18211_rounds_before_drafted_zero.log", 0)
    (pool,) = out["log_pools"]
    assert pool["draft_tokens"] is None and pool["acceptance_rate"] is None
    assert pool["inconsistencies"] == []
    assert any(w.startswith("DRAFTED_PRINTED_ZERO(slot 3 task 0: 5 verify steps") for w in pool["warnings"])
    assert any("44 accepted" in w for w in pool["warnings"])


def test_per_step_lines_give_the_requests_exact_verify_steps() -> None:
    # a -v MTP trace (public copy, index id 57538574558): two steps 'accepted 0/1', then the request's
    # 'draft acceptance = 0.00000 (    0 accepted /     2 generated)'. The request line alone gives no steps (nothing
    # accepted, no mean length): before, steps unknown (>= 1) and no length; its steps are the two lines.
    pool = _only_pool("llamacpp_verbose_mtp_rounds_then_request.log", 0)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (2, 0, 2)
    assert pool["acceptance_length"] == 1.0 and pool["acceptance_rate"] == 0.0
    assert pool["statistics"] == 1 and pool["warnings"] == []  # the steps belong to the request: counted once

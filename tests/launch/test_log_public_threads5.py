"""`serve --parse-log` on server-log shapes not seen before (hunt of 2026-12-07, round 59; tests/data/engines/logs,
SOURCES.md there): llama-server's per-verify-step debug line, ``accepted A/D draft tokens, new n_tokens = N``
(tools/server/server-context.cpp ``SLT_DBG``, printed once per verify step at ``-v``; its drafted count printed 0
before llama.cpp PR #18211). Each figure read right, or the line named; never dropped unnamed."""

from __future__ import annotations

from typer.testing import CliRunner

from clirun import cli
from parselog import LOGS, parse_log
from parselog import parse_log_json as _json
from specscope.cli import app
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer


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


def test_fields_of_a_window_line_not_read_are_named_beside_right_figures() -> None:
    # a vLLM fork's SpecDecodingLogging (public copy of v1/spec_decode/metrics.py, index id 4803782941) prints its
    # running totals and an 'Average accpetace length' (accepted / lines, no acceptance length) after the window's
    # counts. The window's own counts are the figure, 150 / 400; the fields specscope does not read were dropped
    # unnamed.
    pool = _only_pool("vllm_fork_total_fields_in_window_line.log", 0)
    assert (pool["draft_tokens"], pool["accepted_tokens"]) == (400, 150)
    (said,) = [w for w in pool["warnings"] if w.startswith("UNREAD_LOG_FIELD(")]
    for field in ("'Total draft acceptance rate'", "'Total accepted'", "'Total drafted'", "'Average accpetace length'"):
        assert field in said
    assert "lines 1-2, 2 lines" in said
    text = parse_log("vllm_fork_total_fields_in_window_line.log")
    assert text.exit_code == 0 and "UNREAD_LOG_FIELD" in text.output


def test_other_speculative_lines_and_fields_are_named_not_dropped() -> None:
    # forks of vLLM 0.2x (public copies, index ids 65954075149, 66520971598, 67189647741) add top-k rates to the
    # SpecDecoding line and print 'SpecDecoding cost breakdown: ...' and 'SpecDecoding timing (...): ...' lines. The
    # window is read as vLLM prints it (150 / 300, length 2.50, three positions); the rest is named.
    pool = _only_pool("vllm_fork_topk_and_extra_spec_lines.log", 0)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (300, 150, 100)
    assert pool["acceptance_per_position"] == [0.8, 0.5, 0.2]
    (fields,) = [w for w in pool["warnings"] if w.startswith("UNREAD_LOG_FIELD(")]
    assert "'top1'" in fields and "'top2'" in fields
    (lines,) = [w for w in pool["warnings"] if w.startswith("UNREAD_LOG_LINE(")]
    assert "'SpecDecoding cost breakdown' (line 2)" in lines and "'SpecDecoding timing' (line 3)" in lines


def test_per_step_lines_of_older_builds_printing_n_past_are_read() -> None:
    # older llama-server builds print the step line with the slot's n_past ('accepted %d/%d draft tokens, new n_past =
    # %d', a public copy of the server loop, index id 66687141255); the request line (PR #10455's form after its
    # prefix line) gives no steps by itself. Three steps, 9 / 15: length 1 + 9 / 3 = 4.00.
    pool = _only_pool("llamacpp_n_past_steps_then_request.log", 0)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (15, 9, 3)
    assert pool["acceptance_length"] == 4.0 and pool["warnings"] == []


def test_bench_says_the_requests_counted_from_their_steps_as_serve_does(tmp_path) -> None:
    # the same log through `bench --server-log`: the pooled counts and the warning that they come from per-step lines
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4)
    log = LOGS / "llamacpp_pr18211_rounds_after.log"
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"lc={ts.base_url}", "--server-log", f"lc={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path)]
        r = CliRunner().invoke(app, [*args, "-f", "json"])
    assert r.exit_code == 0, r.output
    assert "server log lc (llamacpp: per-step (debug)): 68 drafted, 38 accepted (55.9%) over 5 verify steps" in r.stderr
    assert "warning: server log lc: REQUEST_FROM_STEPS(slot 3 task 0: 5 verify steps at lines 1-5" in r.stderr


def test_another_tools_speculative_summary_is_refused_by_what_it_is(capsys, monkeypatch, tmp_path) -> None:
    # the summary vLLM's examples/offline_inference/spec_decode.py prints (vllm PR #24344's ngram block: num_drafts,
    # num_draft_tokens, num_accepted_tokens, acceptance at token i) and llama.cpp's speculative example (PR #3006:
    # n_draft, n_predict, n_drafted, n_accept, accept) are no server logs. Before, the refusal said the files held "no
    # speculative statistics"; it now says what they are and what to pass instead, exit 2 as before.
    for name, said in (
        ("not_a_server_log_vllm_pr24344_offline_spec_decode.log", "vLLM's offline spec_decode.py summary"),
        ("not_a_server_log_llamacpp_pr3006_speculative_example.log", "llama.cpp's speculative example summary"),
    ):
        code, _, err = cli(["serve", "--parse-log", LOGS / name], capsys, monkeypatch, tmp_path)
        text = " ".join(err.split())
        assert code == 2, err
        assert f"found: {said}" in text, text
        assert "no speculative statistics" not in text

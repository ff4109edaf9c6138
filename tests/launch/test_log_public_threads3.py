"""`serve --parse-log` on the shapes of server logs pasted in public speculative-decoding threads (hunt of
2026-12-06, third round; tests/data/engines/logs, SOURCES.md there): each right figure and the failure the thread
was about, by name."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from parselog import LOGS, parse_log
from parselog import parse_log_json as _json
from specscope.cli import app


def test_mtp_weights_missing_from_the_checkpoint_is_a_named_failure() -> None:
    # vllm PR #35548: a checkpoint quantized without its MTP layers; the workers refuse it at load. Before, the
    # log printed its config and exited 0 with nothing said (the ValueError matched no signature).
    out = _json("vllm_pr35548_mtp_weights_missing.log", 1)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["count"], f["severity"]) == ("mtp_weights_missing", 3, 2, "error")
    assert "specscope audit MODEL" in f["fix"]
    text = parse_log("vllm_pr35548_mtp_weights_missing.log")
    assert text.exit_code == 1 and "mtp_weights_missing (line 3, 2x)" in text.output


def test_draft_decode_failing_is_a_named_failure_not_an_unrecognised_log() -> None:
    # llama.cpp PR #28243 (a comment: "it seems MTP wasn't activated"): every draft step's llama_decode fails.
    # Before, the log was refused as holding no server-log line (exit 2).
    out = _json("llamacpp_pr28243_draft_decode_fails.log", 1)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["count"], f["severity"]) == ("draft_decode_failed", 4, 2, "error")


def test_async_scheduling_turned_off_by_the_drafter_is_a_named_warning_beside_right_figures() -> None:
    # vllm PR #31998 (vllm/config/vllm.py): a drafter outside the EAGLE/MTP family turns async scheduling off with a
    # warning; a speculative-vs-base comparison then carries that cost. Before, the warning was read as nothing.
    out = _json("vllm_pr31998_ngram_async_scheduling_off.log", 0)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["severity"]) == ("scheduling_overlap_off_by_speculation", 2, "warning")
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    # 1,600 drafted over 4 positions = 400 steps; 200 accepted: 12.5 %, length 1.50
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (1600, 200, 400)


def test_overlap_schedule_turned_off_by_the_drafter_is_the_same_named_warning() -> None:
    # SGLang server_args.py: EAGLE3 / standalone drafting turns the overlap scheduler off (its warning line).
    out = _json("sglang_eagle3_overlap_schedule_off.log", 0)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["severity"]) == ("scheduling_overlap_off_by_speculation", 1, "warning")


def test_mtp_layer_run_more_times_than_it_has_layers_is_a_named_warning() -> None:
    # vllm/config/speculative.py warns when k exceeds the checkpoint's MTP layers (the one layer is run k times);
    # public notes quote it beside per-position rates falling 87.0 / 68.2 / 54.8. Before, it was read as nothing.
    out = _json("vllm_mtp_k3_one_layer_reused.log", 0)
    (f,) = out["failures"]
    assert (f["code"], f["line_number"], f["severity"]) == ("mtp_layer_reused", 2, "warning")
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    # 900 drafted over 3 positions = 300 steps; (0.870 + 0.682 + 0.548) x 300 = 630 accepted
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (900, 630, 300)


def test_sglang_windows_whose_rate_falls_through_the_log_are_named() -> None:
    # sglang issue #30763: MTP/EAGLE3 acceptance healthy at first falls to 'accept len: 1.57, accept rate: 0.19' as
    # the context grows past 32K. Before, the log said the range and a bound of 73.5 % and nothing else.
    out = _json("sglang_issue30763_mtp_rate_falls_long_context.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "sglang"]
    # bounds per window, the printed two decimals' half-unit allowed: min(rate + 0.005, (len + 0.005 - 1) / 3):
    # 0.735, 0.6017, 0.1917, 0.1917 -> first half (0.735 + 0.6017) / 2 = 66.8 %, second 19.2 %
    (w,) = [w for w in pool["warnings"] if w.startswith("ACCEPTANCE_FELL(")]
    assert "lines 2-3: at most 66.8%" in w and "lines 4-5: at most 19.2%" in w, w


def test_vllm_windows_whose_rate_falls_are_named_beside_the_right_pool() -> None:
    out = _json("vllm_windows_rate_falls.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    # pooled (240 + 210 + 45 + 45) / 1,200 = 45 % over 400 steps; halves 450 / 600 = 75 %, 90 / 600 = 15 %
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (1200, 540, 400)
    (w,) = [w for w in pool["warnings"] if w.startswith("ACCEPTANCE_FELL(")]
    assert "lines 2-3: 75.0%" in w and "lines 4-5: 15.0%" in w, w


def test_steady_windows_raise_no_fall() -> None:
    out = _json("vllm_ascend_issue13640_dspark_k7.log", 0)
    assert not any(w.startswith("ACCEPTANCE_FELL(") for p in out["log_pools"] for w in p["warnings"])


def test_current_window_with_throughputs_of_pr24127_reads_its_counts() -> None:
    # vllm PR #24127's test result: 'Draft acceptance rate: 88.8%, Mean acceptance length: 5.44, Accepted throughput:
    # 4.37 tokens/s, ... Accepted: 262 tokens, Drafted: 295 tokens, Per-position acceptance rate: 0.983, ..., 0.712'
    # (n-gram, k = 5): 295 / 5 = 59 steps, 1 + 262 / 59 = 5.44
    out = _json("vllm_pr24127_ngram_k5_throughput_window.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (295, 262, 59)
    assert round(pool["acceptance_length"], 2) == 5.44 and pool["alarm"] is None


def test_k15_window_whose_tail_positions_accept_nothing_reads_right() -> None:
    # AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash issue #6 ('why avg draft acceptance rate so low?'): 15
    # per-position rates, the last ten 0.000, 'Avg Draft acceptance rate: 9.1%': 975 / 15 = 65 steps, 89 accepted
    out = _json("vllm_aeon7_issue6_dflash_k15_tail_zero.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (975, 89, 65)
    assert round(pool["acceptance_rate"], 3) == 0.091 and len(pool["acceptance_per_position"]) == 15


def test_mtp_statistics_beside_an_idle_ngram_mod_take_the_drafting_one() -> None:
    # llama.cpp issue #23929 (-sm tensor + MTP + ngram-mod): 'draft acceptance = 0.86207 (150 accepted / 174
    # generated)' with an ngram-mod statistics line of 0 drafts and a draft-mtp line of 87 drafts: 87 steps, no alarm
    out = _json("llamacpp_issue23929_mtp_beside_idle_ngram_mod.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "llamacpp"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (174, 150, 87)
    assert pool["alarm"] is None


def test_counters_with_pr23328_names_say_they_are_unread_never_a_figure() -> None:
    # llama.cpp PR #23328 (closed; superseded by PR #26389's spec_decode_* names): llamacpp:spec_tokens_drafted_total
    # and spec_tokens_accepted_total. A scrape with only those has no figure and names them (UNREAD_SPEC_FIELD).
    data = LOGS.parent / "counters"
    r = CliRunner().invoke(
        app,
        [
            "counters",
            str(data / "llamacpp_pr23328_names_before.prom"),
            str(data / "llamacpp_pr23328_names_after.prom"),
            "-f",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["warnings"] == [
        "UNREAD_SPEC_FIELD(llamacpp:spec_tokens_accepted_total, llamacpp:spec_tokens_drafted_total)"
    ]
    assert (out["state"], out["acceptance_rate"], out["deltas"]["accepted_tokens"]) == ("unread", None, None)
    assert (out["deltas"]["generation_tokens"], out["deltas"]["prompt_tokens"]) == (3000.0, 2000.0)


def test_windows_of_two_draft_lengths_are_named_and_their_positions_not_pooled() -> None:
    # a log holding two server runs (a restart from k = 3 to k = 5). Before, the per-position rates were pooled as
    # '65.0%, 45.0%, 27.5%, 7.5%, 5.0%': positions 4 and 5 (15 %, 10 % of the k = 5 run's 100 steps) divided by all
    # 200 steps, and nothing said the log mixes two configurations.
    out = _json("vllm_restart_k3_then_k5.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (800, 300, 200)
    assert pool["acceptance_per_position"] == []
    (w,) = [w for w in pool["warnings"] if w.startswith("K_DIFFERS(")]
    assert "3 positions (line 3)" in w and "5 positions (line 6)" in w, w
    assert out["spec_decoding_pooled"]["acceptance_per_position"] == []  # the older window summary says the same


def test_finish_line_with_the_correct_drafts_names_reads_counts_and_positions() -> None:
    # sglang PR #33518 (a comment's measured request, DSpark block 5): 'spec_num_correct_drafts': 63,
    # 'spec_num_proposed_drafts': 215, 'spec_verify_ct': 43, 'spec_correct_drafts_histogram': [11, 14, 11, 4, 0, 3]
    # in a --log-requests Finish line: per position = steps with at least i accepted / 43 = 32, 18, 7, 3, 3 of 43
    out = _json("sglang_finish_pr33518_dspark_block5.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "sglang"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (215, 63, 43)
    assert [round(r * 43) for r in pool["acceptance_per_position"]] == [32, 18, 7, 3, 3]

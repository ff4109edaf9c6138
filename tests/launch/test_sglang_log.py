"""`serve --parse-log` on an SGLang server log (issue 26): its decode-batch windows are read, never pooled (SGLang
prints no counts), and a head that accepts nothing in every window alarms by sound bounds.

Lines in SGLang's wording (``scheduler_metrics_mixin.py`` ``log_decode_stats``: public copies at index ids 135019089
(``Decode batch.``, ``accept len`` only) and 61864081288 (``Decode batch,``, ``accept len`` and ``accept rate``);
the ``server_args=ServerArgs(...)`` repr). Before this reader the log was refused: "no vLLM log lines", exit 2."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from specscope.adapters.sglang.log_summary import sglang_spec_summary
from specscope.cli import app
from specscope.launch import parse_vllm_log
from specscope.stats.low_acceptance import low_acceptance_bound_alarm

ARGS = (
    "[2025-10-10 11:59:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, "
    "speculative_algorithm='EAGLE3', speculative_draft_model_path='x/eagle3', speculative_num_steps=3, "
    "speculative_eagle_topk=1, speculative_num_draft_tokens=4, decode_log_interval=40)"
)
OLD = (
    "[2025-10-10 12:00:01 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, accept len: 2.85, "
    "cuda graph: True, gen throughput (token/s): 312.45, #queue-req: 0"
)
NEW = (
    "[2025-10-10 12:00:05 DP1 TP0] Decode batch, #running-req: 3, #token: 2300, token usage: 0.01, accept len: 3.10, "
    "accept rate: 0.70, cuda graph: True, gen throughput (token/s): 330.20, #queue-req: 0"
)
NO_SPEC = (
    "[2025-10-10 12:00:09 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.00, cuda graph: True, "
    "gen throughput (token/s): 99.60, #queue-req: 0"
)


def test_windows_are_read_with_their_ranks_and_never_pooled() -> None:
    facts = parse_vllm_log("\n".join([ARGS, OLD, NEW, NO_SPEC]))
    assert [(w.line_number, w.rank, w.accept_length, w.accept_rate) for w in facts.sglang_spec_windows] == [
        (2, "TP0", 2.85, None),
        (3, "DP1 TP0", 3.10, 0.70),
    ]
    s = sglang_spec_summary(facts.sglang_spec_windows, facts.sglang_speculative, low_acceptance_bound_alarm)
    assert s is not None
    assert (s.method, s.draft_tokens_per_step, s.windows, s.verify_steps_at_least) == ("eagle3", 3, 2, 2)
    assert (s.accept_length_min, s.accept_length_max, s.accept_rate_min, s.accept_rate_max) == (2.85, 3.10, 0.70, 0.70)
    # bound: the old window gives (2.855 - 1) / 3, the new one the smaller of 0.705 and (3.105 - 1) / 3; the larger is
    # the bound
    assert s.acceptance_rate_at_most == max((2.85 + 0.005 - 1) / 3, min(0.70 + 0.005, (3.10 + 0.005 - 1) / 3))
    assert s.alarm is None


def _dead(windows: int) -> str:
    line = (
        "[2025-10-10 12:{m:02d}:00 TP0] Decode batch, #running-req: 8, #token: 9000, token usage: 0.05, accept len: "
        "1.00, accept rate: 0.00, cuda graph: True, gen throughput (token/s): 80.00, #queue-req: 0"
    )
    return "\n".join([ARGS.replace("EAGLE3", "NEXTN")] + [line.format(m=i % 60) for i in range(windows)])


def test_a_head_accepting_nothing_in_every_window_alarms_and_exits_1(tmp_path) -> None:
    log = tmp_path / "sglang.log"
    log.write_text(_dead(60), encoding="utf-8")  # >= 60 verify steps, each window's rate < 0.005
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    summary = doc["sglang_spec_summary"]
    assert summary["method"] == "mtp" and summary["windows"] == 60
    # the length's bound (1.005 - 1) / 3 is below the printed rate's 0.005
    assert summary["alarm"].startswith("LOW_ACCEPTANCE(mtp accepts at most 0.2%")
    assert doc["spec_decoding_pooled"] is None  # no vLLM windows: nothing pooled, nothing printed as 0
    text = CliRunner().invoke(app, ["serve", "--parse-log", str(log)])
    assert text.exit_code == 1 and "LOW_ACCEPTANCE" in text.output and "not pooled" in text.output


def test_too_few_windows_to_bound_the_verify_steps_do_not_alarm(tmp_path) -> None:
    log = tmp_path / "sglang.log"
    log.write_text(_dead(10), encoding="utf-8")  # only >= 10 verify steps are sure: under the rule's 50
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["sglang_spec_summary"]["alarm"] is None


def test_an_ngram_drafter_accepting_little_is_no_alarm() -> None:
    facts = parse_vllm_log(_dead(60).replace("NEXTN", "NGRAM"))
    s = sglang_spec_summary(facts.sglang_spec_windows, facts.sglang_speculative, low_acceptance_bound_alarm)
    assert s is not None and s.method == "ngram" and s.alarm is None


# SGLang's "accept rate" counted the bonus token until sgl-project/sglang PR #23530 (merged 2026-04-23): the line
# printed (accepted + bonus) / (verify steps x (num_steps + 1)) (PR #13212, 2025-11: x num_draft_tokens), so a head that
# accepts nothing printed "accept len: 1.00, accept rate: 0.25" at num_draft_tokens = 4. The length is the same in
# every build: accepted drafts / verify step = length - 1, and the rate of drafted tokens is at most that / k.
def _dead_bonus_rate(windows: int, args: bool = True) -> str:
    line = (
        "[2025-12-01 10:{m:02d}:00 TP0] Decode batch. #running-req: 8, #token: 4000, token usage: 0.02, accept len: "
        "1.00, accept rate: 0.25, cuda graph: True, gen throughput (token/s): 300.00, #queue-req: 0, "
    )
    return "\n".join(([ARGS] if args else []) + [line.format(m=i % 60) for i in range(windows)])


def test_a_rate_counting_the_bonus_token_does_not_hide_a_head_accepting_nothing(tmp_path) -> None:
    log = tmp_path / "sglang.log"
    log.write_text(_dead_bonus_rate(60), encoding="utf-8")
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    assert r.exit_code == 1, r.output
    summary = json.loads(r.output)["sglang_spec_summary"]
    assert summary["acceptance_rate_at_most"] == (1.00 + 0.005 - 1) / 3  # from the length, not 0.25 + 0.005
    assert summary["alarm"].startswith("LOW_ACCEPTANCE(eagle3 accepts at most 0.2%")
    assert summary["accept_rate_counts_bonus"] is True  # the printed 0.25 cannot be accepted drafts / drafted
    text = CliRunner().invoke(app, ["serve", "--parse-log", str(log)])
    assert "counts the bonus token" in text.output


def test_without_k_the_length_still_bounds_the_rate(tmp_path) -> None:
    log = tmp_path / "sglang.log"
    log.write_text(_dead_bonus_rate(60, args=False), encoding="utf-8")  # no server_args line: k unknown (>= 1)
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    summary = json.loads(r.output)["sglang_spec_summary"]
    assert summary["acceptance_rate_at_most"] == 1.00 + 0.005 - 1  # accepted drafts per step / k, k >= 1
    assert summary["accept_rate_counts_bonus"] is True


def test_a_current_rate_agreeing_with_its_length_is_not_flagged() -> None:
    facts = parse_vllm_log("\n".join([ARGS, NEW]))
    s = sglang_spec_summary(facts.sglang_spec_windows, facts.sglang_speculative, low_acceptance_bound_alarm)
    assert s is not None and s.accept_rate_counts_bonus is False

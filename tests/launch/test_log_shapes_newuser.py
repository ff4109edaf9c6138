"""`serve --parse-log` / `--plan` on vLLM log shapes a new user brought (tests/data/engines/logs, SOURCES.md there):
vLLM 0.8.0-0.8.4 SpecDecoding lines without a mean acceptance length (PR #15902), V0's cumulative `Speculative
metrics:` lines (issues #9539, #7301), V0's SpeculativeConfig repr, a data-parallel server (one KV pool per engine), a
k only the windows state, and a request longer than max_model_len."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from specscope.cli import app
from specscope.launch import read_vllm_log
from specscope.launch.capacity import capacity_from_log
from specscope.launch.logstats import pooled_spec_windows

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"


def parse_log(*args: str):
    return CliRunner().invoke(app, ["serve", "--parse-log", *args], env={"COLUMNS": "200"})  # a row per line


def test_early_v1_lines_without_mean_length_pool_by_their_counts_and_alarm() -> None:
    facts = read_vllm_log(LOGS / "vllm_083_eagle_zero_accept.log")
    assert len(facts.spec_decoding) == 3
    assert [w.drafted_tokens for w in facts.spec_decoding] == [3000, 2997, 3003]
    assert all(w.mean_acceptance_length is None and w.draft_acceptance_rate_percent == 0.0 for w in facts.spec_decoding)
    pooled = pooled_spec_windows(facts.spec_decoding, "eagle", 3)  # k = 3 from the non-default args
    assert (pooled.draft_tokens, pooled.accepted_tokens, pooled.drafts) == (9000, 0, 3000)
    assert pooled.acceptance_rate == 0.0 and pooled.acceptance_length == 1.0
    assert pooled.alarm == "LOW_ACCEPTANCE(eagle accepts 0.0% of drafted tokens over 3,000 drafts, < 5%)"
    r = parse_log(str(LOGS / "vllm_083_eagle_zero_accept.log"), "--format", "json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    assert doc["spec_decoding_pooled"]["drafts"] == 3000 and doc["spec_decoding_pooled"]["alarm"] == pooled.alarm
    text = parse_log(str(LOGS / "vllm_083_eagle_zero_accept.log"))
    assert text.exit_code == 1 and "ALARM LOW_ACCEPTANCE(eagle accepts 0.0%" in text.output


def test_a_log_of_early_v1_lines_only_is_read_not_refused() -> None:
    r = parse_log(str(LOGS / "vllm_083_only_specdecoding_lines.log"), "--format", "json")
    assert r.exit_code == 0, r.output  # not 2 "no vLLM log lines that specscope recognises"
    pooled = json.loads(r.output)["spec_decoding_pooled"]
    # no k in the log and no per-position rates: the draft count is unknown, never guessed
    assert (pooled["draft_tokens"], pooled["accepted_tokens"], pooled["drafts"]) == (3000, 0, None)
    assert pooled["acceptance_rate"] == 0.0 and pooled["acceptance_length"] is None and pooled["alarm"] is None
    text = parse_log(str(LOGS / "vllm_083_only_specdecoding_lines.log"))
    assert text.exit_code == 0 and "3,000 drafted, 0 accepted over >= 1 steps" in text.output


def test_v0_cumulative_lines_are_a_total_never_pooled_as_windows() -> None:
    facts = read_vllm_log(LOGS / "vllm_063_v0_cumulative_spec.log")
    assert facts.spec_decoding == []  # not windows
    assert [c.accepted_tokens for c in facts.spec_cumulative] == [8400, 8547]
    last = facts.spec_cumulative[-1]
    assert (last.draft_tokens, last.emitted_tokens, last.num_spec_tokens) == (13311, 10616, 3)
    assert (last.draft_acceptance_rate, last.system_efficiency) == (0.642, 0.598)
    # V0's SpeculativeConfig repr on the engine line (draft_model=..., num_spec_tokens=...)
    assert facts.speculative_config == {
        "method": "draft_model",
        "model": "meta-llama/Llama-3.2-1B-Instruct",
        "num_speculative_tokens": 3,
    }
    assert facts.max_model_len_tokens == 8192 and facts.vllm_version == "0.6.3"
    r = parse_log(str(LOGS / "vllm_063_v0_cumulative_spec.log"), "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["spec_decoding_pooled"] is None
    total = doc["spec_decoding_cumulative_total"]
    assert total["line_number"] == 8 and total["accepted_tokens"] == 8547 and total["draft_tokens"] == 13311
    assert total["drafts"] == 4437 and total["acceptance_rate"] == 8547 / 13311 and total["alarm"] is None
    text = parse_log(str(LOGS / "vllm_063_v0_cumulative_spec.log"))
    assert "difference: 2" in text.output and "13,311 drafted, 6,179 accepted over 4,437 steps" in text.output
    both = "6,179 accepted, 46.4% (V1-comparable: the rows above); 8,547 accepted, 64.2% (V0's own count)"
    assert both in text.output
    assert "k=3" in text.output and "k=0" not in text.output


def test_data_parallel_plan_is_per_engine() -> None:
    facts = read_vllm_log(LOGS / "vllm_0102_throughput_dp2.log")
    assert facts.data_parallel_size == 2 and facts.kv_dp_ranks == [0, 1]
    cap, plan = capacity_from_log(facts, "requests=2,tokens=32768")
    assert cap.data_parallel_engines == 2 and cap.reported_kv_tokens == 42656 and cap.num_speculative_tokens == 5
    assert plan is not None
    assert plan.fit_with_spec_per_engine == 1 and plan.fit_with_spec == 2 and plan.fits_with_spec is True
    assert plan.fit_without_spec == 2 and plan.fits_without_spec is True
    r = parse_log(str(LOGS / "vllm_0102_throughput_dp2.log"), "--plan", "requests=2,tokens=32768")
    assert r.exit_code == 0, r.output
    assert "plan: 2 requests x 32,768 tokens" in r.output and "do NOT fit" not in r.output
    assert "2 at once (1 per engine x 2 data-parallel engines" in r.output
    assert "KV tokens: log 42,656 per engine (2 data-parallel engines, each its own pool)" in r.output
    three = capacity_from_log(facts, "requests=3,tokens=32768")[1]
    assert three is not None and three.fits_with_spec is False and three.fit_with_spec == 2


def test_a_request_longer_than_max_model_len_does_not_fit() -> None:
    facts = read_vllm_log(LOGS / "vllm_0102_throughput_dp2.log")
    plan = capacity_from_log(facts, "requests=1,tokens=40000")[1]
    assert plan is not None
    assert (plan.fit_with_spec, plan.fit_without_spec) == (0, 0)
    assert plan.fits_with_spec is False and plan.fits_without_spec is False
    assert plan.limited_by == "max_model_len"
    r = parse_log(str(LOGS / "vllm_0102_throughput_dp2.log"), "--plan", "requests=1,tokens=40000")
    assert "do NOT fit" in r.output and "40,000 tokens is longer than max_model_len 32,768" in r.output


def test_lookahead_capped_at_max_model_len_is_said_not_hidden() -> None:
    facts = read_vllm_log(LOGS / "vllm_0102_throughput_dp2.log")
    r = parse_log(str(LOGS / "vllm_0102_throughput_dp2.log"), "--plan", "requests=2,tokens=32768")
    assert "k=5 adds 0 slots at 32,768 tokens (capped at max_model_len 32,768)" in r.output
    plan = capacity_from_log(facts, "requests=2,tokens=32000")[1]
    assert plan is not None and plan.lookahead_slots_with_spec == 5


def test_k_from_the_windows_when_the_log_has_no_config_line() -> None:
    facts = read_vllm_log(LOGS / "vllm_v1_pool_below_maxlen_windows_only.log")
    assert facts.speculative_config is None
    cap, plan = capacity_from_log(facts, "requests=1,tokens=23774")
    assert cap.num_speculative_tokens == 4 and cap.num_speculative_tokens_source.startswith("SpecDecoding windows")
    assert plan is not None
    # 23,774 + 4 lookahead slots = 23,778 > the pool's 23,776 tokens: fits without speculation only
    assert plan.fit_with_spec == 0 and plan.fits_with_spec is False
    assert plan.fit_without_spec == 1 and plan.fits_without_spec is True
    r = parse_log(str(LOGS / "vllm_v1_pool_below_maxlen_windows_only.log"), "--plan", "requests=1,tokens=23774")
    assert "do NOT fit" in r.output and "(k=4" in r.output and "k=0" not in r.output


def test_unknown_k_prints_unknown_and_decides_nothing(tmp_path: Path) -> None:
    src = (LOGS / "vllm_v1_pool_below_maxlen_windows_only.log").read_text()
    log = tmp_path / "no_windows.log"
    log.write_text("\n".join(line for line in src.splitlines() if "SpecDecoding" not in line) + "\n")
    cap, plan = capacity_from_log(read_vllm_log(log), "requests=1,tokens=23774")
    assert cap.num_speculative_tokens is None and plan is not None
    assert plan.fit_with_spec is None and plan.fits_with_spec is None and plan.fits_without_spec is True
    r = parse_log(str(log), "--plan", "requests=1,tokens=23774")
    assert r.exit_code == 0, r.output
    assert "k unknown" in r.output and "k=0" not in r.output
    assert "fit without speculation; with speculation unknown (k not in the log)" in r.output


def test_repr_on_a_config_line_of_early_v1() -> None:
    facts = read_vllm_log(LOGS / "vllm_early_v1_no_length.log")
    assert facts.speculative_config == {
        "method": "eagle",
        "model": "yuhuili/EAGLE-LLaMA3-Instruct-8B",
        "num_speculative_tokens": 3,
    }
    pooled = pooled_spec_windows(facts.spec_decoding, "eagle", 3)
    assert (pooled.draft_tokens, pooled.accepted_tokens, pooled.drafts) == (366, 66, 122)

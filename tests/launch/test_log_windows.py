"""`serve --parse-log` pools every SpecDecoding window of a vLLM log (issue 26): pooled acceptance rate, length and
per-position from the windows' counts (each window in JSON), and the low-acceptance alarm a run gets: a head that
accepts under 1 % over thousands of drafts exits 1."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from specscope.cli import app
from specscope.launch import parse_vllm_log
from specscope.launch.logstats import pooled_spec_windows

# the wording of vllm/v1/spec_decode/metrics.py (0.32.0); the main-branch line adds Rejected / Effective tokens/forward
W1 = (
    "INFO 11-29 11:49:00 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.00, Accepted throughput: "
    "1.00 tokens/s, Drafted throughput: 3.00 tokens/s, Accepted: 30 tokens, Drafted: 90 tokens, Per-position "
    "acceptance rate: 0.600, 0.300, 0.100, Avg Draft acceptance rate: 33.3%"
)
W2 = (
    "INFO 11-29 11:49:10 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 3.00, Accepted throughput: "
    "2.00 tokens/s, Drafted throughput: 3.00 tokens/s, Accepted: 20 tokens, Drafted: 30 tokens, Rejected: 10 tokens, "
    "Effective tokens/forward: 3.00, Proposer latency: 0.010000 s, Verification latency: 0.020000 s, Per-position "
    "acceptance rate: 0.900, 0.700, 0.400, Avg Draft acceptance rate: 66.7%"
)


def test_windows_pool_by_their_counts() -> None:
    pooled = pooled_spec_windows(parse_vllm_log(W1 + "\n" + W2).spec_decoding)
    # drafts per window = accepted / (length - 1): 30 / 1 = 30 and 20 / 2 = 10
    assert pooled.windows == 2 and pooled.drafts == 40
    assert (pooled.draft_tokens, pooled.accepted_tokens) == (120, 50)
    assert pooled.acceptance_rate == 50 / 120
    assert pooled.acceptance_length == 1 + 50 / 40
    # per position: (0.6 x 30 + 0.9 x 10) / 40, ...
    assert pooled.acceptance_per_position == [(18 + 9) / 40, (9 + 7) / 40, (3 + 4) / 40]
    assert pooled.alarm is None


def test_rejected_field_of_newer_builds_is_read() -> None:
    sample = parse_vllm_log(W2).spec_decoding[0]
    assert sample.rejected_tokens == 10 and sample.effective_tokens_per_forward == 3.0


def _dead_head_log(windows: int) -> str:
    line = (
        "INFO 11-29 11:49:{s:02d} [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 1.00, Accepted "
        "throughput: 0.00 tokens/s, Drafted throughput: 30.00 tokens/s, Accepted: 1 tokens, Drafted: 300 tokens, "
        "Per-position acceptance rate: 0.010, 0.000, 0.000, Avg Draft acceptance rate: 0.3%"
    )
    return "\n".join(line.format(s=i % 60) for i in range(windows))


def test_a_head_accepting_under_one_percent_alarms_and_exits_1(tmp_path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text(_dead_head_log(20), encoding="utf-8")  # 6,000 drafted tokens, 20 accepted
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    pooled = doc["spec_decoding_pooled"]
    assert pooled["draft_tokens"] == 6000 and pooled["accepted_tokens"] == 20
    assert pooled["alarm"].startswith("LOW_ACCEPTANCE")
    assert len(doc["spec_decoding"]) == 20
    text = CliRunner().invoke(app, ["serve", "--parse-log", str(log)])
    assert text.exit_code == 1 and "LOW_ACCEPTANCE" in text.output and "window: 20 (0 without counts)" in text.output


# vllm/v1/spec_decode/metrics.py (SpecDecodingLogging.log, the 0.10-0.32 wording): an EAGLE k = 3 window of 800 drafts,
# 2,400 drafted and 1,234 accepted tokens; the mean length 1 + 1,234 / 800 = 2.5425 is printed "2.54", which alone
# brackets 799..803 drafts (1,234 / 1.54 rounds to 801). Per position 561, 400, 273 accepted.
W_FIXED_K = (
    "(APIServer pid=7) INFO 10-02 09:15:10 [loggers.py:123] SpecDecoding metrics: Mean acceptance length: 2.54, "
    "Accepted throughput: 123.40 tokens/s, Drafted throughput: 240.00 tokens/s, Accepted: 1234 tokens, Drafted: 2400 "
    "tokens, Per-position acceptance rate: 0.701, 0.500, 0.341, Avg Draft acceptance rate: 51.4%"
)


def test_fixed_k_window_counts_its_drafts_exactly_not_from_the_rounded_length() -> None:
    pooled = pooled_spec_windows(parse_vllm_log(W_FIXED_K).spec_decoding)
    assert pooled.drafts == 800
    assert pooled.acceptance_length == 1 + 1234 / 800
    assert pooled.acceptance_rate == 1234 / 2400


def test_variable_draft_window_whose_drafted_over_k_disagrees_with_the_length_keeps_the_length() -> None:
    # n-gram k = 5 (vLLM 0.10.2 log in tests/data/engines/logs): 262 accepted at "5.44" is 59 drafts; 295 / 5 = 59 too,
    # but here 300 drafted / 5 = 60 would print 1 + 262 / 60 = 5.37, not 5.44: the length wins
    line = (
        "INFO 09-09 11:51:35 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 5.44, Accepted: 262 "
        "tokens, Drafted: 300 tokens, Per-position acceptance rate: 0.983, 0.949, 0.915, 0.881, 0.712"
    )
    assert pooled_spec_windows(parse_vllm_log(line).spec_decoding).drafts == 59

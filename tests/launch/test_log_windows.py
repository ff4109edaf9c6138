"""`serve --parse-log` pools every SpecDecoding window of a vLLM log (issue 26): pooled acceptance rate, length and
per-position from the windows' counts (each window in JSON), and the low-acceptance alarm a run gets: a head that
accepts under 1 % over thousands of drafts exits 1."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from specscope.cli import app
from specscope.launch.logfacts import parse_vllm_log
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
    assert text.exit_code == 1 and "LOW_ACCEPTANCE" in text.output and "pooled over 20 windows" in text.output

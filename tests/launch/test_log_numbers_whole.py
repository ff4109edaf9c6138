"""Attack round 51: a log line's number is read whole or the line is named unreadable, never read as its prefix.

vLLM prints its speculative line with fixed formats only (``%.2f``, ``%d``, ``f"{p:.3f}"``, ``%.1f%%``;
vllm/v1/spec_decode/metrics.py ``SpecDecodingLogging.log``). A line holding ``Per-position acceptance rate: 1e400``
was read as its prefix "1" (shown as 100.0 %), ``Mean acceptance length: 2.5e3`` as 2.5; a 5,000-digit ``Accepted``
count made the whole log "holds no server-log line specscope recognises". Now each such line is
``LOG_LINE_UNREADABLE(line N: ...)`` and the rest of the log is read.
"""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

HEAD = "INFO 05-01 12:00:00 [metrics.py:80] SpecDecoding metrics: "


def _line(length: str = "2.50", accepted: str = "12", rates: str = "0.750, 0.250") -> str:
    return (
        f"{HEAD}Mean acceptance length: {length}, Accepted throughput: 1.20 tokens/s, Drafted throughput: 3.00 "
        f"tokens/s, Accepted: {accepted} tokens, Drafted: 16 tokens, Per-position acceptance rate: {rates}, Avg Draft "
        "acceptance rate: 75.0%\n"
    )


def _facts(tmp_path: Path, text: str, capsys, monkeypatch) -> dict:
    path = tmp_path / "hl.log"
    path.write_text(text)
    code, out, err = cli(["serve", "--parse-log", path, "--format", "json"], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    return json.loads(out)


def _warnings(facts: dict) -> list[str]:
    assert facts["log_pools"][0]["warnings"] == facts["engine_logs"][0]["warnings"]
    return [w for w in facts["engine_logs"][0]["warnings"] if w.startswith("LOG_LINE_UNREADABLE")]


def test_exponent_rate_and_length_name_the_line(tmp_path, capsys, monkeypatch):
    text = _line(rates="1e400, 0.500") + _line(length="2.5e3") + _line()
    facts = _facts(tmp_path, text, capsys, monkeypatch)
    assert _warnings(facts) == [
        "LOG_LINE_UNREADABLE(line 1: per_position_acceptance_rates '1e400, 0.500' is not a number as the engine "
        "prints it (fixed-point digits); only the per-position rates are absent, the line's other figures are read)",
        "LOG_LINE_UNREADABLE(line 2: mean_acceptance_length '2.5e3' is not a number as the engine prints it "
        "(fixed-point digits); the line gives no statistic)",
    ]
    pooled = facts["spec_decoding_pooled"]  # lines 1 (its counts; its rates absent) and 3
    assert (pooled["windows"], pooled["draft_tokens"], pooled["accepted_tokens"]) == (2, 32, 24)
    assert pooled["acceptance_per_position"] == [0.75, 0.25]
    assert pooled["acceptance_length"] == 2.5


def test_huge_count_is_named_and_the_rest_read(tmp_path, capsys, monkeypatch):
    text = _line(accepted="9" * 5000) + _line()
    facts = _facts(tmp_path, text, capsys, monkeypatch)
    assert _warnings(facts) == [
        "LOG_LINE_UNREADABLE(line 1: accepted_tokens '99999999999999999999'... (5,000 characters) is beyond a 64-bit "
        "count; the line gives no statistic)"
    ]
    assert facts["spec_decoding_pooled"]["windows"] == 1


def test_a_log_of_only_unreadable_lines_is_recognised(tmp_path, capsys, monkeypatch):
    path = tmp_path / "hl.log"
    path.write_text(_line(accepted="9" * 5000))
    code, out, err = cli(["serve", "--parse-log", path], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "LOG_LINE_UNREADABLE(line 1:" in out
    assert "recognises" not in err


SGLANG = (
    "[2026-03-02 08:01:{s:02d} TP0] Decode batch. #running-req: 2, #token: 4096, token usage: 0.02, accept len: "
    "{length}, accept rate: {rate}, cuda graph: True, gen throughput (token/s): 180.00, #queue-req: 0\n"
)


def test_sglang_decode_line_numbers_are_read_whole(tmp_path, capsys, monkeypatch):
    """SGLang prints ``accept len: {:.2f}``, ``accept rate: {:.2f}``: 2.5e3 was read as 2.5, 1e400 as 1 (100.0 %)."""
    text = "".join(
        SGLANG.format(s=s, length=length, rate=rate)
        for s, length, rate in ((0, "2.5e3", "0.60"), (10, "2.80", "1e400"), (20, "2.80", "0.60"))
    )
    facts = _facts(tmp_path, text, capsys, monkeypatch)
    assert _warnings(facts) == [
        "LOG_LINE_UNREADABLE(line 1: accept_length '2.5e3' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 2: accept_rate '1e400' is not a number as the engine prints it (fixed-point "
        "digits); the line gives no statistic)",
    ]
    assert [s["line_number"] for s in facts["engine_logs"][0]["stats"]] == [3]


LLAMA = (
    "slot print_timing: id  0 | task {t} | draft acceptance = 0.75000 (    {acc} accepted /   4 generated), "
    "mean len = {n}\n"
)


def test_llamacpp_request_line_numbers_are_read_whole(tmp_path, capsys, monkeypatch):
    """llama.cpp prints ``mean len = %5.2f``: ``2.5e3`` was read as 2.5; a 5,000-digit count dropped its line
    unnamed."""
    text = "".join(
        LLAMA.format(t=t, acc=acc, n=n)
        for t, acc, n in ((0, "3", " 2.5e3"), (1, "9" * 5000, " 1.75"), (2, "3", " 1.75"))
    )
    facts = _facts(tmp_path, text, capsys, monkeypatch)
    assert _warnings(facts) == [
        "LOG_LINE_UNREADABLE(line 1: mean len '2.5e3' is not a number as the engine prints it (fixed-point digits); "
        "the line gives no statistic)",
        "LOG_LINE_UNREADABLE(line 2: accepted '99999999999999999999'... (5,000 characters) is beyond a 64-bit count; "
        "the line gives no statistic)",
    ]
    assert [s["line_number"] for s in facts["engine_logs"][0]["stats"]] == [3]


def test_sglang_other_pool_share_is_named_as_written(tmp_path, capsys, monkeypatch):
    """``mamba usage: 8e-1`` was named as its prefix ``8``; it is named as written."""
    line = SGLANG.format(s=0, length="2.80", rate="0.60").replace("#queue-req", "mamba usage: 8e-1, #queue-req")
    facts = _facts(tmp_path, line, capsys, monkeypatch)
    pool = [w for w in facts["engine_logs"][0]["warnings"] if w.startswith("UNREAD_POOL_USAGE")]
    assert pool == [
        "UNREAD_POOL_USAGE(mamba usage: 8e-1 (line 1, the fullest): a hybrid model's other pool, not read; the KV "
        "usage figures are the full-attention pool's 'token usage')"
    ]

"""`serve --parse-log` on server logs pasted in public bug reports that the repository never had (tests/data/engines/
logs, SOURCES.md there): vLLM data-parallel engines each pooled on their own (vllm-ascend issue #12521, two API
servers interleaving `Engine 002` / `Engine 004` windows), an engine accepting nothing beside one that accepts (its
alarm not hidden by the pool), and SGLang windows whose printed length bounds nothing without k (sglang PR #6081) or
whose ranks are printed without a time stamp (sglang PR #16974)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from clirun import cli
from specscope.cli import app

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"


def parse_log(name: str, *args: str) -> Any:
    return CliRunner().invoke(app, ["serve", "--parse-log", str(LOGS / name), *args], env={"COLUMNS": "200"})


def _pool(name: str, engine: str) -> dict[str, Any]:
    r = parse_log(name, "--format", "json")
    assert r.exit_code in (0, 1), r.output
    return next(p for p in json.loads(r.output)["log_pools"] if p["engine"] == engine)


def test_two_api_servers_windows_pool_together_and_per_engine() -> None:
    name = "vllm_ascend_issue12521_two_api_servers.log"
    pool = _pool(name, "vllm")
    # pooled: (282 + 299) / (453 + 453) over 453 / 3 steps each (3 per-position rates: k = 3)
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (906, 581, 302)
    assert round(pool["acceptance_rate"], 4) == 0.6413 and pool["alarm"] is None
    engines = {r["rank"]: r for r in pool["per_rank"]}
    assert sorted(engines) == ["Engine 002", "Engine 004"]  # the window after each process's own Engine line
    e2, e4 = engines["Engine 002"], engines["Engine 004"]
    assert (e2["draft_tokens"], e2["accepted_tokens"], e2["verify_steps"]) == (453, 282, 151)
    assert (e4["draft_tokens"], e4["accepted_tokens"], e4["verify_steps"]) == (453, 299, 151)
    assert round(e2["acceptance_rate"], 3) == 0.623 and round(e2["acceptance_length"], 2) == 2.87  # as vLLM printed
    assert round(e4["acceptance_rate"], 3) == 0.660 and round(e4["acceptance_length"], 2) == 2.98
    text = parse_log(name)
    assert text.exit_code == 0, text.output
    assert "Engine 002: 453 drafted, 282 accepted over 151 steps, 62.3%, length 2.87" in text.output
    assert "Engine 004: 453 drafted, 299 accepted over 151 steps, 66.0%, length 2.98" in text.output


def test_an_engine_accepting_nothing_is_alarmed_though_the_pool_is_not() -> None:
    name = "vllm_dp2_engine1_accepts_nothing.log"
    pool = _pool(name, "vllm")
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (900, 300, 300)
    assert round(pool["acceptance_rate"], 4) == 0.3333  # above the 5 % rule: the pool alone says nothing
    engines = {r["rank"]: r for r in pool["per_rank"]}
    assert engines["Engine 000"]["alarm"] is None and engines["Engine 000"]["acceptance_length"] == 3.0
    low = "LOW_ACCEPTANCE(mtp accepts 0.0% of drafted tokens over 150 drafts, < 5%)"
    assert engines["Engine 001"]["alarm"] == low
    assert pool["alarm"] == f"Engine 001: {low}"
    text = parse_log(name)
    assert text.exit_code == 1, text.output
    assert f"Engine 001: {low}" in text.output


def test_one_engine_or_slots_are_not_split() -> None:
    one = _pool("vllm_0320_json_formatter_ngram.log", "vllm")
    assert one["per_rank"] == []  # one engine: its pool is the log's
    slots = _pool("llamacpp_docs_rate_and_statistics.log", "llamacpp")
    assert slots["per_rank"] == []  # llama.cpp's slots serve any request: no engine of their own


def test_sglang_length_without_k_bounds_the_rate_at_100_percent_never_above() -> None:
    r = parse_log("sglang_pr6081_dp8_len_only.log", "--format", "json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)["sglang_spec_summary"]
    # accept len 2.94 with k unknown (k >= 1): (2.94 + 0.005 - 1) / 1 = 1.945 allows every rate; a rate is <= 1
    assert summary["acceptance_rate_at_most"] == 1.0
    assert summary["ranks"] == ["DP0 TP0", "DP2 TP2", "DP5 TP5", "DP6 TP6", "DP7 TP7"]
    text = parse_log("sglang_pr6081_dp8_len_only.log")
    assert "<= 100.0% over >= 5 verify steps" in text.output and "194.5%" not in text.output


def test_sglang_ranks_without_a_time_stamp_are_read() -> None:
    r = parse_log("sglang_pr16974_ranks_without_time.log", "--format", "json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)["sglang_spec_summary"]
    assert summary["ranks"] == ["DP0 TP0", "DP1 TP1"]
    # accept rate 0.47 at length 1.42 is 1.42 / 3: the rate before sglang PR #23530 (bonus counted, 3 draft tokens)
    assert summary["accept_rate_counts_bonus"] is True
    assert summary["acceptance_rate_at_most"] == 0.515  # min(0.51 + 0.005, 1.525 - 1) of the first window


def test_sglang_draft_token_count_beyond_64_bits_gives_no_k_and_no_crash(tmp_path: Path) -> None:
    """A `server_args` line whose speculative_num_draft_tokens is 400 digits (a mangled log) gave k = 10^400 - 1 and an
    OverflowError dividing a window's length by it; such a count is unreadable, so k is unknown."""
    log = tmp_path / "sglang_huge_k.log"
    log.write_text(
        f"[2025-10-22 10:27:50] server_args=ServerArgs(speculative_algorithm='EAGLE3', "
        f"speculative_num_draft_tokens={'9' * 400}, speculative_num_steps=3)\n"
        "[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 108, token usage: 0.00, accept len: 2.17, "
        "accept rate: 0.54, cuda graph: True, gen throughput (token/s): 0.39, #queue-req: 0, \n"
    )
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "--format", "json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)["sglang_spec_summary"]
    assert summary["draft_tokens_per_step"] is None and summary["method"] == "eagle3"
    assert summary["acceptance_rate_at_most"] == 0.545  # the printed rate's bound: min(0.54 + 0.005, 1)


def test_public_logs_it_already_read_right_stay_right() -> None:
    """Pinned (already right before 2026-12-06): vllm-ascend #13640 (DSpark k = 7, a blank line between windows),
    llama.cpp PR #23269 (`[53409]` pid prefixes, the rate on its own line, three implementations' statistics), an idle
    vLLM 0.8 log (`nan%`, 0 drafted: no rate, never 0 %) and vllm-ascend #13665 (EAGLE3 k = 5 accepting nothing)."""
    dspark = _pool("vllm_ascend_issue13640_dspark_k7.log", "vllm")
    assert (dspark["draft_tokens"], dspark["accepted_tokens"], dspark["verify_steps"]) == (
        546,
        150,
        78,
    )  # 161 / 7 + 385 / 7
    assert round(dspark["acceptance_rate"], 4) == 0.2747 and round(dspark["acceptance_length"], 2) == 2.92
    assert dspark["alarm"] is None and dspark["per_rank"] == []
    llama = _pool("llamacpp_pr23269_pid_prefix_multi_impl.log", "llamacpp")
    assert (llama["draft_tokens"], llama["accepted_tokens"], llama["verify_steps"]) == (187, 128, None)
    assert round(llama["acceptance_rate"], 5) == 0.68449 and llama["acceptance_length"] is None
    idle = _pool("vllm_083_idle_nan_windows.log", "vllm")
    assert (idle["draft_tokens"], idle["accepted_tokens"]) == (0, 0)
    assert idle["acceptance_rate"] is None and idle["acceptance_length"] is None and idle["alarm"] is None
    zero = parse_log("vllm_ascend_issue13665_eagle3_zero_accept.log", "--format", "json")
    assert zero.exit_code == 1, zero.output
    (pool,) = json.loads(zero.output)["log_pools"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (1485, 0, 297)
    assert pool["alarm"] == "LOW_ACCEPTANCE(unknown method accepts 0.0% of drafted tokens over 297 drafts, < 5%)"


def test_an_sglang_dp_rank_accepting_nothing_is_alarmed_though_the_other_rank_is_not() -> None:
    """Two data-parallel-attention ranks, each its own scheduler and drafter, in the wording of sglang PR #16974
    (``[DP0 TP0] Decode batch, ... accept len: 1.52, accept rate: 0.51, ...``), k = 4 - 1 = 3: DP0 prints ``accept
    len: 1.00, accept rate: 0.00`` in all 60 windows (its rate <= 0.005 / 3), DP1 ``3.10, 0.70``. The log's bound
    over both ranks is DP1's 70.5 %, so before this no alarm was said and `serve --parse-log` exited 0; vLLM's
    data-parallel engines were already alarmed one by one."""
    name = "sglang_dp2_rank0_accepts_nothing.log"
    low = (
        "DP0 TP0: LOW_ACCEPTANCE(eagle accepts at most 0.2% of drafted tokens in every one of 60 SGLang windows "
        "(at least 60 verify steps), < 5%)"
    )
    r = parse_log(name, "--format", "json")
    doc = json.loads(r.output)
    # the pool's bound is DP1's: the smaller of 0.70 + 0.005 and (3.10 + 0.005 - 1) / 3
    assert doc["sglang_spec_summary"]["acceptance_rate_at_most"] == (3.10 + 0.005 - 1) / 3
    assert doc["sglang_spec_summary"]["alarm"] == low
    (pool,) = doc["log_pools"]
    assert pool["alarm"] == low  # one rule, one wording: said once
    assert r.exit_code == 1
    text = parse_log(name)
    assert text.exit_code == 1 and text.output.count("ALARM") == 1 and "DP1 TP1: LOW" not in text.output


def test_llamacpp_steps_from_a_two_decimal_mean_length_are_an_estimate_unless_one_count_fits() -> None:
    """llama.cpp prints the mean length with two decimals (``mean len =  4.30``): with 5,995 accepted the verify steps
    can be any of 1,814..1,819 (5,995 / (4.305 - 1) to 5,995 / (4.295 - 1)), so 1,817 (5,995 / 3.30 rounded) is an
    estimate with 1,814 its sound lower bound (lemonade-sdk/llamacpp-rocm issue #129); before, it was stated as exact.
    With 886 accepted and ``mean len =  4.94`` only 225 fits (ggml-org/llama.cpp PR #27342): exact."""
    wide = _pool("llamacpp_lemonade129_mean_len_4_30.log", "llamacpp")
    assert (wide["draft_tokens"], wide["accepted_tokens"], wide["verify_steps"]) == (9089, 5995, 1817)
    assert wide["verify_steps_estimated"] is True and wide["verify_steps_at_least"] == 1814
    assert wide["acceptance_length"] == 1 + 5995 / 1817
    assert "≈1,817 steps" in parse_log("llamacpp_lemonade129_mean_len_4_30.log").output
    one = _pool("llamacpp_pr27342_dflash2_mean_len_4_94.log", "llamacpp")
    assert (one["draft_tokens"], one["accepted_tokens"], one["verify_steps"]) == (900, 886, 225)
    assert one["verify_steps_estimated"] is False and one["verify_steps_at_least"] == 225


def _prefixed(tmp_path: Path, parts: list[tuple[str, str]], extra: str = "") -> Path:
    out = tmp_path / "collected.log"
    out.write_text(
        "".join(prefix + line for prefix, name in parts for line in (LOGS / name).read_text().splitlines(True)) + extra
    )
    return out


def test_a_collected_log_of_two_servers_is_refused_not_pooled(tmp_path: Path, capsys, monkeypatch) -> None:
    """`docker compose logs` of two vLLM services (an EAGLE k=3 server and a k=7 one) in one file: their windows were
    pooled as one engine's and their per-position rates mixed (found by the hunt of 2026-12-06). One server's lines
    beside another container's (a cache's start-up line) are still read; two servers' are refused, named, with the
    collector's own command for one service; `kubectl logs --prefix` of two pods likewise."""
    two = [
        ("vllm-eagle-1  | ", "vllm_083_eagle_zero_accept.log"),
        ("vllm-mtp-1   | ", "vllm_ascend_issue13640_dspark_k7.log"),
    ]
    code, out, err = cli(["serve", "--parse-log", _prefixed(tmp_path, two)], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("error: the log holds the speculative statistics of several servers")
    assert "statistics lines of 2 containers: vllm-eagle-1, vllm-mtp-1" in err
    assert "fix: docker compose logs --no-log-prefix vllm-eagle > vllm-eagle-1.log, one service per log" in err
    one = _prefixed(tmp_path, two[:1], "redis-1  | Ready to accept connections tcp\n")
    alone = CliRunner().invoke(app, ["serve", "--parse-log", str(LOGS / two[0][1]), "-f", "json"])
    got = CliRunner().invoke(app, ["serve", "--parse-log", str(one), "-f", "json"])
    assert got.exit_code == alone.exit_code
    assert json.loads(got.output)["log_pools"] == json.loads(alone.output)["log_pools"]
    pods = [("[pod/vllm-0/vllm] ", two[0][1]), ("[pod/vllm-1/vllm] ", two[1][1])]
    code, _, err = cli(["serve", "--parse-log", _prefixed(tmp_path, pods)], capsys, monkeypatch, tmp_path)
    assert code == 2 and "2 containers: pod/vllm-0/vllm, pod/vllm-1/vllm" in err
    assert "fix: kubectl logs vllm-0 -c vllm > vllm-0.log, one pod per log" in err

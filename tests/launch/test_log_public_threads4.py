"""`serve --parse-log` on server-log shapes of engine releases not seen before (hunt of 2026-12-06, fourth round;
tests/data/engines/logs, SOURCES.md there): each figure a line states read right, or the line named."""

from __future__ import annotations

from parselog import parse_log
from parselog import parse_log_json as _json


def test_v1_first_speculative_metrics_lines_are_windows_not_v0_totals() -> None:
    # vllm PR #15902's "BEFORE" ('Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66,
    # Number of draft tokens: 66, '): V1's first logger (PR #15151) reset its counts after each line. Before, the
    # lines were taken for V0's cumulative totals and, lacking V0's emitted count, gave no figure at all.
    # Two windows, n-gram k = 3: 66 + 120 = 186 drafted, 66 + 30 = 96 accepted, 22 + 40 = 62 steps.
    out = _json("vllm_pr15151_v1_first_speculative_metrics.log", 0)
    (pool,) = [p for p in out["log_pools"] if p["engine"] == "vllm"]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (186, 96, 62)
    assert out["spec_cumulative"] == [] and out["spec_decoding_cumulative_total"] is None


def test_token_usage_share_is_a_percent_as_printed_not_float_noise() -> None:
    # sgl-project/sglang PR #22331's "before" block: 'Decode batch, #running-req: 5, #token: 20800, token usage: 0.29,
    # ...'. 0.29 x 100 in binary floats is 28.999999999999996, which the table printed as the peak; the share is
    # printed with two decimals, so the percent is exactly 29.0.
    out = _json("sglang_pr22331_token_usage_0_29.log", 0)
    assert [s["kv_cache_usage_percent"] for s in out["stats"]] == [29.0, 29.0, 29.0]
    text = parse_log("sglang_pr22331_token_usage_0_29.log")
    assert "29.0% (running 5, waiting 0, line 1)" in text.output


def test_weights_of_0_7_printed_in_gb_are_read_as_the_gib_they_are() -> None:
    # vllm PR #12569's log (0.7, V1): 'Loading model weights took 67.7229 GB'. vLLM computes that figure as
    # bytes / 2**30 (gpu_model_runner.py, model_runner.py: 'self.model_memory_usage / float(2**30)'), so it is GiB
    # whatever the label. Before, the line was passed over and the weights were absent.
    out = _json("vllm_pr12569_v1_07_weights_gb.log", 0)
    assert out["weights_loaded_gib"] == 67.7229
    assert (out["gpu_blocks"], out["max_concurrency_requests"]) == (1381, 10.79)


def test_a_hybrid_models_mamba_pool_share_is_named_not_dropped() -> None:
    # sgl-project/sglang PR #30047 (2026-07-04, a Qwen hybrid on NPU): 'Decode batch, #running-req: 40, #full token:
    # 350592, full token usage: 0.74, mamba num: 160, mamba usage: 0.80, accept len: 3.13, accept rate: 0.71, ...'.
    # The peak KV usage is the full-attention pool's 74 %; the recurrent-state pool, fuller at 80 %, was dropped
    # without a word. Now it is named.
    out = _json("sglang_pr30047_hybrid_full_and_mamba_usage.log", 0)
    assert [s["kv_cache_usage_percent"] for s in out["stats"]] == [74.0]
    (log,) = [e for e in out["engine_logs"] if e["engine"] == "sglang"]
    named = [w for w in log["warnings"] if w.startswith("UNREAD_POOL_USAGE(mamba usage: 0.80 (line 3, the fullest)")]
    assert len(named) == 1, log["warnings"]


def test_pooled_bound_above_the_printed_rate_says_it_is_the_logs_rounding(capsys, monkeypatch, tmp_path) -> None:
    # user63: the same log printed "<= 71.5%" beside its one window's "71.0%" with no word on the 0.5 %: SGLang prints
    # the rate with two decimals (0.71), so the window's rate can be as high as 0.715 and the bound says so.
    from clirun import cli
    from paths import DATA

    log = DATA / "engines" / "logs" / "sglang_pr30047_hybrid_full_and_mamba_usage.log"
    code, out, err = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    flat = " ".join(out.replace("│", " ").split())
    assert (
        "<= 71.5% over >= 1 verify steps (bounds: the highest printed rate, 71.0%, plus 0.5% for the log's rounding "
        "to two decimals)" in flat
    ), flat

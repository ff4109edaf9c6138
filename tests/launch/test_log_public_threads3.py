"""`serve --parse-log` on the shapes of server logs pasted in public speculative-decoding threads (hunt of
2026-12-06, third round; tests/data/engines/logs, SOURCES.md there): each right figure and the failure the thread
was about, by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from specscope.cli import app

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"


def parse_log(name: str, *args: str) -> Any:
    return CliRunner().invoke(app, ["serve", "--parse-log", str(LOGS / name), *args], env={"COLUMNS": "200"})


def _json(name: str, code: int) -> dict[str, Any]:
    r = parse_log(name, "--format", "json")
    assert r.exit_code == code, r.output
    out: dict[str, Any] = json.loads(r.output)
    return out


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

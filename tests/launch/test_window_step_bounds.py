"""vLLM V1 windows whose drafted count k does not divide (vLLM cuts drafts near max_model_len): the verify steps are
bounded soundly (at least ceil(drafted / k), at most drafted, and within what the two-decimal mean length allows), the
estimate is marked as one, and the low-acceptance alarm relies only on the lower bound (fresh-user findings,
2026-12-05). Lines in the form of vLLM ``vllm/v1/spec_decode/metrics.py`` ``SpecDecodingLogging.log`` (0.10.2); a
method missing from the names of learned heads (vLLM's ``mlp_speculator``) is judged as a head."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from specscope.cli import app

CONFIG = (
    "INFO 10-07 14:00:00 [core.py:77] Initializing a V1 LLM engine (v0.10.2) with config: model='Qwen/Qwen3-8B', "
    "speculative_config=SpeculativeConfig(method='{method}', model='m', num_spec_tokens=3), seed=0\n"
)


def window(length: str, accepted: int, drafted: int, positions: str) -> str:
    return (
        f"INFO 10-07 14:00:10 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: {length}, Accepted "
        f"throughput: 30.00 tokens/s, Drafted throughput: 60.00 tokens/s, Accepted: {accepted} tokens, Drafted: "
        f"{drafted} tokens, Per-position acceptance rate: {positions}, Avg Draft acceptance rate: 1.0%\n"
    )


def parse(tmp_path: Path, text: str) -> tuple[int, dict, str]:
    log = tmp_path / "vllm.log"
    log.write_text(text)
    doc = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "-f", "json"])
    shown = CliRunner().invoke(app, ["serve", "--parse-log", str(log)], env={"COLUMNS": "200"})
    assert doc.exit_code == shown.exit_code, shown.output
    (pool,) = json.loads(doc.output)["log_pools"]
    return doc.exit_code, pool, shown.output


def test_zero_accepted_over_an_uneven_count_alarms_on_at_least_ceil_drafted_over_k(tmp_path: Path) -> None:
    """0 of 599 accepted with k=3: at least 200 verify steps, so a broken eagle3 head alarms (it said '>= 1', rc 0)."""
    code, pool, text = parse(tmp_path, CONFIG.format(method="eagle3") + window("1.00", 0, 599, "0.000, 0.000, 0.000"))
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (599, 0, None)
    assert pool["verify_steps_at_least"] == 200 and pool["alarm"].startswith("LOW_ACCEPTANCE(eagle3")
    assert code == 1 and "over >= 200 steps" in text


def test_steps_of_cut_windows_are_estimated_within_their_bounds_and_marked(tmp_path: Path) -> None:
    """1 of 539 over 180 steps prints length 1.01, which alone says 100 steps; k=3 says at least 180, the length at
    most 200: 180. 600 of 1199 over 400 steps prints 2.50: 399 to 401, at least 400. Total 580 (it said an exact 500,
    length 2.20): right, but an estimate, and said so."""
    lines = window("1.01", 1, 539, "0.006, 0.000, 0.000") + window("2.50", 600, 1199, "0.505, 0.500, 0.495")
    code, pool, text = parse(tmp_path, CONFIG.format(method="eagle") + lines)
    assert code == 0 and pool["verify_steps"] == 580 and pool["verify_steps_estimated"] is True
    assert pool["acceptance_length"] == 1 + 601 / 580 and pool["verify_steps_at_least"] == 580
    assert "over ≈580 steps (estimated from the printed mean lengths; at least 580)" in text and "≈2.04" in text


def test_the_alarm_waits_for_enough_steps_by_the_lower_bound_not_the_estimate(tmp_path: Path) -> None:
    """1 of 119 over 40 real steps (length 1.03 printed 1.02 or 1.03: 29 to 66 by the length, at least 40 by k):
    under the 50-step minimum, so no alarm (it said 'over 50 drafts' and exited 1)."""
    code, pool, _ = parse(tmp_path, CONFIG.format(method="eagle3") + window("1.02", 1, 119, "0.025, 0.000, 0.000"))
    assert pool["verify_steps_at_least"] == 40 and pool["verify_steps_estimated"] is True
    assert code == 0 and pool["alarm"] is None


def test_mlp_speculator_is_a_learned_head(tmp_path: Path) -> None:
    """vLLM's mlp_speculator accepting 14 of 300 (4.7 %) over 100 steps alarms like eagle3; ngram does not."""
    low = window("1.14", 14, 300, "0.100, 0.030, 0.010")
    code, pool, _ = parse(tmp_path, CONFIG.format(method="mlp_speculator") + low)
    assert code == 1 and pool["alarm"].startswith("LOW_ACCEPTANCE(mlp_speculator")
    code, pool, _ = parse(tmp_path, CONFIG.format(method="ngram") + low)
    assert code == 0 and pool["alarm"] is None

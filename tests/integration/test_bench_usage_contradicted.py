"""End to end: ``specscope bench`` against a truth server whose usage contradicts its own streams (sgl-project/sglang
issue #3743: the finish chunk's usage said 0 completion tokens after the answer; OpenSecretCloud/opensecret PR #59: a
proxy sent usage twice, the later one carrying prompt tokens only). Before: each stream ok with 0 output tokens (TPOT
absent, 0 tok/s). Now: its output tokens are absent, the stream degraded with ``USAGE_CONTRADICTED(...)``, and its TTFT
and TTFO still the server's scripted instants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")
PLANS = {
    "zero": ResponsePlan(output_tokens=6, finish_reason="stop", usage_completion_tokens=0, ttft_ms=30),
    # a usage of 6 injected after the last token chunk, then the final usage chunk's lie of 0 (a running usage before
    # the finish is not compared with the final one, so the 0 after 6 token events is what names it)
    "falls": ResponsePlan(
        output_tokens=6,
        finish_reason="stop",
        usage_completion_tokens=0,
        ttft_ms=30,
        inject_events=[(6, 'data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":6}}\n\n')],
    ),
    # BerriAI/litellm issue #24526: more reasoning tokens than completion tokens in one usage
    "reasoning": ResponsePlan(
        output_tokens=6,
        finish_reason="stop",
        ttft_ms=30,
        usage="absent",
        inject_events=[
            (
                6,
                'data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":6,'
                '"completion_tokens_details":{"reasoning_tokens":9}}}\n\n',
            )
        ],
    ),
    "fine": ResponsePlan(output_tokens=6, finish_reason="stop", ttft_ms=30),
}


def test_bench_names_a_usage_that_contradicts_its_stream(tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("".join(f"{p}\n" for p in PLANS))
    out = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("SPECSCOPE_DEBUG", None)
    with TruthServer(TruthScript(default=PLANS["fine"], by_prompt=PLANS)) as truth:
        cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"base={truth.base_url}"]
        cmd += ["--workload", f"mine={prompts}", "--levels", "1", "--repeats", "1", "--max-tokens", "8"]
        cmd += ["--no-aa", "-f", "json", "--out", str(out)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert "Traceback" not in res.stderr, res.stderr
    (run_dir,) = out.iterdir()
    from specscope.store import open_run

    with open_run(run_dir) as run:
        (key,) = run.done_keys()
        streams = {s.prompt_id: s for s in run.streams(key)}
    by_prompt = {name: streams[f"mine-{no:04d}"] for no, name in enumerate(PLANS, start=1)}
    zero, falls, fine = by_prompt["zero"], by_prompt["falls"], by_prompt["fine"]
    assert (zero.status, zero.reason, zero.output_tokens, zero.token_source) == (
        "degraded",
        "USAGE_CONTRADICTED(usage.completion_tokens 0 after 6 token events)",
        None,
        "missing",
    )
    assert (falls.status, falls.reason, falls.output_tokens) == (
        "degraded",
        "USAGE_CONTRADICTED(usage.completion_tokens 0 after 6 token events)",
        None,
    )
    reasoning = by_prompt["reasoning"]
    assert (reasoning.status, reasoning.reason, reasoning.output_tokens, reasoning.reasoning_tokens) == (
        "degraded",
        "USAGE_CONTRADICTED(completion_tokens_details.reasoning_tokens 9 > usage.completion_tokens 6)",
        None,
        None,
    )
    assert (fine.status, fine.reason, fine.output_tokens) == ("ok", None, 6)
    for s in (zero, falls, reasoning, fine):
        assert s.content_chunks == 6 and s.ttft_ns is not None and s.ttft_ns >= 30_000_000
        assert s.first_content_ns == s.first_token_ns
    assert res.returncode == 0, res.stderr
    (cell,) = json.loads(res.stdout)["cells"]
    assert any("USAGE_CONTRADICTED" in r for r in cell["reasons"]), cell["reasons"]

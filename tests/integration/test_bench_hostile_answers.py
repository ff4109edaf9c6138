"""Hostile answers found by probing the CLI as an attacker would (issue 37, 2026-12-07): a ``/tokenize`` answered
once with a redirect refused the run at once (only 5xx and bad bodies were asked again); a ``/v1/models`` body
nested past Python's JSON parser ended the context check with ``RecursionError`` (exit 3), and the truth server
answered its own such ``garbage_body`` with a 500."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hangguard import HANG_S
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.workload.context import ContextBuilder

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(output_tokens=6, finish_reason="length", ttft_ms=5, inter_chunk_ms=1, role_ms=None)
DEEP = "[" * 100_000 + "]" * 100_000


def test_one_redirect_to_tokenize_is_asked_again_and_the_run_finishes(tmp_path: Path) -> None:
    script = TruthScript(
        default=PLAN, serve_models=True, serve_tokenizer=True, garbage={"/tokenize": [0]}, garbage_status=302
    )
    with TruthServer(script) as ts:
        args = ["bench", "--server", f"x={ts.base_url}", "--workloads", "prose", "--max-concurrency", "1"]
        args += ["--repeats", "1", "--max-tokens", "6", "--context-tokens", "64", "-f", "json", "--out", str(tmp_path)]
        res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode == 0, res.stderr[-1500:]
    assert [c["streams"] for c in json.loads(res.stdout)["cells"]] == [1]


def test_a_models_body_nested_too_deep_is_no_window() -> None:
    script = TruthScript(
        default=PLAN, serve_models=True, garbage={"/v1/models": [0]}, garbage_body={"/v1/models": DEEP}
    )

    async def window(url: str) -> tuple[int | None, int | None]:
        async with httpx.AsyncClient(timeout=HANG_S) as http:
            builder = ContextBuilder(http, url, "truth", "vllm")
            return await builder.window(), await builder.window()  # the bad answer, then the server's own

    with TruthServer(script) as ts:
        raw = httpx.get(ts.base_url + "/v1/models", timeout=HANG_S)
        assert (raw.status_code, len(raw.content)) == (200, len(DEEP))  # the body as given (not a 500)
    with TruthServer(script) as ts:
        assert asyncio.run(window(ts.base_url)) == (None, 4096)

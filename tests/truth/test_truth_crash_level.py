"""The truth server's crash under load (``crash_above_running``) and its vLLM-style command line and stats lines."""

from __future__ import annotations

import httpx

from hangguard import HANG_S
from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript


def _bodies(n: int) -> list[tuple[str, dict]]:
    body = {"model": "truth", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    return [(f"p{i}", body) for i in range(n)]


def test_two_in_flight_is_stable_the_third_arrival_kills_the_process():
    plan = ResponsePlan(ttft_ms=500.0, output_tokens=4)
    with TruthServer(TruthScript(default=plan, crash_above_running=2, log_stats_kv_percent=12.0)) as ts:
        ok = run_sync(run_fixed_concurrency(ts.base_url, _bodies(2), 2, ClientSettings()))
        assert [s.status for s in ok] == ["ok", "ok"] and ts.alive()
        dead = run_sync(run_fixed_concurrency(ts.base_url, _bodies(3), 3, ClientSettings()))
        assert ts._proc is not None and ts._proc.popen is not None and ts._proc.popen.wait(HANG_S) == 3
        assert len(dead) == 3 and all(s.status == "failed" for s in dead)
        log = ts._proc.log_path.read_text()
    # one stats line per arrival, in vLLM's wording: 1, 2 (the stable pair), then 1, 2 and no third
    running = [line.split("Running: ")[1].split(" ")[0] for line in log.splitlines() if "Running: " in line]
    assert running == ["1", "2", "1", "2"]
    assert "Waiting: 0 reqs, GPU KV cache usage: 12.0%, Prefix cache hit rate: 0.0%" in log


def test_vllm_command_line_is_accepted():
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "specscope.truth.server", "serve", "some/model", "--host", "127.0.0.1", "--port", "0"]
        + ["--max-num-seqs", "4", "--speculative-config", '{"method":"ngram"}'],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("LISTENING http://127.0.0.1:")
        assert httpx.get(line.split()[1] + "/health", timeout=HANG_S).json() == {"status": "ok"}
    finally:
        proc.kill()
        proc.wait(HANG_S)

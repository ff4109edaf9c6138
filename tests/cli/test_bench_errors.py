"""Bad input gets one clear line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hangguard import HANG_S
from specscope.truth import MetricsPlan, TruthScript, TruthServer


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "specscope", *args], capture_output=True, text=True, cwd=cwd, timeout=HANG_S
    )


def _one_error_line(res):
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, res.stderr
    return lines[0]


def test_unreachable_server(tmp_path):
    line = _one_error_line(run_cli("bench", "--server", "http://127.0.0.1:9", "--out", str(tmp_path)))
    assert "cannot be reached" in line and "fix:" in line
    assert not list(tmp_path.iterdir())  # no half-made run folder


def test_server_without_metrics(tmp_path):
    with TruthServer(TruthScript(metrics=MetricsPlan(enabled=False))) as ts:
        line = _one_error_line(run_cli("bench", "--server", ts.base_url, "--out", str(tmp_path)))
    assert "has no usable /metrics endpoint" in line and "HTTP 404" in line


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--configs", "turbo"], "invalid value for --configs; found: turbo; expected: one of base, ngram, draft,"),
        (
            ["--workloads", "poetry"],
            "invalid value for --workloads; found: poetry; expected: one of prose, code, edit, edit-prefill, repeat; "
            "fix: e.g. --workloads prose,code,edit",
        ),
        (["--max-concurrency", "1,x"], "--max-concurrency takes comma-separated whole numbers"),
        (["--max-concurrency", "0"], "invalid value for --max-concurrency"),
        (["--server", "localhost:8000"], "--server must be a URL"),
        (
            ["--target-ci", "0.05", "--min-repeats", "5", "--max-repeats", "2"],
            "--min-repeats is above --max-repeats; found: --min-repeats 5, --max-repeats 2; expected: --min-repeats <=",
        ),
        (["--min-repeats", "3"], "--min-repeats is read only with --target-ci; found: --min-repeats 3 without"),
        (["--max-repeats", "4"], "--max-repeats is read only with --target-ci; found: --max-repeats 4 without"),
    ],
)
def test_bad_names_and_options(tmp_path, args, needle):
    line = _one_error_line(run_cli("bench", "--out", str(tmp_path), *args))
    assert needle in line


def test_not_a_run(tmp_path):
    line = _one_error_line(run_cli("report", str(tmp_path)))
    assert "is not a run folder" in line
    line = _one_error_line(run_cli("bench", "--resume", str(tmp_path / "missing")))
    assert "is not a run folder" in line


def test_levels_beyond_the_embedded_engine_fail_before_a_run_folder(tmp_path):
    line = _one_error_line(run_cli("bench", "--max-concurrency", "4000", "--configs", "base", "--out", str(tmp_path)))
    assert "concurrency level too high for the embedded engine" in line and "found: 4000" in line
    assert not list(tmp_path.iterdir())


def test_empty_server_name(tmp_path):
    line = _one_error_line(run_cli("bench", "--server", "=http://127.0.0.1:9", "--out", str(tmp_path)))
    assert "empty config name" in line

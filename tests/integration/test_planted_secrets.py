"""Issue 29 "Done when": a run with >= 30 planted secret forms (tests/secret_forms.py) in its server URLs, its API
key, the server log it is given and the errors it prints leaves no secret in any byte specscope writes (the run
folder, reports in every format, crash logs) or prints (stdout, stderr)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from secret_forms import FORMS
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")
API_KEY = "sk-plantedApiKey0123456789"
QUERY = "apikey=QsApikey0004&X-Amz-Signature=QsAmzSig0005&pass=QsPass000008&key=QsKey000002&sig=QsSig000003"


def _specscope(*args: str, crash_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC, "SPECSCOPE_CRASH_DIR": str(crash_dir)}
    env.pop("OPENAI_API_KEY", None)
    env.pop("SPECSCOPE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, env=env, timeout=HANG_S)


def _server_log(path: Path) -> Path:
    """A captured vLLM log: every planted form on a failure-signature line (stored in the run's server facts) and
    in a ``non-default args`` line (parsed into the facts)."""
    lines = ["INFO non-default args: {'model': 'm', 'api_key': ['DictList0019'], 'hf_token': 'DictTok00020'}"]
    lines += [f"ERROR EngineDeadError: engine core died; context: {text}" for text, _secret in FORMS]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_no_planted_secret_in_any_byte_written_or_printed(tmp_path):
    crash = tmp_path / "crash"
    secrets = [s for _t, s in FORMS] + [API_KEY]
    assert len(secrets) >= 31
    printed: list[bytes] = []
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=8, finish_reason="length"))) as truth:
        host = truth.base_url.removeprefix("http://")
        args = [
            "bench",
            "--server",
            f"base=http://bob:Pw0rdUserinfo1@{host}",
            "--metrics",
            f"base=http://{host}/metrics?{QUERY}",
            "--server-log",
            f"base={_server_log(tmp_path / 'vllm.log')}",
            "--api-key",
            API_KEY,
            *("--configs", "base", "--workloads", "prose", "--levels", "1", "--repeats", "1", "--max-tokens", "8"),
            *("--no-aa", "--out", str(tmp_path / "runs")),
        ]
        done = _specscope(*args, crash_dir=crash)
        printed += [done.stdout, done.stderr]
        assert done.returncode == 0, done.stderr.decode()
        assert {r["authorization"] for r in truth.served()} == {f"Bearer {API_KEY}"}
    (run_dir,) = (tmp_path / "runs").iterdir()
    for fmt in ("text", "markdown", "json", "html"):
        shown = _specscope("report", str(run_dir), "-f", fmt, crash_dir=crash)
        written = _specscope("report", str(run_dir), "-f", fmt, "-o", str(tmp_path / f"report.{fmt}"), crash_dir=crash)
        assert shown.returncode == 0 and written.returncode == 0, shown.stderr.decode()
        printed += [shown.stdout, shown.stderr, written.stdout, written.stderr]
    for bad in (  # error lines: unreachable servers, a target that is a URL, a missing file
        ["bench", "--server", f"base=http://bob:Pw0rdUserinfo1@127.0.0.1:9/v1?{QUERY}", "--api-key", API_KEY],
        ["bench", "--server", "base=http://127.0.0.1:9?access_token=QsAccess0009&api_key=QsApiKey0010"],
        ["audit", "https://u:QsPassword12@h.invalid/x?token=QsToken00011"],
        ["advise", "--from-csv", f"/nonexistent/{API_KEY}.csv", "--level-mix", "1=1"],
    ):
        done = (
            _specscope(*bad, "--out", str(tmp_path / "refused"), crash_dir=crash)
            if bad[0] == "bench"
            else (_specscope(*bad, crash_dir=crash))
        )
        assert done.returncode == 2, done.stderr.decode()
        printed += [done.stdout, done.stderr]
    written_files = [p for root in (run_dir, crash, tmp_path) for p in root.rglob("*") if p.is_file()]
    written_files = [p for p in written_files if p.name != "vllm.log"]  # the user's own input file
    assert {"manifest.json", "run.sqlite", "report.html", "report.json"} <= {p.name for p in written_files}
    leaks = [
        (secret, where)
        for secret in secrets
        for where, data in [*((str(p), p.read_bytes()) for p in written_files), *(("printed", b) for b in printed)]
        if secret.encode() in data
    ]
    assert not leaks, leaks

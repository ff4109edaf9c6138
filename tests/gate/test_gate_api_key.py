"""``gate`` speaks to servers behind an API key as ``bench`` does (issue 37, GT1): ``--api-key KEY`` or
``OPENAI_API_KEY`` (the one option of the bench spec, same help and variable) is sent as ``Authorization: Bearer``
with every probe, and never written into the gate run."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from gate_scripted_server import ScriptedServer

from hangguard import HANG_S

KEY = "GateKey9876zyx"


@pytest.mark.parametrize("how", ["flag", "env"])
def test_every_probe_carries_the_key_and_the_run_does_not(tmp_path, how):
    prof_file = tmp_path / "p.toml"
    prof_file.write_text("[long_context]\ncontext_tokens = 512\n[thinking]\nmax_tokens = 300\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    args = ["gate", "--configs", "base", "--run-file", str(prof_file), "--out", str(tmp_path / "runs"), "--limit", "1"]
    if how == "env":
        env["OPENAI_API_KEY"] = KEY
    else:
        args += ["--api-key", KEY]
    with ScriptedServer("good") as srv:
        res = subprocess.run(
            [sys.executable, "-m", "specscope", *args, "--server", srv.base_url],
            capture_output=True,
            text=True,
            timeout=HANG_S,
            env=env,
            cwd=tmp_path,
        )
        auth = list(srv.auth)
    assert res.returncode == 0, res.stderr[-1500:]
    assert auth and auth == [f"Bearer {KEY}"] * len(auth)
    written = b"".join(p.read_bytes() for p in (tmp_path / "runs").rglob("*") if p.is_file())
    assert written and KEY.encode() not in written

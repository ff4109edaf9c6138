"""``--recipes FILE`` is the vLLM recipes that ``--launch vllm`` starts (its help): with ``--server`` (the user's own
servers) or the embedded engine nothing reads it, so bench and gate refuse it by name, before any folder is made.

Finding (2026-12-07): `bench --server x=URL --recipes /nonexistent --dry-run` exited 0, the file silently ignored.
"""

from __future__ import annotations

import pytest

from clirun import cli, one_error


@pytest.mark.parametrize("cmd", ["bench", "gate"])
@pytest.mark.parametrize("target", [["--server", "x=http://127.0.0.1:9"], ["--launch", "embedded"]])
def test_recipes_without_launch_vllm_is_refused(cmd, target, tmp_path, capsys, monkeypatch):
    argv = [cmd, *target, "--recipes", tmp_path / "nonexistent.toml", "--out", tmp_path / "runs"]
    code, out, err = cli(argv + (["--dry-run"] if cmd == "bench" else []), capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and out == "", err
    assert "--recipes applies to --launch vllm only" in line, line
    assert "found: --recipes" in line and "expected:" in line and "fix: drop --recipes" in line, line
    assert not (tmp_path / "runs").exists()

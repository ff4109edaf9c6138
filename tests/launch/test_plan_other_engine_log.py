"""``serve --parse-log LOG --plan ...`` on an SGLang or llama.cpp log says --plan reads vLLM's start-up lines (user62).

The refusal said "expected: a vLLM start-up log that reached the KV cache allocation; fix: pass the log of a server
that started (the lines before 'Starting vLLM API server')" of a log whose server had started: it was SGLang's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli, one_error
from paths import DATA

LOGS = DATA / "engines" / "logs"


@pytest.mark.parametrize(
    ("log", "engine"),
    [
        ("sglang_pr30047_hybrid_full_and_mamba_usage.log", "sglang"),
        ("llamacpp_docs_rate_and_statistics.log", "llamacpp"),
    ],
)
def test_plan_on_another_engines_log_names_it(log: str, engine: str, tmp_path: Path, capsys, monkeypatch):
    argv = ["serve", "--parse-log", LOGS / log, "--plan", "requests=8,tokens=32k"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert f"the log is {engine}'s: --plan reads vLLM's KV-cache start-up lines only" in line
    assert f"fix: `specscope serve --parse-log {LOGS / log}` without --plan" in line
    assert "Starting vLLM API server" not in line

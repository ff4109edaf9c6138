"""Every option that takes a token count reads ``2k`` as 2048 tokens (one parser: values.parse_token_count)."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA

LOG = DATA / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"


def _plan(tokens: str, tmp_path, capsys, monkeypatch) -> dict:
    argv = ["serve", "--parse-log", LOG, "--plan", f"requests=2,tokens={tokens}", "-f", "json"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    return dict(json.loads(out)["plan"])


def test_serve_plan_reads_2k_as_2048_tokens(tmp_path, capsys, monkeypatch):
    plan = _plan("2k", tmp_path, capsys, monkeypatch)
    assert plan["tokens"] == 2048 and plan == _plan("2048", tmp_path, capsys, monkeypatch)


def test_serve_plan_refuses_a_token_count_it_cannot_read(tmp_path, capsys, monkeypatch):
    argv = ["serve", "--parse-log", LOG, "--plan", "requests=2,tokens=2q"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "found: tokens=2q" in err and "2k" in err and not out


def test_gate_context_tokens_reads_2k_as_2048(tmp_path, capsys, monkeypatch):
    code, out, err = cli(["gate", "--print-run-file", "--context-tokens", "2k"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "context_tokens = 2048" in out

"""Every option that takes a token count reads ``2k`` as 2048 tokens (one parser: values.parse_token_count)."""

from __future__ import annotations

import json

from clirun import cli, one_error
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


def test_bench_max_tokens_reads_2k_as_2048(tmp_path, capsys, monkeypatch):
    """``bench --max-tokens 2k`` was refused ("takes a whole number") while ``--context-tokens 2k`` was read."""
    runs = []
    for tokens in ("2k", "2048"):
        argv = ["bench", "--dry-run", "--max-tokens", tokens, "-f", "json", "--out", tmp_path / "runs"]
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
        assert code == 0, err
        runs.append(json.loads(out))
    assert runs[0] == runs[1]
    rows = [r for w in runs[0]["workloads"] for r in w["first_rows"]]
    assert {r["max_tokens"] for r in rows if r["max_tokens_from"] == "--max-tokens"} == {2048}
    assert not (tmp_path / "runs").exists()


def test_gate_max_tokens_reads_2k_as_2048(tmp_path, capsys, monkeypatch):
    code, out, err = cli(["gate", "--print-run-file", "--max-tokens", "2k"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "max_tokens = 2048" in out and "max_tokens = 2k" not in out


def test_max_tokens_refuses_a_count_it_cannot_read(tmp_path, capsys, monkeypatch):
    for command in (["bench", "--dry-run"], ["gate", "--print-run-file"]):
        code, out, err = cli([*command, "--max-tokens", "2q"], capsys, monkeypatch, tmp_path)
        assert code == 2 and not out
        assert one_error(err) == (
            "error: --max-tokens takes token counts; found: 2q (the character 'q', U+0071, is not a digit 0-9); "
            "expected: a whole number of tokens 1 to 1000000, 1k = 1024 tokens, e.g. 2k or 1500; "
            "fix: e.g. --max-tokens 2k"
        )

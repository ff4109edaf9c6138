"""``gate`` takes ``-o/--output FILE`` as every command with ``-f`` does (one vocabulary). Checked before anything
starts: a suffix that names no format gate writes is refused by name."""

from __future__ import annotations

from clirun import cli, one_error


def test_gate_output_suffix_is_checked_before_any_server(tmp_path, capsys, monkeypatch):
    argv = ["gate", "--server", "base=http://127.0.0.1:9", "-o", tmp_path / "gate.yaml", "--out", tmp_path / "runs"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and "cannot tell the format from the file name" in line and "gate.yaml" in line, line
    assert not (tmp_path / "runs").exists()


def test_gate_writes_its_run_to_the_file(tmp_path, capsys, monkeypatch):
    import json

    from specscope.truth import TruthServer

    with TruthServer() as ts:
        argv = ["gate", "--server", f"base={ts.base_url}", "--gate", "arithmetic", "--limit", "1"]
        argv += ["--out", tmp_path / "runs", "-o", tmp_path / "gate.json"]
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    assert out.strip() == str(tmp_path / "gate.json")
    doc = json.loads((tmp_path / "gate.json").read_text())
    assert doc["run_folder"].startswith(str(tmp_path / "runs"))


def test_gate_writes_its_profile_to_the_file(tmp_path, capsys, monkeypatch):
    code, out, err = cli(["gate", "--print-run-file", "-o", tmp_path / "gate.toml"], capsys, monkeypatch, tmp_path)
    assert code == 0 and out.strip() == str(tmp_path / "gate.toml"), err
    assert "[long_context]" in (tmp_path / "gate.toml").read_text()

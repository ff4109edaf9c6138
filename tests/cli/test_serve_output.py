"""``serve`` takes ``-o/--output FILE`` as every command with ``-f`` does (one vocabulary): the log's facts written to
the file (format from its suffix unless -f), the same text stdout would have shown, and the path printed."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA

LOG = DATA / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"


def test_serve_parse_log_writes_json_to_a_file(tmp_path, capsys, monkeypatch):
    code, printed, err = cli(["serve", "--parse-log", LOG, "-f", "json"], capsys, monkeypatch, tmp_path)
    out = tmp_path / "facts.json"
    code2, path_line, err2 = cli(["serve", "--parse-log", LOG, "-o", out], capsys, monkeypatch, tmp_path)
    assert code2 == code and path_line.strip() == str(out), err2
    assert json.loads(out.read_text()) == json.loads(printed)


def test_serve_parse_log_writes_text_to_a_file(tmp_path, capsys, monkeypatch):
    out = tmp_path / "facts.txt"
    argv = ["serve", "--parse-log", LOG, "--plan", "requests=2,tokens=2k", "-o", out, "--width", "120"]
    code, path_line, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1) and path_line.strip() == str(out), err
    text = out.read_text()
    assert "server log facts" in text and "plan:" in text.lower() and "\x1b[" not in text


def test_serve_list_writes_to_a_file(tmp_path, capsys, monkeypatch):
    code, printed, _ = cli(["serve", "--list", "-f", "json"], capsys, monkeypatch, tmp_path)
    out = tmp_path / "recipes.json"
    code2, path_line, err = cli(["serve", "--list", "-o", out], capsys, monkeypatch, tmp_path)
    assert code == code2 == 0 and path_line.strip() == str(out), err
    assert json.loads(out.read_text()) == json.loads(printed)


def test_serve_refuses_output_when_it_runs_a_recipe(tmp_path, capsys, monkeypatch):
    book = tmp_path / "recipes.toml"
    book.write_text('[recipes.r]\ninherit_defaults = false\nmodel = "m"\nmethod = "base"\nvllm_command = ["false"]\n')
    argv = ["serve", "r", "--recipes", book, "--no-preflight", "-o", tmp_path / "x.txt"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "--output does not apply to running a recipe" in err and not out

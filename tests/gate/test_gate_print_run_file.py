"""``gate --run-file F --print-run-file`` prints F's settings merged over the default profile (as ``bench --run-file
F --print-run-file`` prints the run file's options), not the packaged defaults; with no --run-file the packaged,
commented default profile is printed as before. The printed text read back as a profile is the same profile."""

from __future__ import annotations

import tomllib

from clirun import cli
from specscope.gate.profile import default_profile_text, load_profile


def test_run_file_settings_are_printed(capsys, monkeypatch, tmp_path):
    f = tmp_path / "card.toml"
    f.write_text("[arithmetic]\nmax_tokens = 77\n[repetition]\nenabled = false\n", encoding="utf-8")
    code, out, err = cli(["gate", "--run-file", f, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    printed = tomllib.loads(out)
    assert printed["arithmetic"]["max_tokens"] == 77  # F's value, not the default 2048
    assert printed["repetition"]["enabled"] is False
    assert printed["thinking"]["max_tokens"] == 16384  # a key F leaves out keeps its default
    back = tmp_path / "back.toml"
    back.write_text(out, encoding="utf-8")
    assert load_profile(back) == load_profile(f)


def test_command_line_caps_are_printed(capsys, monkeypatch, tmp_path):
    f = tmp_path / "card.toml"
    f.write_text("[code]\nmax_tokens = 300\n", encoding="utf-8")
    argv = ["gate", "--run-file", f, "--limit", "2", "--max-tokens", "500", "--print-run-file"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    printed = tomllib.loads(out)
    assert printed["code"]["max_tokens"] == 300 and printed["thinking"]["max_tokens"] == 500
    assert {printed[g]["limit"] for g in ("thinking", "code", "compare")} == {2}


def test_no_run_file_prints_the_default_profile(capsys, monkeypatch, tmp_path):
    code, out, _ = cli(["gate", "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0 and out == default_profile_text()

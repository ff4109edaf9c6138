"""A manifest.json holding a key twice in one object is refused naming the key (issue 37, a hand edit): the reader
kept the last value silently, so a manifest reading ``{"kind": "gate", ..., "kind": "bench"}`` was reported as a
bench run with exit 0; which of the two the user meant is not for specscope to guess."""

from __future__ import annotations

from clirun import cli, one_error
from run_damage import small_run


def test_a_manifest_with_a_key_twice_is_refused_naming_the_key(tmp_path, capsys, monkeypatch):
    run = small_run(tmp_path / "run")
    manifest = run / "manifest.json"
    text = manifest.read_text()
    manifest.write_text(text.replace("{", '{"kind": "gate", ', 1))
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    line = one_error(err)
    assert f"{manifest} holds a key twice in one object" in line
    assert "found: 'kind' is 'gate', then again 'bench'" in line and "fix: " in line
    assert out == "" and manifest.read_text() == text.replace("{", '{"kind": "gate", ', 1)  # never rewritten

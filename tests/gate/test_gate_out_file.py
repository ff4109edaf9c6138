"""`specscope gate --out FILE` (a file where the folder of runs should be): exit 2 with found / expected / fix before
any probe; it was a NotADirectoryError traceback after the first probe had been answered."""

from __future__ import annotations

from gate_scripted_server import ScriptedServer

from clirun import cli


def test_out_that_is_a_file_is_refused(capsys, monkeypatch, tmp_path):
    target = tmp_path / "runs"
    target.write_text("not a folder\n")
    with ScriptedServer("good") as srv:
        argv = ["gate", "--server", srv.base_url, "--gate", "arithmetic", "--limit", "1", "--out", target]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
        assert srv.requests == []  # refused before the first probe
    assert code == 2
    assert f"cannot create the run folder {target}; found: a file" in err
    assert target.read_text() == "not a folder\n"

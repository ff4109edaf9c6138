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


def test_compare_alone_with_one_server_is_refused(capsys, monkeypatch, tmp_path):
    """`--gate compare` with one --server ran nothing and exited 1 ('NO GATES RAN'), as if a gate had failed: the
    comparison needs a baseline and a speculative config, so it is a usage error, exit 2, before any probe."""
    with ScriptedServer("good") as srv:
        argv = ["gate", "--server", srv.base_url, "--gate", "compare", "--out", tmp_path / "runs"]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
        assert srv.requests == []
    assert code == 2
    assert "the compare gate needs two configs; found: 1 config (server)" in err
    assert not (tmp_path / "runs").exists()


def test_every_gate_disabled_is_refused(capsys, monkeypatch, tmp_path):
    prof = tmp_path / "p.toml"
    prof.write_text(
        "".join(
            f"[{g}]\nenabled = false\n"
            for g in ("thinking", "arithmetic", "code", "tool_call", "long_context", "repetition", "compare")
        )
    )
    argv = ["gate", "--server", "http://127.0.0.1:9", "--run-file", prof, "--out", tmp_path / "runs"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "no gate to run; found: every gate disabled" in err


def test_a_wrong_second_server_is_found_before_the_baseline_runs(capsys, monkeypatch, tmp_path):
    """`--server base=GOOD --server spec=WRONG`: the wrong URL was found only after the baseline's whole suite had
    run (hours with the thinking gate); every --server is now asked for its model before the first probe."""
    with ScriptedServer("good") as srv:
        argv = ["gate", "--server", f"base={srv.base_url}", "--server", "spec=http://127.0.0.1:9"]
        code, _out, err = cli(
            [*argv, "--gate", "arithmetic", "--out", tmp_path / "runs"], capsys, monkeypatch, tmp_path
        )
        assert srv.requests == []
    assert code == 2
    assert "no OpenAI-compatible server answered; found: GET http://127.0.0.1:9/v1/models" in err


def test_the_same_url_twice_is_noted(capsys, monkeypatch, tmp_path):
    """`--server base=URL --server spec=URL` (a port not changed): the server is compared with itself, which shows
    only whether it is deterministic; a note says so, and the run goes on."""
    with ScriptedServer("good") as srv:
        argv = ["gate", "--server", f"base={srv.base_url}", "--server", f"spec={srv.base_url}/"]
        argv += ["--gate", "compare", "--limit", "1", "--out", tmp_path / "runs"]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0
    assert f"note: base and spec are the same server ({srv.base_url}):" in " ".join(err.split())

"""Exit codes a script can trust: 0 ok, 1 problem found, 2 bad input, 3 internal error with a crash log, 130 Ctrl-C."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import specscope.audit
from hangguard import HANG_S
from specscope.cli import main


def _run(argv, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SPECSCOPE_CRASH_DIR", str(tmp_path / "crash"))
    monkeypatch.delenv("SPECSCOPE_DEBUG", raising=False)
    with pytest.raises(SystemExit) as info:
        main(argv)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def test_internal_error_is_exit_3_with_one_line_and_a_crash_log(capsys, monkeypatch, tmp_path):
    def boom(*_a, **_k):
        raise RuntimeError("forced failure for the test")

    monkeypatch.setattr(specscope.audit, "audit_checkpoint", boom)
    (tmp_path / "ckpt").mkdir()
    code, _out, err = _run(["audit", str(tmp_path / "ckpt")], capsys, monkeypatch, tmp_path)
    assert code == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: internal error (a bug in specscope): RuntimeError: forced failure for the test")
    logs = list((tmp_path / "crash").glob("specscope-crash-*.log"))
    assert len(logs) == 1
    assert str(logs[0]) in lines[0]
    text = logs[0].read_text()
    assert "Traceback (most recent call last)" in text
    assert 'raise RuntimeError("forced failure for the test")' in text


def test_keyboard_interrupt_is_exit_130(capsys, monkeypatch, tmp_path):
    def interrupt(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(specscope.audit, "audit_checkpoint", interrupt)
    (tmp_path / "ckpt").mkdir()
    code, _out, err = _run(["audit", str(tmp_path / "ckpt")], capsys, monkeypatch, tmp_path)
    assert code == 130
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1  # typer maps Ctrl-C to 130 itself


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["audit"], "error: Missing argument 'TARGET'; found: no TARGET; expected: specscope audit [OPTIONS] TARGET; "),
        (["audit", "--bogus", "x"], "error: no such option --bogus; found: --bogus; expected: an option of `specscope"),
    ],
)
def test_usage_error_is_one_line_exit_2(argv, needle, capsys, monkeypatch, tmp_path):
    code, _out, err = _run(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(needle) and "; fix: " in err


def test_bad_target_is_exit_2_one_line(capsys, monkeypatch, tmp_path):
    code, _out, err = _run(["audit", str(tmp_path / "missing" / "x")], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert not (tmp_path / "crash").exists()


def test_ok_is_exit_0(capsys, monkeypatch, tmp_path):
    code, out, _err = _run(["version"], capsys, monkeypatch, tmp_path)
    assert code == 0 and out.strip()


def test_help_lists_the_exit_codes(capsys, monkeypatch, tmp_path):
    code, out, _err = _run(["--help"], capsys, monkeypatch, tmp_path)
    assert code == 0
    flat = " ".join(out.split())
    assert "3 internal error" in flat and "130 interrupted" in flat


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{missing}"],
        ["advise", "{missing}"],
        ["predict", "{missing}"],
        ["surgery", "compare", "{missing}", "{missing}"],
        ["serve", "no-such-recipe", "--print"],
        ["audit", "{missing}/x"],
    ],
)
def test_errors_are_one_stderr_line_in_every_command(argv, capsys, monkeypatch, tmp_path):
    argv = [a.format(missing=tmp_path / "missing") for a in argv]
    code, _out, err = _run(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and "; fix: " in err, err


def test_bench_error_after_the_progress_bar_started_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SPECSCOPE_DEBUG"}
    p = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--server", "http://127.0.0.1:9", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: server 'server' at http://127.0.0.1:9"), p.stderr


def _debug_run(argv, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SPECSCOPE_CRASH_DIR", str(tmp_path / "crash"))
    monkeypatch.setenv("SPECSCOPE_DEBUG", "1")
    with pytest.raises(SystemExit) as info:
        main(argv)
    return info.value.code, capsys.readouterr().err


def test_debug_keeps_exit_3_for_an_internal_error_and_prints_the_traceback(capsys, monkeypatch, tmp_path):
    def boom(*_a, **_k):
        raise RuntimeError("forced failure for the test")

    monkeypatch.setattr(specscope.audit, "audit_checkpoint", boom)
    (tmp_path / "ckpt").mkdir()
    code, err = _debug_run(["audit", str(tmp_path / "ckpt")], capsys, monkeypatch, tmp_path)
    assert code == 3  # not 1, the code of "errors found"
    assert err.startswith("Traceback (most recent call last):\n")
    assert 'raise RuntimeError("forced failure for the test")' in err
    assert err.strip().splitlines()[-1].startswith("error: internal error (a bug in specscope): RuntimeError: forced")


def test_debug_keeps_exit_2_for_bad_input_with_the_traceback(capsys, monkeypatch, tmp_path):
    code, err = _debug_run(["audit", str(tmp_path / "missing" / "x")], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.strip().splitlines()[-1].startswith("error: ")


@pytest.mark.parametrize("argv", [["--help"], ["report", "--help"], ["gate", "--print-run-file"]])
def test_a_reader_that_closes_stdout_ends_the_command_with_141_and_nothing_on_stderr(argv, tmp_path):
    """`specscope report RUN | head -1` exited 1 (rich's broken-pipe handler: the code of a finding) with nothing said
    (fresh-user finding, 2026-12-06). A closed stdout is 141, as for a tool ended by SIGPIPE, and stderr stays empty.
    A command that prints with typer.echo (`gate --print-run-file`, `export RUN --to profile -o F | head -1`) still
    exited 1: typer turns an EPIPE into sys.exit(1) before specscope sees it (new-user finding, 2026-12-06)."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte, as `| head` after what it wanted
    try:
        res = subprocess.run(
            [sys.executable, "-m", "specscope", *argv], stdout=write_end, stderr=subprocess.PIPE, timeout=HANG_S
        )
    finally:
        os.close(write_end)
    assert (res.returncode, res.stderr) == (141, b"")

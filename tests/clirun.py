"""Run the ``specscope`` CLI in this process, as a user would, and check that it ended cleanly.

``cli(argv, capsys, monkeypatch, tmp_path)`` calls :func:`specscope.cli.main` (the script's own entry point, so
the exit-code mapping, the redaction and the control-character escaping of its output are the ones a user gets)
and returns ``(exit code, stdout, stderr)``. It fails the test on a traceback or a crash log (exit 3).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.cli import main


def cli(argv: list[str], capsys, monkeypatch, tmp_path: Path) -> tuple[int, str, str]:
    """``specscope ARGV`` in-process; ``(code, stdout, stderr)``. No traceback, no crash log, exit code != 3."""
    monkeypatch.delenv("SPECSCOPE_DEBUG", raising=False)
    crash = tmp_path / "crash-logs"
    monkeypatch.setenv("SPECSCOPE_CRASH_DIR", str(crash))
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in argv])
    out = capsys.readouterr()
    code = int(info.value.code or 0)
    assert code != 3 and "Traceback" not in out.err, out.err
    assert not crash.exists() or not any(crash.iterdir()), out.err
    return code, out.out, out.err


def one_error(err: str) -> str:
    """The one ``error:`` line of a command's stderr (the CLI's contract: errors are one line), asserted single."""
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def vllm_import_run(tmp_path: Path, capsys, monkeypatch) -> Path:
    """A run of configs base and mtp imported from tests/data/imports' vLLM result files (two repeats each)."""
    from paths import DATA

    run = tmp_path / "run"
    for config in ("base", "mtp"):
        files = [DATA / "imports" / f"vllm_{config}_r{i}.json" for i in (0, 1)]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    return run

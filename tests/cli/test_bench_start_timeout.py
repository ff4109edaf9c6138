"""``bench --start-timeout``: the longest wait for a server bench launches to answer ``/health``, the same option as
``serve --start-timeout`` (one declaration, :data:`specscope.bench.spec.BENCH_SPEC`); before it the embedded engine's
120 s start limit could not be raised from bench. A start that overruns names the run's config, also the A/A control
``base-again`` (measured on a server of ``base``'s config, which the error used to name instead)."""

from __future__ import annotations

import pytest
import typer

from clirun import cli, one_error
from specscope.cli import app

pytest.importorskip("xllamacpp")
pytestmark = pytest.mark.integration


def test_a_start_past_the_limit_names_the_run_config_and_its_log(capsys, monkeypatch, tmp_path):
    out = tmp_path / "runs"
    argv = ["bench", "--configs", "base-again", "--workloads", "prose", "--max-concurrency", "1", "--repeats", "1"]
    code, _, err = cli([*argv, "--start-timeout", "1ms", "--out", out], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2
    assert line.startswith("error: embedded engine 'base-again' not healthy after 0.001 s;"), line
    (run,) = out.iterdir()
    assert line.endswith(f"fix: see the server log {run / 'logs' / 'base-again.log'}"), line


def test_the_option_is_serves_own():
    """One declaration: the same flag, metavar and help in bench and serve."""
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    opts = []
    for command in ("bench", "serve"):
        (opt,) = [p for p in commands[command].params if "--start-timeout" in getattr(p, "opts", ())]
        opts.append((opt.opts, opt.metavar, getattr(opt, "help", None)))
    assert opts[0] == opts[1]
    assert opts[0][1] == "DURATION"

"""``bench --start-timeout``: the longest wait for a server bench launches to answer ``/health``, the same option as
``serve --start-timeout`` (one declaration, :data:`specscope.bench.spec.BENCH_SPEC`); before it the embedded engine's
120 s start limit could not be raised from bench. A start that overruns names the run's config, also the A/A control
``base-again`` (measured on a server of ``base``'s config, which the error used to name instead)."""

from __future__ import annotations

import pytest
import typer

from clirun import cli, one_error
from specscope.cli import app
from specscope.errors import SpecscopeError
from specscope.targets.servers import embedded_target

pytest.importorskip("xllamacpp")
pytestmark = pytest.mark.integration


def test_a_start_past_the_limit_names_the_run_config_and_its_log(capsys, monkeypatch, tmp_path):
    out = tmp_path / "runs"
    argv = ["bench", "--configs", "base", "--aa", "--workloads", "prose", "--max-concurrency", "1", "--repeats", "1"]
    code, _, err = cli([*argv, "--start-timeout", "1ms", "--out", out], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2
    assert line.startswith("error: embedded engine 'base' not healthy after 0.001 s;"), line
    (run,) = out.iterdir()
    assert line.endswith(f"fix: see the server log {run / 'logs' / 'base.log'}"), line


def test_the_aa_controls_start_names_the_control_not_the_config_it_runs(tmp_path):
    """bench starts the A/A control ``base-again`` on ``base``'s engine config with ``name=`` the run config
    (bench/runner._launch); its start error said ``embedded engine 'base'``. The control cannot be started first from
    the CLI (``--configs base-again`` is refused as a control's name; ``--aa`` measures ``base`` first), so the real
    engine is started here as bench starts it."""
    log = tmp_path / "base-again.log"
    with pytest.raises(SpecscopeError) as e:
        with embedded_target(
            "base", log, threads=1, n_parallel=1, draft_cache=None, start_timeout_s=0.001, name="base-again"
        ):
            pass
    assert str(e.value).startswith("embedded engine 'base-again' not healthy after 0.001 s;"), str(e.value)
    assert str(e.value).endswith(f"fix: see the server log {log}"), str(e.value)


def test_the_option_is_serves_own():
    """One declaration: the same flag, metavar and help in bench and serve."""
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    opts = []
    for command in ("bench", "serve"):
        (opt,) = [p for p in commands[command].params if "--start-timeout" in getattr(p, "opts", ())]
        opts.append((opt.opts, opt.metavar, getattr(opt, "help", None)))
    assert opts[0] == opts[1]
    assert opts[0][1] == "DURATION"

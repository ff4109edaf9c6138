"""A launched vLLM recipe's start error names the run's config (the A/A control ``base-again`` runs recipe ``base``),
and ``gate --start-timeout`` is bench's and serve's option (one declaration), applied to the servers gate launches.
The stand-in vLLM is tests/launch/fake_vllm.py (a real process; ``FAKE_VLLM_MODE=hang`` never listens)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import typer

from clirun import cli, one_error
from specscope.cli import app
from specscope.errors import ServerStartError
from specscope.targets.servers import launched_target

FAKE = Path(__file__).resolve().parents[1] / "launch" / "fake_vllm.py"

pytestmark = pytest.mark.integration


def _book(tmp_path: Path) -> Path:
    book = tmp_path / "recipes.toml"
    book.write_text(
        '[recipes.fake-base]\ninherit_defaults = false\nmodel = "fake-model"\nmethod = "base"\n'
        f'vllm_command = ["{sys.executable}", "{FAKE}"]\nenv = {{ FAKE_VLLM_MODE = "hang" }}\n'
    )
    return book


def test_gate_takes_start_timeout_and_applies_it_to_a_recipe(tmp_path, capsys, monkeypatch):
    argv = ["gate", "--launch", "vllm", "--recipes", _book(tmp_path), "--configs", "fake-base", "--no-preflight"]
    argv += ["--gate", "arithmetic", "--limit", "1", "--start-timeout", "1ms", "--out", tmp_path / "runs"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and line.startswith("error: vLLM for recipe 'fake-base' did not become healthy;"), line
    assert "0.001 s" in line or "1ms" in line, line


def test_gate_refuses_start_timeout_for_servers_it_does_not_start(tmp_path, capsys, monkeypatch):
    argv = ["gate", "--server", "base=http://127.0.0.1:9", "--start-timeout", "1m", "--out", tmp_path / "runs"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and "--start-timeout" in line and "--server" in line, line


def test_the_start_timeout_option_is_one_declaration():
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    opts = set()
    for command in ("bench", "serve", "gate"):
        (opt,) = [p for p in commands[command].params if "--start-timeout" in getattr(p, "opts", ())]
        opts.add((tuple(opt.opts), opt.metavar, getattr(opt, "help", None)))
    assert len(opts) == 1


def test_the_aa_controls_recipe_start_names_the_control(tmp_path):
    """bench starts the A/A control ``fake-base-again`` from recipe ``fake-base`` (bench/runner._launch)."""
    log = tmp_path / "fake-base-again.log"
    with pytest.raises(ServerStartError) as e:
        with launched_target("fake-base", log, recipes=_book(tmp_path), start_timeout_s=0.001, name="fake-base-again"):
            pass
    assert str(e.value).startswith("vLLM for config 'fake-base-again' (recipe 'fake-base') did not become healthy;")

"""Help a person can read: every command's --help fits one screen (100 x 50) but bench's, whose options stand in
panels by group with examples at the end; no <bool>, no RST backticks, no {name} placeholders, no source paths."""

from __future__ import annotations

import re

import click
import pytest
import typer
from typer.testing import CliRunner

from specscope.bench.spec import GROUPS
from specscope.cli import app

runner = CliRunner()
SCREEN_LINES, SCREEN_COLUMNS = 50, 100


def _commands() -> list[tuple[str, ...]]:
    """Every command path of the app: (), ("bench",), ("surgery", "extract") ..."""
    root = typer.main.get_command(app)
    out: list[tuple[str, ...]] = [()]

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            out.append((*path, name))
            walk(sub, (*path, name))

    walk(root, ())
    return out


def _help(*cmd: str) -> str:
    res = runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": str(SCREEN_COLUMNS), "NO_COLOR": "1"})
    assert res.exit_code == 0, res.output
    return re.sub(r"\x1b\[[0-9;]*m", "", res.output)


@pytest.mark.parametrize("cmd", _commands(), ids=lambda c: " ".join(c) or "specscope")
def test_help_is_readable(cmd: tuple[str, ...]) -> None:
    text = _help(*cmd)
    for bad in (r"<bool>", r"<str>", r"<int>", r"<float>", r"<path>", r"``", r"\{[A-Za-z_]+\}", r"\w+/\w+\.py\b"):
        assert not re.search(bad, text), (cmd, bad, text)
    if cmd != ("bench",):
        assert len(text.splitlines()) <= SCREEN_LINES, (cmd, len(text.splitlines()))


def test_bench_help_has_a_panel_per_group_and_examples_last() -> None:
    text = _help("bench")
    panels = [m.group(1) for m in re.finditer(r"╭─ (\w[\w ]*?) ─", text)]
    assert panels == ["Options", *(title.split(":")[0] for title in GROUPS.values())], panels
    assert text.index("With no options: the quick profile on the embedded llama.cpp engine") < text.index("╭─")
    assert text.rstrip().splitlines()[-1].strip().startswith("specscope bench --profile card --print-run-file")
    assert text.index("Examples:") > text.index("Resume and repeat")


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_short_version_flag(flag: str) -> None:
    import importlib.metadata

    res = runner.invoke(app, [flag])
    assert res.exit_code == 0 and res.stdout == f"specscope {importlib.metadata.version('specscope')}\n"

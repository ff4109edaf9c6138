"""One CLI vocabulary, checked with typer's CliRunner (no subprocess, no server)."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
from typer.testing import CliRunner

from specscope.cli import app

runner = CliRunner()


def _help(*cmd: str) -> str:
    res = runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert res.exit_code == 0, res.output
    return re.sub(r"\x1b\[[0-9;]*m", "", res.output)


def test_version_flag_prints_the_installed_version() -> None:
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.stdout == f"specscope {importlib.metadata.version('specscope')}\n"


@pytest.mark.parametrize("cmd", ["bench", "gate"])
def test_bench_and_gate_share_the_target_options(cmd: str) -> None:
    text = _help(cmd)
    for option in ("--configs", "--server", "--launch", "--recipes", "--out", "--format", "-f"):
        assert re.search(rf"(^|[\s,]){re.escape(option)}\b", text), (cmd, option)
    assert "--recipe " not in text and "--embedded" not in text  # old spellings are hidden


@pytest.mark.parametrize(
    "cmd",
    ["extract", "compare", "graft", "quantize-draft", "reindex", "patch-config", "dflash-layers", "prune-unindexed"],
)
def test_every_surgery_subcommand_takes_short_format(cmd: str) -> None:
    text = _help("surgery", cmd)
    assert re.search(r"--format\s*,?\s*-f|-f\s*,?\s*--format|--format\s+-f", text), text


def test_prune_unindexed_refuses_a_format_it_cannot_write(tmp_path) -> None:
    res = runner.invoke(
        app, ["surgery", "prune-unindexed", str(tmp_path), "--out", str(tmp_path / "o"), "--format", "yaml"]
    )
    assert res.exit_code == 2 and "'yaml' is not one of text, json" in " ".join(res.output.split())
    assert not (tmp_path / "o").exists()


def test_gate_rejects_an_unknown_format_before_running(tmp_path) -> None:
    argv = ["gate", "--server", "http://127.0.0.1:9", "-f", "html", "--out", str(tmp_path)]
    res = runner.invoke(app, argv, env={"COLUMNS": "200"})
    assert res.exit_code == 2  # a usage error
    assert "'html' is not one of text, markdown, json" in " ".join(res.output.split())
    assert not list(tmp_path.iterdir())


def test_gate_server_and_launch_vllm_conflict_is_a_config_error(tmp_path) -> None:
    from specscope.errors import ConfigError

    res = runner.invoke(app, ["gate", "--server", "http://127.0.0.1:9", "--launch", "vllm", "--out", str(tmp_path)])
    assert isinstance(res.exception, ConfigError)
    assert res.exception.message == "--server and --launch vllm both choose who serves the configs"


@pytest.mark.parametrize("cmd", [("audit",), ("truth-server",), ("serve",), ("predict",), ("report",)])
def test_format_has_the_short_flag_everywhere(cmd: tuple[str, ...]) -> None:
    text = _help(*cmd)
    assert re.search(r"--format\s*,?\s*-f|-f\s*,?\s*--format|--format\s+-f", text), text


def test_audit_takes_text_and_the_old_table_spelling(tmp_path) -> None:
    missing = str(tmp_path / "no-such-checkpoint")
    for fmt in ("text", "table"):
        res = runner.invoke(app, ["audit", missing, "-f", fmt])
        assert res.exit_code != 0 and "is not one of" not in res.output  # the format was accepted
    res = runner.invoke(app, ["audit", missing, "-f", "yaml"], env={"COLUMNS": "200"})
    assert res.exit_code == 2 and "'yaml' is not one of text, json" in " ".join(res.output.split())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gate", "--configs", "base", "--configs", "turbo"], "invalid value for --configs"),
        (["gate", "--launch", "vllm"], "--launch vllm needs recipe names"),
        (["gate", "--server", "a=http://127.0.0.1:9", "--configs", "b"], "config 'b' has no --server"),
        (["bench", "--configs", "base", "--configs", "turbo"], "invalid value for --configs"),
        (["bench", "--launch", "sglang"], "invalid value for --launch"),
    ],
)
def test_bad_targets_fail_before_any_server_or_folder(tmp_path, argv: list[str], message: str) -> None:
    from specscope.errors import ConfigError

    res = runner.invoke(app, [*argv, "--out", str(tmp_path / "runs")])
    assert isinstance(res.exception, ConfigError), res.output
    assert res.exception.message == message
    assert not (tmp_path / "runs").exists()


def _declared_options() -> dict[str, dict[str, list[str]]]:
    """flag -> its meaning (the help before its first parenthesis: what follows qualifies it for one command) ->
    the commands declaring it, walked from the app's own click command tree."""
    import typer

    flags: dict[str, dict[str, list[str]]] = {}

    def walk(cmd, path: list[str]) -> None:
        if hasattr(cmd, "list_commands"):
            for name in cmd.list_commands(None):
                walk(cmd.get_command(None, name), [*path, name])
            return
        for p in cmd.params:
            if type(p).__name__.endswith("Option"):
                meaning = (p.help or "").split("(")[0].strip().rstrip(".,:; ")
                for flag in p.opts:
                    flags.setdefault(flag, {}).setdefault(meaning, []).append(" ".join(path))

    walk(typer.main.get_command(app), [])
    return flags


def test_a_flag_means_one_thing_in_every_command() -> None:
    """issue 37: ``--max-concurrency`` was the levels in bench and one level in advise, ``--out`` three things,
    ``--slo``, ``--run-file`` and ``--max-tokens`` others again. Each flag now has one meaning; what one command adds
    is said in parentheses."""
    flags = _declared_options()
    assert len(flags) > 100  # the walk reached every command
    several = {f: m for f, m in flags.items() if len(m) > 1}
    assert not several, several
    assert set(flags["--out"][next(iter(flags["--out"]))]) >= {"bench", "gate", "import", "surgery graft"}


def test_no_command_declares_an_option_of_its_own() -> None:
    """issue 37 ("a test fails when an option is declared outside the spec"): typer options are declared in the bench
    spec (rendered by cli/bench.py from its entries: every call there takes the spec's flags), the shared vocabulary
    (cli/options.py) and the one-command options (cli/command_options.py); nowhere else."""
    import ast
    from pathlib import Path

    import specscope.cli

    home = Path(specscope.cli.__file__).parent
    src = home.parent
    outside = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr != "Option" or not (
                isinstance(node.func.value, ast.Name) and node.func.value.id == "typer"
            ):
                continue
            rel = path.relative_to(src).as_posix()
            if rel in ("cli/options.py", "cli/command_options.py"):
                continue
            if rel == "cli/bench.py" and node.args and isinstance(node.args[0], ast.Starred):
                continue  # typer.Option(*flags, ...) from a spec entry
            outside.append(f"{rel}:{node.lineno}")
    assert not outside, outside


def test_advise_takes_levels_as_bench_does(capsys) -> None:
    """``--max-concurrency 1,4`` in advise: the levels to advise at, a list as in bench; an unmeasured one is named
    with the nearest measured levels in the fix."""
    import json
    from pathlib import Path

    from specscope.cli import main

    csv = Path(__file__).parent.parent / "data" / "advise" / "one_repeat.csv"
    res = runner.invoke(
        app, ["advise", "--from-csv", str(csv), "--mix", "prose=1", "--max-concurrency", "1,4", "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    assert [lv["level"] for lv in json.loads(res.stdout)["choices"]["levels"]] == [1, 4]
    with pytest.raises(SystemExit) as info:
        main(["advise", "--from-csv", str(csv), "--mix", "prose=1", "--max-concurrency", "1,3,8"])
    text = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2 and "concurrency 3, 8 was not measured" in text
    assert "--max-concurrency 1,4" in text

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
        (["gate", "--configs", "base", "--configs", "turbo"], "unknown embedded-engine config 'turbo'"),
        (["gate", "--launch", "vllm"], "--launch vllm needs recipe names"),
        (["gate", "--server", "a=http://127.0.0.1:9", "--configs", "b"], "config 'b' has no --server"),
        (["bench", "--configs", "base", "--configs", "turbo"], "unknown config 'turbo'"),
        (["bench", "--launch", "sglang"], "unknown --launch 'sglang'"),
    ],
)
def test_bad_targets_fail_before_any_server_or_folder(tmp_path, argv: list[str], message: str) -> None:
    from specscope.errors import ConfigError

    res = runner.invoke(app, [*argv, "--out", str(tmp_path / "runs")])
    assert isinstance(res.exception, ConfigError), res.output
    assert res.exception.message == message
    assert not (tmp_path / "runs").exists()

"""Every `specscope ...` command a fix text gives (in backticks) is a complete command line the CLI accepts, with the
audited checkpoint as its argument: run here with ``--dry-run`` (nothing is written), it may fail on a placeholder path
(``BF16_ORIGINAL``) but never on its syntax."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paths import CASES
from specscope.audit import audit_checkpoint
from specscope.cli import app

from .qwen36 import EXCLUDE, build
from .test_families import CASES as FAMILY_CASES
from .test_families import write

_COMMAND = re.compile(r"`(specscope [^`]+)`")
_USAGE = ("No such option", "Missing argument", "Got unexpected extra argument", "No such command", "Usage:")


def _commands(report) -> list[tuple[str, str]]:
    return [(f.code, m) for f in report.findings if f.fix for m in _COMMAND.findall(f.fix)]


def _reports(tmp_path: Path) -> list:
    out = [audit_checkpoint(CASES / c / "checkpoint") for c in ("C01", "C02", "C03", "C06", "C11")]
    out.append(audit_checkpoint(build(tmp_path / "nofc", nvfp4=True, with_fc=False)))
    no_mtp = [e for e in EXCLUDE if e != "mtp*"]
    out.append(audit_checkpoint(build(tmp_path / "bf16mtp", nvfp4=True, cfg_exclude=no_mtp, hf_exclude=no_mtp)))
    for key in ("deepseek_mtp", "glm4_moe_mtp", "mimo_mtp"):
        case = FAMILY_CASES[key]
        shapes = {n: s for n, s in case.shapes.items() if n != case.drop}
        out.append(audit_checkpoint(write(tmp_path / key, shapes, case.config)))
    return out


def test_fix_commands_parse_against_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    commands = [c for r in _reports(tmp_path) for c in _commands(r)]
    codes = {code for code, _ in commands}
    assert {"MTP_INCOMPLETE", "MTP_WEIGHTS_MISSING", "MTP_NOT_INDEXED", "MTP_UNQUANTIZED_NOT_EXCLUDED"} <= codes
    assert "QUANT_CONFIG_MISMATCH" in codes and "UNREFERENCED_SHARD" in codes
    runner = CliRunner()
    for code, command in commands:
        argv = shlex.split(command)[1:]
        assert argv[:1] == ["surgery"], command
        result = runner.invoke(app, [*argv, "--dry-run"])
        text = result.output + (str(result.exception) if result.exception else "")
        assert not [u for u in _USAGE if u in text], (code, command, text)
        assert Path(argv[2]).exists() or argv[2] == "BF16_ORIGINAL", command  # the audited checkpoint itself
    assert not (tmp_path / "NEW_FOLDER").exists()

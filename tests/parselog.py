"""``specscope serve --parse-log`` on a log in tests/data/engines/logs, through the CLI as a user runs it (shared by
the tests/launch log tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from specscope.cli import app

LOGS = Path(__file__).parent / "data" / "engines" / "logs"


def parse_log(name: str, *args: str) -> Any:
    """The CLI result of ``serve --parse-log LOGS/name ARGS`` (200 columns: a table row per line)."""
    return CliRunner().invoke(app, ["serve", "--parse-log", str(LOGS / name), *args], env={"COLUMNS": "200"})


def parse_log_json(name: str, code: int) -> dict[str, Any]:
    """The JSON document of ``serve --parse-log LOGS/name --format json``, its exit code checked to be ``code``."""
    r = parse_log(name, "--format", "json")
    assert r.exit_code == code, r.output
    out: dict[str, Any] = json.loads(r.output)
    return out

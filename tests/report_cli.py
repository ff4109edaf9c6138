"""The JSON report of a run folder as a user gets it: ``specscope report RUN --format json`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def report_json(run_dir: Path) -> dict[str, Any]:
    """The parsed stdout of ``specscope report RUN --format json`` (exit 0 required)."""
    out = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run_dir), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)

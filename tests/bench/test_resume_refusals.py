"""`specscope bench --resume` on a run this version cannot extend: one error line, exit 2, nothing written."""

from __future__ import annotations

import subprocess
import sys

from factmaker import schema1_run


def test_resuming_a_schema1_run_is_refused_in_one_line(tmp_path):
    folder = schema1_run(tmp_path)
    manifest_before = (folder / "manifest.json").read_bytes()
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--resume", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {folder} is a schema-1 run: it can be read but not resumed; found: schema_version 1; "
        "expected: schema_version 2; fix: start a new run with `specscope bench`"
    ]
    assert (folder / "manifest.json").read_bytes() == manifest_before

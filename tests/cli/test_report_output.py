"""`specscope report --output`: every format honours it, a folder or a gate run asked for HTML is one error line."""

from __future__ import annotations

import json
import subprocess
import sys

from hangguard import HANG_S
from specscope.gate import write_gate_run
from specscope.gate.model import GateRun
from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord
from specscope.store import create_run


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def _one_error_line(res):
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, res.stderr
    return lines[0]


def _bench_run(path):
    """One ok cell: two streams of 12 usage tokens each over 100 ns of wall time."""

    def stream(i):
        return StreamRecord(
            f"prose-{i:03d}", 0, 0, 5, 5, 50, 100, 3, 0, 12, 7, "usage", "length", "ok", None, 200, text="hi"
        )

    run = create_run(
        path, {"kind": "bench", "options": {"configs": ["base"], "workloads": ["prose"], "levels": [2], "repeats": 1}}
    )
    before = SpecCounters(generation_tokens=0.0, present=frozenset({"generation"}))
    after = SpecCounters(generation_tokens=24.0, present=frozenset({"generation"}))
    res = CellResult(CellKey("base", "prose", 2, 0), (stream(1), stream(2)), 0, 100, before, after)
    run.save_cell(res)
    run.close()
    return path


def test_text_format_writes_the_output_file(tmp_path):
    run = _bench_run(tmp_path / "run")
    out = tmp_path / "new" / "report.txt"
    res = run_cli("report", str(run), "--output", str(out))
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"{out}\n"  # the tables went to the file; only its path is printed
    text = out.read_text()
    assert f"Run {run}" in text and "Cells not ok (0 of 1)" in text
    assert "\x1b[" not in text  # plain text, no colour codes


def test_json_output_in_a_missing_folder_is_made(tmp_path):
    run = _bench_run(tmp_path / "run")
    out = tmp_path / "a" / "b" / "report.json"
    res = run_cli("report", str(run), "-f", "json", "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["cells"][0]["output_tokens"] == 24


def test_output_that_is_a_folder(tmp_path):
    run = _bench_run(tmp_path / "run")
    (tmp_path / "dir").mkdir()
    for fmt in ("html", "json", "markdown", "text"):
        line = _one_error_line(run_cli("report", str(run), "-f", fmt, "-o", str(tmp_path / "dir")))
        assert line.startswith(f"error: --output is a folder; found: {tmp_path / 'dir'}")
    assert list((tmp_path / "dir").iterdir()) == []


def test_gate_run_html_is_refused_not_markdown(tmp_path):
    folder = write_gate_run(GateRun((), (), (), ()), tmp_path / "g")
    line = _one_error_line(run_cli("report", str(folder), "-f", "html", "-o", str(tmp_path / "g.html")))
    assert "gate runs have no HTML report" in line and "--format markdown" in line
    assert not (tmp_path / "g.html").exists()
    res = run_cli("report", str(folder), "-o", str(tmp_path / "g.txt"))
    assert res.returncode == 0, res.stderr
    assert f"gate run {folder}" in (tmp_path / "g.txt").read_text()

"""``specscope report RUN > file``: rows of wide tables stay on one line when stdout is not a terminal (rich's
default would wrap them at 80 columns); ``$COLUMNS`` still sets the width when given."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from factmaker import cell_facts
from specscope.cli import app
from specscope.report.build import load_document
from specscope.store import create_run

COUNTERS = {"drafts": 100, "draft_tokens": 400, "accepted_tokens": 300, "accepted_per_position": [90, 80, 70, 60]}


def _run(path: Path) -> Path:
    """base and a k=4 draft config on prose at N=1 and N=4, 2 rounds: wide acceptance and throughput tables."""
    opts = {"configs": ["base", "draft"], "workloads": ["prose"], "levels": [1, 4], "repeats": 2}
    run = create_run(path, {"kind": "bench", "options": opts})
    for config, speed, counters in (("base", 1.0, None), ("draft", 1.7, COUNTERS)):
        for n in (1, 4):
            for rep in (0, 1):
                run.save_cell(cell_facts(config, "prose", n, rep, 100.0 * n * speed + rep, counters=counters))
    run.close()
    return path


def _rows_on_one_line(doc, text: str) -> list[list[str]]:
    """The table rows of ``doc`` whose cells do not all appear, in order, on one line of ``text``."""
    lines = text.splitlines()
    broken = []
    for section in doc.sections:
        for table in section.tables:
            for row in table.rows:
                pattern = re.compile(".*".join(re.escape(c) for c in row if c))
                if not any(pattern.search(line) for line in lines):
                    broken.append(row)
    return broken


def test_piped_report_has_a_fixed_readable_width_and_cuts_no_value(tmp_path):
    run = _run(tmp_path / "run")
    res = CliRunner().invoke(app, ["report", str(run)], env={"COLUMNS": None})
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) == 120  # FILE_WIDTH: wide tables wrap by column
    assert "…" not in res.output  # every column folds: a value wraps, it is never cut


def test_width_sets_the_width_of_a_pipe(tmp_path):
    run = _run(tmp_path / "run")
    res = CliRunner().invoke(app, ["report", str(run), "--width", "400"], env={"COLUMNS": None})
    assert res.exit_code == 0, res.output
    assert _rows_on_one_line(load_document([run]), res.output) == []  # 400 columns: every row on one line


def test_columns_sets_the_width(tmp_path):
    run = _run(tmp_path / "run")
    res = CliRunner().invoke(app, ["report", str(run)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) <= 80
    assert _rows_on_one_line(load_document([run]), res.output) != []  # asked for 80 columns: wide rows wrap


def test_surgery_compare_and_a_parsed_log_are_as_wide_as_every_other_table_in_a_pipe(tmp_path):
    """`surgery compare` and `serve --parse-log` printed on a bare rich Console: 80 columns in a pipe, where every
    other table is 120 (README: 'to a file or a pipe they are 120 characters wide'), so `surgery compare A B | less`
    cut 'mtp.fc.weight' into 'mtp.fc.weig' / 'ht' (new-user finding, 2026-12-06)."""
    from paths import DATA

    ckpt = DATA / "cases" / "C11" / "checkpoint"
    res = CliRunner().invoke(app, ["surgery", "compare", str(ckpt), str(ckpt)], env={"COLUMNS": None})
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) > 80
    log = DATA / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"
    res = CliRunner().invoke(app, ["serve", "--parse-log", str(log)], env={"COLUMNS": None})
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines() if line.startswith("│")) == 120
    assert "{'method': 'mtp', 'model': 'sakamakismile/Qwen3.6-27B-Text-NVFP4-MTP'," in res.output  # one line

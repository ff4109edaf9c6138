"""``specscope report RUN -f html``: without ``-o`` the page goes to stdout like every format (a run folder is
read-only after bench: the fresh tester found report.html and advice.html written into theirs); with ``-o FILE`` (or
``--output``) it goes to FILE, atomically, and only FILE's path is printed."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from factmaker import cell_facts
from specscope.cli import app
from specscope.store import create_run


def _run(path: Path) -> Path:
    run = create_run(path, {"kind": "bench", "options": {"configs": ["base"], "workloads": ["prose"], "levels": [1]}})
    run.save_cell(cell_facts("base", "prose", 1, 0, 100.0))
    run.close()
    return path


def test_html_without_output_goes_to_stdout_and_nothing_into_the_run_folder(tmp_path):
    run = _run(tmp_path / "run")
    before = sorted(p.name for p in run.iterdir())
    res = CliRunner().invoke(app, ["report", str(run), "-f", "html"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("<!DOCTYPE html>") and res.stdout.rstrip().endswith("</html>")
    assert sorted(p.name for p in run.iterdir()) == before


def test_html_output_file_is_written_there_and_only_there(tmp_path):
    run = _run(tmp_path / "run")
    before = sorted(p.name for p in run.iterdir())
    for flag, name in (("-o", "a.html"), ("--output", "b.html")):
        target = tmp_path / "pages" / name
        res = CliRunner().invoke(app, ["report", str(run), "-f", "html", flag, str(target)])
        assert res.exit_code == 0, res.output
        assert res.stdout == f"{target}\n"
        assert target.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == ["a.html", "b.html"]  # no temp file left
    assert sorted(p.name for p in run.iterdir()) == before  # nothing written into the run folder

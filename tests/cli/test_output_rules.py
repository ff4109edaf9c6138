"""One rule for ``-o/--output`` in every command (:func:`specscope.cli.output.report_target`, ``write_file``):

- ``-f`` with a file suffix that names another format (``-f json -o x.md``) is refused (exit 2) with both fixes,
  in report, advise and predict alike; before, ``-f`` won silently and JSON was written to ``x.md``;
- a missing folder of the file is made, with a note on stderr naming it (before: made silently);
- ``bench --resume RUN -o RUN/...`` is refused before a cell runs (before: refused only when the report was written,
  after every missing cell had been measured)."""

from __future__ import annotations

import pytest

from clirun import cli
from quickrun import make_quick_run


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_quick_run(tmp_path_factory.mktemp("q") / "run")


@pytest.mark.parametrize(
    ("command", "fix"),
    [
        ("report", "pass --output {x}.json, or -f markdown"),
        ("advise", "pass --output {x}.json, or -f markdown"),
        ("predict", "pass --output {x}.json"),  # predict writes text or json: no -f markdown to offer
    ],
)
def test_format_flag_and_suffix_that_disagree_are_refused(command, fix, run, tmp_path, capsys, monkeypatch) -> None:
    out = tmp_path / "x.md"
    code, _, err = cli([command, run, "-f", "json", "-o", out], capsys, monkeypatch, tmp_path)
    assert code == 2 and not out.exists()
    assert (
        f"error: -f json and the --output file's suffix disagree; found: -f json with --output {out} (a markdown "
        "suffix); expected: the format -f names and the file's suffix alike (or a suffix that names no format); "
        f"fix: {fix.format(x=tmp_path / 'x')}"
    ) in err


def test_format_flag_with_a_suffix_naming_no_format_is_taken(run, tmp_path, capsys, monkeypatch) -> None:
    out = tmp_path / "x.log"
    code, _, err = cli(["report", run, "-f", "json", "-o", out], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out.read_text("utf-8").lstrip().startswith("{")


def test_a_missing_output_folder_is_made_with_a_note(run, tmp_path, capsys, monkeypatch) -> None:
    out = tmp_path / "new" / "deeper" / "r.md"
    code, stdout, err = cli(["report", run, "-o", out], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out.is_file() and stdout.strip() == str(out)
    assert f"note: made the folder {tmp_path / 'new' / 'deeper'} for --output" in err
    code, _, err = cli(["report", run, "-o", out], capsys, monkeypatch, tmp_path)  # the folder exists: no note
    assert code == 0 and "note: made the folder" not in err


def test_bench_resume_refuses_output_into_its_run_before_a_cell_runs(tmp_path, capsys, monkeypatch) -> None:
    run = make_quick_run(tmp_path / "run")
    manifest = (run / "manifest.json").read_bytes()
    code, _, err = cli(["bench", "--resume", run, "-o", run / "manifest.json"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"error: --output would write into what this command reads; found: --output {run / 'manifest.json'}" in err
    assert "run folder:" not in err  # refused before the run started
    assert (run / "manifest.json").read_bytes() == manifest

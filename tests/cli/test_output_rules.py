"""One rule for ``-o/--output`` in every command (:func:`specscope.cli.output.report_target`, ``write_file``):

- ``-f`` with a file suffix that names another format (``-f json -o x.md``) wins, as the help says ("format from
  its suffix unless -f"), with a note on stderr naming the suffix's format, in every command alike (before: refused,
  exit 2, though the help said -f wins);
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


@pytest.mark.parametrize("command", ["report", "advise", "predict"])
def test_format_flag_wins_over_a_suffix_naming_another_format(command, run, tmp_path, capsys, monkeypatch) -> None:
    """The help says "format from its suffix unless -f": the user's explicit -f wins (fresh clone's trial: refused,
    exit 2), with a note on stderr that the file's suffix names another format."""
    out = tmp_path / "x.md"
    code, stdout, err = cli([command, run, "-f", "json", "-o", out], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out.read_text("utf-8").lstrip().startswith("{") and stdout.strip() == str(out)
    assert f"note: writing json to {out} as -f says (its suffix .md names markdown)" in err


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


def test_counters_format_flag_wins_over_the_suffix(tmp_path, capsys, monkeypatch) -> None:
    """``counters B A -o out.txt -f json`` (fresh clone's trial: refused, exit 2): JSON is written to out.txt."""
    import json

    before, after = tmp_path / "b.prom", tmp_path / "a.prom"
    before.write_text("vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 30\n")
    after.write_text("vllm:spec_decode_num_drafts_total 30\nvllm:spec_decode_num_draft_tokens_total 90\n")
    out = tmp_path / "out.txt"
    code, stdout, err = cli(["counters", before, after, "-o", out, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert json.loads(out.read_text("utf-8"))["deltas"]["draft_tokens"] == 60 and stdout.strip() == str(out)
    assert f"note: writing json to {out} as -f says (its suffix .txt names text)" in err

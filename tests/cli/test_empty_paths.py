"""An empty path argument (an unset shell variable: ``report "$RUN"``) is refused by name, exit 2; it was read as the
current folder (``Path("") == Path(".")``): ``report ""`` said ". is not a run folder", ``-o ""`` ". is a folder"."""

from __future__ import annotations

import pytest

from clirun import cli, one_error
from quickrun import make_quick_run


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["report", ""], "RUNS is an empty path"),
        (["report", "{run}", ""], "RUNS is an empty path"),
        (["report", "{run}", "-o", ""], "-o is an empty path"),
        (["report", "{run}", "--output="], "--output is an empty path"),
        (["advise", ""], "RUN is an empty path"),
        (["advise", "{run}", "--from-csv", ""], "--from-csv is an empty path"),
        (["predict", ""], "RUN is an empty path"),
        (["counters", "", "after.prom"], "BEFORE is an empty path"),
        (["export", "", "--to", "profile", "-o", "p.json"], "RUN is an empty path"),
        # 2026-12-06: bench's -o "" read "--output takes a value" (its spec declares the path as text)
        (["bench", "--server", "x=http://127.0.0.1:9", "-o", ""], "--output is an empty path"),
        (["bench", "--server", "x=http://127.0.0.1:9", "--out", ""], "--out is an empty path"),
    ],
)
def test_an_empty_path_is_refused_by_name(argv, named, capsys, monkeypatch, tmp_path):
    run = make_quick_run(tmp_path / "r")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = cli([a.format(run=run) for a in argv], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and line.startswith(f'error: {named}; found: "" (an empty argument'), err
    assert out == "" and sorted(p.name for p in tmp_path.iterdir()) == before


def test_an_empty_value_of_a_text_option_is_not_a_path(capsys, monkeypatch, tmp_path):
    """``--mix ""`` is not a path: its own parser answers (not this check)."""
    run = make_quick_run(tmp_path / "r")
    code, _, err = cli(["advise", run, "--mix", ""], capsys, monkeypatch, tmp_path)
    assert code == 2 and "empty path" not in err

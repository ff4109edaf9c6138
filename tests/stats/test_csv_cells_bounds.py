"""Issue 29: ``advise --from-csv`` refuses non-finite figures and over-long fields (exit 2 naming the line)."""

from __future__ import annotations

import pytest

from clirun import cli

HEADER = "config,workload,concurrency,repeat,output_tok_s,acceptance,stream_tok_s\n"
ROWS = "base,prose,1,0,50,,50\nmtp,prose,1,0,90,0.72,90\n"


@pytest.mark.parametrize(
    ("row", "named"),
    [
        ("base,prose,4,0,nan,,45\n", "output_tok_s"),
        ("base,prose,4,0,inf,,45\n", "output_tok_s"),
        ("mtp,prose,4,0,160,nan,40\n", "acceptance"),
        ("mtp,prose,4,0,160,0.7,40;nan\n", "stream_tok_s"),
        ("mtp,prose,4,0,160,0.7,-5\n", "stream_tok_s"),
        ("mtp,prose,1e400,0,160,0.7,40\n", "concurrency"),
        # issue 37: a 400-digit integer (Python's int() reads up to 4,300 digits) was an OverflowError (exit 3)
        ("mtp,prose," + "9" * 400 + ",0,160,0.7,40\n", "concurrency"),
        ("mtp,prose,1," + "9" * 400 + ",160,0.7,40\n", "repeat"),
    ],
)
def test_non_finite_values_are_refused(row, named, tmp_path, capsys, monkeypatch):
    csv = tmp_path / "cells.csv"
    csv.write_text(HEADER + ROWS + row)
    code, out, err = cli(["advise", "--from-csv", csv, "--level-mix", "1=1"], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == "", out
    assert f"bad {named}" in err and f"{csv}:4" in err and "nan tok/s" not in err


def test_a_two_million_character_field_is_refused_naming_the_limit(tmp_path, capsys, monkeypatch):
    csv = tmp_path / "cells.csv"
    csv.write_text(HEADER + ROWS + "base,prose,4,0,180,," + "4" * 2_000_000 + "\n")
    code, _out, err = cli(["advise", "--from-csv", csv, "--level-mix", "1=1"], capsys, monkeypatch, tmp_path)
    assert code == 2 and f"{csv}:4" in err and "characters" in err


def test_a_csv_that_is_not_utf8_is_refused(tmp_path, capsys, monkeypatch):
    csv = tmp_path / "cells.csv"
    csv.write_bytes((HEADER + ROWS).encode() + b"base,prose,4,0,\xff,,1\n")
    code, _out, err = cli(["advise", "--from-csv", csv, "--level-mix", "1=1"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "UTF-8" in err

"""Malformed or empty dataset files and traces with arrivals out of bounds (tests/data/new_user, SOURCES.md): one
``error:`` line with what was found, exit 2, before any request is sent; never the datasets library's exception."""

from __future__ import annotations

import pytest

from clirun import cli
from paths import DATA

NEW_USER = DATA / "new_user"
DEAD = "http://127.0.0.1:9"  # nothing listens: reaching a server would be a different error


def _error(argv: list[str], capsys, monkeypatch, tmp_path) -> str:
    code, out, err = cli(["bench", "--server", f"base={DEAD}", *argv, "--out", tmp_path], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), (code, out, err)
    assert not list(tmp_path.glob("run-*"))
    return err.strip()


def _bad_parquet(tmp_path):
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1 not really parquet")
    return path


def _empty_folder_file(tmp_path):
    folder = tmp_path / "dl"
    folder.mkdir()
    (folder / "part-0.jsonl").write_bytes(b"")
    return folder


def _blank_lines(tmp_path):
    path = tmp_path / "blank.jsonl"
    path.write_text("\n\n\n")
    return path


@pytest.mark.parametrize(
    ("make", "found"),
    [
        (
            lambda tmp: NEW_USER / "sp_badjson.jsonl",
            # line 23 is "{not json" (1-based; pyarrow called it row 22): refused before the datasets library reads it
            f"found: {NEW_USER / 'sp_badjson.jsonl'}: line 23 is not JSON (Expecting property name enclosed in double",
        ),
        (lambda tmp: NEW_USER / "sp_empty_file.jsonl", f"found: {NEW_USER / 'sp_empty_file.jsonl'}: 0 bytes;"),
        (lambda tmp: _empty_folder_file(tmp), "dl/part-0.jsonl: 0 bytes;"),
        (lambda tmp: _bad_parquet(tmp), "data.parquet: Parquet magic bytes not found in footer."),
        (lambda tmp: _blank_lines(tmp), "blank.jsonl: no rows in it (blank lines only);"),
    ],
)
def test_a_malformed_or_empty_dataset_file_is_one_error_line(make, found, capsys, monkeypatch, tmp_path):
    path = make(tmp_path)
    line = _error(["--dataset", "spec-bench", "--dataset-path", path], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: spec-bench: ") and found in line and "; fix: " in line, line


def test_an_arrival_of_1e308_is_refused_naming_the_line(capsys, monkeypatch, tmp_path):
    trace = NEW_USER / "trb8.jsonl"
    assert _error(["--trace", trace], capsys, monkeypatch, tmp_path) == (
        f"error: {trace}:2: not a trace row; found: arrival_s=1e+308; expected: arrival_s in s, a finite number "
        "from 0 to 9.223e+09; fix: fix that line of the trace"
    )


@pytest.mark.parametrize(
    ("rows", "found"),
    [
        ('{"arrival_s": NaN, "input_tokens": 8, "output_tokens": 4}', "arrival_s=nan"),
        ('{"arrival_s": -0.5, "input_tokens": 8, "output_tokens": 4}', "arrival_s=-0.5"),
        ('{"timestamp": 1e300, "input_length": 8, "output_length": 4}', "timestamp=1e+300"),
    ],
)
def test_an_arrival_that_is_not_a_finite_nonnegative_time_is_refused(rows, found, capsys, monkeypatch, tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text(rows + "\n")
    line = _error(["--trace", trace], capsys, monkeypatch, tmp_path)
    assert line.startswith(f"error: {trace}:1: not a trace row; found: {found}; expected: ")


def test_a_trace_longer_than_a_replay_may_take_names_the_rows_or_scale_that_fit(capsys, monkeypatch, tmp_path):
    trace = tmp_path / "t.jsonl"
    rows = [(0, 8), (3600, 8), (1e9, 8)]  # the third arrives 31 years after the first
    trace.write_text("".join(f'{{"arrival_s": {t}, "input_tokens": {n}, "output_tokens": 4}}\n' for t, n in rows))
    line = _error(["--trace", trace], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: the trace would take 11,574.1 days to replay; found: ")
    assert line.endswith(
        "fix: replay its first 2 rows (--trace-rows 2) or faster (--trace-scale 0.000691), or check the "
        "file's arrival column"
    )
    code, _, err = cli(
        ["bench", "--server", f"base={DEAD}", "--trace", trace, "--trace-rows", "2", "--out", tmp_path],
        capsys,
        monkeypatch,
        tmp_path,
    )
    assert code == 2 and "cannot be reached" in err  # the first 2 rows fit: the run went on to the server

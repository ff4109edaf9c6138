"""A workload file's faulty rows, as ``bench --workload w=FILE --dry-run`` names them (issue 36).

* A CSV row of only empty cells (``,`` / ``,,``, or a lone ``""``) was skipped without a word. pandas'
  ``read_csv`` (which GuideLLM's CSV deserializer reads through the ``datasets`` CSV builder) skips a blank line
  (``skip_blank_lines``; a line of spaces too) but reads ``,`` as a row whose every cell is missing: such a row is
  refused by its line number; a blank line is skipped, as a blank line of JSON Lines is.
* An empty prompt cell (``"",3``) was refused as "no messages/conversations/... field": the cell was there.
* A rejected output length (``2.5``, ``-3``, ``0``) said "an integer in 1..2,147,483,647" with a generic fix; the fix
  now says the value must be a whole number of at least 1 (and at most ``MAX_TOKENS_CAP``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli, one_error


def _dry_run(path: Path, capsys, monkeypatch, tmp_path: Path) -> tuple[int, str, str]:
    return cli(["bench", "--workload", f"w={path}", "--dry-run"], capsys, monkeypatch, tmp_path)


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("prompt,output_tokens_count\nhi,5\n,\nyo,2\n", 3),
        ("prompt,output_tokens_count,system_prompt\nhi,5,\nyo,2,\n,,\n", 4),
        ('prompt\nhi\n""\nyo\n', 3),
        ("prompt,output_tokens_count\nhi,5\n , \n", 3),
    ],
)
def test_a_csv_row_of_only_empty_cells_is_refused_by_its_line(
    body: str, line: int, tmp_path: Path, capsys, monkeypatch
) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(body, "utf-8")
    code, _, err = _dry_run(path, capsys, monkeypatch, tmp_path)
    assert code == 2
    error = one_error(err)
    assert f"rows.csv:{line}: a row of only empty cells" in error
    assert f"delete line {line}" in error


def test_blank_lines_are_skipped_in_csv_as_in_json_lines(tmp_path: Path, capsys, monkeypatch) -> None:
    """A blank line (or one of spaces) is no row: pandas' ``skip_blank_lines`` drops it, as JSON Lines readers drop a
    blank line; the rows after it keep their own line numbers."""
    for name, body, lines in (
        ("rows.csv", "prompt,output_tokens_count\nhi,5\n\n   \nyo,2\n", (2, 5)),
        ("rows.jsonl", '{"prompt": "hi", "max_tokens": 5}\n\n   \n{"prompt": "yo", "max_tokens": 2}\n', (1, 4)),
    ):
        path = tmp_path / name
        path.write_text(body, "utf-8")
        code, out, err = _dry_run(path, capsys, monkeypatch, tmp_path)
        assert code == 0, err
        assert f"row line {lines[0]}: max_tokens 5" in out and f"row line {lines[1]}: max_tokens 2" in out, out


def test_an_empty_prompt_cell_is_named_as_empty(tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "rows.csv"
    path.write_text('prompt,output_tokens_count\nhi,5\n"",3\n', "utf-8")
    code, _, err = _dry_run(path, capsys, monkeypatch, tmp_path)
    assert code == 2
    error = one_error(err)
    assert "rows.csv:3: empty prompt" in error
    assert "no messages/conversations" not in error
    assert "expected: the prompt's text in the `prompt` cell" in error
    assert "fix: write the prompt into line 3's `prompt` cell, or delete line 3" in error


@pytest.mark.parametrize(
    ("name", "body", "found"),
    [
        ("a.jsonl", '{"prompt": "hi", "output_len": 2.5}\n', "output_len 2.5"),
        ("b.jsonl", '{"prompt": "hi", "output_len": -3}\n', "output_len -3"),
        ("c.jsonl", '{"prompt": "hi", "max_tokens": 0}\n', "max_tokens 0"),
        ("d.csv", "prompt,output_tokens_count\nhi,2.5\n", "output_tokens_count '2.5'"),
    ],
)
def test_a_rejected_output_length_says_it_must_be_a_whole_number(
    name: str, body: str, found: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    path = tmp_path / name
    path.write_text(body, "utf-8")
    code, _, err = _dry_run(path, capsys, monkeypatch, tmp_path)
    assert code == 2
    error = one_error(err)
    assert f"{name}:" in error and found in error
    assert "expected: a whole number of tokens from 1 to 2,147,483,647" in error
    key = found.split()[0]
    assert f"fix: set {key} to a whole number ≥ 1 (at most 2,147,483,647), or remove it to use --max-tokens" in error

"""A settings file (bench's or gate's --run-file, --recipes) that sets nothing is refused by name (issue 37, checked by
a careless user's inputs): a zero-byte file (a failed copy, /dev/null given by mistake) or one of comments only was
read as "the defaults", so `specscope gate --run-file EMPTY` ran the whole default gate suite and `specscope serve
--recipes EMPTY --list` printed nothing with exit 0."""

from __future__ import annotations

import pytest

from clirun import cli, one_error


@pytest.mark.parametrize("text", ["", "# nothing but a comment\n\n"])
@pytest.mark.parametrize(
    "argv, what",
    [
        (["bench", "--run-file", "{F}", "--print-run-file"], "the run file"),
        (["gate", "--run-file", "{F}", "--print-run-file"], "the gate profile"),
        (["serve", "--recipes", "{F}", "--list"], "the recipe file"),
    ],
)
def test_a_settings_file_that_sets_nothing_is_refused_by_name(argv, what, text, tmp_path, capsys, monkeypatch):
    path = tmp_path / "settings.toml"
    path.write_text(text)
    code, out, err = cli([str(path) if a == "{F}" else a for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    line = one_error(err)
    assert line.startswith(f"error: {what} {path} sets nothing; found: no key (an empty file, or comments only)")
    assert "fix: " in line and out == ""

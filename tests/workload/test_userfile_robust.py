"""Issue 29, "Workload files": a user's prompt file is split at line feeds only, a BOM is not a prompt, and deep
nesting or a 5,000-digit number is a one-line error naming the line (exit 2), never a traceback."""

from __future__ import annotations

import json

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _load(tmp_path, text: str | bytes):
    path = tmp_path / "mine.jsonl"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return load_prompt_file("mine", path)


def _user(prompts) -> list[str]:
    return [p.messages[-1]["content"] for p in prompts]


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"])
def test_unicode_line_separators_inside_a_record_are_text(tmp_path, sep):
    assert _user(_load(tmp_path, f"one{sep}two{sep}three\n")) == [f"one{sep}two{sep}three"]
    if ord(sep) >= 0x20:  # RFC 8259: C0 controls must be escaped in a JSON string; these may stand raw
        assert _user(_load(tmp_path, f'{{"prompt": "a{sep}b"}}\n')) == [f"a{sep}b"]


def test_crlf_and_lf_lines_are_records(tmp_path):
    prompts = _load(tmp_path, '{"prompt": "a"}\r\n{"prompt": "b"}\nplain\r\n')
    assert _user(prompts) == ["a", "b", "plain"]
    assert [p.meta["line"] for p in prompts] == [1, 2, 3]


def test_a_utf8_bom_is_not_part_of_the_first_prompt(tmp_path):
    prompts = _load(tmp_path, b'\xef\xbb\xbf{"prompt": "hello"}\n{"prompt": "again"}\n')
    assert _user(prompts) == ["hello", "again"]


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ('{"prompt": "x", "category": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper than"),
        ('{"prompt": "x", "max_tokens": ' + "9" * 5000 + "}", "max_tokens"),
        ('{"prompt": "x", "max_tokens": 1e400}', "max_tokens"),
        ('{"prompt": "x", "max_tokens": ' + "9" * 40 + "}", "max_tokens"),
        ('{"messages": ' + "[" * 3000 + "]" * 3000 + "}", "nested deeper than"),
    ],
)
def test_deep_nesting_and_huge_numbers_are_errors_naming_the_line(tmp_path, line, found):
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, '{"prompt": "ok"}\n' + line + "\n")
    text = info.value.one_line()
    assert "mine.jsonl:2:" in text and found in text and len(text) < 600


def test_a_prompt_file_above_the_size_limit_is_refused(tmp_path, monkeypatch):
    from specscope.workload import userfile

    monkeypatch.setattr(userfile, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, '{"prompt": "' + "x" * 2000 + '"}\n')
    assert "1,000 bytes" in info.value.one_line()


def test_a_workload_cli_with_a_deep_file_exits_2(tmp_path, capsys, monkeypatch):
    from clirun import cli

    path = tmp_path / "deep.jsonl"
    path.write_text('{"prompt": "x", "max_tokens": ' + "9" * 5000 + "}\n")
    code, _out, err = cli(
        ["bench", "--server", "base=http://127.0.0.1:9", "--workload", f"mine={path}", "--out", tmp_path / "runs"],
        capsys,
        monkeypatch,
        tmp_path,
    )
    assert code == 2 and "deep.jsonl:1" in err


def test_an_id_that_repeats_names_each_row_by_its_place(tmp_path) -> None:
    # issue 35: the ids a cell records must tell which rows were sent; a file whose two rows share "a" gets both named
    path = tmp_path / "dup.jsonl"
    rows = [{"id": "a", "prompt": "one"}, {"id": "a", "prompt": "two"}, {"id": 7, "prompt": "three"}, {"prompt": "4"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = [p.meta["row_id"] for p in load_prompt_file("mine", path)]
    assert got == ["a (line 1)", "a (line 2)", "7", "line 4"]
    array = tmp_path / "dup.json"
    array.write_text(json.dumps(rows[:2]))
    assert [p.meta["row_id"] for p in load_prompt_file("mine", array)] == ["a (item 1)", "a (item 2)"]


@pytest.mark.parametrize(
    ("raw", "shown", "line"), [(b"ok\n\x00\x01garbage\n", "'\\x00'", 2), (b"\x1b[31mred\n", "'\\x1b'", 1)]
)
def test_raw_control_characters_are_refused_with_their_line(tmp_path, raw: bytes, shown: str, line: int) -> None:
    """A NUL (a binary file) or an ESC (a terminal capture) in a text workload was sent to the server as a prompt
    (fresh-user finding, 2026-12-05); it is refused naming the character and its line. JSON strings escape them."""
    f = tmp_path / "mine.txt"
    f.write_bytes(raw)
    with pytest.raises(ConfigError) as err:
        load_prompt_file("mine", f)
    assert err.value.found == f"{shown} on line {line}"
    ok = tmp_path / "ok.jsonl"
    ok.write_text('{"prompt": "tab\\there, \\u0007 escaped"}\n')
    assert load_prompt_file("mine", ok)[0].messages[0]["content"] == "tab\there, \x07 escaped"


@pytest.mark.parametrize(
    ("line", "kind"),
    [('"What is 2+2?"', "string"), ("null", "null"), ("42", "number"), ("true", "boolean"), ("9" * 60, "number")],
)
@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".ndjson", ".jsonl.gz"])
def test_a_json_value_that_is_no_object_on_a_json_lines_line_is_refused_by_line(tmp_path, line, kind, suffix):
    """A JSON Lines file of JSON strings (one quoted prompt a line), or a `null` row, was sent as prompts, quotes and
    all (the server got `"What is 2+2?"` with its quotes, and `null`); GuideLLM's JSON builder and AIPerf's line
    models refuse such a line. It is refused by its line number; a plain text line stays a prompt."""
    import gzip

    path = tmp_path / f"mine{suffix}"
    text = '{"prompt": "ok"}\nplain text stays a prompt\n' + line + "\n"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    with pytest.raises(ConfigError) as info:
        load_prompt_file("mine", path)
    message = info.value.one_line()
    assert f"mine{suffix}:3: a JSON {kind} (" in message and "not an object" in message
    assert "one JSON object per line" in message and '{"prompt": "..."}' in message


def test_a_quoted_line_of_a_text_file_is_its_prompt(tmp_path):
    """A .txt file is one prompt per line as written (GuideLLM's text deserializer): quotes are part of the text."""
    path = tmp_path / "mine.txt"
    path.write_text('"To be, or not to be"\nnull\n', encoding="utf-8")
    assert _user(load_prompt_file("mine", path)) == ['"To be, or not to be"', "null"]

"""readfile: the one reader of files a user names, and the one wording of what went wrong reading them."""

from __future__ import annotations

import os

import pytest

from specscope.readfile import FileTooLarge, NotRegularFile, read_error_text, read_text_limited


def _err(path, max_bytes=1 << 20) -> BaseException:
    with pytest.raises((OSError, UnicodeDecodeError, FileTooLarge)) as info:
        read_text_limited(path, max_bytes)
    return info.value


def test_each_failure_has_its_words(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"ok\n\xe9t\xe9\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    exc = _err(bad)
    assert isinstance(exc, UnicodeDecodeError) and read_error_text(exc) == (
        "not UTF-8 text (byte 3: 0xE9, 'é' in CP1252 / Latin-1, as Excel and other Windows tools save text) "
        "(iconv -f cp1252 -t utf-8)"
    )  # the encoding named and its conversion (issue 36): was "not UTF-8 text (byte 3)" alone
    exc = _err(fifo)
    assert isinstance(exc, NotRegularFile) and read_error_text(exc) == "a FIFO, not a regular file"
    exc = _err(tmp_path)
    assert isinstance(exc, OSError) and read_error_text(exc) == "a folder, not a regular file"
    exc = _err(tmp_path / "absent.txt")
    assert isinstance(exc, OSError) and read_error_text(exc) == "No such file or directory"


def test_the_limit_is_not_a_read_error(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("x" * 11)
    exc = _err(big, max_bytes=10)
    assert isinstance(exc, FileTooLarge) and (exc.size_bytes, exc.limit_bytes) == (11, 10)


def test_a_byte_order_mark_is_dropped(tmp_path):
    f = tmp_path / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbfhello")
    assert read_text_limited(f, 100) == "hello"


def test_one_refusal_for_every_way_a_named_file_fails(tmp_path):
    """read_user_file words each failure from the file kind's own words: missing, folder, FIFO, not UTF-8, too large."""
    from specscope.errors import ConfigError
    from specscope.readfile import FileKind, read_user_file

    kind = FileKind(
        "the thing",
        expected="a thing file",
        fix="pass a thing",
        limit_fix="cut it",
        missing="thing not found",
        folder_fix=lambda p: f"pass {p / 'x.thing'}",
    )

    def refusal(path, max_bytes=100, **kw) -> str:
        with pytest.raises(ConfigError) as info:
            read_user_file(path, kind, max_bytes, **kw)
        return info.value.one_line()

    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"ok\n\xe9\n")
    big = tmp_path / "big.txt"
    big.write_text("x" * 101)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tail = "expected: a thing file; fix: pass a thing"
    assert refusal(tmp_path / "none") == f"thing not found; found: {tmp_path / 'none'}; {tail}"
    assert refusal(fifo) == f"cannot read the thing; found: {fifo}: a FIFO, not a regular file; {tail}"
    assert refusal(bad, text=True) == (  # the encoding named, the fix its conversion (issue 36): was "pass a thing"
        f"cannot read the thing; found: {bad}: not UTF-8 text (byte 3: 0xE9, 'é' in CP1252 / Latin-1, as Excel and "
        "other Windows tools save text) (iconv -f cp1252 -t utf-8); expected: a thing file; fix: convert it to UTF-8 "
        f"and pass the new file: iconv -f cp1252 -t utf-8 {bad} > {tmp_path / 'latin1.utf8.txt'}"
    )
    assert refusal(tmp_path) == (
        f"cannot read the thing: it is a folder; found: {tmp_path}: a folder, not a regular file; "
        f"expected: a thing file; fix: pass {tmp_path / 'x.thing'}"
    )
    assert refusal(big) == (
        f"the thing is larger than the limit; found: {big}: 101 bytes; expected: at most 100 bytes; fix: cut it"
    )
    assert read_user_file(bad, kind, 100) == b"ok\n\xe9\n"
    assert read_user_file(big, kind, 101, text=True) == "x" * 101


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_is_named_by_its_byte_order_mark(tmp_path, encoding):
    """A workload file written by Windows PowerShell's `>` (UTF-16 with a byte-order mark) was refused as "not UTF-8
    text (byte 0)" with the fix "check the --workload path"; its encoding is named, with the conversion."""
    path = tmp_path / "prompts.jsonl"
    mark = {"utf-16-le": "\ufeff", "utf-16-be": "\ufeff"}.get(encoding, "")
    path.write_bytes((mark + '{"prompt": "wide"}\n').encode(encoding))
    exc = _err(path)
    assert isinstance(exc, UnicodeDecodeError)
    head = path.read_bytes()[:2].hex(" ").upper()
    assert read_error_text(exc) == (
        f"not UTF-8 text (byte {exc.start}): UTF-16, by its byte-order mark {head} (iconv -f UTF-16 -t UTF-8)"
    )
    assert head in ("FF FE", "FE FF")


def test_a_gzip_file_given_to_a_reader_of_text_is_named_gzip_with_gunzip_as_the_fix(tmp_path):
    """attack53: `specscope import RESULT.json` of a gzip-compressed file said "not UTF-8 text (byte 1: 0x8B, '\\x8b'
    in Latin-1, as Excel and other Windows tools save text)" and the fix `iconv -f latin1 -t utf-8 ...`, which writes
    garbage. A reader that takes no gzip names it by its magic bytes, and the fix decompresses it."""
    import gzip

    from specscope.errors import ConfigError
    from specscope.readfile import FileKind, read_user_file

    path = tmp_path / "result.json"
    path.write_bytes(gzip.compress(b'{"completed": 4}'))
    kind = FileKind("the result file", expected="a JSON file", fix="pass the file", limit_fix="smaller")
    with pytest.raises(ConfigError) as info:
        read_user_file(path, kind, 1000, text=True)
    assert info.value.found == f"{path}: not UTF-8 text (byte 1): gzip-compressed, by its magic bytes 1F 8B (gunzip it)"
    unzipped = tmp_path / "result.unzipped.json"
    assert info.value.fix == f"decompress it and pass the new file: gunzip -c {path} > {unzipped}"
    named = tmp_path / "result.json.gz"
    named.write_bytes(path.read_bytes())
    with pytest.raises(ConfigError) as info:
        read_user_file(named, kind, 1000, text=True)
    assert info.value.fix == f"decompress it and pass the new file: gunzip -c {named} > {path}"

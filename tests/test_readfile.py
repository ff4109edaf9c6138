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
    assert isinstance(exc, UnicodeDecodeError) and read_error_text(exc) == "not UTF-8 text (byte 3)"
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

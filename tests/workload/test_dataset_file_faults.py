"""Local dataset files the ``datasets`` library must never be given (issue 37, D1-D5), through ``bench``.

Each file is refused by name with exit 2 before any request: a gzip bomb (by decompressed size, within the
limit's worth of memory), a ``null`` line (pyarrow: a segmentation fault), nesting deeper than Python's parser
(pyarrow: exit 3), a truncated and a corrupt gzip stream (were "interrupted", exit 130, and exit 3), a Latin-1 byte
(``UnicodeDecodeError`` from inside pyarrow, exit 3), a 20 MiB line, a FIFO.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest

from specscope.cli import main
from specscope.workload.dataset_check import DATASET_MAX_BYTES, LINE_MAX_BYTES

pytestmark = pytest.mark.integration

ROW = b'{"question_id": 1, "category": "writing", "turns": ["Write a haiku."]}\n'


def _bomb(path: Path) -> None:
    """600 gzip members of 1 MiB of blank lines each: 0.6 MB on disk, 600 MiB once decompressed (RFC 1952 allows
    members back to back)."""
    member = gzip.compress(b" " * ((1 << 20) - 1) + b"\n")
    path.write_bytes(member * (DATASET_MAX_BYTES // (1 << 20) + 88))


CASES: dict[str, tuple[str, str]] = {
    # name: (file name, the words the error must hold)
    "bomb": ("bomb.jsonl.gz", f"more than {DATASET_MAX_BYTES:,} bytes of text (decompressed)"),
    "null": ("null.jsonl", "line 1 is null; expected: one JSON object per line"),
    "deep": ("deep.jsonl", "line 2 is nested too deep"),
    "truncated": ("trunc.jsonl.gz", "a damaged gzip file (Compressed file ended before the end-of-stream marker"),
    "corrupt": ("corrupt.jsonl.gz", "a damaged gzip file (CRC check failed"),
    "latin1": ("latin.jsonl", "line 2 is not UTF-8 text (byte 56: 0xE9, 'é' in CP1252 / Latin-1"),
    "long-line": ("long.jsonl.gz", f"line 1 is longer than {LINE_MAX_BYTES:,} bytes"),
    "array": ("rows.json", "a JSON dict; expected: a JSON array of objects"),
    "fifo": ("fifo.jsonl", "a FIFO; expected: a regular file"),
}


def _write(kind: str, path: Path) -> None:
    good = gzip.compress(ROW * 2000)
    if kind == "bomb":
        _bomb(path)
    elif kind == "null":
        path.write_bytes(b"null\n" + ROW)
    elif kind == "deep":
        path.write_bytes(ROW + b"[" * 5000 + b"]" * 5000 + b"\n")
    elif kind == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif kind == "corrupt":
        path.write_bytes(good[:-8] + bytes(4) + good[-4:])  # the CRC-32 of the trailer zeroed
    elif kind == "latin1":
        path.write_bytes(ROW + '{"question_id": 2, "category": "writing", "turns": ["caf\xe9"]}\n'.encode("latin-1"))
    elif kind == "long-line":
        path.write_bytes(gzip.compress(b"x" * (LINE_MAX_BYTES + 10)))
    elif kind == "array":
        path.write_bytes(ROW)
    elif kind == "fifo":
        os.mkfifo(path)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_damaged_dataset_file_is_refused_by_name_before_any_request(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name, words = CASES[kind]
    path = tmp_path / name
    _write(kind, path)
    out = tmp_path / "runs"
    argv = ["bench", "--server", "base=http://127.0.0.1:9", "--dataset", "spec-bench", "--dataset-path", str(path)]
    with pytest.raises(SystemExit) as exited:  # the ``specscope`` script's entry point, in this process
        main([*argv, "--repeats", "1", "--out", str(out)])
    err = capsys.readouterr().err
    text = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", err).split())
    assert exited.value.code == 2, text
    assert "spec-bench: the dataset file" in text and str(path) in text and words in text, text
    assert "Traceback" not in text and "internal error" not in text
    assert not out.exists() or not any(out.rglob("run.sqlite"))  # nothing was sent, no run stored

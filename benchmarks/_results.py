"""One named section of ``benchmarks/RESULTS.md``, replaced in place: each benchmark writes only its own.

A section is the text between two marker lines (HTML comments, invisible when the Markdown is rendered)::

    <!-- results: client_overhead -->
    ## Client overhead ...
    <!-- /results: client_overhead -->

:func:`write_section` replaces what is between a section's markers and leaves every other byte of the file as it
was; a section not in the file yet is appended at its end (a missing file is created). The write is atomic (a
temporary file in the same folder, then ``os.replace``), so a benchmark killed mid-write leaves the old file.

Usage from a benchmark (run from the repository root or anywhere)::

    from _results import write_section          # benchmarks/ is the script's folder, so it is importable
    write_section(RESULTS, "quantize_draft", markdown_text)
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["RESULTS", "read_section", "write_section"]

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
_NAME = re.compile(r"[a-z0-9_]+")


def _markers(name: str) -> tuple[str, str]:
    if not _NAME.fullmatch(name):
        raise ValueError(f"section names are lowercase letters, digits and _: {name!r}")
    return f"<!-- results: {name} -->", f"<!-- /results: {name} -->"


def read_section(path: Path, name: str) -> str | None:
    """The text of section ``name`` (without its markers), or None when the file or the section is absent."""
    begin, end = _markers(name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    i, j = text.find(begin + "\n"), text.find(end)
    if i < 0 or j < i:
        return None
    return text[i + len(begin) + 1 : j]


def write_section(path: Path, name: str, body: str) -> None:
    """Replace section ``name`` of the Markdown file ``path`` with ``body`` (appended when absent).

    Raises:
        ValueError: a bad section name, a file whose markers for ``name`` are not one begin line followed by one
            end line, or a ``body`` holding a marker line.
    """
    begin, end = _markers(name)
    if begin in body or end in body:
        raise ValueError(f"the body of section {name!r} holds one of its marker lines")
    block = f"{begin}\n{body.rstrip()}\n{end}\n"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    n_begin, n_end = text.count(begin + "\n"), text.count(end + "\n") + text.endswith(end)
    if (n_begin, n_end) == (0, 0):
        new = text + ("\n" if text and not text.endswith("\n\n") else "") + block
    elif (n_begin, n_end) == (1, 1) and text.index(begin) < text.index(end):
        i, j = text.index(begin), text.index(end) + len(end)
        new = text[:i] + block.rstrip("\n") + text[j:]
    else:
        raise ValueError(f"{path}: section {name!r} needs exactly one {begin!r} line and one {end!r} line after it")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

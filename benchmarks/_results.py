"""Each benchmark writes only its own named section of ``benchmarks/RESULTS.md``.

A section is the text between two marker lines (HTML comments, invisible in rendered Markdown)::

    <!-- results: quantize_draft -->
    ## NVFP4 quantizer ...
    <!-- /results: quantize_draft -->

:func:`write_section` replaces what lies between a section's markers and leaves every other byte of the file as it
was; a section not in the file yet is appended at its end. The file is replaced atomically
(:func:`specscope.fsio.write_text_atomic`), so a benchmark killed mid-write leaves the old file.
"""

from __future__ import annotations

import re
from pathlib import Path

from specscope.fsio import write_text_atomic

__all__ = ["RESULTS", "read_section", "write_section"]

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
_NAME = re.compile(r"[a-z0-9_]+")


def _markers(name: str) -> tuple[str, str]:
    if not _NAME.fullmatch(name):
        raise ValueError(f"section names are lowercase letters, digits and _: {name!r}")
    return f"<!-- results: {name} -->", f"<!-- /results: {name} -->"


def read_section(path: Path, name: str) -> str | None:
    """The text of section ``name`` without its markers; None when the file or the section is absent."""
    begin, end = _markers(name)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    i, j = text.find(begin + "\n"), text.find(end)
    return None if i < 0 or j < i else text[i + len(begin) + 1 : j]


def write_section(path: Path, name: str, body: str) -> None:
    """Replace section ``name`` of ``path`` with ``body`` (appended at the end when absent).

    Raises:
        ValueError: a bad name, a body holding a marker line, or markers that are not one begin line followed by one
            end line.
    """
    begin, end = _markers(name)
    if begin in body or end in body:
        raise ValueError(f"the body of section {name!r} holds one of its marker lines")
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    n_begin, n_end = text.count(begin + "\n"), text.count(end)
    if (n_begin, n_end) == (0, 0):
        new = text.rstrip("\n") + ("\n\n" if text.strip() else "") + block + "\n"
    elif (n_begin, n_end) == (1, 1) and text.index(begin) < text.index(end):
        new = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        raise ValueError(f"{path}: section {name!r} needs exactly one {begin!r} line and one {end!r} line after it")
    write_text_atomic(path, new)

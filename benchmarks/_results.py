"""Each benchmark writes only its own section of benchmarks/RESULTS.md.

A section is a level-2 Markdown heading (``## Title``) and everything up to the next level-2 heading.
:func:`replace_section` replaces the section whose heading line is exactly ``## {title}`` (appends it at the end
when there is none) and leaves every other byte of the file as it was; the file is replaced atomically
(:func:`specscope.fsio.write_text_atomic`), so a killed run leaves the old file.
"""

from __future__ import annotations

from pathlib import Path

from specscope.fsio import write_text_atomic

RESULTS = Path(__file__).resolve().with_name("RESULTS.md")


def replace_section(title: str, body: str, path: Path = RESULTS) -> None:
    """Put ``## {title}`` + ``body`` in place of that section of ``path`` (or at its end).

    Raises:
        ValueError: ``body`` holds a level-2 heading of its own (it would split the section).
    """
    heading = f"## {title}"
    if any(line.startswith("## ") for line in body.splitlines()):
        raise ValueError(f"section {title!r}: the body may not contain level-2 headings")
    text = path.read_text() if path.exists() else ""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == heading), None)
    block = [heading + "\n", "\n", body.rstrip("\n") + "\n", "\n"]
    if start is None:
        if lines and lines[-1].strip():
            lines.append("\n")
        lines += block
    else:
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
        lines[start:end] = block
    out = "".join(lines)
    write_text_atomic(path, out.rstrip("\n") + "\n")

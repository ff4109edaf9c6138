"""Where and how wide a command's output goes: ``-f/--format``, ``-o/--output FILE`` and ``--width``, for every command.

- **Format**: ``-f`` names it; without ``-f``, ``-o FILE`` picks it from the suffix (``.txt`` text, ``.md`` /
  ``.markdown`` markdown, ``.json`` json, ``.html`` / ``.htm`` html), and a suffix that names none is refused
  (never silently text); ``-f`` with a suffix that names another format (``-f json -o x.md``) wins, as every
  command's help says ("format from its suffix unless -f"), with a note on stderr naming the suffix's format.
- **File**: written atomically (:func:`specscope.report.files.write_text_atomic`); the command then prints the
  path it wrote, and nothing else, on stdout. A missing folder of the file is made, with a note on stderr naming
  it (as ``bench --out`` and the store make theirs).
- **Width** of text tables (characters): ``--width N``; else the terminal's when stdout is one (``$COLUMNS`` when
  set); else, to a file or a pipe, :data:`FILE_WIDTH`: a fixed width a person can read, where a wider table wraps
  inside its columns (every column folds: a value is wrapped, never cut).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from specscope.errors import ConfigError
from specscope.readfile import special_kind
from specscope.strictjson import dumps_strict

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "FILE_WIDTH",
    "SUFFIX_FORMATS",
    "emit",
    "emit_doc",
    "make_console",
    "make_output_folder",
    "report_target",
]

#: text width (characters) to a file or a pipe.
FILE_WIDTH = 120
#: file suffix -> the format it means.
SUFFIX_FORMATS = {
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
}


def report_target(
    fmt: str | None,
    output: Path | str | None,
    allowed: tuple[str, ...],
    *,
    format_option: bool = True,
    reads: Sequence[Path | str | None] = (),
) -> tuple[str, Path | None]:
    """``(format, output file)`` from ``-f`` and ``-o``: ``-f`` when given, else ``-o``'s suffix, else ``text``.

    ``format_option``: the command has ``-f`` (else the fix names only the file's suffix); ``reads``: the files and
    folders the command reads (a run, a checkpoint, a CSV; None: not given), which ``-o`` may neither be nor lie in
    (a source is never written: :func:`_refuse_a_source`).

    Raises:
        ConfigError: ``-o`` is a folder, is or lies inside a path of ``reads``, or its suffix names no format of
            ``allowed`` while ``-f`` is not given (``-f`` given wins over a suffix naming another format: a note).
    """
    path = None if output is None else Path(output)
    if path is not None:
        _refuse_a_source(path, [Path(r) for r in reads if r is not None])
    if path is not None and path.is_dir():
        raise ConfigError(
            "--output is a folder",
            found=str(path),
            expected="a file path, e.g. report.txt",
            fix=f"pass a file inside it, e.g. --output {path / ('report.' + _example_suffix(allowed))}",
        )
    kind = None if path is None else special_kind(path)
    if kind is not None:  # the atomic write would rename a regular file over it (as root: over /dev/null itself)
        raise ConfigError(
            "--output is not a file to write",
            found=f"{path}: {kind}",
            expected="a regular file to create or replace",
            fix=f"drop --output to print on stdout (and redirect it: > {path}), or pass a file path",
        )
    by_suffix = None if path is None else SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is not None and by_suffix is not None and by_suffix != fmt and path is not None:
        # the user's explicit -f wins, as the help says ("format from its suffix unless -f"); said, not silent
        typer.echo(f"note: writing {fmt} to {path} as -f says (its suffix {path.suffix} names {by_suffix})", err=True)
    if fmt is not None:
        return fmt, path
    if path is None:
        return "text", None
    if by_suffix not in allowed:
        suffixes = ", ".join(s for s, f in SUFFIX_FORMATS.items() if f in allowed)
        rename = f"{path.stem}.{_example_suffix(allowed)}"
        if not format_option:
            raise ConfigError(
                "the file name's suffix names no format this command writes",
                found=path.name,
                expected=f"a suffix of {suffixes}",
                fix=f"name the file {rename}",
            )
        raise ConfigError(
            "cannot tell the format from the file name",
            found=path.name,
            expected=f"a suffix of {suffixes}, or -f FORMAT ({', '.join(allowed)})",
            fix=f"add -f {allowed[0]} (or name the file {rename})",
        )
    return by_suffix, path


def _refuse_a_source(output: Path, reads: Sequence[Path]) -> None:
    """Refuse ``output`` when it is a file of ``reads`` or lies inside a folder of ``reads``, compared after
    following symlinks (and by inode, for a hardlink): ``report RUN -o RUN/manifest.json``, ``counters A B -o B``
    and ``audit CKPT -o CKPT/config.json`` wrote over what they read (probe of 2026-12-06). A run is read-only after
    bench, so nothing is written inside it.

    Raises:
        ConfigError: ``output`` is or lies inside a path of ``reads``.
    """
    target = output.resolve()
    for source in reads:
        real = source.resolve()
        inside = real == target or (real.is_dir() and real in target.parents)
        if inside or (output.exists() and source.exists() and os.path.samefile(output, source)):
            raise ConfigError(
                "--output would write into what this command reads",
                found=f"--output {output}: {'inside' if real != target and real.is_dir() else 'the same file as'} "
                f"{source}",
                expected=f"a file outside {source} (a source is never written)",
                fix=f"pass a file elsewhere, e.g. --output {Path.cwd() / ('specscope-out' + output.suffix)}",
            )


def _example_suffix(allowed: tuple[str, ...]) -> str:
    """A suffix naming a format of ``allowed`` for a fix's example: html, txt, else the first allowed one's."""
    for fmt, suffix in (("html", "html"), ("text", "txt")):
        if fmt in allowed:
            return suffix
    return next(s for s, f in SUFFIX_FORMATS.items() if f == allowed[0]).lstrip(".")


def _width(width: int | None, to_file: bool) -> int | None:
    """The text width: ``width``; ``$COLUMNS``; None (the terminal's) on a terminal; :data:`FILE_WIDTH` otherwise."""
    if width is not None:
        return width
    cols = os.environ.get("COLUMNS", "")
    if cols.isdigit() and int(cols) > 0 and not to_file:
        return int(cols)
    if not to_file:
        from rich.console import Console

        if Console().is_terminal:
            return None
    return FILE_WIDTH


def make_console(
    output: Path | None = None, width: int | None = None, stderr: bool = False
) -> tuple[Console, io.StringIO | None]:
    """A console for text tables: stdout (or stderr), or a plain-text buffer (no colour) when writing ``output``.

    Returns ``(console, buffer)``; ``buffer`` is None when printing to the terminal or a pipe.
    """
    from rich.console import Console

    if output is None:
        return Console(width=_width(width, False), stderr=stderr), None
    buf = io.StringIO()
    return Console(file=buf, width=_width(width, True), color_system=None, force_terminal=False), buf


def emit(text: str | Callable[[Console], None], output: Path | None, width: int | None = None) -> None:
    """Print ``text`` (a string, or a function printing rich renderables on a console) on stdout, or write it
    atomically to ``output`` and print the path.

    Raises:
        ConfigError: the folder of ``output`` cannot be made.
    """
    if output is None:
        if isinstance(text, str):
            typer.echo(text, nl=not text.endswith("\n"))
        else:
            text(make_console(None, width)[0])
        return
    if not isinstance(text, str):
        console, buf = make_console(output, width)
        text(console)
        text = buf.getvalue() if buf is not None else ""
    write_file(output, text)


def emit_doc(fmt: str, output: Path | None, width: int | None, doc: Any, text: str | Callable[[Console], None]) -> None:
    """``doc`` as indented JSON (a dict, a list, or an object with ``to_dict()``) when ``fmt`` is json, else
    ``text`` (a string, or a function printing on a console), to stdout or ``output`` (:func:`emit`)."""
    if fmt == "json":
        emit(dumps_strict(doc.to_dict() if hasattr(doc, "to_dict") else doc, indent=2, default=str), output)
    else:
        emit(text, output, width)


def write_file(output: Path, text: str) -> None:
    """Write ``text`` to ``output`` atomically (its folder made) and print the path on stdout.

    Raises:
        ConfigError: ``output`` is a folder or its folder cannot be made.
    """
    from specscope.fsio import link_target
    from specscope.report.files import write_text_atomic

    make_output_folder(output)
    # a link the user names is written through (the file it leads to replaced, the link kept), as editors save one
    write_text_atomic(link_target(output), text if text.endswith("\n") else text + "\n")
    typer.echo(str(output))


def make_output_folder(output: Path) -> None:
    """Make the folder of ``output`` (and its parents) when missing, with a note on stderr naming it (a typo in
    the folder is seen at once, not found later as a stray tree). When ``output`` is a link, the folder made is
    that of the file it leads to (the file written: :func:`specscope.fsio.link_target`).

    Raises:
        ConfigError: the folder cannot be made.
    """
    from specscope.fsio import link_target

    output = link_target(output)
    missing = not output.parent.exists()
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            "cannot make the folder of --output",
            found=f"{output.parent}: {exc.strerror or exc}",
            expected="a writable folder",
            fix="pass an --output path in a folder you can write",
        ) from None
    if missing:
        typer.echo(f"note: made the folder {output.parent} for --output", err=True)

"""docs/cli.md's table of every option, generated from the app's own declarations (issue 37: one vocabulary).

The table lists, per command (surgery's subcommands each by name), every visible option as typer declares it: its
flags, its value (the metavar; a flag without one takes no value) and its help text. Hidden options (old names kept
as aliases, :mod:`specscope.cli.vocab`) are left out: the vocabulary table above the generated block names them.
``python scripts/gen_cli_doc.py`` rewrites the block between the markers; ``tests/cli/test_cli_doc.py`` fails when
the committed page differs, so the page cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["BEGIN", "END", "option_rows", "render"]

BEGIN = "<!-- generated: options -->"
END = "<!-- end generated: options -->"


def _commands(cmd: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """``(name path, command)`` of every leaf command under ``cmd`` in the app's order (a group's subcommands by
    their listed order)."""
    if hasattr(cmd, "list_commands"):
        ctx = type(cmd).context_class(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, (*path, name))
    else:
        yield path, cmd


def _cell(text: str) -> str:
    """One markdown table cell: pipes escaped, line breaks folded."""
    return " ".join(text.split()).replace("|", "\\|")


def option_rows() -> list[tuple[str, str, str, str]]:
    """``(command, flags, value, help)`` per visible option of every command (``specscope --help``'s own data)."""
    import typer

    from specscope.cli import app

    rows = []
    for path, cmd in _commands(typer.main.get_command(app), ()):
        for p in cmd.params:
            if p.param_type_name != "option" or p.hidden:
                continue
            flags = ", ".join(f"`{o}`" for o in sorted(p.opts, key=lambda o: (not o.startswith("--"), o)))
            value = "" if p.is_flag else f"`{p.metavar}`" if p.metavar else "VALUE"
            rows.append((" ".join(path), flags, value, _cell(p.help or "")))
    return rows


def render(old: str) -> str:
    """``old`` (docs/cli.md) with the block between :data:`BEGIN` and :data:`END` regenerated.

    Raises:
        ValueError: the page lacks the markers.
    """
    start, end = old.find(BEGIN), old.find(END)
    if start < 0 or end < start:
        raise ValueError(f"docs/cli.md needs the lines {BEGIN} and {END}")
    lines = ["| command | option | value | meaning |", "|---|---|---|---|"]
    lines += [f"| {c} | {f} | {v} | {h} |" for c, f, v, h in option_rows()]
    page = old[: start + len(BEGIN)] + "\n" + "\n".join(lines) + "\n" + old[end:]
    start, end = page.find(CSV_BEGIN), page.find(CSV_END)
    if start < 0 or end < start:
        raise ValueError(f"docs/cli.md needs the lines {CSV_BEGIN} and {CSV_END}")
    return page[: start + len(CSV_BEGIN)] + "\n" + csv_synonyms_text() + "\n" + page[end:]


CSV_BEGIN = "<!-- generated: csv-synonyms -->"
CSV_END = "<!-- end generated: csv-synonyms -->"


def csv_synonyms_text() -> str:
    """The names ``advise --from-csv`` reads as each of its columns (``stats/csv_cells.SYNONYMS``), one sentence, in
    the column order of ``SYNONYMS``'s first use of each."""
    from specscope.stats.csv_cells import SYNONYMS

    by_column: dict[str, list[str]] = {}
    for name, column in SYNONYMS.items():
        by_column.setdefault(column, []).append(f"`{name}`")
    parts = [f"{', '.join(names)} ({column})" for column, names in by_column.items()]
    return "The names published tables use are read as their column, each said in a note: " + "; ".join(parts) + "."

"""The CLI's one vocabulary: option names and meanings shared by every command.

- ``--configs a,b`` (or repeated): config names. ``--server NAME=URL`` (repeatable): a server the user
  started. ``--launch embedded|vllm``: who serves the configs when no ``--server`` is given (default
  embedded; with vllm the configs are recipe names from ``--recipes``). ``--out``: the folder receiving
  run folders. ``-f/--format``: tables are ``text|markdown|json``; ``report`` adds ``html``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "TABLE_FORMATS",
    "BandwidthOption",
    "BaselineOption",
    "DraftModelOption",
    "ConfigsOption",
    "LaunchOption",
    "OutOption",
    "RecipesOption",
    "ServerOption",
    "TableFormatOption",
    "TextJsonFormatOption",
    "format_choice",
    "table_format",
]

#: Output formats of every command that prints tables (``report`` adds ``html``).
TABLE_FORMATS = ("text", "markdown", "json")
# old spellings still accepted, not shown in --help
_FORMAT_ALIASES = {"table": "text"}


def format_choice(allowed: tuple[str, ...]) -> Callable[[str], str]:
    """A typer callback validating ``-f/--format`` against ``allowed`` (``table`` is an old alias of ``text``)."""

    def check(value: str) -> str:
        value = _FORMAT_ALIASES.get(value, value)
        if value not in allowed:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    return check


table_format = format_choice(TABLE_FORMATS)


ConfigsOption = Annotated[
    list[str] | None,
    typer.Option("--configs", "--config", help="Config names, comma-separated or repeated (e.g. base,ngram)."),
]
ServerOption = Annotated[
    list[str] | None,
    typer.Option("--server", help="A server you started: NAME=URL or URL (repeat for several configs)."),
]
LaunchOption = Annotated[
    str,
    typer.Option(
        "--launch",
        help="Who serves the configs when no --server is given: embedded (llama.cpp, default) or vllm "
        "(configs are recipe names, launched one at a time).",
    ),
]
RecipesOption = Annotated[
    Path | None, typer.Option("--recipes", help="vLLM recipes TOML file (default: the shipped one).")
]
OutOption = Annotated[Path, typer.Option("--out", help="Folder that receives run folders.")]
TableFormatOption = Annotated[
    str,
    typer.Option("--format", "-f", callback=table_format, help="Output format: text, markdown or json."),
]
TextJsonFormatOption = Annotated[
    str,
    typer.Option("--format", "-f", callback=format_choice(("text", "json")), help="Output format: text or json."),
]
BaselineOption = Annotated[str, typer.Option("--baseline", help="The no-draft config of the run.")]
BandwidthOption = Annotated[
    str | None,
    typer.Option(
        "--bandwidth", help="Memory bandwidth for the roofline: 273GB/s, 4.8TB/s, or dgx-spark, h100, h200, ..."
    ),
]
DraftModelOption = Annotated[
    str | None, typer.Option("--draft", help="A separate draft model (local folder or hub repo id) next to the target.")
]

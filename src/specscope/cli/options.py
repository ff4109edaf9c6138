"""The CLI's one vocabulary: option names, help texts and parsing shared by every command.

Each option is an ``Annotated[TYPE, typer.Option(...)]`` alias naming its flags explicitly, so a flag means the
same thing, reads the same in ``--help`` and is parsed the same way in every command that takes it; a command
only gives the default (``configs: ConfigsOption = None``). An option that may be left out has a ``Maybe*`` value
type (``None``: not given, the profile or the command decides). The options of ``bench`` alone are in
:mod:`specscope.cli.bench_options`; :func:`echo_text_or_json` prints a result in the chosen ``text|json``.

- ``--configs a,b`` (or repeated): config names. ``--server NAME=URL`` (repeatable): a server the user
  started. ``--launch embedded|vllm``: who serves the configs when no ``--server`` is given (default
  embedded; with vllm the configs are recipe names from ``--recipes``). ``--out``: the folder receiving
  run folders. ``-f/--format``: tables are ``text|markdown|json``; ``report`` adds ``html``; commands that print
  one document take ``text|json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeAlias

import typer

__all__ = [
    "TABLE_FORMATS",
    "AcceptanceOption",
    "BandwidthOption",
    "BaselineOption",
    "MinEffectOption",
    "BytesPerStepOption",
    "CheckpointOption",
    "ConcurrencyOption",
    "ConfigsOption",
    "DraftBytesOption",
    "DraftModelOption",
    "FromCsvOption",
    "HashesFileOption",
    "HashesHubOption",
    "HashesOption",
    "HoldoutOption",
    "LaunchOption",
    "LevelMixOption",
    "LmHeadBytesOption",
    "MaxKOption",
    "MaybeBool",
    "MaybeFloat",
    "MaybeInt",
    "MaybeNames",
    "MaybePath",
    "MaybeStr",
    "MeasuredOption",
    "MixOption",
    "NoPreflightOption",
    "OutOption",
    "OutputFileOption",
    "PerPositionOption",
    "RecipesOption",
    "ReportFormat",
    "ReportFormatOption",
    "RunArgument",
    "ServerOption",
    "SloTtftOption",
    "TableFormatOption",
    "TextJsonFormatOption",
    "echo_text_or_json",
    "format_choice",
    "table_format",
]

#: Output formats of every command that prints tables (``report`` adds ``html``).
TABLE_FORMATS = ("text", "markdown", "json")
# old spellings still accepted, not shown in --help
_FORMAT_ALIASES = {"table": "text"}


class ReportFormat(str, Enum):
    """The formats of ``report`` (and of the report ``bench`` prints at the end)."""

    text = "text"
    markdown = "markdown"
    json = "json"
    html = "html"


def format_choice(allowed: tuple[str, ...]) -> Callable[[str], str]:
    """A typer callback validating ``-f/--format`` against ``allowed`` (``table`` is an old alias of ``text``)."""

    def check(value: str) -> str:
        value = _FORMAT_ALIASES.get(value, value)
        if value not in allowed:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    return check


table_format = format_choice(TABLE_FORMATS)


def echo_text_or_json(fmt: str, doc: Any, text: Callable[[], str | None]) -> None:
    """Print a command's result in ``-f/--format`` ``fmt``.

    ``json``: ``doc`` (a dict or list, or an object with ``to_dict()``) as one indented JSON document on stdout.
    Otherwise ``text()``: its string is echoed; a renderer that prints rich tables itself returns None.
    """
    if fmt == "json":
        typer.echo(json.dumps(doc.to_dict() if hasattr(doc, "to_dict") else doc, indent=2))
        return
    shown = text()
    if shown is not None:
        typer.echo(shown)


# the value types of options that may be left out (None: not given, the profile or the command decides)
MaybeStr: TypeAlias = str | None
MaybeInt: TypeAlias = int | None
MaybeFloat: TypeAlias = float | None
MaybeBool: TypeAlias = bool | None
MaybePath: TypeAlias = Path | None
MaybeNames: TypeAlias = list[str] | None

# --- who serves the configs (bench, gate, serve) ---
LAUNCH_HELP = (
    "Who serves the configs when no --server is given: embedded (llama.cpp, default) or vllm "
    "(configs are recipe names, launched one at a time)."
)
ConfigsOption = Annotated[
    MaybeNames,
    typer.Option("--configs", "--config", help="Config names, comma-separated or repeated (e.g. base,ngram)."),
]
ServerOption = Annotated[
    MaybeNames,
    typer.Option("--server", help="A server you started: NAME=URL or URL (repeat for several configs)."),
]
LaunchOption = Annotated[
    str,
    typer.Option("--launch", help=LAUNCH_HELP),
]
RecipesOption = Annotated[
    MaybePath,
    typer.Option("--recipes", help="vLLM recipes TOML file (default: the shipped one)."),
]
NoPreflightOption = Annotated[
    bool,
    typer.Option("--no-preflight", help="Launch vLLM recipes without auditing their model and draft first."),
]

# --- where results go ---
OutOption = Annotated[
    Path,
    typer.Option("--out", help="Folder that receives run folders."),
]
OutputFileOption = Annotated[
    MaybePath,
    typer.Option("--output", "-o", help="Write to this file instead of stdout."),
]
ReportFormatOption = Annotated[
    ReportFormat,
    typer.Option("--format", "-f", help="Output format: text, markdown, json or html."),
]
TableFormatOption = Annotated[
    str,
    typer.Option("--format", "-f", callback=table_format, help="Output format: text, markdown or json."),
]
TextJsonFormatOption = Annotated[
    str,
    typer.Option("--format", "-f", callback=format_choice(("text", "json")), help="Output format: text or json."),
]

# --- the run a command reads (advise, predict) ---
RunArgument = Annotated[
    MaybePath,
    typer.Argument(help="A run folder written by `specscope bench`."),
]
BaselineOption = Annotated[
    MaybeStr,
    typer.Option("--baseline", help="The no-draft config of the run (default: the run's own, from its manifest)."),
]
MinEffectOption = Annotated[
    MaybeFloat,
    typer.Option(
        "--min-effect",
        min=0.0,
        max=0.99,
        help="Minimum practical effect, a fraction (default 0.02 = 2 %; report/advise: the run's own).",
    ),
]
MixOption = Annotated[
    MaybeStr,
    typer.Option("--mix", help="Token shares per workload, e.g. prose=0.2,code=0.3,edit=0.5."),
]
LevelMixOption = Annotated[
    MaybeStr,
    typer.Option("--level-mix", help="Share of wall time per concurrency, e.g. 1=0.6,4=0.4."),
]
ConcurrencyOption = Annotated[
    MaybeInt,
    typer.Option("--concurrency", help="Advise only at this measured concurrency."),
]
AcceptanceOption = Annotated[
    MaybeFloat,
    typer.Option("--acceptance", help="Your measured acceptance rate (accepted/drafted), 0..1."),
]
SloTtftOption = Annotated[
    MaybeStr,
    typer.Option("--slo-ttft", help="TTFT p95 limit, e.g. 2s or 500ms."),
]
FromCsvOption = Annotated[
    MaybePath,
    typer.Option("--from-csv", help="Cells measured elsewhere (CSV; see stats/csv_cells.py)."),
]

# --- checkpoints and the bandwidth model (audit, predict) ---
HashesOption = Annotated[
    bool,
    typer.Option("--hashes", help="Also compare each file's sha256 with TARGET/SHA256SUMS (reads files)."),
]
HashesFileOption = Annotated[
    MaybeStr,
    typer.Option("--hashes-file", help="The sha256sum manifest for --hashes (default SHA256SUMS)."),
]
HashesHubOption = Annotated[
    MaybeStr,
    typer.Option("--hashes-hub", help="Compare sha256s with this hub repo's LFS metadata."),
]
DraftModelOption = Annotated[
    MaybeStr,
    typer.Option("--draft", help="A separate draft model (local folder or hub repo id) next to the target."),
]
BandwidthOption = Annotated[
    MaybeStr,
    typer.Option("--bandwidth", help="Memory bandwidth (roofline): 273GB/s, 4.8TB/s, or dgx-spark, h100, h200, ..."),
]
CheckpointOption = Annotated[
    MaybeStr,
    typer.Option("--checkpoint", help="Take the byte census from this checkpoint (audit)."),
]
BytesPerStepOption = Annotated[
    MaybeStr,
    typer.Option("--bytes-per-step", help="Target bytes read per decode step, e.g. 17.61GB."),
]
DraftBytesOption = Annotated[
    MaybeStr,
    typer.Option("--draft-bytes", help="Draft bytes read per drafted token, e.g. 0.85GB."),
]
LmHeadBytesOption = Annotated[
    MaybeStr,
    typer.Option("--lm-head-bytes", help="The target's lm_head a draft shares: read per drafted token."),
]
MeasuredOption = Annotated[
    MaybeFloat,
    typer.Option("--measured", min=0.0, help="Without RUN: a measured no-draft tok/s to set against the roofline."),
]
MaxKOption = Annotated[
    int,
    typer.Option("--max-k", min=1, max=64, help="Predict k = 1..max-k (at most 64)."),
]
PerPositionOption = Annotated[
    MaybeStr,
    typer.Option("--per-position", help="Without RUN: published per-position acceptance, e.g. 0.8,0.6,0.4."),
]
HoldoutOption = Annotated[
    MaybeStr,
    typer.Option("--holdout", help="With RUN: k to hold out of the fit and predict, e.g. 3,4,6."),
]

"""The CLI's one vocabulary (docs/cli.md): option names, help texts and parsing shared by every command.

Each option is an ``Annotated[TYPE, typer.Option(...)]`` alias naming its flags explicitly, so a flag means the
same thing, reads the same in ``--help`` and is parsed the same way in every command that takes it; a command
only gives the default (``configs: ConfigsOption = None``). An option that may be left out has a ``Maybe*`` value
type (``None``: not given, the profile or the command decides). ``bench``'s options are declared once in its spec
(:mod:`specscope.bench.spec`); old names are hidden aliases (:mod:`specscope.cli.vocab`). Values are read by the
one parser of their kind (:mod:`specscope.values`): durations, rates, sizes, bandwidths, NAME=VALUE lists.

- ``--configs a,b`` (or repeated): config names. ``--server NAME=URL`` (repeatable): a server the user
  started. ``--launch embedded|vllm``: who serves the configs when no ``--server`` is given (default
  embedded; with vllm the configs are recipe names from ``--recipes``). ``--out DIR``: the folder a command
  writes into. ``-o/--output FILE``: a file instead of stdout. ``-f/--format``: tables are
  ``text|markdown|json``; ``report`` adds ``html``; commands that print one document take ``text|json``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeAlias

import typer

from specscope.stats.verdict import DEFAULT_MIN_EFFECT

__all__ = [
    "TABLE_FORMATS",
    "ApiKeyOption",
    "AcceptanceOption",
    "BandwidthOption",
    "BaselineOption",
    "MinEffectOption",
    "NotAChoice",
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
    "OutputOption",
    "WidthOption",
    "PerPositionOption",
    "RecipesOption",
    "REPORT_FORMATS",
    "TEXT_JSON",
    "ReportFormatOption",
    "RequiredRunArgument",
    "RunArgument",
    "ServerOption",
    "SloOption",
    "TableFormatOption",
    "TextJsonFormatOption",
    "run_baseline",
    "format_choice",
    "table_format",
]

#: Output formats of every command that prints tables (``report`` adds ``html``).
TABLE_FORMATS = ("text", "markdown", "json")
#: the formats of ``report`` (and of the report ``bench`` prints at the end).
REPORT_FORMATS = ("text", "markdown", "json", "html")
#: the formats of commands that print one document.
TEXT_JSON = ("text", "json")


class NotAChoice(typer.BadParameter):
    """A value a typer callback refused for not being one of ``choices`` (click's own words, ``'x' is not one of
    a, b``); :func:`specscope.cli.crash.usage_parts` suggests the closest of ``choices``."""

    def __init__(self, value: str, choices: tuple[str, ...]) -> None:
        super().__init__(f"{value!r} is not one of {', '.join(choices)}")
        self.choices = choices


def format_choice(allowed: tuple[str, ...]) -> Callable[[str | None], str | None]:
    """A typer callback validating ``-f/--format`` against ``allowed`` (None: not given; old value names of
    :data:`specscope.cli.vocab.FORMAT_VALUE_ALIASES` print one deprecation line)."""
    from specscope.cli.vocab import FORMAT_VALUE_ALIASES

    def check(value: str | None) -> str | None:
        if value in FORMAT_VALUE_ALIASES:
            typer.echo(f"warning: -f {value} is deprecated: use -f {FORMAT_VALUE_ALIASES[value]}", err=True)
            value = FORMAT_VALUE_ALIASES[value]
        if value is not None and value not in allowed:
            raise NotAChoice(value, allowed)
        return value

    return check


table_format = format_choice(TABLE_FORMATS)


def run_baseline(run: Path) -> str:
    """The run's own baseline (its manifest's ``baseline``), else ``base``: the default of ``--baseline``.

    Raises:
        StoreError: not a run folder.
    """
    from specscope.store import open_run

    with open_run(run) as r:
        return str(r.manifest.get("baseline") or "base")


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
ServerOption = Annotated[
    MaybeNames,
    typer.Option("--server", metavar="NAME=URL", help="A server you started: NAME=URL or URL (repeat per config)."),
]


def _spec_option(name: str, **extra: Any) -> Any:
    """The typer option of the bench spec's ``name`` (:mod:`specscope.bench.spec`): its flag, help, metavar and
    environment variable, so that another command taking it declares nothing of its own."""
    from specscope.bench.spec import by_name

    opt = by_name()[name]
    return typer.Option(opt.flag, metavar=opt.metavar or None, help=opt.help, envvar=opt.envvar or None, **extra)


ApiKeyOption = Annotated[str | None, _spec_option("api_key")]
ConfigsOption = Annotated[MaybeNames, _spec_option("configs")]
LaunchOption = Annotated[str, _spec_option("launch")]
RecipesOption = Annotated[
    MaybePath,
    typer.Option("--recipes", metavar="FILE", help="vLLM recipes TOML file (default: the shipped one)."),
]
NoPreflightOption = Annotated[
    bool,
    typer.Option("--no-preflight", help="Launch vLLM recipes without auditing their model and draft first."),
]

# --- where results go ---
OutputOption = Annotated[
    MaybePath,
    typer.Option("--output", "-o", metavar="FILE", help="Write to FILE (format from its suffix unless -f)."),
]


def _width_value(text: str) -> int:
    from specscope.values import parse_width

    return parse_width(text, "--width")


WidthOption = Annotated[int | None, _spec_option("width", parser=_width_value)]
OutOption = Annotated[
    Path,
    typer.Option("--out", metavar="DIR", help="The folder written (a new run folder inside it)."),
]
ReportFormatOption = Annotated[
    MaybeStr,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        callback=format_choice(REPORT_FORMATS),
        help="Output format (text, markdown, json or html; default: text, or -o's suffix).",
    ),
]
TableFormatOption = Annotated[
    MaybeStr,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        callback=table_format,
        help="Output format (text, markdown or json; default: text, or -o's suffix).",
    ),
]
TextJsonFormatOption = Annotated[
    MaybeStr,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        callback=format_choice(TEXT_JSON),
        show_default=False,  # a command that defaults to "text" (not None) would say it twice
        help="Output format (text or json; default: text).",
    ),
]

# --- the run a command reads (advise, predict) ---
RunArgument = Annotated[
    MaybePath,
    typer.Argument(help="A run folder written by `specscope bench` or `specscope import`."),
]
RequiredRunArgument = Annotated[
    Path,
    typer.Argument(metavar="RUN", help="A run folder written by `specscope bench` or `specscope import`."),
]
BaselineOption = Annotated[
    MaybeStr,
    typer.Option(
        "--baseline",
        metavar="NAME",
        help="The config speedups are measured against (default: the run's baseline, else base).",
    ),
]


def _fraction_value(flag: str) -> Callable[[str], float]:
    """A typer ``parser``: the one fraction parser (:func:`specscope.values.parse_fraction`; ``0.05`` or ``5%``)."""
    from specscope.values import parse_fraction

    return lambda text: parse_fraction(text, flag)


MinEffectOption = Annotated[
    MaybeFloat,
    typer.Option(
        "--min-effect",
        metavar="F",
        parser=_fraction_value("--min-effect"),
        help="Minimum practical effect, a fraction or a percentage: a win or loss smaller than this is equivalent "
        f"(default: the run's own, else {DEFAULT_MIN_EFFECT:g} = {DEFAULT_MIN_EFFECT:.0%}).",
    ),
]
MixOption = Annotated[
    MaybeStr,
    typer.Option("--mix", metavar="W=SHARE,...", help="Token shares per workload, e.g. prose=0.2,code=0.3,edit=0.5."),
]
LevelMixOption = Annotated[
    MaybeStr,
    typer.Option("--level-mix", metavar="N=SHARE,...", help="Share of wall time per concurrency, e.g. 1=0.6,4=0.4."),
]
ConcurrencyOption = Annotated[
    MaybeStr,
    typer.Option(
        "--max-concurrency",
        metavar="N,N",
        help="Concurrency levels (the measured ones to advise at; default: every one), e.g. 1,4.",
    ),
]
AcceptanceOption = Annotated[
    MaybeFloat,
    typer.Option("--acceptance", metavar="RATE", help="Your measured acceptance rate (accepted/drafted), 0..1."),
]
SloOption = Annotated[
    MaybeStr,
    typer.Option(
        "--slo",
        metavar="NAME=DURATION",
        help="SLO targets (per request, as bench reads them: a pick's p95 TTFT and TPOT must meet them), "
        "e.g. ttft=2s,tpot=50ms.",
    ),
]
FromCsvOption = Annotated[
    MaybePath,
    typer.Option("--from-csv", metavar="FILE", help="Cells measured elsewhere (CSV; columns in docs/cli.md)."),
]

# --- checkpoints and the bandwidth model (audit, predict) ---
HashesOption = Annotated[
    bool,
    typer.Option("--hashes", help="Also compare each file's sha256 with TARGET/SHA256SUMS (reads files)."),
]
HashesFileOption = Annotated[
    MaybeStr,
    typer.Option("--hashes-file", metavar="FILE", help="The sha256sum manifest for --hashes (default SHA256SUMS)."),
]
HashesHubOption = Annotated[
    MaybeStr,
    typer.Option("--hashes-hub", metavar="REPO", help="Compare sha256s with this hub repo's LFS metadata."),
]
DraftModelOption = Annotated[
    MaybeStr,
    typer.Option(
        "--draft", metavar="MODEL", help="A separate draft model (local folder or hub repo id) next to the target."
    ),
]
BandwidthOption = Annotated[
    MaybeStr,
    typer.Option(
        "--bandwidth",
        metavar="BANDWIDTH",
        help="Memory bandwidth (roofline): 273GB/s, 4.8TB/s, or dgx-spark, h100, h200, ...",
    ),
]
CheckpointOption = Annotated[
    MaybeStr,
    typer.Option("--checkpoint", metavar="MODEL", help="Take the byte census from this checkpoint (audit)."),
]
BytesPerStepOption = Annotated[
    MaybeStr,
    typer.Option(
        "--bytes-per-step",
        metavar="SIZE",
        help="Target bytes read per decode step, e.g. 17.61GB (with RUN, by default: the byte census of the run's own "
        "GGUF model, as audit prints it, else the size the run recorded).",
    ),
]
DraftBytesOption = Annotated[
    MaybeStr,
    typer.Option("--draft-bytes", metavar="SIZE", help="Draft bytes read per drafted token, e.g. 0.85GB."),
]
LmHeadBytesOption = Annotated[
    MaybeStr,
    typer.Option(
        "--lm-head-bytes", metavar="SIZE", help="The target's lm_head a draft shares: read per drafted token."
    ),
]
MeasuredOption = Annotated[
    MaybeFloat,
    typer.Option(
        "--measured",
        metavar="TOK/S",
        help="Without RUN: a measured no-draft tok/s to set against the roofline.",
    ),
]
MaxKOption = Annotated[
    int,
    typer.Option("--max-k", metavar="K", min=1, max=64, help="Predict k = 1..max-k (at most 64)."),
]
PerPositionOption = Annotated[
    MaybeStr,
    typer.Option(
        "--per-position", metavar="P,P,...", help="Without RUN: published per-position acceptance, e.g. 0.8,0.6,0.4."
    ),
]
HoldoutOption = Annotated[
    MaybeStr,
    typer.Option("--holdout", metavar="K,K", help="With RUN: k to hold out of the fit and predict, e.g. 3,4,6."),
]

"""The options that one command alone takes, declared here (the shared vocabulary is :mod:`specscope.cli.options`,
``bench``'s options its spec :mod:`specscope.bench.spec`).

A command module declares no option of its own: it names an alias from one of these three places and gives its
default, so every flag's name, help and value kind live in one of them (``tests/cli/test_one_vocabulary.py`` fails
on a ``typer.Option`` written anywhere else, and on a flag that two commands declare with two meanings). Arguments
(positional) stay with their command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from specscope.cli.options import MaybeNames, MaybePath, MaybeStr, _spec_option
from specscope.config import MAX_MAX_TOKENS

__all__ = [
    "AcceptanceConfigOption",
    "AllSlidingOption",
    "CensusOption",
    "CompareOption",
    "DockerOption",
    "DryRunOption",
    "ExcludeUnquantizedOption",
    "ExportOutputOption",
    "ExportToOption",
    "FirehoseOption",
    "FitKOption",
    "FollowSymlinksOption",
    "FromCheckpointOption",
    "GateContextTokensOption",
    "GateLimitOption",
    "GateMaxTokensOption",
    "GateNamesOption",
    "GatePrintRunFileOption",
    "GateRunFileOption",
    "HostOption",
    "ImportBaselineOption",
    "ImportClosedLoopOption",
    "ImportConfigOption",
    "ImportOutOption",
    "ImportWorkloadOption",
    "IncludeQuantizedOption",
    "InputAmaxOption",
    "LayoutOption",
    "ListRecipesOption",
    "MaxScrapeBytesOption",
    "OverheadOption",
    "ParseLogOption",
    "PlanOption",
    "PrefixOption",
    "PrintOnlyOption",
    "QuantSchemeOption",
    "ScrapeTimeoutOption",
    "ServeLogOption",
    "ServePortOption",
    "StartTimeoutOption",
    "GateStartTimeoutOption",
    "StrictOption",
    "SurgeryOutOption",
    "SyncOption",
    "TrackingUriOption",
    "TruthPortOption",
    "TruthScriptOption",
    "VersionOption",
]


# --- specscope (the root) ---
def _print_version(value: bool) -> None:
    if value:
        from specscope.cli import package_version

        typer.echo(f"specscope {package_version()}")
        raise typer.Exit()


VersionOption = Annotated[
    bool, typer.Option("--version", "-V", callback=_print_version, is_eager=True, help="Print the version and exit.")
]

# --- advise ---
AcceptanceConfigOption = Annotated[
    MaybeStr,
    typer.Option("--acceptance-config", metavar="NAME", help="The config your --acceptance was measured with."),
]

# --- audit ---
StrictOption = Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")]
FollowSymlinksOption = Annotated[
    bool,
    typer.Option(
        "--follow-symlinks",
        help="Read checkpoint files that are symlinks to places outside the checkpoint (refused by default).",
    ),
]

# --- counters ---
MaxScrapeBytesOption = Annotated[
    str, typer.Option("--max-bytes", metavar="SIZE", help="Largest scrape file read. Only regular files are read.")
]
ScrapeTimeoutOption = Annotated[
    str, typer.Option("--timeout", metavar="DURATION", help="Longest time to parse both files.")
]

# --- export ---
ExportToOption = Annotated[str, typer.Option("--to", metavar="TARGET", help="mlflow or profile.")]
ExportOutputOption = Annotated[
    MaybePath,
    typer.Option(
        "--output", "-o", metavar="FILE", help="Write to FILE (--to profile: the profile file, or a folder of them)."
    ),
]
TrackingUriOption = Annotated[
    MaybeStr,
    typer.Option(
        "--tracking-uri",
        metavar="URI",
        help="--to mlflow: http(s)://HOST:PORT of an MLflow server, or a folder as a file: URI "
        "(file:///ABS/PATH); default: ./mlruns as a file: URI.",
    ),
]

# --- gate ---
GateRunFileOption = Annotated[
    MaybePath,
    typer.Option(
        "--run-file", metavar="FILE", help="Take options from a TOML file (the gate profile; overrides the defaults)."
    ),
]
GatePrintRunFileOption = Annotated[
    bool,
    typer.Option(
        "--print-run-file",
        help="Print the options as a run file and exit (the gate profile, as bench's; nothing runs).",
    ),
]
GateNamesOption = Annotated[MaybeNames, typer.Option("--gate", metavar="NAME", help="Run only this gate (repeatable).")]
GateLimitOption = Annotated[
    int | None, typer.Option("--limit", metavar="N", min=1, help="At most this many probes per gate.")
]


def _max_tokens_value(text: str) -> int:
    from specscope.values import parse_token_count

    return parse_token_count(text, "--max-tokens", (1, MAX_MAX_TOKENS))  # as bench's: 1000000000000 was accepted


GateMaxTokensOption = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        metavar="N",
        parser=_max_tokens_value,
        help="max_tokens of each request (default: each gate's own; given: a cap on it; 2k = 2048).",
    ),
]
GateContextTokensOption = Annotated[
    MaybeStr,
    typer.Option(
        "--context-tokens",
        metavar="N",
        help="Input lengths each prompt is extended to, tokens (here one: the long-context gate's prompt, 64 or more; "
        "8k = 8192).",
    ),
]

# --- import ---
ImportConfigOption = Annotated[str, typer.Option("--config", metavar="NAME", help="The config the files measured.")]
ImportOutOption = Annotated[
    Path, typer.Option("--out", metavar="RUN", help="The folder written (the run folder itself: created, or added to).")
]
ImportWorkloadOption = Annotated[
    MaybeStr,
    typer.Option("--workload", metavar="NAME", help="A workload (its name; default: the file's, else imported)."),
]
ImportBaselineOption = Annotated[
    MaybeStr,
    typer.Option(
        "--baseline",
        metavar="NAME",
        help="The config speedups are measured against (default: the first config imported).",
    ),
]

ImportClosedLoopOption = Annotated[
    bool,
    typer.Option(
        "--closed-loop",
        help="From a file of both loop kinds (GuideLLM's sweep), import its closed loops, not its request rates.",
    ),
]

# --- predict ---
OverheadOption = Annotated[
    MaybeStr,
    typer.Option("--overhead", metavar="DURATION", help="Without RUN: draft overhead per drafted token, e.g. 7.5ms."),
]
FitKOption = Annotated[
    MaybeStr,
    typer.Option(
        "--fit-k", metavar="K=TOK/S,...", help="Without RUN: fit the overhead on tok/s by k, e.g. 1=20.00,2=26.48."
    ),
]
CompareOption = Annotated[
    MaybeStr,
    typer.Option("--compare", metavar="K=TOK/S,...", help="Without RUN: measured tok/s by k to print errors against."),
]

# --- serve ---
PrintOnlyOption = Annotated[bool, typer.Option("--print", help="Print the exact command and exit.")]
DockerOption = Annotated[bool, typer.Option("--docker", help="Use the docker form (vllm/vllm-openai image).")]
# 1..65535: a TCP port (RFC 793: 16 bits), and a known one (serve waits on its /health), never 0 ("any free port");
# serve RECIPE --print --port 70000 printed a command no server can bind
ServePortOption = Annotated[int, typer.Option("--port", metavar="PORT", min=1, max=65535, help="Port on 127.0.0.1.")]
ServeLogOption = Annotated[
    MaybePath, typer.Option("--log", metavar="FILE", help="Server log file (default ./vllm-RECIPE.log).")
]
ParseLogOption = Annotated[
    MaybePath, typer.Option("--parse-log", metavar="FILE", help="Print the facts of this server log (any engine).")
]
PlanOption = Annotated[
    MaybeStr,
    typer.Option(
        "--plan",
        metavar="requests=R,tokens=L",
        help="With --parse-log: do requests=R,tokens=L[,max-num-seqs=S] fit in the KV pool? (L: 32k = 32768)",
    ),
]
CensusOption = Annotated[
    MaybeStr,
    typer.Option(
        "--census", metavar="MODEL", help="With --parse-log: compare 'Model loading took' with this model's census."
    ),
]
ListRecipesOption = Annotated[bool, typer.Option("--list", help="List the recipes of the file.")]
StartTimeoutOption = Annotated[str, _spec_option("start_timeout", show_default=False)]  # the help says it
#: gate's: the same declaration; not given, each engine's default (as bench)
GateStartTimeoutOption = Annotated[MaybeStr, _spec_option("start_timeout")]

# --- truth-server ---
TruthPortOption = Annotated[
    int, typer.Option("--port", metavar="PORT", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port).")
]
HostOption = Annotated[str, typer.Option("--host", metavar="ADDRESS", help="Address to bind.")]
TruthScriptOption = Annotated[
    MaybePath, typer.Option("--script", metavar="FILE", help="JSON TruthScript (default plan: 16 tokens, no delays).")
]
FirehoseOption = Annotated[bool, typer.Option("--firehose", help="No delays, raw asyncio server (client benchmarks).")]

# --- surgery ---
PrefixOption = Annotated[str, typer.Option("--prefix", metavar="PREFIX", help="Draft tensor name prefix.")]
SurgeryOutOption = Annotated[
    MaybePath,
    typer.Option(
        "--out", metavar="DIR", help="The folder written (a new one, required: the source is never modified)."
    ),
]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Print the plan and write nothing.")]
FromCheckpointOption = Annotated[Path, typer.Option("--from", metavar="DIR", help="Checkpoint providing the tensors.")]
QuantSchemeOption = Annotated[
    str,
    typer.Option(
        "--scheme", metavar="SCHEME", help="nvfp4-w4a16 | nvfp4-w4a4 | nvfp4 (W4A4 when the target's NVFP4 layers are)"
    ),
]
LayoutOption = Annotated[
    MaybeStr, typer.Option("--layout", metavar="LAYOUT", help="modelopt | compressed-tensors (default: the target's)")
]
InputAmaxOption = Annotated[
    MaybePath,
    typer.Option(
        "--input-amax", metavar="FILE", help='W4A4: measured input abs-max per module, JSON {"mtp.fc": 13.44, ...}'
    ),
]
ExcludeUnquantizedOption = Annotated[
    MaybeStr, typer.Option("--exclude-unquantized", metavar="PREFIX", help="prefix, e.g. mtp.")
]
IncludeQuantizedOption = Annotated[
    MaybeStr,
    typer.Option(
        "--include-quantized",
        metavar="PREFIX",
        help="prefix, e.g. mtp.: drop exclude entries that cover its quantized linears",
    ),
]
SyncOption = Annotated[bool, typer.Option("--sync", help="make config.json and hf_quant_config.json agree")]
AllSlidingOption = Annotated[bool, typer.Option("--all-sliding", help="declare every layer sliding")]

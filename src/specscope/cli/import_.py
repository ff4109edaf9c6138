"""``specscope import FILE... --config NAME [--workload NAME] [--baseline NAME] --out RUN``: another tool's result
files stored as cells of a run, judged by ``report`` and ``advise`` like any other (:mod:`specscope.importers`).

Exit codes: 0 imported; 2 a blank name, a file of no known shape (the shapes tried are named), a total or load
that is not a number it can be (the field and value named), a record already in the run, a load of the other loop
kind than the run's cells (or at one of its rates with another cap or burstiness, or a ramp-up), or ``--out`` that
is not a run folder. Every check runs before the first write: a refused import leaves the run as it was.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from specscope.cli.command_options import (
    ImportBaselineOption,
    ImportClosedLoopOption,
    ImportConfigOption,
    ImportOutOption,
    ImportWorkloadOption,
)
from specscope.cli.vocab import VocabCommand
from specscope.textsafe import shell_word


def import_cmd(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE", help="Result files (or genai-bench experiment folders) of one config, in repeat order."
        ),
    ],
    config: ImportConfigOption,
    out: ImportOutOption,
    workload: ImportWorkloadOption = None,
    baseline: ImportBaselineOption = None,
    closed_loop: ImportClosedLoopOption = False,
) -> None:
    """Import other tools' result files (vLLM bench serve, SGLang, AIPerf, GuideLLM, genai-bench) as cells of a run.

    The result files of `vllm bench serve --save-result` (JSON), SGLang `bench_serving --output-file` (JSONL), AIPerf
    (profile_export_aiperf.json, or its per-request profile_export.jsonl beside it) or GuideLLM (its JSON report) are
    recognised by content, genai-bench's by its experiment folder (experiment_metadata.json beside one file per run),
    and stored as cells of the run RUN: a file's own concurrency or request rate is the level, several records of one
    config and level are repeats (paired with the baseline's by order: they were not
    interleaved). What the tool did not record stays absent and is named; a field none of the tool's releases writes is
    named in a warning on stderr and left out; so is a config's workload and level with no baseline cell to be compared
    with. A config's k (draft tokens per step, advise's k column) is what the file itself records (vLLM's per-position
    acceptance rates, one per draft position), else the config name's -kK, as bench --k names its configs (--config
    mtp-k3); a name and a file that disagree are refused. A file of both closed-loop and open-loop records (GuideLLM's
    default sweep: synchronous and throughput, then request rates) imports its request rates, or with --closed-loop
    its closed loops (into a run that holds cells: the run's own kind); each record left out is named in a warning and
    in the report's imports table. Then `specscope report RUN`.

    Exit codes: 0 imported; 2 a file of no known shape (naming the shapes tried), a total or load that is not a
    number it can be (NaN, a string, 2.5 streams: naming the field), a record already imported into RUN, a load RUN
    cannot take as a level, or RUN not a run folder. Nothing is written unless every check passed."""
    from specscope.importers import baseline_gaps, import_files
    from specscope.values import count_noun

    done = import_files(
        files,
        config,
        out,
        workload=workload,
        baseline=baseline,
        command=["specscope", *sys.argv[1:]],
        closed_loop=closed_loop,
    )
    cells = done.cells
    for c in cells:
        typer.echo(f"{c.key.label()}  <- {c.file} ({c.tool}, {c.load})")
        for note in c.notes:
            typer.echo(f"warning: {c.file} {note}", err=True)
    for left in done.left_out:
        typer.echo(f"warning: {left.line()}", err=True)
    typer.echo(
        f"{count_noun(len(cells), 'cell')} imported into {out}; judge the run with: specscope report {shell_word(out)}"
    )
    for line in baseline_gaps(out):
        typer.echo(f"warning: {line}", err=True)


def register(app: typer.Typer) -> None:
    app.command("import", cls=VocabCommand)(import_cmd)

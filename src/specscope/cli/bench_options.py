"""The options of ``specscope bench`` alone: the matrix, the counters, open-loop traffic and the client's limits.

Options that other commands share (``--configs``, ``--server``, ``--launch``, ``--out``, ``-f/--format`` ...)
are in :mod:`specscope.cli.options`; the profile that fills what is not given is
:func:`specscope.config.profile_options`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from specscope.cli.options import MaybeBool, MaybeFloat, MaybeInt, MaybeNames, MaybePath, MaybeStr

# --- the matrix: configs x workloads x levels x repeats ---
WorkloadsOption = Annotated[
    MaybeStr,
    typer.Option("--workloads", help="Workload packs, comma-separated: prose,code,edit."),
]
LevelsOption = Annotated[
    MaybeStr,
    typer.Option("--levels", help="Concurrency levels, comma-separated, e.g. 1,2,4."),
]
RepeatsOption = Annotated[
    MaybeInt,
    typer.Option("--repeats", help="Shuffled repeats of the matrix."),
]
MaxTokensOption = Annotated[
    MaybeInt,
    typer.Option("--max-tokens", help="max_tokens of each request."),
]
TemperatureOption = Annotated[
    MaybeFloat,
    typer.Option("--temperature", help="Sampling temperature."),
]
SeedOption = Annotated[
    MaybeInt,
    typer.Option("--seed", help="Seed of prompt schedules and shuffles."),
]
EditFormOption = Annotated[
    MaybeStr,
    typer.Option("--edit-form", help="prefill (default) or plain."),
]
ThreadsOption = Annotated[
    MaybeInt,
    typer.Option("--threads", help="Compute threads of the embedded engine."),
]
ProfileOption = Annotated[
    str,
    typer.Option("--profile", help="Named profile: quick (default) or card."),
]
ResumeOption = Annotated[
    MaybePath,
    typer.Option("--resume", help="Finish an interrupted run folder."),
]
RetryFailedOption = Annotated[
    bool,
    typer.Option("--retry-failed", help="With --resume: measure failed and crashed cells again."),
]
DraftCacheOption = Annotated[
    MaybePath,
    typer.Option("--draft-cache", help="Cache folder of the derived draft model."),
]
BenchBaselineOption = Annotated[
    MaybeStr,
    typer.Option("--baseline", help="Config that speedups are measured against."),
]

# --- more axes: own prompts, datasets, context, temperatures, thinking, k ---
WorkloadFileOption = Annotated[
    MaybeNames,
    typer.Option("--workload", help="NAME=FILE: your own prompts (JSONL or text)."),
]
DatasetOption = Annotated[
    MaybeNames,
    typer.Option(
        "--dataset",
        help="speed-bench[:CONFIG], spec-bench, mt-bench, blazedit[:5k|10k], instructcoder (+ @REVISION): a workload"
        " per category.",
    ),
]
DatasetPathOption = Annotated[
    MaybeStr,
    typer.Option("--dataset-path", help="Local parquet/JSONL file or folder of --dataset."),
]
DropBadRowsOption = Annotated[
    bool,
    typer.Option("--drop-bad-rows", help="Run without dataset rows that are not workloads (recorded with reasons)."),
]
ContextOption = Annotated[
    MaybeStr,
    typer.Option("--context", help="Input lengths in tokens, e.g. 2k,8k."),
]
TemperaturesOption = Annotated[
    MaybeStr,
    typer.Option("--temperatures", help="Temperature axis, e.g. 0,0.6,1.0."),
]
ThinkingOption = Annotated[
    MaybeStr,
    typer.Option("--thinking", help="off (default), on or both."),
]
KOption = Annotated[
    MaybeStr,
    typer.Option("--k", help="Draft lengths, e.g. 1,2,4: each speculative config runs once per k (NAME-kK)."),
]

# --- controls and cell order ---
AAOption = Annotated[
    MaybeBool,
    typer.Option("--aa/--no-aa", help="Add the A/A control BASELINE-again (noise floor); on in quick."),
]
OrderOption = Annotated[
    MaybeStr,
    typer.Option("--order", help="Cell order: auto (default), interleaved, or blocks (ABC, CBA... with sentinels)."),
]
TargetCiOption = Annotated[
    MaybeFloat,
    typer.Option("--target-ci", help="Adaptive repeats: relative half-width of the speedup interval to reach."),
]
MinRepeatsOption = Annotated[
    MaybeInt,
    typer.Option("--min-repeats", help="Adaptive: rounds of every cell."),
]
MaxRepeatsOption = Annotated[
    MaybeInt,
    typer.Option("--max-repeats", help="Adaptive: most rounds of a cell."),
]
ParallelConfigsOption = Annotated[
    bool,
    typer.Option("--parallel-configs", help="Run different configs' cells at the same time."),
]

# --- what the servers say: logs, /metrics, Prometheus ---
ServerLogOption = Annotated[
    MaybeNames,
    typer.Option("--server-log", help="NAME=FILE: the captured log of --server NAME (KV table, signatures)."),
]
MetricsOption = Annotated[
    MaybeNames,
    typer.Option("--metrics", help="NAME=URL: a replica's /metrics for config NAME (repeat per replica)."),
]
PrometheusOption = Annotated[
    MaybeStr,
    typer.Option("--prometheus", help="Read every config's counters from this Prometheus server (its root URL)."),
]
PrometheusSelectorOption = Annotated[
    MaybeNames,
    typer.Option("--prometheus-selector", help='NAME=SELECTOR: the series of config NAME (default {job="NAME"}).'),
]

# --- open-loop traffic and goodput ---
RatesOption = Annotated[
    MaybeStr,
    typer.Option("--rates", help="Open-loop request rates per second, comma-separated (instead of --levels)."),
]
ArrivalOption = Annotated[
    MaybeStr,
    typer.Option("--arrival", help="Open-loop arrivals: poisson (default) or constant."),
]
TraceOption = Annotated[
    MaybeStr,
    typer.Option("--trace", help="Replay a request trace on its own clock (JSONL: specscope, Mooncake; Azure CSV)."),
]
TraceScaleOption = Annotated[
    MaybeFloat,
    typer.Option("--trace-scale", help="Multiply the trace's arrival offsets (0.5 = twice as fast)."),
]
TraceRowsOption = Annotated[
    MaybeInt,
    typer.Option("--trace-rows", help="Replay only the trace's first N arrivals."),
]
SloOption = Annotated[
    MaybeStr,
    typer.Option("--slo", help="Goodput targets, e.g. ttft=2s,tpot=50ms."),
]

# --- the client's limits ---
ReadTimeoutOption = Annotated[
    MaybeFloat,
    typer.Option("--read-timeout", help="Seconds to wait for a response's first byte."),
]
StallTimeoutOption = Annotated[
    MaybeFloat,
    typer.Option(
        "--stall-timeout",
        help="Seconds of silence mid-stream before the stream fails STALLED. Budgets per stream (always on): past"
        " max tokens + max(64, 25%) token events, 256 MiB, or a 4 MiB unfinished SSE event, it fails RUNAWAY.",
    ),
]
BusyPollOption = Annotated[
    bool | None,
    typer.Option(
        "--busy-poll/--no-busy-poll",
        help="Keep the client polling while streams run (one core per client process): no ms-late wake-ups on a VM."
        " Default off; with --resume, the run's own.",
        show_default=False,
    ),
]
CrashTrialsOption = Annotated[
    int | None,
    typer.Option("--crash-trials", help="After a launched server dies: restart it, rerun that level T times."),
]
ApiKeyOption = Annotated[
    MaybeStr,
    typer.Option("--api-key", envvar="OPENAI_API_KEY", show_envvar=True, help="Bearer token (never stored)."),
]

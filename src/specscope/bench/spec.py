"""The options of ``specscope bench``, declared once: every flag, its group, its kind of value, where it goes.

One :class:`Opt` per option in :data:`BENCH_SPEC`. From it come: the typer flags with their help panels
(:mod:`specscope.cli.bench`), the parse and validation of every value, whether typed on the command line, read
from a TOML run file (``--run-file``) or repeated from a stored run (``--like``) (:mod:`specscope.bench.runfile`),
the manifest's record of the options a run was given (``run_options``), and the check that refuses options given
with ``--resume`` that differ from the run's (:func:`specscope.bench.resume.check_resume_options`).

Adding an option is one entry here plus its use: ``field`` names the :class:`~specscope.config.BenchOptions`
field it sets one to one (or ``client`` a :class:`~specscope.client.settings.ClientSettings` field); an option
that is neither is read where it is used (:func:`specscope.bench.setup.bench_setup`) and the resume check
compares it with the run's record.

Kinds of value (each read by the one parser of :mod:`specscope.values`): ``switch`` (bool), ``int``, ``float``,
``text``, ``choice``, ``path``, ``names`` (comma-separated or repeated), ``ints``, ``floats``, ``rates`` (per
second), ``tokens`` (``2k`` = 2048) and ``token`` (one such count, within ``bounds``), ``duration`` (seconds),
``fraction`` (``0.05`` or ``5%``), ``width`` (text characters), ``pairs`` (NAME=VALUE, each value read by ``read``),
``items`` (repeatable text items such as ``NAME=URL``, kept as typed and read where used). A list kind takes a list,
or one text item that is comma-separated; any other value (a number where a list is expected:
``max-concurrency = 1`` in a run file) is refused naming the list it should be.

How options combine is declared here too (:func:`check_combinations`): ``needs`` (``--dataset-path`` needs
``--dataset``, ``--retry-failed`` needs ``--resume``) and ``excludes`` (``--request-rate`` is an open loop, so it
excludes ``--max-concurrency``; ``--trace`` replays its own load): an option that would be silently ignored is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from specscope.adapters.openai.endpoints import ENDPOINTS
from specscope.config import MAX_LEVEL, MAX_MAX_TOKENS, PROFILES, BenchOptions
from specscope.errors import ConfigError
from specscope.kaxis import K_MAX
from specscope.stats.goodput import SLO_NAMES
from specscope.stats.verdict import DEFAULT_MIN_EFFECT, min_effect_of
from specscope.values import (
    TIMEOUT_BOUNDS_S,
    ascii_number,
    csv_items,
    empty_path_error,
    parse_duration_s,
    parse_float_list,
    parse_fraction,
    parse_int_list,
    parse_pairs,
    parse_rate_list,
    parse_slo_s,
    parse_token_count,
    parse_width,
    stray_character,
)

__all__ = ["BENCH_SPEC", "GROUPS", "LIST_KINDS", "Opt", "by_flag", "by_name", "check_combinations", "excluded_by"]

Group = Literal["matrix", "servers", "load", "client", "statistics", "output", "resume"]
Kind = Literal[
    "switch", "int", "float", "text", "choice", "path", "names", "ints", "floats", "rates", "tokens", "duration"
]
Kind_ = Kind | Literal["pairs", "items", "fraction", "width", "token"]
#: kinds whose value is a list (a run file writes ``[1, 2]``; the command line ``1,2`` or the option repeated).
LIST_KINDS = frozenset({"names", "ints", "floats", "rates", "tokens", "items"})
Resume = Literal["same", "free", "never"]

#: help panel titles, in the order ``bench --help`` shows them.
GROUPS: dict[Group, str] = {
    "matrix": "Matrix: configs x workloads x concurrency x repeats",
    "servers": "Servers: who serves the configs and where their counters are",
    "load": "Load: what is sent",
    "client": "Client: limits and mode",
    "statistics": "Statistics: controls, order, adaptive repeats",
    "output": "Output",
    "resume": "Resume and repeat",
}


@dataclass(frozen=True)
class Opt:
    """One option of ``bench``.

    Attributes:
        name: the Python name, the key in a run file (dashes or underscores) and in the manifest's ``run_options``.
        group: its help panel (:data:`GROUPS`).
        kind: how its value is read (module doc).
        help: one line for ``--help``.
        metavar: the value's placeholder in ``--help`` (``N,N``, ``DURATION``).
        field: the :class:`~specscope.config.BenchOptions` field it sets one to one (None: used elsewhere).
        client: the :class:`~specscope.client.settings.ClientSettings` field it sets (manifest ``client``).
        default: the value when not given (None: the profile or the command decides).
        choices: the values a ``choice`` takes.
        short: a short flag (``-f``).
        negative: a switch's ``--no-...`` form exists (not given: None, so the run's own value applies).
        resume: with ``--resume``: ``same`` (must equal the run's), ``free`` (may differ: limits, output), ``never``.
        record: kept in the manifest's ``run_options`` and accepted in a run file (False: secrets, output, resume).
        in_file: accepted in a run file although not recorded (``server_log``: a file of this machine, not a
            setting a later run repeats); None: as ``record`` (and the output options).
        needs: options this one is read only with (``dataset_path`` needs ``dataset``): refused without them.
        excludes: options this one cannot be given with (either way round): refused together.
        aliases: old flags, hidden, each printing one deprecation line (:mod:`specscope.cli.vocab`).
        envvar: environment variable read when the flag is not given.
        read: for ``pairs``: the parser of each value; ``names``: the NAMEs allowed.
        bounds: for ``ints``: the (lowest, highest) number the option takes, named when an item is no number; for
            ``token``: the (lowest, highest) count.
        effective: the value a stored run has in force, from its options (default ``getattr(options, field)``).
    """

    name: str
    group: Group
    kind: Kind_
    help: str
    metavar: str = ""
    field: str | None = None
    client: str | None = None
    default: Any = None
    choices: tuple[str, ...] = ()
    short: str = ""
    negative: bool = False
    resume: Resume = "same"
    record: bool = True
    aliases: tuple[str, ...] = ()
    envvar: str | None = None
    read: Callable[[str], Any] | None = None
    names: tuple[str, ...] | None = None
    bounds: tuple[int, int] | None = None
    effective: Callable[[BenchOptions], Any] | None = None
    in_file: bool | None = None
    needs: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    @property
    def file_key(self) -> str:
        """The run-file key: the flag without its dashes (``max-concurrency``)."""
        return self.flag[2:]

    def in_run_file(self) -> bool:
        """Whether a run file may set this option (recorded ones, the output ones, and ``in_file`` ones)."""
        return self.in_file if self.in_file is not None else (self.record or self.group == "output")

    @property
    def flag(self) -> str:
        """``--max-concurrency`` for ``max_concurrency``."""
        return "--" + self.name.replace("_", "-")

    def parse(self, value: Any) -> Any:
        """``value`` (command-line text, a TOML value, or a stored record) in this option's canonical form: what
        a run file holds and the manifest records (JSON: lists, dicts, str, int, float, bool).

        Raises:
            ConfigError: a value this kind does not take (found / expected / fix).
        """
        flag, kind = self.flag, self.kind
        if kind in LIST_KINDS and not _list_shaped(value):
            raise ConfigError(
                f"{flag} takes a list",
                found=f"{type(value).__name__} {value!r}",
                expected=f"a list ({self.file_key} = [{_example_item(self)}] in a run file) or comma-separated text",
                fix=f"write it as a list: {self.file_key} = [{_toml_item(value, self)}]",
            )
        text_items = isinstance(value, list | tuple) and all(isinstance(x, str) for x in value)
        if kind == "pairs" and not (isinstance(value, str | Mapping) or text_items):
            raise ConfigError(
                f"{flag} takes NAME=VALUE items",
                found=f"{type(value).__name__} {value!r}",
                expected=f"a table ({self.file_key} = {{ {_example_pair(self)} }} in a run file) or NAME=VALUE text",
                fix=f"write it as a table: {self.file_key} = {{ {_example_pair(self)} }}",
            )
        if kind == "switch":
            if not isinstance(value, bool):
                raise ConfigError(f"{flag} is a switch", found=value, expected="true or false", fix=f"{flag} = true")
            return value
        if kind in ("int", "float"):
            return _number(value, flag, int if kind == "int" else float)
        if kind in ("text", "path", "choice"):
            if kind == "path" and value == "":
                raise empty_path_error(flag, f"{flag} {self.metavar.lower() if self.metavar else 'path'}")
            if not isinstance(value, str) or not value.strip():
                raise self._empty(flag, repr(value))
            if kind == "choice" and value not in self.choices:
                raise ConfigError.invalid_value(flag, value, f"one of {', '.join(self.choices)}", choices=self.choices)
            return value
        example = (self.metavar or "A,B").lower()
        if kind == "names":
            items = [value] if isinstance(value, str) else list(value)
            return [n for item in items for n in csv_items(str(item), flag, example)]
        if kind == "ints":
            return list(parse_int_list(value, flag, bounds=self.bounds))
        if kind == "floats":
            return list(parse_float_list(value, flag))
        if kind == "rates":
            return list(parse_rate_list(value, flag))
        if kind == "tokens":
            from specscope.workload.context import parse_context

            items = csv_items(value, flag, "2k,8k") if isinstance(value, str) else list(value)
            return [parse_context(str(x)) for x in items]
        if kind == "token":
            return parse_token_count(value, flag, self.bounds or (1, MAX_MAX_TOKENS))
        if kind == "duration":
            return parse_duration_s(value, flag, bounds=TIMEOUT_BOUNDS_S)  # every duration option is a timeout
        if kind == "fraction":
            return parse_fraction(value, flag, example="0.02")
        if kind == "width":
            return parse_width(value, flag)
        if kind == "pairs":
            return parse_pairs(value, flag, self.help.rpartition("e.g. ")[2].rstrip("."), self.read, names=self.names)
        items = [value] if isinstance(value, str) else list(value)
        if not all(isinstance(x, str) for x in items):  # a run file's number where text belongs
            fix = f'write each item as quoted text, e.g. "{self.metavar}"'
            raise ConfigError(f"{flag} takes text items", found=value, expected=self.metavar, fix=fix)
        if not all(x.strip() for x in items):
            raise self._empty(flag, value)
        return items

    def _empty(self, flag: str, found: Any) -> ConfigError:
        """An empty (or non-text) value of a text option; the flag is never followed by a word, so a secret's mask
        (``--api-key VALUE``) cannot eat the message."""
        return ConfigError(
            f"an empty value for {flag}",
            found=found,
            expected=self.metavar or "text",
            fix=f"give a value after {flag}, or leave the option out",
        )

    def in_force(self, options: BenchOptions) -> Any:
        """The value a run's stored options have in force for this option (comparable with :meth:`normal`)."""
        if self.effective is not None:
            return self.effective(options)
        value = getattr(options, self.field or "")
        return list(value) if isinstance(value, tuple) else value

    def normal(self, value: Any, stored: Mapping[str, Any]) -> Any:
        """A canonical ``value`` as the run's options would hold it (``--max-concurrency 2,1`` -> ``[1, 2]``)."""
        if self.field is None:
            return value
        try:
            return self.in_force(BenchOptions(**{**stored, self.field: value}))
        except (ValueError, TypeError):
            return value


def _list_shaped(value: Any) -> bool:
    """A list (or tuple) of scalar items, or one text: what a list option takes."""
    if isinstance(value, str):
        return True
    if not isinstance(value, list | tuple):
        return False
    return all(isinstance(x, str | int | float) for x in value)


def _example_item(opt: Opt) -> str:
    """One item of ``opt``'s list as a run file writes it: ``1`` for numbers, ``"NAME=URL"`` for text."""
    first = (opt.metavar or "A,B").split(",")[0]
    return first if opt.kind in ("ints", "floats", "rates", "tokens") else f'"{first}"'


def _toml_item(value: Any, opt: Opt) -> str:
    """``value`` as one item of ``opt``'s list in a run file (the found scalar, else the example)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return _example_item(opt)
    return str(value) if opt.kind in ("ints", "floats", "rates", "tokens") else f'"{value}"'


def _example_pair(opt: Opt) -> str:
    """``ttft = "2s"``: one NAME = VALUE of a ``pairs`` option (from its help's ``e.g.``)."""
    first = opt.help.rpartition("e.g. ")[2].rstrip(".").split(",")[0]
    name, _, value = first.partition("=")
    return f'{name} = "{value}"'


def _number(value: Any, flag: str, kind: type[int] | type[float]) -> int | float:
    try:
        if isinstance(value, bool) or (kind is int and isinstance(value, float)):
            raise ValueError
        return kind(ascii_number(value) if isinstance(value, str) else value)
    except (TypeError, ValueError):
        what = "a whole number" if kind is int else "a number"
        found = stray_character(value) if isinstance(value, str) else value
        raise ConfigError(f"{flag} takes {what}", found=found, expected=what, fix=f"e.g. {flag} 2") from None


def _slo_in_force(o: BenchOptions) -> dict[str, float]:
    return {k: v for k, v in (("ttft", o.slo_ttft_s), ("tpot", o.slo_tpot_s)) if v is not None}


_PROFILES = tuple(PROFILES)

#: every option of ``bench``, in help order within each group.
BENCH_SPEC: tuple[Opt, ...] = (
    # --- matrix ---
    Opt(
        "profile",
        "matrix",
        "choice",
        "Named profile filling what is not given: quick (default) or card.",
        "NAME",
        default="quick",
        choices=_PROFILES,
    ),
    Opt(
        "configs",
        "matrix",
        "names",
        "Configs to compare, comma-separated or repeated (embedded: base, ngram, "
        "draft, draft-ngram, self-draft, synth, or a speculative one at draft length K as NAME-kK, e.g. ngram-k8; "
        "vllm: recipe names).",
        "A,B",
        aliases=("--config",),
        effective=lambda o: list(o.configs),
    ),
    Opt(
        "workloads",
        "matrix",
        "names",
        "Workload packs: prose, code, edit, edit-prefill (edit with the answer's code fence pre-filled), repeat "
        "(a line written out again and again: the best case of n-gram drafting).",
        "A,B",
        effective=lambda o: list(o.workloads),
    ),
    Opt(
        "max_concurrency",
        "matrix",
        "ints",
        "Concurrency levels (streams started at once per cell), e.g. 1,2,4.",
        "N,N",
        field="levels",
        aliases=("--levels",),
        bounds=(1, MAX_LEVEL),
    ),
    Opt(
        "repeats", "matrix", "int", "Rounds of the whole matrix, each in a fresh shuffled order.", "N", field="repeats"
    ),
    Opt(
        "max_tokens",
        "matrix",
        "token",
        "max_tokens of each request (2k = 2048).",
        "N",
        field="max_tokens",
        bounds=(1, MAX_MAX_TOKENS),
    ),
    Opt(
        "k",
        "matrix",
        "ints",
        "Draft lengths: each speculative config runs once per k, as NAME-kK.",
        "K,K",
        bounds=(1, K_MAX),
    ),
    Opt(
        "baseline",
        "matrix",
        "text",
        "The config speedups are measured against (default: base, else the first config whose name contains base, "
        "else the first config).",
        "NAME",
        field="baseline",
        effective=BenchOptions.baseline_config,
    ),
    # --- servers ---
    Opt(
        "launch",
        "servers",
        "choice",
        "Who serves the configs when no --server is given: embedded (llama.cpp, "
        "the default) or vllm (recipes, one at a time).",
        "KIND",
        default="embedded",
        choices=("embedded", "vllm"),
    ),
    Opt("server", "servers", "items", "A server you started: NAME=URL or URL (repeat per config).", "NAME=URL"),
    Opt("recipes", "servers", "path", "vLLM recipes TOML file (default: the shipped one).", "FILE"),
    Opt("threads", "servers", "int", "Compute threads of the embedded engine.", "N", field="threads"),
    Opt(
        "start_timeout",
        "servers",
        "duration",
        "Longest wait for a launched server's /health, e.g. 15m (default: 2m for the embedded engine, 15m for "
        "a recipe).",
        "DURATION",
        resume="free",
    ),
    Opt(
        "draft_cache",
        "servers",
        "path",
        "Cache folder of the embedded engine's derived draft model.",
        "DIR",
        resume="free",
    ),
    Opt(
        "no_preflight",
        "servers",
        "switch",
        "Launch vLLM recipes without auditing their model and draft first.",
        resume="free",
    ),
    Opt("metrics", "servers", "items", "A replica's /metrics for config NAME (repeat per replica).", "NAME=URL"),
    Opt(
        "prometheus",
        "servers",
        "text",
        "Read every config's counters from this Prometheus server (root URL).",
        "URL",
        field="prometheus",
    ),
    Opt(
        "prometheus_selector", "servers", "items", 'The series of config NAME (default {job="NAME"}).', "NAME=SELECTOR"
    ),
    Opt(
        "server_log",
        "servers",
        "items",
        "The captured log of --server NAME (KV table, failure signatures).",
        "NAME=FILE",
        resume="free",
        record=False,
        in_file=True,
    ),
    # --- load ---
    Opt(
        "workload",
        "load",
        "items",
        "A workload (NAME=FILE of your own prompts: JSONL with messages, conversations or prompt, or text lines; "
        "a bare FILE is named by its file name without suffixes).",
        "[NAME=]FILE",
    ),
    Opt(
        "dataset",
        "load",
        "items",
        "speed-bench[:CONFIG], spec-bench, mt-bench, blazedit[:5k|10k], instructcoder (+ @REVISION): a workload per "
        "category.",
        "NAME",
    ),
    Opt("dataset_path", "load", "path", "Local parquet/JSONL file or folder of --dataset.", "PATH", needs=("dataset",)),
    Opt(
        "sample_rows",
        "load",
        "int",
        "Send N rows of each --workload file / --dataset category per repeat (default: every row once).",
        "N",
        field="sample_rows",
    ),
    Opt(
        "drop_bad_rows",
        "load",
        "switch",
        "Run without dataset and --workload file rows that are not workloads (recorded with reasons).",
    ),
    Opt(
        "dry_run",
        "load",
        "switch",
        "Print the plan and write nothing (the workloads read as a run reads them: each one's layout with its "
        "census source, row count and first rows' messages and output lengths; no server started or contacted).",
        resume="free",
        record=False,
        excludes=("resume", "trace", "print_run_file"),
    ),
    Opt(
        "trace",
        "load",
        "path",
        "Replay a request trace on its own clock (JSONL: specscope, Mooncake; CSV: Azure, BurstGPT; .gz too); "
        "its rows are the load (not with --max-concurrency, --request-rate, --workloads, --workload, --dataset).",
        "FILE",
        excludes=("max_concurrency", "request_rate", "workloads", "workload", "dataset"),
    ),
    Opt(
        "trace_scale",
        "load",
        "float",
        "Multiply the trace's arrival offsets (0.5 = twice as fast).",
        "X",
        needs=("trace",),
    ),
    Opt("trace_rows", "load", "int", "Replay only the trace's first N arrivals.", "N", needs=("trace",)),
    Opt(
        "context_tokens",
        "load",
        "tokens",
        "Input lengths each prompt is extended to, tokens (2k = 2048).",
        "N,N",
        field="contexts",
        aliases=("--context",),
    ),
    Opt("temperature", "load", "float", "Sampling temperature of every request.", "T", field="temperature"),
    Opt("temperatures", "load", "floats", "Temperature as an axis, e.g. 0,0.6,1.0.", "T,T", field="temperatures"),
    Opt(
        "thinking",
        "load",
        "choice",
        "Chat template enable_thinking: off (default), on or both.",
        "MODE",
        field="thinking",
        choices=("off", "on", "both"),
    ),
    Opt(
        "edit_form",
        "load",
        "choice",
        "The edit pack's form: prefill (default) or plain.",
        "FORM",
        field="edit_form",
        choices=("prefill", "plain"),
    ),
    Opt("seed", "load", "int", "Seed of prompt schedules, arrivals and shuffles.", "N", field="seed"),
    Opt(
        "request_rate",
        "load",
        "rates",
        "Open-loop request rates per second: requests arrive at R/s however many are in flight (not with "
        "--max-concurrency).",
        "R,R",
        field="rates",
        aliases=("--rates",),
        excludes=("max_concurrency",),
    ),
    Opt(
        "arrival",
        "load",
        "choice",
        "Open-loop arrivals: poisson (default) or constant.",
        "KIND",
        field="arrival",
        choices=("poisson", "constant"),
    ),
    Opt(
        "slo",
        "load",
        "pairs",
        "SLO targets (goodput: TTFT from the scheduled send, time per output token), e.g. ttft=2s,tpot=50ms.",
        "NAME=DURATION",
        read=parse_slo_s,
        names=SLO_NAMES,
        effective=_slo_in_force,
    ),
    Opt(
        "endpoint",
        "load",
        "choice",
        "The API sent to: /v1/chat/completions (default), /v1/completions (base models, as vllm bench serve) or "
        "/v1/responses.",
        "PATH",
        client="endpoint",
        choices=ENDPOINTS,
    ),
    # --- client ---
    Opt(
        "read_timeout",
        "client",
        "duration",
        "Longest wait for a response's first byte (default 10m).",
        "DURATION",
        client="read_timeout_s",
        resume="free",
    ),
    Opt(
        "stall_timeout",
        "client",
        "duration",
        "Silence mid-stream before the stream fails STALLED (every stream also has budgets: RUNAWAY).",
        "DURATION",
        client="stall_timeout_s",
        resume="free",
    ),
    Opt(
        "busy_poll",
        "client",
        "switch",
        "Poll while streams run (one core per client process): no late wake-ups "
        "on a VM. Default off; with --resume, the run's own.",
        client="busy_poll",
        negative=True,
    ),
    Opt(
        "api_key",
        "client",
        "text",
        "Bearer token sent to every server (never stored).",
        "KEY",
        client="api_key",
        resume="free",
        record=False,
        envvar="OPENAI_API_KEY",
    ),
    # --- statistics ---
    Opt(
        "aa",
        "statistics",
        "switch",
        "Add the A/A control BASELINE-again, the noise floor (on in quick).",
        field="aa",
        negative=True,
    ),
    Opt(
        "order",
        "statistics",
        "choice",
        "Cell order: auto (default), interleaved, or blocks (ABC, CBA ... with sentinels).",
        "ORDER",
        field="order",
        choices=("auto", "interleaved", "blocks"),
    ),
    Opt(
        "parallel_configs",
        "statistics",
        "switch",
        "Run different configs' cells at the same time.",
        field="parallel_configs",
    ),
    Opt(
        "target_ci",
        "statistics",
        "float",
        "Adaptive repeats (e.g. 0.05): a comparison gets more rounds, up to --max-repeats, until the report's verdict "
        "decides it (faster, slower, equivalent, not engaged) or its speedup interval is within +-F (sqrt(high / low) "
        "- 1) and inside 1 +- 2 x --min-effect, or --max-repeats rounds could not decide it (after 3 rounds). "
        "A decided verdict stops it even when its interval is wider than F; for a set precision everywhere use "
        "--repeats.",
        "F",
        field="target_ci",
    ),
    Opt(
        "min_repeats",
        "statistics",
        "int",
        "Adaptive: rounds every cell gets (with --target-ci).",
        "N",
        field="min_repeats",
        needs=("target_ci",),
    ),
    Opt(
        "max_repeats",
        "statistics",
        "int",
        "Adaptive: most rounds of a cell (with --target-ci).",
        "N",
        field="max_repeats",
        needs=("target_ci",),
    ),
    Opt(
        "min_effect",
        "statistics",
        "fraction",
        "Minimum practical effect, a fraction or a percentage: a win or loss smaller than this is equivalent "
        f"(default {DEFAULT_MIN_EFFECT:g} = {DEFAULT_MIN_EFFECT:.0%}).",
        "F",
        field="min_effect",
        effective=lambda o: min_effect_of(None, o.min_effect),  # unset: the judging rule's default, in force
    ),
    Opt(
        "crash_trials",
        "statistics",
        "int",
        "After a launched server dies: restart it and rerun that level T times.",
        "T",
        field="crash_trials",
    ),
    # --- output ---
    Opt(
        "out",
        "output",
        "path",
        "The folder written (a new run folder inside it).",
        "DIR",
        default="runs",
        resume="free",
        record=False,
    ),
    Opt(
        "format",
        "output",
        "choice",
        "Output format (the report's: text, markdown, json or html).",
        "FORMAT",
        default="text",
        choices=("text", "markdown", "json", "html"),
        short="-f",
        resume="free",
        record=False,
    ),
    Opt(
        "output",
        "output",
        "path",
        "Write to FILE (the report; format from its suffix unless -f).",
        "FILE",
        short="-o",
        resume="free",
        record=False,
    ),
    Opt(
        "width",
        "output",
        "width",
        "Width of text tables, characters, 40 to 1000 (default: the terminal's, else 120).",
        "N",
        resume="free",
        record=False,
    ),
    # --- resume and repeat ---
    Opt(
        "resume",
        "resume",
        "path",
        "Finish an interrupted run folder (its own options).",
        "RUN",
        resume="free",
        record=False,
    ),
    Opt(
        "retry_failed",
        "resume",
        "switch",
        "With --resume: measure failed and crashed cells again.",
        resume="free",
        record=False,
        needs=("resume",),
    ),
    Opt(
        "like",
        "resume",
        "path",
        "Repeat a stored run's options (any option given here overrides).",
        "RUN",
        resume="never",
        record=False,
    ),
    Opt(
        "run_file",
        "resume",
        "path",
        "Take options from a TOML file (keys: the option names).",
        "FILE",
        resume="free",
        record=False,
    ),
    Opt(
        "print_run_file",
        "resume",
        "switch",
        "Print the options as a run file and exit (nothing runs).",
        resume="free",
        record=False,
    ),
)


def by_name(spec: tuple[Opt, ...] = BENCH_SPEC) -> dict[str, Opt]:
    """name -> option."""
    return {o.name: o for o in spec}


def by_flag(spec: tuple[Opt, ...] = BENCH_SPEC) -> dict[str, Opt]:
    """``--max-concurrency`` (and ``max-concurrency``, ``max_concurrency``) -> option."""
    out: dict[str, Opt] = {}
    for o in spec:
        out[o.flag] = out[o.flag[2:]] = out[o.name] = o
    return out


def excluded_by(name: str, spec: tuple[Opt, ...] = BENCH_SPEC) -> set[str]:
    """The options that cannot be given with ``name``: its ``excludes`` and those that exclude it."""
    mine = next((set(o.excludes) for o in spec if o.name == name), set())
    return mine | {o.name for o in spec if name in o.excludes}


def _given(value: Any) -> bool:
    return value is not None and value is not False and value != [] and value != {}


def check_combinations(values: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> None:
    """Refuse options that would be silently ignored: one given without an option it ``needs``, or two that
    exclude each other (``values``: canonical values by name, None / False / empty: not given).

    Raises:
        ConfigError: the first such option (found / expected / fix name the flags).
    """
    opts = by_name(spec)
    given = [o for o in spec if _given(values.get(o.name))]
    for o in given:
        missing = [opts[n] for n in o.needs if not _given(values.get(n))]
        if missing:
            need = missing[0]
            raise ConfigError(
                f"{o.flag} is read only with {need.flag}",
                found=f"{_typed(o, values[o.name])} without {need.flag}",
                expected=f"{need.flag} {need.metavar} with {o.flag}".replace("  ", " "),
                fix=f"add {need.flag} {need.metavar}{_choices_hint(need)}, or drop {o.flag}",
            )
    for o in given:
        clash = [opts[n] for n in sorted(excluded_by(o.name, spec)) if n in opts and _given(values.get(n))]
        if clash:
            other = clash[0]
            why = o if other.name in o.excludes else other  # the option that declares the exclusion says why
            raise ConfigError(
                f"{o.flag} and {other.flag} cannot be given together",
                found=f"{_typed(o, values[o.name])} and {_typed(other, values[other.name])}",
                expected=f"either {o.flag} or {other.flag} ({why.flag}: {why.help.rstrip('.')})",
                fix=f"drop {other.flag} (or {o.flag})",
            )


def _choices_hint(opt: Opt) -> str:
    """`` (one of ...)`` for an option whose values are a fixed list (from its help), else ""."""
    if opt.name == "dataset":
        from specscope.workload.dataset_defs import DATASETS

        return f" (one of {', '.join(DATASETS)})"
    if opt.name == "resume":
        return " (the run folder to finish)"
    return ""


def _typed(opt: Opt, value: Any) -> str:
    """An option as typed on the command line: ``--max-concurrency 1,2``, or the flag alone for a switch."""
    return f"{opt.flag} {_show(value)}".rstrip()


def _show(value: Any) -> str:
    """A canonical value as typed on the command line: ``1,2``, ``2`` for 2.0, nothing for a switch."""
    if isinstance(value, list | tuple):
        return ",".join(map(_show, value))
    if isinstance(value, float):
        return f"{value:g}"
    return "" if value is True else str(value)

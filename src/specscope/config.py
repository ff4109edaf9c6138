"""Our own options, validated with pydantic (``extra="forbid"``): the bench run options and named profiles.

Foreign JSON (a model's config.json) never goes through these models; it stays a dict.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from specscope.errors import ConfigError, plain_bound
from specscope.values import csv_items

__all__ = [
    "AA_SUFFIX",
    "SENTINEL_SUFFIX",
    "is_control",
    "check_not_control",
    "same_server_notes",
    "BenchOptions",
    "RunOptions",
    "PROFILES",
    "profile_options",
    "csv_items",  # re-exported: its home is specscope.values
]

AA_SUFFIX = "-again"  # the A/A control of baseline B is the config "B-again"
SENTINEL_SUFFIX = "~sentinel"  # B's sentinel cells at block boundaries (specscope.bench.order)
#: the most streams a cell can start at once: the client's default connection limit
#: (``specscope.client.settings.ClientSettings.connection_limit``), one open connection and so one file descriptor per
#: stream; ``--max-concurrency 100000000`` was accepted by --dry-run and would have failed at the first cell.
MAX_LEVEL = 4096
#: the largest ``max_tokens`` of a request (bench's and gate's --max-tokens): a million, past any model's context.
MAX_MAX_TOKENS = 1_000_000


def is_control(config: str) -> bool:
    """True for a run's controls (the A/A ``B-again`` and the ``B~sentinel`` cells): measured to judge noise and
    drift, never a config to recommend."""
    return config.endswith((AA_SUFFIX, SENTINEL_SUFFIX))


def check_not_control(name: str, flag: str) -> str:
    """``name`` when it is no control's name (:func:`is_control`): a config a user names ``BASE-again`` would be
    judged as the A/A control (noise, never a pick) and share its cells. Returns ``name``.

    Raises:
        ConfigError: ``name`` ends in ``-again`` or ``~sentinel``.
    """
    if not is_control(name):
        return name
    stem = name.removesuffix(AA_SUFFIX).removesuffix(SENTINEL_SUFFIX) or "config"
    raise ConfigError(
        f"the config name {name!r} of {flag} is the name of a control",
        found=name,
        expected=f"a name not ending in {AA_SUFFIX} or {SENTINEL_SUFFIX}: NAME{AA_SUFFIX} is the A/A control of the "
        f"baseline NAME (--aa) and NAME{SENTINEL_SUFFIX} its sentinel cells, judged as noise, never as a config",
        fix=f"rename it, e.g. {flag} {stem}2"
        + (
            f" (the A/A control itself is bench's --aa: it adds {name} on {stem}'s server)"
            if name.endswith(AA_SUFFIX)
            else ""
        ),
    )


def same_server_notes(urls: Mapping[str, str]) -> list[str]:
    """One note per config whose server URL (``{config: base URL}`` of the servers the user started, in the configs'
    order; a trailing ``/`` ignored) is an earlier config's: the two are one server (a port left unchanged), so their
    comparison measures the server against itself. The controls (:func:`is_control`) share the baseline's server by
    design and are not named. Said by ``gate`` before its probes and in the report of a ``bench`` run."""
    seen: dict[str, str] = {}
    notes = []
    for name, raw in urls.items():
        url = raw.rstrip("/")
        if is_control(name):
            continue
        if url in seen:
            notes.append(
                f"{seen[url]} and {name} are the same server ({url}): the comparison shows only whether it repeats "
                "itself, not what speculation changes"
            )
        seen.setdefault(url, name)
    return notes


class BenchOptions(BaseModel):
    """Everything that defines a bench matrix; stored verbatim in the run manifest (``options``).

    Attributes:
        configs: server config names (embedded: ``base``, ``ngram``, ``draft``; external: the names the
            user gave with ``--server NAME=URL``).
        workloads: workload pack names (``prose``, ``code``, ``edit``).
        levels: requested concurrency levels (streams started at once per cell).
        repeats: repeats of the whole matrix; each repeat visits a config's cells in a fresh shuffled order.
        max_tokens: ``max_tokens`` of every request (tokens).
        temperature: sampling temperature of every request.
        seed: seeds the prompt schedule and the shuffles.
        edit_form: ``prefill`` (assistant answer pre-filled with the code fence and the module's first line)
            or ``plain`` (instruction only).
        edit_shortest: use only this many of the edit pack's modules, the shortest (fewest prompt characters; at
            least the highest level); None: all 64. The quick profile's shorter edit file set: its edit cells are
            prefill-bound on the embedded engine (:data:`PROFILES`).
        warmup_max_tokens: ``max_tokens`` of the one warm-up request per cell (tokens).
        threads: compute threads of the embedded engine.
        baseline: the config that speedups are measured against (default: see ``baseline_config``).
        prefix_cache: ``defeat`` (default) asks the server not to serve a prompt from its prefix cache
            (a prompt reused by a later cell or repeat would otherwise get a flattering TTFT); ``allow``
            leaves the server's caching alone. See :func:`specscope.workload.chat_request`.
        metrics: config name -> the ``/metrics`` URLs its counters are read from (``--metrics NAME=URL``, one
            per replica behind a router; summed with per-replica reset detection,
            :mod:`specscope.bench.counters_source`); a config not named here is scraped at its server's URL.
        parallel_configs: run the cells of different configs at the same time (``--parallel-configs``; each
            config on its own server, each server's cells still in its own shuffled order).
        prometheus: a Prometheus server to read every config's counters from (``--prometheus URL``) instead of
            scraping (:mod:`specscope.bench.prometheus_source`).
        prometheus_selectors: config name -> its PromQL label selector (default ``{job="NAME"}``).
        rates: open-loop request rates (requests per second, ``--request-rate``) instead of fixed concurrency; a cell's
            level is then the rate's 1-based position in ``rates`` (:mod:`specscope.bench.openloop_cell`).
        arrival: open-loop arrivals, ``poisson`` (seeded by ``seed``) or ``constant``.
        rate_window_s: the scheduled length of an open-loop cell; it sends ``round(rate x window)`` requests
            (2 to 64); s.
        slo_ttft_s / slo_tpot_s: the goodput targets (``--slo ttft=2s,tpot=50ms``): a request meets them when its
            TTFT from the scheduled send (s) and its time per output token after the first (s) are within.
        workload_files: user workload name -> prompt file (``--workload NAME=FILE``; absolute path).
        datasets: ``--dataset`` specs (``speed-bench:qualitative``); their categories are in ``workloads``.
        dataset_path: local dataset file or folder (``--dataset-path``); None: the hub.
        drop_bad_rows: run without the dataset rows that are not workloads (placeholder or empty text, duplicate
            ids, longer than the model's context) and record each with its reason (``--drop-bad-rows``); False:
            such a row refuses the run before anything is sent.
        trace: a request trace replayed open loop on its own clock (``--trace FILE``, absolute path; formats:
            :mod:`specscope.workload.trace`); the matrix is then configs x the workload ``trace`` x level 1
            (:mod:`specscope.bench.trace_cell`).
        trace_scale: the trace's arrival offsets are multiplied by this (``--trace-scale``; 0.5 = twice as fast).
        trace_rows: replay only the first N arrivals (``--trace-rows``); None: all.
        sample_rows: send N rows of each file or dataset workload per repeat (``--sample-rows``); None: every row
            (:mod:`specscope.workload.rows`).
        contexts: input lengths in tokens each workload is extended to (``--context-tokens``); empty: as written.
        temperatures: temperature axis (``--temperatures``); empty: ``temperature`` for every cell.
        thinking: ``off`` (default), ``on`` or ``both`` (``--thinking``; chat template ``enable_thinking``).
        See :mod:`specscope.bench.workloads` for how these become workload labels.
        aa: add an A/A control, ``BASELINE-again``: a second baseline measured like any config (embedded: a
            second server of the baseline config); its speedup over the baseline is the run's noise floor.
        order: the cell order (:mod:`specscope.bench.order`): ``auto`` interleaves configs when their servers can be
            up together and runs counterbalanced blocks with baseline sentinels when they launch one at a time
            (``--launch vllm``); ``interleaved`` / ``blocks`` force one.
        target_ci: adaptive repeats (None: the fixed design, ``repeats`` rounds): every cell runs
            ``min_repeats`` rounds, then only the comparisons whose verdict is not decided yet get another round, up
            to ``max_repeats``; a precise interval (relative half-width at most ``target_ci``, fraction) close to 1
            also stops (:mod:`specscope.bench.adaptive`).
        min_effect: the minimum practical effect (fraction): faster / slower need an effect beyond it,
            equivalent an interval within 1 +- it (:mod:`specscope.stats.verdict`); None: the judging rule's default
            (``specscope.stats.verdict.DEFAULT_MIN_EFFECT``, its one home), resolved when the run starts. Recorded in
            the manifest so that ``report`` and ``advise`` judge the run as it was judged (they may re-judge with
            ``--min-effect``).
        crash_trials: when a launched server dies during a cell, start it afresh this many times and run that
            cell's level again on each (``--crash-trials``; 0: the config's sweep stops at the crash, as before;
            :mod:`specscope.bench.crash_trials`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    configs: tuple[str, ...] = ("base", "ngram", "draft")
    workloads: tuple[str, ...] = ("prose", "code", "edit")
    levels: tuple[int, ...] = (1, 2)
    repeats: int = Field(2, ge=1, le=100)
    max_tokens: int = Field(96, ge=1, le=MAX_MAX_TOKENS)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    seed: int = Field(0, ge=0, le=2**63 - 1)  # numpy seeds are non-negative
    edit_form: Literal["prefill", "plain"] = "prefill"
    edit_shortest: int | None = Field(None, ge=1, le=64)
    warmup_max_tokens: int = Field(8, ge=1)
    threads: int = Field(1, ge=1, le=256)
    baseline: str | None = None
    prefix_cache: Literal["defeat", "allow"] = "defeat"
    metrics: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    parallel_configs: bool = False
    prometheus: str | None = None
    prometheus_selectors: dict[str, str] = Field(default_factory=dict)
    rates: tuple[float, ...] = ()
    arrival: Literal["poisson", "constant"] = "poisson"
    rate_window_s: float = Field(8.0, gt=0)
    slo_ttft_s: float | None = Field(None, gt=0)
    slo_tpot_s: float | None = Field(None, gt=0)
    workload_files: dict[str, str] = Field(default_factory=dict)
    datasets: tuple[str, ...] = ()
    dataset_path: str | None = None
    drop_bad_rows: bool = False
    trace: str | None = None
    trace_scale: float = Field(1.0, gt=0.0)
    trace_rows: int | None = Field(None, ge=1)
    sample_rows: int | None = Field(None, ge=1)
    contexts: tuple[int, ...] = ()
    temperatures: tuple[float, ...] = ()
    thinking: Literal["off", "on", "both"] = "off"
    aa: bool = False
    order: Literal["auto", "interleaved", "blocks"] = "auto"
    target_ci: float | None = Field(None, gt=0.0, lt=1.0)
    min_repeats: int = Field(2, ge=2, le=100)
    max_repeats: int = Field(6, ge=2, le=100)
    min_effect: float | None = Field(None, ge=0.0, lt=1.0)
    crash_trials: int = Field(0, ge=0, le=20)

    def baseline_config(self) -> str:
        """The no-speculation config speedups are measured against: ``baseline`` if set, else ``base`` if
        present, else the first config whose name contains "base", else the first config."""
        if self.baseline:
            return self.baseline
        if "base" in self.configs:
            return "base"
        return next((c for c in self.configs if "base" in c), self.configs[0])

    @model_validator(mode="before")
    @classmethod
    def _rate_levels(cls, data: Any) -> Any:
        """With ``rates``, the levels are the rates' positions 1..len(rates); with ``trace``, workload ``trace`` at
        level 1. A ``rates`` that is no list is left to the field's validation, which names it."""
        if isinstance(data, dict) and data.get("rates") and isinstance(data["rates"], list | tuple):
            return {**data, "levels": tuple(range(1, len(data["rates"]) + 1))}
        if isinstance(data, dict) and data.get("trace"):  # a trace replay: one workload, its own load
            return {**data, "workloads": ("trace",), "levels": (1,)}
        return data

    @model_validator(mode="after")
    def _repeat_bounds(self) -> BenchOptions:
        if self.min_repeats > self.max_repeats:
            raise ValueError(
                "|".join(  # what | found | expected | fix (profile_options makes the one error line of it)
                    (
                        "--min-repeats is above --max-repeats",
                        f"--min-repeats {self.min_repeats}, --max-repeats {self.max_repeats}",
                        "--min-repeats <= --max-repeats (no round count fits both)",
                        f"pass --max-repeats {self.min_repeats} or more, or --min-repeats {self.max_repeats} or less",
                    )
                )
            )
        return self

    @field_validator("rates")
    @classmethod
    def _rates(cls, v: tuple[float, ...]) -> tuple[float, ...]:
        if any(r <= 0 for r in v) or len(set(v)) != len(v):
            raise ValueError("rates must be distinct positive numbers (requests per second)")
        return v

    @field_validator("temperatures")
    @classmethod
    def _temperatures(cls, v: tuple[float, ...]) -> tuple[float, ...]:
        # --temperature's own bounds; one value twice made two cells of one label (prose@t0 twice)
        if not all(0.0 <= t <= 2.0 for t in v):  # nan fails too
            raise ValueError(f"temperatures must be from 0 to 2 (as --temperature): {list(v)}")
        if len(set(v)) != len(v):
            raise ValueError(f"temperatures repeat: {list(v)}")
        return v

    @field_validator("contexts")
    @classmethod
    def _contexts(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if len(set(v)) != len(v):  # one length twice made two cells of one label (prose@ctx2k twice)
            raise ValueError(f"context lengths repeat: {list(v)}")
        return v

    def run_configs(self) -> tuple[str, ...]:
        """The configs the run measures: ``configs`` plus the A/A control ``BASELINE-again`` with ``aa`` when the run
        compares configs (at least two; a single config has no comparison for the noise floor to judge)."""
        extra = self.baseline_config() + AA_SUFFIX
        wanted = self.aa and len(self.configs) >= 2 and extra not in self.configs
        return self.configs + ((extra,) if wanted else ())

    @field_validator("levels")
    @classmethod
    def _levels(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if not v or any(not 1 <= n <= MAX_LEVEL for n in v):
            raise ValueError(
                f"levels must be whole numbers from 1 to {MAX_LEVEL} (the client's connection limit: one open "
                "connection, one file descriptor, per stream)"
            )
        if len(set(v)) != len(v):  # as a repeated rate or context length: one rule, refused, never silently dropped
            raise ValueError(f"levels repeat: {list(v)} (give each level once)")
        return tuple(sorted(v))

    @field_validator("configs", "workloads")
    @classmethod
    def _names(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("at least one name is needed")
        if len(set(v)) != len(v):
            raise ValueError(f"names repeat: {list(v)}")
        return v


# The named profiles. ``quick`` is the README's first command: base, ngram-k8, draft and the A/A control x prose,
# code, repeat x N=1 x 4 rounds, 48 tokens (exactly 128 for repeat, its own answer length): 48 cells in about 2 min
# 15 s on a quiet 2-core machine (2026-12-07), with one win: n-gram drafting at k = 8 on ``repeat`` (every draft
# accepted) was ``faster``, 1.42x [1.27x, 1.58x], and 1.26x [1.18x, 1.36x] in a fresh clone's ``make bench``. Why
# this shape (benchmarks/RESULTS.md, "The `repeat` pack"): a one-request cell at N=1 moves by 5-10 % between rounds,
# so a verdict needs 3-4 paired rounds, and 4 rounds at N=1,2 took 4 min. At 48 tokens repeat's prefill weighs as much
# as its decode, and the gain (1.05x-1.25x in three runs, one undetermined) did not always clear the noise.
# ``ngram-k8`` rather than llama.cpp's own ngram-mod defaults (drafts of 48-64 tokens), which draft once in a short
# answer. ``edit`` is left out: its ~600-token prompts make its cells prefill-bound on one llama.cpp thread (227 s of
# 487 s of an earlier quick matrix), and nothing wins there; asked for with --workloads, the quick profile sends its 4
# shortest modules (54-58 lines; 4 = the prompts 4 rounds at N=1 use) and warms a server's first edit cell up with the
# 5th-shortest (specscope.bench.workloads). ``card`` is the seed card's shape (ten levels, six repeats, 512 tokens,
# prose, code and every edit module).
@dataclass(frozen=True)
class RunOptions:
    """The bench options a stored run holds (manifest ``options``), as the report and the statistics read them
    (issue 37): each field :class:`BenchOptions` checked when the manifest was read, None when the run did not store
    it (an imported run stores none: its ``max_tokens`` is absent, never the default 96); a stored option this
    version does not know is named in ``unknown``, never read. Units as in :class:`BenchOptions`."""

    configs: tuple[str, ...] | None = None
    levels: tuple[int, ...] | None = None
    repeats: int | None = None
    min_repeats: int | None = None
    max_repeats: int | None = None
    target_ci: float | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    prefix_cache: str | None = None
    rates: tuple[float, ...] | None = None
    trace: str | None = None
    datasets: tuple[str, ...] | None = None
    arrival: str | None = None
    parallel_configs: bool | None = None
    slo_ttft_s: float | None = None
    slo_tpot_s: float | None = None
    min_effect: float | None = None
    unknown: tuple[str, ...] = ()

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any] | None) -> RunOptions:
        """The view of a stored ``options`` object (None: the run stored none).

        Raises:
            pydantic.ValidationError: a field :class:`BenchOptions` knows, of the wrong type or range (a manifest
                read by :func:`specscope.store.manifest.read_manifest` was checked already).
        """
        stored = stored or {}
        options = BenchOptions.model_validate({k: v for k, v in stored.items() if k in BenchOptions.model_fields})
        mine = {f.name for f in dataclasses.fields(cls)} - {"unknown"}
        given = {name: getattr(options, name) for name in mine & options.model_fields_set}
        return cls(**given, unknown=tuple(sorted(k for k in stored if k not in BenchOptions.model_fields)))


PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        "configs": ("base", "ngram-k8", "draft"),
        "aa": True,
        "max_tokens": 48,
        "edit_shortest": 4,
        "workloads": ("prose", "code", "repeat"),
        "levels": (1,),
        "repeats": 4,
    },
    "card": {"levels": (1, 2, 4, 6, 8, 12, 16, 24, 32, 64), "repeats": 6, "max_tokens": 512, "temperature": 0.8},
}


def _as_flag_value(value: Any) -> Any:
    """A value as the user typed it on the command line: ``(0,)`` -> ``0``, ``(1, 2)`` -> ``1,2``."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return value


def profile_options(name: str, flags: Mapping[str, str] | None = None, **overrides: Any) -> BenchOptions:
    """The options of profile ``name`` with ``overrides`` (``None`` values ignored) applied.

    ``flags`` names the command-line flag of a field (``levels`` -> ``--max-concurrency``) for the error.
    ``min_repeats`` / ``max_repeats`` bound adaptive repeats (``target_ci``); that ``min <= max`` is checked once, by
    :class:`BenchOptions`; that they come with ``--target-ci`` is the option spec's rule
    (:func:`specscope.bench.spec.check_combinations`).

    Raises:
        ConfigError: unknown profile or an invalid option value.
    """
    if name not in PROFILES:
        raise ConfigError.invalid_value(
            "--profile", name, f"one of {', '.join(PROFILES)}", choices=PROFILES, fix="e.g. --profile quick"
        )
    values = {**PROFILES[name], **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return BenchOptions(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        msg = plain_bound(str(first["msg"]).removeprefix("Value error, "))
        if not first["loc"]:  # a rule over several options: its message is "what|found|expected|fix"
            what, found, expected, fix = (msg.split("|") + ["", "", ""])[:4]
            raise ConfigError(what, found=found or None, expected=expected or None, fix=fix or None) from None
        where = ".".join(str(p) for p in first["loc"])
        flag = (flags or {}).get(where, "--" + where.split(".")[0].replace("_", "-"))
        given = first.get("input")
        if isinstance(given, float) and not math.isfinite(given):  # nan failed "<= 2" and was told to be "2 or less"
            msg = f"a finite number (not {given}), {msg}"
        fallback = f"`specscope bench --help` says what {flag} takes"
        raise ConfigError.invalid_value(flag, _as_flag_value(first.get("input")), msg, fallback=fallback) from None

"""vLLM's speculative log lines, V1 and V0, read into the engine-neutral :class:`~specscope.adapters.logs.EngineLog`.

Forms, with their sources:

- V1 ``SpecDecoding metrics: Mean acceptance length: 2.31, Accepted throughput: 1.20 tokens/s, Drafted throughput:
  ..., Accepted: 12 tokens, Drafted: 36 tokens, Per-position acceptance rate: 0.583, 0.417, 0.333, Avg Draft
  acceptance rate: 33.3%`` (vllm/v1/spec_decode/metrics.py ``SpecDecodingLogging.log``, 0.8.5 and later): one window
  per logging interval, counts of that window only. vLLM main adds ``Rejected: N tokens, Effective tokens/forward: X``.
  0.8.0-0.8.4 printed ``SpecDecoding metrics: Draft acceptance rate: 0.0%, Accepted: 0 tokens, Drafted: 3000 tokens``
  (the shape vllm PR #15902 replaced): no mean length, hence no verify-step count unless k divides the drafted count.
  Before PR #15902, V1's first logger (vllm PR #15151, ``SpecDecodingMetrics.log``, reset after each line) printed
  ``Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66, Number of draft tokens: 66, ``
  (PR #15902's "BEFORE"): V0's words, but one interval's counts, no ``Number of emitted tokens`` and no ``System
  efficiency``; read as a V1 window, never differenced as V0's totals.
- V0 ``Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3,
  Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 10616.`` (vllm/engine/
  metrics.py ``_format_spec_decode_metrics_str``, 0.6.x); 0.4.x-0.5.x spelled the last two ``Number of draft tokens
  tokens: N`` and ``Number of emitted tokens tokens: N`` (the same file at v0.5.0). The counts are totals since the
  engine started (vllm/spec_decode/metrics.py ``AsyncMetricsCollector``; issues #9539, #7301): consecutive lines are
  differenced, a count that goes down is a restart (that line counts from zero). V0 drafts k tokens per verify step
  (``_get_max_num_emitted_tokens``: draft tokens / k sequences), so verify steps = Δdrafted / k; V0's "accepted" is
  every position whose draft matched (``accepted.sum()`` in the rejection sampler, a position after a rejected one
  included), which V1 does not count; emitted = the accepted prefix + one token per step. So the V1-comparable
  accepted count is Δemitted - steps, and the acceptance length Δemitted / steps.
- The engine of a V1 window: the line itself names none, but ``LoggingStatLogger.log`` (vllm/v1/metrics/loggers.py
  @ 005a810b) prints each engine's ``Engine 002: Avg prompt throughput: ...`` line and then, with the same logger,
  that engine's ``SpecDecoding metrics`` line. So a window belongs to the last ``Engine NNN:`` line of its own process
  (the ``(APIServer pid=N)`` prefix: several API servers interleave their lines, vllm-ascend issue #12521); a window
  with no such line before it has no engine. Data-parallel engines each have their own drafter and counts, so each is
  pooled on its own as well (``EngineLog.ranks_are_engines``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.declare import Detail
from specscope.adapters.logs import (
    FIXED,
    EngineLog,
    LineFact,
    LogField,
    LogForm,
    LogSpecStat,
    count,
    fixed,
    fixed_or_nan,
    line_facts,
    line_unreadable,
    part_unreadable,
    steps_in_length,
)
from specscope.adapters.vllm.log_unread import OTHER_OUTPUTS, UnreadText

__all__ = [
    "LOG_DETAILS",
    "FORMS",
    "LOG_FIELDS",
    "OTHER_OUTPUTS",
    "SpecCumulativeSample",
    "SpecDecodingSample",
    "read_log",
    "spec_cumulative_sample",
    "RE_ENGINE_START",
    "spec_decoding_sample",
    "v0_differences",
    "window_steps",
]

_V1_SOURCE = "vllm/v1/spec_decode/metrics.py"
_LOADER = "vllm/model_executor/model_loader/base_loader.py"
_WORKER = "vllm/v1/worker/gpu_worker.py"
_KV_UTILS = "vllm/v1/core/kv_cache_utils.py"
_V0_EXECUTOR = "vllm/executor/distributed_gpu_executor.py"
_API_UTILS = "vllm/entrypoints/serve/utils/api_utils.py"
_V0_SOURCE = "vllm/engine/metrics.py"
V1 = "v1 SpecDecoding metrics"
V0 = "v0 Speculative metrics"
STARTUP = "start-up, KV-cache, config and stats lines"  # read by adapters/vllm/log_facts.py into VllmLogFacts
# command-level tests of the rows marked read (tests/test_engines_doc.py checks each)
_TEST_0 = "tests/launch/test_engine_logs.py::test_vllm_v1_windows_pool_the_same_through_the_adapter"
_TEST_1 = "tests/launch/test_engine_logs.py::test_vllm_v0_restart_counts_from_zero_and_is_said"
_TEST_2 = "tests/launch/test_cli_serve.py::test_parse_log_json_and_exit_codes"
_TEST_3 = "tests/launch/test_engine_logs.py::test_a_vllm_log_written_by_its_json_formatter_is_read_as_its_text_form"
_TEST_4 = "tests/launch/test_log_counts_checked.py::test_v1_rejected_count_is_cross_checked"
_TEST_5 = "tests/launch/test_log_public_threads4.py::test_v1_first_speculative_metrics_lines_are_windows_not_v0_totals"
_TEST_6 = "tests/launch/test_log_public_threads4.py::test_weights_of_0_7_printed_in_gb_are_read_as_the_gib_they_are"
_TEST_7 = "tests/launch/test_engine_logs.py::test_vllm_v0_gives_the_acceptance_length_and_a_v1_comparable_rate"
_TEST_8 = "tests/launch/test_engine_logs.py::test_vllm_v0_tokens_tokens_spelling_is_read_and_alarms"
FORMS: tuple[LogForm, ...] = (
    LogForm(
        "vllm",
        V1,
        "SpecDecoding metrics: Mean acceptance length: ..., Accepted: N tokens",
        _V1_SOURCE,
        "0.8.0",
        test=_TEST_0,
    ),
    LogForm(
        "vllm",
        V0,
        "Speculative metrics: Draft acceptance rate: ..., Number of draft tokens",
        _V0_SOURCE,
        "0.4.1",
        test=_TEST_1,
    ),
    LogForm(
        "vllm", STARTUP, "Model loading took X GiB, KV cache size: N tokens, ...", _KV_UTILS, "0.6.3", test=_TEST_2
    ),
)


def _rate(text: str) -> float | None:
    """One printed per-position rate; ``nan`` (0 / 0) is no rate: None, never 0."""
    return None if text == "nan" else fixed(text)


# every number captured whole (FIXED) and read as vLLM prints it: %.2f, %.1f%%, %d, f"{p:.3f}" (vllm/v1/spec_decode/
# metrics.py); "nan" where the figure can be 0 / 0
_RE_V1 = re.compile(r"SpecDecoding metrics: (.*)$")
_V1_FIELDS: tuple[LineFact, ...] = (
    (re.compile(rf"Mean acceptance length: {FIXED}"), (("mean_acceptance_length", fixed),)),
    (re.compile(rf"Accepted throughput: {FIXED} tokens/s"), (("accepted_throughput_tokens_per_s", fixed_or_nan),)),
    (re.compile(rf"Drafted throughput: {FIXED} tokens/s"), (("drafted_throughput_tokens_per_s", fixed_or_nan),)),
    (re.compile(rf"Accepted: {FIXED} tokens"), (("accepted_tokens", count),)),
    (re.compile(rf"Drafted: {FIXED} tokens"), (("drafted_tokens", count),)),
    (re.compile(rf"Rejected: {FIXED} tokens"), (("rejected_tokens", count),)),
    (re.compile(rf"Effective tokens/forward: {FIXED}"), (("effective_tokens_per_forward", fixed_or_nan),)),
    (re.compile(rf"(?:^|Avg )Draft acceptance rate: {FIXED}%"), (("draft_acceptance_rate_percent", fixed_or_nan),)),
)
# read apart: an unreadable list leaves the window's counts read, only the list absent (named, :func:`part_unreadable`)
_V1_PER_POSITION: tuple[LineFact, ...] = (
    (
        re.compile(r"Per-position acceptance rate: ((?:[^\s,]+(?:, (?=[^\s,]+(?:,|$)))?)+)"),
        (("per_position_acceptance_rates", lambda text: [_rate(x) for x in text.split(", ")]),),
    ),
)
_RE_V0 = re.compile(r"Speculative metrics: (.*)$")
_V0_FIELDS: tuple[LineFact, ...] = (  # "tokens tokens": the spelling of 0.4.x-0.5.x
    (re.compile(rf"Draft acceptance rate: {FIXED}"), (("draft_acceptance_rate", fixed_or_nan),)),
    (re.compile(rf"System efficiency: {FIXED}"), (("system_efficiency", fixed_or_nan),)),
    (re.compile(rf"Number of speculative tokens: {FIXED}"), (("num_spec_tokens", count),)),
    (re.compile(rf"Number of accepted tokens: {FIXED}"), (("accepted_tokens", count),)),
    (re.compile(rf"Number of draft tokens(?: tokens)?: {FIXED}"), (("draft_tokens", count),)),
    (re.compile(rf"Number of emitted tokens(?: tokens)?: {FIXED}"), (("emitted_tokens", count),)),
)
# SpeculativeConfig.__repr__: V1 ``method='m', model='x'|None``; V0 ``draft_model='x'`` ('ngram' for prompt lookup)
RE_SPEC_REPR = re.compile(
    r"SpeculativeConfig\((?:method='([^']*)', model=(None|'[^']*')|draft_model='([^']*)'), num_spec_tokens=(\d+)\)"
)
_RE_NON_DEFAULT = re.compile(r"non-default args: (\{.*\})\s*$")

#: per log field: read / derived / ignored, the file it is printed from and a release whose log shows it (the start-up
#: rows: the release of the fixture that holds the line, see launch/logfacts' sources)
LOG_FIELDS: tuple[LogField, ...] = (
    LogField("Accepted: N tokens", "read", _V1_SOURCE, "0.8.0", "accepted tokens of the window", test=_TEST_0),
    LogField("Drafted: N tokens", "read", _V1_SOURCE, "0.8.0", "drafted tokens of the window", test=_TEST_0),
    LogField(
        "Mean acceptance length", "read", _V1_SOURCE, "0.8.5", "kept as printed; gives the window's steps", test=_TEST_3
    ),
    LogField(
        "Per-position acceptance rate",
        "read",
        _V1_SOURCE,
        "0.8.5",
        "per verify step, pooled by steps; nan (0 / 0) is absent at its index, named in a window that drafted",
        test=_TEST_3,
    ),
    LogField("Avg Draft acceptance rate", "read", _V1_SOURCE, "0.8.5", "kept as printed, never averaged", test=_TEST_3),
    LogField("verify steps (V1)", "derived", _V1_SOURCE, "0.8.0", "drafted / k, else accepted / (length - 1)"),
    LogField("Accepted throughput", "ignored", _V1_SOURCE, "0.8.5", "a rate over vLLM's interval, not a count"),
    LogField("Drafted throughput", "ignored", _V1_SOURCE, "0.8.5", "a rate over vLLM's interval, not a count"),
    LogField(
        "Rejected: N tokens",
        "read",
        _V1_SOURCE,
        "main",
        "a cross-check of drafted - accepted (SPEC_IDENTITY)",
        test=_TEST_4,
    ),
    LogField("Effective tokens/forward", "ignored", _V1_SOURCE, "main", "the acceptance length is derived instead"),
    LogField(
        "Speculative metrics without emitted tokens",
        "read",
        _V1_SOURCE,
        "PR #15151",
        "V1's first shape: one interval's accepted / draft tokens, a window",
        test=_TEST_5,
    ),
    LogField(
        "Number of speculative tokens", "read", _V0_SOURCE, "0.4.1", "k: verify steps = draft tokens / k", test=_TEST_1
    ),
    LogField(
        "Number of accepted tokens",
        "read",
        _V0_SOURCE,
        "0.4.1",
        "V0's own count, kept apart (see module)",
        test=_TEST_1,
    ),
    LogField(
        "Number of draft tokens",
        "read",
        _V0_SOURCE,
        "0.4.1",
        "cumulative; differenced; 'tokens tokens' too",
        test=_TEST_1,
    ),
    LogField(
        "Number of emitted tokens",
        "read",
        _V0_SOURCE,
        "0.4.1",
        "cumulative; differenced; 'tokens tokens' too",
        test=_TEST_1,
    ),
    LogField("acceptance length (V0)", "derived", _V0_SOURCE, "0.4.1", "Δemitted / steps"),
    LogField("accepted, V1-comparable (V0)", "derived", _V0_SOURCE, "0.4.1", "Δemitted - steps"),
    LogField(
        "Draft acceptance rate (V0)", "read", _V0_SOURCE, "0.4.1", "V0's accepted / drafted as printed", test=_TEST_1
    ),
    LogField("System efficiency", "read", _V0_SOURCE, "0.4.1", "kept as printed", test=_TEST_1),
    LogField(
        "Model loading took X GiB",
        "read",
        _LOADER,
        "0.8.5, 0.20.0",
        "weights_loaded_gib, model_loading_s",
        test=_TEST_2,
    ),
    LogField(
        "Loading model weights took X GB",
        "read",
        "vllm/worker/model_runner.py, vllm/v1/worker/gpu_model_runner.py",
        "0.7",
        "weights_loaded_gib: bytes / 2**30, GiB whatever the label",
        test=_TEST_6,
    ),
    LogField("Available KV cache memory", "read", _WORKER, "0.20.0", "available_kv_cache_memory_gib", test=_TEST_2),
    LogField(
        "KV cache size: N tokens",
        "read",
        _KV_UTILS,
        "0.20.0, 0.32",
        "kv_cache_size_tokens, kv_cache_device",
        test=_TEST_0,
    ),
    LogField(
        "Maximum concurrency for L tokens", "read", _KV_UTILS, "0.20.0", "max_concurrency_requests at L", test=_TEST_0
    ),
    LogField("# GPU blocks: N", "read", _V0_EXECUTOR, "0.6.3", "gpu_blocks (V0; 0.7 V1)", test=_TEST_7),
    LogField(
        "Resolved architecture",
        "read",
        "vllm/config/model.py",
        "0.20.0",
        "architectures (drafter second)",
        test=_TEST_2,
    ),
    LogField(
        "SpeculativeConfig(...)",
        "read",
        "vllm/config/speculative.py",
        "0.6.3, 0.20.0",
        "method, model, k",
        test=_TEST_8,
    ),
    LogField("non-default args", "read", _API_UTILS, "0.20.0", "speculative config, lengths, dp", test=_TEST_0),
    LogField(
        "Running / Waiting reqs, KV cache usage",
        "read",
        "vllm/v1/metrics/loggers.py",
        "0.20.0",
        "stats series",
        test=_TEST_8,
    ),
    LogField("Prefix cache hit rate", "ignored", "vllm/v1/metrics/loggers.py", "0.20.0", "not a capacity figure"),
    LogField(
        "Setting attention block size",
        "read",
        "vllm/model_executor/models/config.py",
        "0.20.0",
        "block size",
        test=_TEST_2,
    ),
)


class SpecDecodingSample(BaseModel):
    """One V1 ``SpecDecoding metrics:`` line (one per ~10 s logging interval with drafts).

    Counts are for that interval only. ``per_position_acceptance_rates`` has one entry per draft position (length k),
    each in [0, 1]: accepted at position i / verify steps; None where the line prints ``nan`` (no rate: the position
    keeps its index, and a window that drafted is checked for it, ``PER_POSITION_RATE``).
    ``draft_acceptance_rate_percent`` is accepted / drafted x 100 (``Avg Draft acceptance rate``, or 0.8.x's leading
    ``Draft acceptance rate``). Fields absent from a build are None:
    ``mean_acceptance_length`` before PR #15902 (0.8.0-0.8.4); ``rejected_tokens`` and ``effective_tokens_per_forward``
    are in vLLM main's line only (vllm/v1/spec_decode/metrics.py @ ee4ceaae).
    """

    model_config = ConfigDict(extra="forbid")

    line_number: int
    mean_acceptance_length: float | None = None
    accepted_throughput_tokens_per_s: float | None = None
    drafted_throughput_tokens_per_s: float | None = None
    accepted_tokens: int | None = None
    drafted_tokens: int | None = None
    rejected_tokens: int | None = None
    effective_tokens_per_forward: float | None = None
    per_position_acceptance_rates: list[float | None] = Field(default_factory=list)
    draft_acceptance_rate_percent: float | None = None


class SpecCumulativeSample(BaseModel):
    """One V0 ``Speculative metrics:`` line: totals since the engine started (see the module doc).
    ``draft_acceptance_rate`` (V0's accepted / drafted) and ``system_efficiency`` (emitted / (steps x (k + 1))) are
    V0's own derived figures, as logged. ``after_engine_start``: an engine start line (``Initializing an LLM engine``)
    came between the previous cumulative line and this one: its counts begin again at 0, even when they are already
    above the previous line's."""

    model_config = ConfigDict(extra="forbid")

    line_number: int
    after_engine_start: bool = False
    draft_acceptance_rate: float | None = None
    system_efficiency: float | None = None
    num_spec_tokens: int | None = None
    accepted_tokens: int | None = None
    draft_tokens: int | None = None
    emitted_tokens: int | None = None


_RE_ENGINE_LINE = re.compile(r"\bEngine (\d+): ")
_RE_PROCESS = re.compile(r"\((\w+(?: rank=\d+)? pid=\d+)\)")

#: an engine's start line (V0 ``Initializing an LLM engine (v0.6.3)``, V1 ``Initializing a V1 LLM engine``)
RE_ENGINE_START = re.compile(r"Initializing an? (?:V1 )?LLM engine")


def _early_v1(line: str) -> dict[str, Any] | None:
    """The counts of a ``Speculative metrics:`` line in V1's first shape (module doc: no emitted count, no system
    efficiency), None for any other line. The rate is printed as a fraction (``%.3f``)."""
    m = _RE_V0.search(line)
    if m is None or "Number of emitted tokens" in m.group(1) or "System efficiency" in m.group(1):
        return None
    v0 = line_facts(_V0_FIELDS, m.group(1))
    if "accepted_tokens" not in v0 or "draft_tokens" not in v0:
        return None
    fields: dict[str, Any] = {"accepted_tokens": v0["accepted_tokens"], "drafted_tokens": v0["draft_tokens"]}
    if isinstance(rate := v0.get("draft_acceptance_rate"), float) and rate == rate:  # nan: no drafts, no rate
        fields["draft_acceptance_rate_percent"] = rate * 100
    return fields


def spec_decoding_sample(
    line: str, line_number: int, parts_unread: list[str] | None = None
) -> SpecDecodingSample | None:
    """The V1 window of ``line``, None when it is no ``SpecDecoding metrics:`` line (nor V1's first ``Speculative
    metrics:`` shape) or says nothing to pool (neither its counts nor a mean acceptance length). Raises ValueError on
    a number that cannot be read, but for the per-position list: an unreadable one is left out of the window (its
    counts kept) and named in ``parts_unread`` (:func:`part_unreadable`)."""
    if (early := _early_v1(line)) is not None:
        return SpecDecodingSample(line_number=line_number, **early)
    m = _RE_V1.search(line)
    if m is None:
        return None
    fields = line_facts(_V1_FIELDS, m.group(1))
    counted = "accepted_tokens" in fields and "drafted_tokens" in fields
    if not counted and "mean_acceptance_length" not in fields:
        return None
    try:
        fields.update(line_facts(_V1_PER_POSITION, m.group(1)))
    except ValueError as exc:
        if parts_unread is not None:
            parts_unread.append(part_unreadable(line_number, exc))
    return SpecDecodingSample(line_number=line_number, **fields)


def spec_cumulative_sample(line: str, line_number: int) -> SpecCumulativeSample | None:
    """The V0 cumulative line of ``line`` (either spelling), None when it is none or V1's first shape (a window, see
    :func:`spec_decoding_sample`). Raises ValueError as above."""
    m = _RE_V0.search(line)
    if m is None or _early_v1(line) is not None:
        return None
    return SpecCumulativeSample(line_number=line_number, **line_facts(_V0_FIELDS, m.group(1)))


def _prints_as(printed: float, value: float) -> bool:
    """Whether ``value`` is printed as ``printed`` by vLLM's ``%.2f`` (half a hundredth either way, a float's slack)."""
    return abs(value - printed) <= 0.005 + 1e-9


def window_steps(w: SpecDecodingSample, configured_k: int | None) -> tuple[int | None, int | None, bool]:
    """Verify steps of one V1 window: ``(value, at_least, exact)``.

    The sound range: at least ceil(drafted / k) steps (no draft is longer than k; k is the window's positions or the
    log's configured k) and at most drafted (a draft holds at least one token); with something accepted, the
    two-decimal mean length L also brackets it: accepted / (L + 0.005 - 1) <= steps <= accepted / (L - 0.005 - 1).
    ``value`` is drafted / k when that count prints as L (exact for a fixed-k method whose drafts were not cut),
    else the one integer in the range (exact), else accepted / (L - 1) rounded into the range (an estimate: vLLM cuts
    drafts near max_model_len, so drafted need not be a multiple of k). ``at_least`` is the range's low end (what the
    low-acceptance alarm may rely on); None when the line tells nothing.
    """
    acc, drafted, k = w.accepted_tokens, w.drafted_tokens, len(w.per_position_acceptance_rates) or configured_k
    if acc is None:
        return None, None, False
    low = -(-drafted // k) if drafted is not None and k else (1 if drafted else 0)
    high = drafted if drafted is not None else None
    length = w.mean_acceptance_length
    if drafted is not None and k and drafted % k == 0:
        if acc == 0 or length is None or (drafted and _prints_as(length, 1.0 + acc / (drafted // k))):
            return drafted // k, drafted // k, True
    if acc > 0 and length is not None and length > 1.0:
        return steps_in_length(acc, length, low, high)
    return None, low or None, False


def v0_differences(lines: Sequence[SpecCumulativeSample]) -> tuple[list[LogSpecStat], list[str]]:
    """V0's cumulative lines differenced into statistics (see the module doc), and the warnings: ``COUNTS_WENT_DOWN``
    per restart. A line lacking its draft or emitted count gives a statistic without counts."""
    out: list[LogSpecStat] = []
    warnings: list[str] = []
    prev: SpecCumulativeSample | None = None
    for line in lines:
        drafted, emitted, k = line.draft_tokens, line.emitted_tokens, line.num_spec_tokens
        if drafted is None or emitted is None:
            out.append(LogSpecStat(engine="vllm", form=V0, scope="difference", line_number=line.line_number))
            continue
        base_d = prev.draft_tokens if prev and prev.draft_tokens is not None else 0
        base_e = prev.emitted_tokens if prev and prev.emitted_tokens is not None else 0
        if prev is not None and line.after_engine_start:
            warnings.append(
                f"ENGINE_RESTARTED(line {line.line_number}: an engine start line came before it; counted from zero)"
            )
            base_d = base_e = 0
        elif drafted < base_d or emitted < base_e:
            warnings.append(f"COUNTS_WENT_DOWN(line {line.line_number}: the engine restarted; counted from zero)")
            base_d = base_e = 0
        d_drafted, d_emitted = drafted - base_d, emitted - base_e
        steps = d_drafted // k if k and d_drafted % k == 0 else None
        out.append(
            LogSpecStat(
                engine="vllm",
                form=V0,
                scope="difference",
                line_number=line.line_number,
                draft_tokens=d_drafted,
                accepted_tokens=None if steps is None else d_emitted - steps,
                verify_steps=steps,
                emitted_tokens=d_emitted,
                accept_length=d_emitted / steps if steps else None,
            )
        )
        prev = line
    return out, warnings


def spec_from_repr(m: re.Match[str]) -> dict[str, Any]:
    """The speculative config a ``SpeculativeConfig(...)`` repr states (V1 method / model, or V0 draft_model)."""
    k = int(m.group(4))
    if m.group(3) is not None:  # V0: draft_model='ngram' for prompt lookup, else a draft model
        v0_model = m.group(3)
        method = "ngram" if v0_model == "ngram" else "draft_model"
        return {"method": method, "model": None if method == "ngram" else v0_model, "num_speculative_tokens": k}
    model = None if m.group(2) == "None" else m.group(2)[1:-1]
    return {"method": m.group(1), "model": model, "num_speculative_tokens": k}


def literal_dict(text: str) -> dict[str, Any] | None:
    """A Python dict literal (vLLM's ``non-default args: {...}``), None when the text is not one."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def spec_from_args(args: dict[str, Any]) -> dict[str, Any] | None:
    """The speculative config of the non-default args (a dict or its JSON text), None when they have none."""
    spec = args.get("speculative_config")
    if isinstance(spec, str):
        spec = literal_dict(spec.replace("true", "True").replace("false", "False").replace("null", "None"))
    if not isinstance(spec, dict):
        return None
    out = dict(spec)
    out.setdefault("model", None)
    return out


def _method_and_k(lines: Sequence[str]) -> tuple[str | None, int | None]:
    """The log's speculative method and k: the last ``SpeculativeConfig(...)`` repr, else the non-default args."""
    spec: dict[str, Any] | None = None
    for line in lines:
        if m := RE_SPEC_REPR.search(line):
            spec = spec_from_repr(m)
        elif spec is None and (a := _RE_NON_DEFAULT.search(line)):
            spec = spec_from_args(literal_dict(a.group(1)) or {})
    if not spec:
        return None, None
    k = spec.get("num_speculative_tokens")
    method = spec.get("method")
    return (method if isinstance(method, str) else None), (k if isinstance(k, int) and k > 0 else None)


def read_log(lines: Sequence[str]) -> EngineLog | None:
    """vLLM's speculative statistics of ``lines`` (V1 windows and V0 differences, log order), None without any."""
    windows: list[SpecDecodingSample] = []
    cumulative: list[SpecCumulativeSample] = []
    engine_of: dict[int, str] = {}  # window line number -> its engine (module doc)
    last_engine: dict[str, str] = {}  # process prefix -> its last "Engine NNN:" line's engine
    started = False
    unreadable: list[str] = []  # LOG_LINE_UNREADABLE per recognised line whose number cannot be read
    unread_forms: list[str] = []
    unread_text = UnreadText()  # speculative fields and lines not read, named (log_unread.py)
    for index, line in enumerate(lines):
        if RE_ENGINE_START.search(line):
            started = True
        process = m.group(1) if (m := _RE_PROCESS.search(line)) else ""
        if e := _RE_ENGINE_LINE.search(line):
            last_engine[process] = f"Engine {e.group(1)}"
        try:  # a number that cannot be read (5,000 digits, "1e400") gives no statistic, named; never a crash
            w = spec_decoding_sample(line, index + 1, unreadable)
            if (v1 := _RE_V1.search(line)) is not None and _early_v1(line) is None:
                unread_text.see_metrics(v1.group(1), index + 1, read=w is not None)
            else:
                unread_text.see_other(line, index + 1)
            if w is not None:
                windows.append(w)
                if process in last_engine:
                    engine_of[w.line_number] = last_engine[process]
            elif (c := spec_cumulative_sample(line, index + 1)) is not None:
                cumulative.append(c.model_copy(update={"after_engine_start": started}))
                started = False
        except ValueError as exc:
            unreadable.append(line_unreadable(index + 1, exc))
            unread_forms.append(V0 if _RE_V0.search(line) and not _RE_V1.search(line) else V1)
    unreadable += unread_text.warnings()
    if not windows and not cumulative and not unreadable:
        return None
    method, k = _method_and_k(lines)
    stats = [
        LogSpecStat(
            engine="vllm",
            form=V1,
            scope="window",
            line_number=w.line_number,
            rank=engine_of.get(w.line_number),
            draft_tokens=w.drafted_tokens,
            accepted_tokens=w.accepted_tokens,
            rejected_tokens=w.rejected_tokens,
            verify_steps=steps,
            verify_steps_at_least=at_least,
            verify_steps_exact=exact,
            accept_length=w.mean_acceptance_length,
            accept_rate=None if w.draft_acceptance_rate_percent is None else w.draft_acceptance_rate_percent / 100,
            per_position=w.per_position_acceptance_rates,
        )
        for w in windows
        for steps, at_least, exact in [window_steps(w, k)]
    ]
    v0_stats, warnings = v0_differences(cumulative)
    if method is None and cumulative:
        k = next((c.num_spec_tokens for c in cumulative if c.num_spec_tokens), k)
    forms = [f for f, seen in ((V1, windows or V1 in unread_forms), (V0, cumulative or V0 in unread_forms)) if seen]
    merged = sorted(stats + v0_stats, key=lambda s: s.line_number)
    return EngineLog(
        engine="vllm",
        forms=forms,
        method=method,
        configured_k=k,
        stats=merged,
        warnings=unreadable + warnings,
        ranks_are_engines=True,
    )


#: How this engine's log lines are read beyond its forms and fields (docs/engines.md's log details; each rule
#: names the tests that pin it, at least one through a command).
LOG_DETAILS: tuple[Detail, ...] = (
    Detail(
        "0.32.0, main @ ee4ceaae",
        "`SpecDecoding metrics: ... Accepted: N tokens, Drafted: N tokens, Per-position acceptance rate: ...`",
        "read",
        "every window kept; pooled by counts (`logstats.pooled_spec_windows`); drafts per window = drafted / k "
        'where that prints as the window\'s two-decimal length (exact for fixed k: 1,234 accepted at "2.54" is '
        "800 drafts of 3, not the 801 the rounded length gives), else accepted / (length - 1) rounded",
        (
            "tests/launch/test_engine_logs.py::test_vllm_v1_windows_pool_the_same_through_the_adapter",
            "tests/launch/test_log_windows.py::test_fixed_k_window_counts_its_drafts_exactly_not_from_the_rounded_length",
        ),
    ),
    Detail(
        "main",
        "`Rejected: N tokens`, `Effective tokens/forward: X`",
        "read",
        "per window; rejected checked against drafted - accepted (`SPEC_IDENTITY`, exit 1)",
        (
            "tests/launch/test_log_counts_checked.py::test_v1_rejected_count_is_cross_checked",
            "tests/launch/test_log_windows.py::test_rejected_field_of_newer_builds_is_read",
        ),
    ),
    Detail(
        "any (forks of 0.2x: public copies of v1/spec_decode/metrics.py, index ids 4803782941, 65954075149)",
        "a `SpecDecoding metrics:` field other than those vLLM prints (`Total accepted: N tokens`, `top1: [...]`); "
        "a `SpecDecoding NAME:` line other than the metrics (`SpecDecoding cost breakdown: ...`), or a metrics line "
        "with neither counts nor a mean length",
        "warning",
        "`UNREAD_LOG_FIELD(... 'Total accepted', ...)`, `UNREAD_LOG_LINE('SpecDecoding cost breakdown' (line 2))` "
        "(`adapters/vllm/log_unread.py`), one each over the log; the window read from the fields vLLM prints",
        (
            "tests/launch/test_log_public_threads5.py::test_fields_of_a_window_line_not_read_are_named_beside_right_figures",
            "tests/launch/test_log_public_threads5.py::test_other_speculative_lines_and_fields_are_named_not_dropped",
        ),
    ),
    Detail(
        "0.32.0 `--logging-config.formatter json` (any `logging` JSON formatter with a `message`)",
        "one JSON object per record",
        "read",
        "each record read as the text line it stands for, `(PROCESS pid=N) LEVEL ASCTIME MESSAGE` "
        "(`adapters/logs.py` `split_log_lines`), one line per record so line numbers hold",
        ("tests/launch/test_engine_logs.py::test_a_vllm_log_written_by_its_json_formatter_is_read_as_its_text_form",),
    ),
    Detail(
        "0.8.0-0.8.4 (`SpecDecodingLogging` before PR #15902)",
        "`SpecDecoding metrics: Draft acceptance rate: X%, Accepted: N tokens, Drafted: N tokens` (no mean "
        "length, no draft count)",
        "read",
        "every window kept; drafts = drafted / the configured k where it divides, else unknown (never guessed)",
        (
            "tests/launch/test_log_shapes_newuser.py::test_early_v1_lines_without_mean_length_pool_by_their_counts_and_alarm",
            "tests/launch/test_log_shapes_newuser.py::test_a_log_of_early_v1_lines_only_is_read_not_refused",
        ),
    ),
    Detail(
        "0.6.x V0 (`_format_spec_decode_metrics_str`; cumulative: issues #9539, #7301)",
        "`Speculative metrics: Draft acceptance rate, System efficiency, Number of speculative / accepted / "
        "draft / emitted tokens`",
        "read",
        "`spec_cumulative`; the last line is the run's total (`spec_decoding_cumulative_total`), never pooled as "
        "windows; drafts = draft tokens / k",
        ("tests/launch/test_log_shapes_newuser.py::test_v0_cumulative_lines_are_a_total_never_pooled_as_windows",),
    ),
    Detail(
        "0.6.x V0 / 0.8 V1",
        "`SpeculativeConfig(draft_model='x', num_spec_tokens=k)` (V0; `'ngram'` for prompt lookup), "
        "`SpeculativeConfig(method=..., model=..., num_spec_tokens=k)` on any line; V0 `max_seq_len=N`",
        "read",
        "`speculative_config` (method `draft_model` / `ngram`), k, max model length",
        (
            "tests/launch/test_log_shapes_newuser.py::test_v0_cumulative_lines_are_a_total_never_pooled_as_windows",
            "tests/launch/test_log_shapes_newuser.py::test_repr_on_a_config_line_of_early_v1",
        ),
    ),
    Detail(
        "any",
        "pooled acceptance under 5 % over >= 50 drafts, head or unknown method (`stats/low_acceptance.py`, the "
        "run's rule), windows or V0 total",
        "alarm",
        "`LOW_ACCEPTANCE`, exit 1",
        (
            "tests/launch/test_log_windows.py::test_a_head_accepting_under_one_percent_alarms_and_exits_1",
            "tests/launch/test_log_shapes_newuser.py::test_early_v1_lines_without_mean_length_pool_by_their_counts_and_alarm",
        ),
    ),
    Detail(
        "0.6.x V0 (issue #10517)",
        "`# GPU blocks: N, # CPU blocks: M`; `... can be stored in KV cache (T)`",
        "read",
        "pool, KV tokens, block size T / N",
        (
            "tests/launch/test_capacity_versions.py::test_serve_parse_log_gives_capacity_without_a_plan[V06]",
            "tests/launch/test_capacity_versions.py::test_v06_blocks_and_tokens_give_the_block_size",
        ),
    ),
    Detail(
        "0.7 V1 (PR #12569)",
        "`# GPU blocks: N`; `Maximum concurrency for L tokens per request: C x`",
        "read",
        "pool, block size C x L / N",
        (
            "tests/launch/test_capacity_versions.py::test_serve_parse_log_gives_capacity_without_a_plan[V07]",
            "tests/launch/test_capacity_versions.py::test_v07_blocks_and_concurrency_give_the_block_size",
        ),
    ),
    Detail(
        "0.20.0 (fixture)",
        "`Setting attention block size to B tokens`, `Mamba cache mode is set to 'align'`, KV tokens, "
        "concurrency, `SpeculativeConfig(... num_spec_tokens=k)`",
        "read",
        "block size, hybrid pool reconstruction, mamba speculative scratch, k",
        (
            "tests/launch/test_capacity.py::test_serve_parse_log_plan_cli",
            "tests/launch/test_capacity_versions.py::test_v020_hybrid_reconstruction_still_holds",
        ),
    ),
    Detail(
        "0.25.1 (issue #49011), 0.26.0 (seed 003, k = 1, 5, 6), 0.32.0 CPU (n-gram k = 4)",
        "`GPU/CPU KV cache size: T tokens[, ]Maximum concurrency for L tokens per request: C x` (T = int(C x L) "
        "in current builds, issue #54662)",
        "read",
        'KV tokens; T / L checked against C (no MISMATCH from an assumed block size); block size "not in the log"',
        (
            "tests/launch/test_capacity_versions.py::test_serve_parse_log_gives_capacity_without_a_plan[V25]",
            "tests/launch/test_capacity_versions.py::test_seed003_v026_logs_no_spurious_mismatch",
            "tests/launch/test_capacity_versions.py::test_cpu_032_ngram_plan_at_max_model_len_is_not_off_by_one",
        ),
    ),
    Detail(
        "any",
        "speculative config (engine line, non-default args)",
        "read",
        "`spec_lookahead_tokens_per_request` = k: each running request holds `min(tokens + k, max_model_len)` "
        "slots (`kv_cache_manager.allocate_slots`); the plan says how many of the k a request adds after the cap "
        "(13 requests of 4,096 tokens fit at k = 4, as the log's 13.12x says)",
        (
            "tests/launch/test_capacity_versions.py::test_serve_plan_answers_fits_and_does_not_fit",
            "tests/launch/test_log_shapes_newuser.py::test_lookahead_capped_at_max_model_len_is_said_not_hidden",
        ),
    ),
    Detail(
        "any",
        "no config line: the SpecDecoding windows' per-position rates",
        "derived",
        'k = their width (`num_speculative_tokens_source`); with neither, k unknown: "k unknown", nothing '
        "decided with speculation (never k = 0)",
        (
            "tests/launch/test_log_shapes_newuser.py::test_k_from_the_windows_when_the_log_has_no_config_line",
            "tests/launch/test_log_shapes_newuser.py::test_unknown_k_prints_unknown_and_decides_nothing",
        ),
    ),
    Detail(
        "0.10.2 (`EngineCore_DPn` prefixes)",
        "`data_parallel_size` (non-default args), one KV block per engine",
        "read",
        "`data_parallel_engines`: the pool, concurrency and `max_num_seqs` are per engine; a plan admits that "
        "many on each (2 x 32,768 tokens fit, 1 per engine)",
        ("tests/launch/test_log_shapes_newuser.py::test_data_parallel_plan_is_per_engine",),
    ),
    Detail(
        "any",
        "`--plan` tokens above `max_model_len`",
        "derived",
        "does not fit: vLLM refuses it (`refusal`)",
        ("tests/launch/test_log_shapes_newuser.py::test_a_request_longer_than_max_model_len_does_not_fit",),
    ),
)

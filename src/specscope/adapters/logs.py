"""Engine-neutral log records, and which engine's lines a server log holds (through the registry).

Each adapter with a ``logs`` module (``specscope.adapters.<engine>.logs``) exposes:

- ``FORMS``: the :class:`LogForm` s it reads (engine, form name, the line it starts from, source file, release);
- ``LOG_FIELDS``: per log field, a :class:`LogField` (read / derived / ignored-with-reason, source file, release);
- ``read_log(lines) -> EngineLog | None``: that engine's speculative statistics of the log, None when none of its
  forms is in it.

A statistic is one :class:`LogSpecStat`: a window of time (vLLM V1, SGLang), a request (llama.cpp), or the difference
of two cumulative lines (vLLM V0). Counts are tokens except ``verify_steps`` (verify steps that carried a draft); a
count a line does not print is None, never 0. The engine-neutral pooling (Σaccepted / Σdrafted) and the alarm are in
:mod:`specscope.launch.logpool`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.declare import Detail
from specscope.adapters.registry import engine_modules

__all__ = [
    "NEUTRAL_LOG_DETAILS",
    "BoundAlarm",
    "EngineLog",
    "LineFact",
    "LogSummary",
    "LogField",
    "LogForm",
    "LogSpecStat",
    "MAX_COUNT",
    "OtherOutput",
    "StatsSample",
    "FIXED",
    "count",
    "fixed",
    "fixed_or_nan",
    "fixed_signed",
    "forms_tried",
    "line_facts",
    "line_unreadable",
    "lines_text",
    "unreadable_line_number",
    "read_as",
    "log_summaries",
    "other_outputs_in",
    "read_engine_logs",
    "split_log_lines",
    "steps_in_length",
]

#: One row of a table of facts read from a log line: a regex, and per capturing group that can match (an alternation's
#: groups count once) the field it fills and how its text becomes the value.
LineFact = tuple[re.Pattern[str], tuple[tuple[str, Callable[[str], Any]], ...]]


def line_facts(rows: Sequence[LineFact], line: str) -> dict[str, Any]:
    """Field -> value for every row of ``rows`` whose regex matches ``line``: the row's fields take, in order, the
    groups that matched (an alternation's other groups are None and skipped), each through its converter.

    Raises:
        ValueError: a value its converter refuses, the message naming the field and the text (first 20 characters).
    """
    out: dict[str, Any] = {}
    for regex, fields in rows:
        if m := regex.search(line):
            matched = [g for g in m.groups() if g is not None]
            for (name, convert), text in zip(fields, matched, strict=True):
                out[name] = read_as(name, convert, text)
    return out


def read_as(name: str, convert: Callable[[str], Any], text: str) -> Any:
    """``convert(text)``, the value of field ``name`` of a log line.

    Raises:
        ValueError: ``convert`` refuses the text; the message names the field and the text (first 20 characters), as
            :func:`line_unreadable` quotes it.
    """
    try:
        return convert(text)
    except ValueError as exc:
        raise ValueError(f"{name} {_shown(text)} is {_reason(exc)}") from None


#: a printed number's whole text, up to the separator that follows it (a comma, a space, ``%``, a bracket, a sentence's
#: closing period: vLLM V0's line ends ``Number of emitted tokens: 10616.``): captured whole so that ``1e400`` or
#: ``2.5e3`` is read (and refused by :func:`fixed` or :func:`count`) as it is written, never as its prefix
FIXED = r"([^\s,%()\[\]]+?)\.?(?=[\s,%()\[\]]|$)"
_RE_FIXED = re.compile(r"\d+(?:\.\d+)?")


def _shown(text: str) -> str:
    """A value's text as a warning quotes it: its first 20 characters and its length when longer."""
    return repr(text) if len(text) <= 20 else f"{text[:20]!r}... ({len(text):,} characters)"


def _reason(exc: ValueError) -> str:
    """Why a converter refused a value, as a warning's words."""
    return str(exc) if str(exc).startswith(("not ", "beyond ")) else "not a number as the engine prints it"


def fixed(text: str) -> float:
    """A number as engines print it in their log lines: fixed-point digits (C's ``%d`` / ``%.2f``, Python's
    ``f"{x:.3f}"``); vLLM's speculative line (vllm/v1/spec_decode/metrics.py) and SGLang's decode line print nothing
    else.

    Raises:
        ValueError: anything else (an exponent, a sign, a second point): the line is unreadable, never its prefix read.
    """
    if not _RE_FIXED.fullmatch(text):
        raise ValueError("not a number as the engine prints it (fixed-point digits)")
    return float(text)


def fixed_or_nan(text: str) -> float:
    """:func:`fixed`, or ``nan`` as Python and C print 0 / 0 (a rate of nothing; its reader decides what it means)."""
    return math.nan if text == "nan" else fixed(text)


def fixed_signed(text: str) -> float:
    """:func:`fixed` with a leading minus allowed: a figure the engine prints with ``%.2f`` that can be below zero
    (vLLM's ``Available KV cache memory: -0.30 GiB`` when the weights left none)."""
    return -fixed(text[1:]) if text.startswith("-") else fixed(text)


def line_unreadable(line_number: int, exc: ValueError) -> str:
    """The warning of a line an adapter recognises (its form matched) but whose number it cannot read
    (:func:`line_facts`' message): ``LOG_LINE_UNREADABLE``; the line gives no statistic, the rest of the log is read."""
    return f"LOG_LINE_UNREADABLE(line {line_number}: {str(exc)[:120]}; the line gives no statistic)"


def part_unreadable(line_number: int, exc: ValueError) -> str:
    """The warning of a recognised line whose per-position acceptance list cannot be read while its other figures
    can: ``LOG_LINE_UNREADABLE`` naming only that part; the line's counts (drafted, accepted) and length are kept, its
    per-position rates absent (never compacted nor read as a prefix)."""
    return (
        f"LOG_LINE_UNREADABLE(line {line_number}: {str(exc)[:120]}; only the per-position rates are absent, the "
        "line's other figures are read)"
    )


def unreadable_line_number(warning: str) -> int:
    """The line number a :func:`line_unreadable` warning names (``LOG_LINE_UNREADABLE(line N: ...)``): warnings of
    several readers of one log are put in line order by it."""
    return int(warning.split(":", 1)[0].rsplit(" ", 1)[1])


#: the largest count a log line can hold: engines keep their counters in 64-bit integers
MAX_COUNT = 2**63 - 1


def steps_in_length(accepted: int, length: float, low: int, high: int | None) -> tuple[int, int, bool]:
    """The verify steps a printed two-decimal mean acceptance length ``length`` (1 + accepted / steps, bonus token
    included; vLLM's ``%.2f``, llama.cpp's ``%5.2f``) allows with ``accepted`` (> 0) accepted tokens, within what the
    caller already knows (``low`` <= steps <= ``high``, None: no upper bound): ``(value, at_least, exact)``.

    accepted / (length + 0.005 - 1) <= steps <= accepted / (length - 0.005 - 1); ``value`` is accepted / (length - 1)
    rounded into the range, ``at_least`` its low end (what the low-acceptance alarm may rely on), ``exact`` True when
    one integer fits. Figures that contradict each other (the range empty) yield to the counts (``high``)."""
    low = max(low, math.ceil(accepted / (length + 0.005 - 1.0) - 1e-9))
    if length - 0.005 > 1.0:
        upper = math.floor(accepted / (length - 0.005 - 1.0) + 1e-9)
        high = upper if high is None else min(high, upper)
    if high is not None and high < low:
        low = high
    guess = min(max(round(accepted / (length - 1.0)), low), high if high is not None else low)
    return guess, low, high == low


def count(text: str) -> int:
    """A printed count (digits, thousands commas allowed) as an int.

    Raises:
        ValueError: not digits, or beyond :data:`MAX_COUNT` (no engine counts that far: the line is unreadable).
    """
    digits = text.replace(",", "")
    if len(digits) > len(str(MAX_COUNT)):  # before int(): 5,000 digits are refused here, not by int()'s own limit
        raise ValueError("beyond a 64-bit count")
    value = int(digits)
    if not 0 <= value <= MAX_COUNT:
        raise ValueError("beyond a 64-bit count")
    return value


def _record_line(line: str) -> str:
    """A line that is one JSON log record with a string ``message`` (vLLM 0.32's ``--logging-config.formatter json``:
    ``asctime``, ``levelname``, ``name``, ``processName``, ``process``, ``message``, ``vllm_process_name``; any
    ``logging`` JSON formatter's ``message``) as the text formatter would have written it: ``(PROCESS pid=N) LEVEL
    ASCTIME MESSAGE``, the message's own line breaks as spaces (one record stays one line); any other line as it is."""
    stripped = line.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return line
    try:
        record = json.loads(stripped)
    except ValueError:  # not JSON (a dict printed by Python, a truncated record): read as text
        return line
    message = record.get("message") if isinstance(record, dict) else None
    if not isinstance(message, str):
        return line
    process = record.get("vllm_process_name") or record.get("processName")
    pid = record.get("process")
    head = [f"({process} pid={pid})" if isinstance(process, str) and process else ""]
    head += [str(record[k]) for k in ("levelname", "asctime") if isinstance(record.get(k), str)]
    return " ".join([*(h for h in head if h), message.replace("\r", " ").replace("\n", " ")])


#: a line of a container log file in the CRI logging format (kubernetes/kubernetes ``pkg/kubelet/kuberuntime/logs/
#: logs.go`` @04791b49 ``parseCRILog``): an RFC 3339 timestamp, the stream (``stdout`` / ``stderr``), the tags
#: (``:``-separated, only the first read: ``P`` a partial line, ``F`` the part that ends it), one space, the content.
_CRI_LINE = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) (stdout|stderr) ([PF])(?::[^ ]*)?(?: (.*))?", re.S
)


def _cri_lines(lines: list[str]) -> list[str]:
    """``lines`` with each CRI container-log line (:data:`_CRI_LINE`) as the content the server wrote: the ``P``
    parts of a stream joined to that stream's next ``F`` line, whatever their length (the runtime splits a long
    line; ``kubectl logs`` writes a partial part without its line break, so the parts read back as one line), the
    whole line at the place of its first part and an empty line at each later part's (line numbers stay those of
    the file); parts left without an ``F`` (a log cut off) are joined at the end. Any other line as it is."""
    out = list(lines)
    pending: dict[str, list[int]] = {}  # stream -> the indexes of its parts not yet ended by an F line
    content: dict[int, str] = {}

    def join(parts: list[int]) -> None:
        out[parts[0]] = "".join(content[j] for j in parts)
        for j in parts[1:]:
            out[j] = ""

    for i, line in enumerate(lines):
        if (m := _CRI_LINE.fullmatch(line)) is None:
            continue
        content[i] = m.group(3) or ""
        parts = pending.setdefault(m.group(1), [])
        parts.append(i)
        if m.group(2) == "F":
            join(pending.pop(m.group(1)))
    for parts in pending.values():
        join(parts)
    return out


def split_log_lines(text: str) -> list[str]:
    """The lines of a log split on ``\\n`` only (line numbers match editors and ``grep -n``; progress bars use a bare
    ``\\r``, kept inside its line), each without a trailing ``\\r``; a line of a CRI container log is read as the
    content the server wrote, its partial parts joined (:func:`_cri_lines`); a line that is a JSON log record is read
    as the text line it stands for (:func:`_record_line`)."""
    return [_record_line(line) for line in _cri_lines([line.rstrip("\r") for line in text.split("\n")])]


class LogForm(NamedTuple):
    """One form of log line an adapter reads: ``engine``, ``name`` (e.g. ``v0 Speculative metrics``), ``example`` (the
    start of the line as the engine prints it), ``source`` (file in the engine's repository) and ``release``;
    ``status``: ``read`` (its lines give statistics) or ``recognised`` (the log is named as the engine's, and its lines
    carry no speculative count); ``test``: for a read form, the node id of a test that reaches it through a user command
    (``tests/...py::test_name``: ``serve --parse-log`` or ``bench --server-log`` on a log holding such a line)."""

    engine: str
    name: str
    example: str
    source: str
    release: str
    status: Literal["read", "recognised"] = "read"
    test: str = ""


class LogField(NamedTuple):
    """One log field an adapter declares: ``status`` is ``read`` (taken from the line), ``derived`` (computed from
    read fields; ``note`` says how) or ``ignored`` (``note`` says why); ``test``: for a read field, the node id of a
    test that reaches it through a user command (``serve --parse-log`` or ``bench --server-log`` on a log with it)."""

    name: str
    status: Literal["read", "derived", "ignored"]
    source: str
    release: str
    note: str
    test: str = ""


class LogSpecStat(BaseModel):
    """One unit of an engine's speculative statistics in a log, engine-neutral.

    ``scope``: ``window`` (a time window), ``request`` (one finished request), or ``difference`` (two cumulative lines
    differenced; the first against the engine's start). ``form``: the :class:`LogForm` name. Counts: ``draft_tokens``
    drafted, ``accepted_tokens`` accepted (the bonus token excluded, counted the way vLLM V1 counts: the accepted prefix
    of each draft), ``verify_steps`` verify steps that carried a draft, ``emitted_tokens`` tokens emitted by those steps
    (accepted + one per step), ``rejected_tokens`` the drafted tokens not accepted where the line prints them (a
    cross-check: ``SPEC_IDENTITY``); None when the line neither prints nor determines it. ``accept_length`` (tokens per
    verify step, bonus included) and ``accept_rate`` (fraction of drafted) are the engine's own figures as printed,
    kept for lines that print no counts. ``per_position`` the engine's per-position acceptance as printed (accepted at
    position i / verify steps: the marginal rate per verify step), empty when not printed, None at a position printed
    as no number (``nan``: absent, never 0; the later positions keep their index).
    ``rank``: the engine or slot the line belongs to (``DP1 TP0``, ``slot 0``), None when the line does not say.
    ``verify_steps_exact``: False when ``verify_steps`` is an estimate (vLLM's windows whose drafted count k does not
    divide: from the two-decimal mean length); ``verify_steps_at_least`` is then the sound lower bound (None: no bound
    beyond one step per statistic that drafted). ``accept_rate_at_most``: for a statistic that prints no counts, the
    largest rate of drafted tokens what it prints allows (its adapter knows the printed precision and what the engine's
    figures meant in each release), None when it prints counts or allows no bound.
    """

    model_config = ConfigDict(extra="forbid")

    engine: str
    form: str
    scope: Literal["window", "request", "difference"]
    line_number: int
    rank: str | None = None
    draft_tokens: int | None = None
    accepted_tokens: int | None = None
    rejected_tokens: int | None = None
    verify_steps: int | None = None
    verify_steps_exact: bool = True
    verify_steps_at_least: int | None = None
    emitted_tokens: int | None = None
    accept_length: float | None = None
    accept_rate: float | None = None
    accept_rate_at_most: float | None = None
    per_position: list[float | None] = Field(default_factory=list)


class StatsSample(BaseModel):
    """One periodic capacity line of a server log, engine-neutral: ``running_reqs`` / ``waiting_reqs`` requests,
    ``kv_cache_usage_percent`` the share of the KV pool in use (0..100: vLLM's "GPU KV cache usage", SGLang's "token
    usage" x 100), throughputs in tokens/s as logged (None when the line has none). ``t_s``: seconds since the log's
    first sample (None without a time stamp). ``engines_pooled``: the line pools this many data-parallel engines
    (vLLM's "N Engines Aggregated": requests summed, KV usage their mean, so one engine's may be higher); None for
    one engine's own line."""

    model_config = ConfigDict(extra="forbid")

    line_number: int
    t_s: float | None = None
    running_reqs: int
    waiting_reqs: int
    kv_cache_usage_percent: float
    prompt_throughput_tokens_per_s: float | None = None
    generation_throughput_tokens_per_s: float | None = None
    engines_pooled: int | None = None


class EngineLog(BaseModel):
    """What one engine's adapter read of a log: ``forms`` seen (names, in first-seen order), ``method`` in specscope's
    vocabulary (``mtp``, ``eagle``, ``ngram``, ``draft_model``...; None when the log does not say), ``configured_k``
    (drafted tokens per verify step the log states, None when it does not), ``stats`` in log order, and ``warnings``:
    named reasons, ``CODE(detail)`` (e.g. ``COUNTS_WENT_DOWN(line 9: a restart; counted from zero again)``);
    ``capacity``: the engine's capacity lines (:class:`StatsSample`) when its adapter reads them.
    ``ranks_are_engines``: the statistics' ``rank`` names a separate engine (a data-parallel rank with its own drafter
    and counts), so each rank is pooled on its own as well; False when it names something that is no engine of its own
    (llama.cpp's slots, which serve any request)."""

    model_config = ConfigDict(extra="forbid")

    engine: str
    forms: list[str] = Field(default_factory=list)
    method: str | None = None
    configured_k: int | None = None
    stats: list[LogSpecStat] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    capacity: list[StatsSample] = Field(default_factory=list)
    ranks_are_engines: bool = False


#: the one low-acceptance rule on a bound (:func:`specscope.stats.low_acceptance.low_acceptance_bound_alarm`, passed
#: in by its caller: the rule lives in a layer above the adapters): (method, the rate's upper bound, at least this many
#: verify steps, what the statistics are) -> the alarm or None
BoundAlarm = Callable[[str | None, float | None, float, str], str | None]


class LogSummary(NamedTuple):
    """An adapter's summary of the log facts its engine states without counts (``specscope.adapters.<engine>.
    log_summary.SUMMARY``), as ``serve --parse-log`` shows it: ``key`` its JSON key, ``hidden`` the log facts' fields
    it stands for on the text screen, ``summarise(facts, bound_alarm)`` the summary (a model with ``alarm``) or None
    when the log has none of its lines, ``lines(summary)`` its (label, value) rows."""

    key: str
    hidden: tuple[str, ...]
    summarise: Callable[[Any, BoundAlarm], Any]
    lines: Callable[[Any], list[tuple[str, str]]]


def log_summaries() -> list[LogSummary]:
    """Every registered engine's :class:`LogSummary`, in registry order (engines with a ``log_summary`` module)."""
    return [mod.SUMMARY for _, mod in engine_modules("log_summary")]


def _log_modules() -> list[Any]:
    """The ``logs`` module of every registered engine that has one, in registry order."""
    return [mod for _, mod in engine_modules("logs")]


def lines_text(numbers: Sequence[int]) -> str:
    """Where in a log some lines are, for a warning: ``line 3`` for one line, ``lines 3-40, 12 lines`` for several
    (``numbers``: 1-based line numbers in log order, at least one)."""
    if len(numbers) == 1:
        return f"line {numbers[0]}"
    return f"lines {numbers[0]}-{numbers[-1]}, {len(numbers)} lines"


class OtherOutput(NamedTuple):
    """Another tool's speculative output, which a user may take for a server log (an engine's ``logs.py``
    ``OTHER_OUTPUTS``): ``engine``, ``name`` (what it is, said in the refusal's "found"), ``pattern`` (a line that marks
    it, searched in each line), ``source`` (the file that prints it) and ``fix`` (what to pass instead). It is never
    read: a log holding nothing else is refused by that name (exit 2), not as holding no speculative statistics."""

    engine: str
    name: str
    pattern: str
    source: str
    fix: str


def other_outputs_in(lines: Sequence[str]) -> list[OtherOutput]:
    """The other tools' outputs (:class:`OtherOutput`) whose marking line is among ``lines``, in registry order."""
    found: list[OtherOutput] = []
    for module in _log_modules():
        for other in getattr(module, "OTHER_OUTPUTS", ()):
            rx = re.compile(other.pattern)
            if any(rx.search(line) for line in lines):
                found.append(other)
    return found


def forms_tried() -> list[LogForm]:
    """Every form of every engine's adapter, in registry order."""
    return [form for module in _log_modules() for form in module.FORMS]


def read_engine_logs(lines: Sequence[str]) -> list[EngineLog]:
    """Each engine's reading of ``lines`` (registry order), only the engines whose forms are in the log."""
    out: list[EngineLog] = []
    for module in _log_modules():
        reading = module.read_log(lines)
        if reading is not None:
            out.append(reading)
    return out


#: Log-reading rules that hold for every engine, or for several named in ``engines`` (docs/engines.md).
NEUTRAL_LOG_DETAILS: tuple[Detail, ...] = (
    Detail(
        "any",
        "counts of one window or request that contradict each other: more accepted than drafted, drafted tokens "
        "over 0 verify steps, a printed rejected count other than drafted - accepted, a per-position rate that "
        "is `nan` or outside [0, 1] in a statistic that drafted (`nan` kept absent at its index, the later "
        "positions kept)",
        "check",
        "the rules `counters` applies (`stats/counters.py` `count_violations`): `ACCEPTED_OVER_DRAFTED`, "
        "`DRAFT_TOKENS_WITHOUT_DRAFTS`, `SPEC_IDENTITY`, `PER_POSITION_RATE`, each named with its line; the "
        "figure shown, marked `INCONSISTENT`; exit 1; `bench --server-log` says the same",
        (
            "tests/launch/test_log_counts_checked.py::test_v1_window_accepting_more_than_drafted_is_named_marked_and_exits_1",
            "tests/launch/test_log_counts_checked.py::test_llamacpp_request_accepting_more_than_drafted_is_named_and_exits_1",
            "tests/launch/test_log_counts_checked.py::test_v1_window_json_keeps_the_figure_and_the_nan_position_absent",
            "tests/launch/test_log_counts_checked.py::test_bench_server_log_names_the_same_inconsistency",
        ),
        engines="any engine",
    ),
    Detail(
        "any",
        "statistics printing per-position rates of two widths (a restart with another k; llama.cpp requests that "
        "set their own)",
        "warning",
        "`K_DIFFERS(statistics with 3 positions (line A), 5 positions (line B): ...)`; counts still pooled, no "
        "per-position rates (neither in the pool nor in vLLM's older window summary)",
        (
            "tests/launch/test_log_public_threads3.py::test_windows_of_two_draft_lengths_are_named_and_their_positions_not_pooled",
        ),
        engines="any",
    ),
    Detail(
        "any",
        "windows whose later half's rate (counted windows: accepted / drafted, weighted by drafted; windows "
        "without counts: their upper bounds) is at most half the earlier half's, >= 4 windows, per engine when "
        "the ranks are engines (sglang issue #30763: 73 % falling to 19 % past 32K of context)",
        "warning",
        "`ACCEPTANCE_FELL(lines A-B: R1; lines C-D: R2 ...)` in the pool's warnings, exit unchanged; the pooled "
        "figure stays",
        (
            "tests/launch/test_log_public_threads3.py::test_sglang_windows_whose_rate_falls_through_the_log_are_named",
            "tests/launch/test_log_public_threads3.py::test_vllm_windows_whose_rate_falls_are_named_beside_the_right_pool",
            "tests/launch/test_log_public_threads3.py::test_steady_windows_raise_no_fall",
        ),
        engines="any",
    ),
    Detail(
        "see `launch/failures.toml`",
        "`MTP speculative decoding layer N weights missing from checkpoint` (vllm PR #35548), `llama_decode[i] "
        "returned -1` from the drafter (llama.cpp PR #28243), `Async scheduling not supported with X-based "
        "speculative decoding` (vllm PR #31998) / `Overlap scheduler is disabled because of using ... "
        "speculative decoding` (SGLang server_args.py), `num_speculative_tokens > 1 will run multiple times of "
        "forward on same MTP layer`",
        "failure signature",
        "`mtp_weights_missing`, `draft_decode_failed` (errors, exit 1); `scheduling_overlap_off_by_speculation`, "
        "`mtp_layer_reused` (warnings, exit 0)",
        (
            "tests/launch/test_log_public_threads3.py::test_mtp_weights_missing_from_the_checkpoint_is_a_named_failure",
            "tests/launch/test_log_public_threads3.py::test_draft_decode_failing_is_a_named_failure_not_an_unrecognised_log",
            "tests/launch/test_log_public_threads3.py::test_async_scheduling_turned_off_by_the_drafter_is_a_named_warning_beside_right_figures",
            "tests/launch/test_log_public_threads3.py::test_overlap_schedule_turned_off_by_the_drafter_is_the_same_named_warning",
            "tests/launch/test_log_public_threads3.py::test_mtp_layer_run_more_times_than_it_has_layers_is_a_named_warning",
        ),
        engines="vLLM, llama.cpp, SGLang",
    ),
)

"""vLLM's speculative windows pooled and V0's cumulative total, with the low-acceptance alarm; the stats and KV-layout
lines are read by :func:`specscope.adapters.vllm.log_facts.parse_log_stats` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.logs import LineFact, StatsSample, line_facts
from specscope.adapters.vllm.log_facts import parse_log_stats
from specscope.values import percent_text

if TYPE_CHECKING:
    from specscope.adapters.vllm.logs import SpecCumulativeSample, SpecDecodingSample

__all__ = [
    "CumulativeSpecTotal",
    "LineFact",
    "PooledSpecWindows",
    "StatsSample",
    "cumulative_spec_total",
    "line_facts",
    "parse_log_stats",
    "pooled_spec_windows",
]


class PooledSpecWindows(BaseModel):
    """Every SpecDecoding window of a log pooled by its counts (issue 26).

    ``accepted_tokens`` / ``draft_tokens`` are the windows' exact counts summed (windows lacking them are not counted:
    ``windows_without_counts``); ``drafts`` (verify steps) is not printed by vLLM and is derived per window: drafted / k
    when that count prints as the window's two-decimal mean length (exact for fixed-k methods, where accepted / (mean
    length - 1) is only bracketed by the rounding: 1,234 accepted at "2.54" is 799 to 803 drafts), else accepted /
    (mean acceptance length - 1) rounded to a whole number, or drafted / k when nothing was accepted or the line has no
    mean length (vLLM 0.8.0-0.8.4); k is the window's positions or else the log's configured k, used only when it
    divides. None when a window tells neither, so the pooled draft count is unknown, never guessed; ``acceptance_rate``
    = accepted / drafted (exact), ``acceptance_length`` = 1 + accepted / drafts, ``acceptance_per_position`` = sum of
    rate_i x drafts / drafts.
    ``alarm``: :func:`specscope.stats.low_acceptance.low_acceptance_alarm` of the pooled rate over the drafts.
    ``inconsistencies``: each window through ``counters``' rules (:func:`specscope.launch.logpool.statistic_checks`),
    as the engine-neutral pool says them; a per-position rate printed as ``nan`` pools to None at its index.
    """

    model_config = ConfigDict(extra="forbid")

    windows: int
    windows_without_counts: int
    drafts: int | None
    draft_tokens: int | None
    accepted_tokens: int | None
    acceptance_rate: float | None
    acceptance_length: float | None
    acceptance_per_position: list[float | None]
    alarm: str | None = None
    inconsistencies: list[str] = Field(default_factory=list)


def pooled_spec_windows(
    windows: Sequence[SpecDecodingSample], method: str | None = None, configured_k: int | None = None
) -> PooledSpecWindows:
    """Pool ``windows`` (in log order); ``method`` (the log's speculative method, if it says) selects the alarm rule;
    ``configured_k`` (the log's num_speculative_tokens) gives the draft count of windows that do not print it."""
    from specscope.adapters.vllm.logs import window_steps
    from specscope.launch.logpool import pooled_rates, statistic_checks
    from specscope.stats.low_acceptance import low_acceptance_alarm

    counted = [w for w in windows if w.accepted_tokens is not None and w.drafted_tokens is not None]
    accepted = sum(w.accepted_tokens or 0 for w in counted) if counted else None
    drafted = sum(w.drafted_tokens or 0 for w in counted) if counted else None
    steps = [window_steps(w, configured_k) for w in counted]
    per_window = [(w, d) for w, (d, _, _) in zip(counted, steps, strict=True)]
    known = per_window and all(d is not None for _, d in per_window)
    drafts = sum(d or 0 for _, d in per_window) if known else None
    exact = bool(known) and all(e for _, _, e in steps)
    at_least = sum(low or 0 for _, low, _ in steps)  # window_steps' sound lower bound (its count when exact)
    # two widths: two draft lengths, no pooled rate per position (logpool.K_DIFFERS); an unknown draft count: none
    per_pos = pooled_rates([(w.per_position_acceptance_rates, d or 0) for w, d in per_window]) if drafts else []
    checked = [
        statistic_checks(
            w.line_number,
            w.drafted_tokens,
            w.accepted_tokens,
            d if e else None,
            w.per_position_acceptance_rates,
            w.rejected_tokens,
        )
        for w, (d, _, e) in zip(windows, (window_steps(w, configured_k) for w in windows), strict=True)
    ]
    rate = accepted / drafted if accepted is not None and drafted else None
    return PooledSpecWindows(
        windows=len(windows),
        windows_without_counts=len(windows) - len(counted),
        drafts=drafts,
        draft_tokens=drafted,
        accepted_tokens=accepted,
        acceptance_rate=rate,
        acceptance_length=1.0 + accepted / drafts if drafts and accepted is not None else None,
        acceptance_per_position=per_pos,
        alarm=low_acceptance_alarm(method, rate, drafts if exact else at_least),
        inconsistencies=[r for rs in checked for r in rs],
    )


class CumulativeSpecTotal(BaseModel):
    """The run's speculative total from V0's cumulative lines: consecutive lines differenced
    (:func:`specscope.adapters.vllm.logs.v0_differences`), restarts counted from zero, the differences summed; with no
    restart that is the last line.

    ``drafts`` (verify steps) = Σ Δdraft tokens / k (V0 drafts k tokens per step; None unless k divides every
    difference); ``accepted_tokens`` is V0's own count summed (every position whose draft matched, positions after a
    rejected one included) and ``acceptance_rate`` = that / drafted, V0's own figure; ``acceptance_rate_v1_comparable``
    = (emitted - drafts) / drafted, the accepted prefix V1 counts; ``acceptance_length`` = emitted / drafts (bonus
    included). ``logged_acceptance_rate`` and ``logged_system_efficiency`` are the last line's figures as printed.
    ``counts_went_down``: a later line holds a smaller count than an earlier one (the engine restarted).
    ``alarm``: the low-acceptance rule on the V1-comparable rate over ``drafts``.
    """

    model_config = ConfigDict(extra="forbid")

    lines: int
    line_number: int
    num_spec_tokens: int | None
    draft_tokens: int | None
    accepted_tokens: int | None
    emitted_tokens: int | None
    drafts: int | None
    acceptance_rate: float | None
    acceptance_rate_v1_comparable: float | None
    acceptance_length: float | None
    logged_acceptance_rate: float | None
    logged_system_efficiency: float | None
    counts_went_down: bool
    alarm: str | None = None


def _v0_own_accepted(lines: Sequence[SpecCumulativeSample]) -> int | None:
    """V0's own accepted count summed over restarts (each segment's last line), None when a line lacks it."""
    if any(c.accepted_tokens is None for c in lines):
        return None
    total, prev = 0, 0
    for c in lines:
        acc = c.accepted_tokens or 0
        total += acc - prev if acc >= prev else acc
        prev = acc
    return total


def cumulative_spec_total(
    lines: Sequence[SpecCumulativeSample], method: str | None = None, configured_k: int | None = None
) -> CumulativeSpecTotal | None:
    """The total of V0's cumulative lines (see :class:`CumulativeSpecTotal`); None without any. ``configured_k``
    stands in for a line without ``Number of speculative tokens``."""
    from specscope.adapters.vllm.logs import v0_differences
    from specscope.stats.low_acceptance import low_acceptance_alarm

    if not lines:
        return None
    filled = [c if c.num_spec_tokens else c.model_copy(update={"num_spec_tokens": configured_k}) for c in lines]
    diffs, warnings = v0_differences(filled)
    last = filled[-1]
    counted = all(d.draft_tokens is not None for d in diffs)
    drafted = sum(d.draft_tokens or 0 for d in diffs) if counted else None
    emitted = sum(d.emitted_tokens or 0 for d in diffs) if counted else None
    steps_known = counted and all(d.verify_steps is not None for d in diffs)
    drafts = sum(d.verify_steps or 0 for d in diffs) if steps_known else None
    accepted = _v0_own_accepted(filled)
    comparable = (emitted - drafts) / drafted if emitted is not None and drafts is not None and drafted else None
    return CumulativeSpecTotal(
        lines=len(lines),
        line_number=last.line_number,
        num_spec_tokens=last.num_spec_tokens,
        draft_tokens=drafted,
        accepted_tokens=accepted,
        emitted_tokens=emitted,
        drafts=drafts,
        acceptance_rate=accepted / drafted if accepted is not None and drafted else None,
        acceptance_rate_v1_comparable=comparable,
        acceptance_length=emitted / drafts if emitted is not None and drafts else None,
        logged_acceptance_rate=last.draft_acceptance_rate,
        logged_system_efficiency=last.system_efficiency,
        counts_went_down=bool(warnings),
        alarm=low_acceptance_alarm(method, comparable, drafts),
    )


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def _v1_accepted(total: CumulativeSpecTotal) -> int | None:
    """The accepted prefix V1 counts: emitted - verify steps (tokens; each step emits one token past its accepted
    drafts), the numerator of ``acceptance_rate_v1_comparable``; None when either count is absent."""
    if total.emitted_tokens is None or total.drafts is None:
        return None
    return total.emitted_tokens - total.drafts


def cumulative_lines(total: CumulativeSpecTotal, *, only_v0: bool = False) -> list[tuple[str, str]]:
    """The V0 cumulative total as (label, value) rows for a terminal table; ``only_v0``: only what V0 alone counts
    (its own accepted count and rate, its system efficiency), for a screen that shows the V1-comparable figures from
    the engine-neutral pool (:func:`specscope.launch.logpool.log_pool_lines`)."""
    if only_v0:
        v1 = f"{_num(_v1_accepted(total), ',')} accepted, {percent_text(total.acceptance_rate_v1_comparable)}"
        own = f"{_num(total.accepted_tokens, ',')} accepted, {percent_text(total.acceptance_rate)}"
        return [
            ("spec_decoding_v0_counts", f"{v1} (V1-comparable: the rows above); {own} (V0's own count)"),
            ("spec_decoding_v0_system_efficiency", f"{percent_text(total.logged_system_efficiency)} (as V0 logged it)"),
        ]
    restart = "; counts went down (a restart): each run counted from zero" if total.counts_went_down else ""
    return [
        (
            "spec_decoding_cumulative",
            f"V0 cumulative total at line {total.line_number} ({total.lines} cumulative lines, differenced){restart}",
        ),
        (
            "spec_decoding_drafted_accepted",
            f"{_num(total.draft_tokens, ',')} drafted, {_num(total.accepted_tokens, ',')} accepted (V0's own count; "
            f"{_num(_v1_accepted(total), ',')} V1-comparable) over {_num(total.drafts, ',')} drafts "
            f"(k={_num(total.num_spec_tokens, 'd')}); "
            f"{_num(total.emitted_tokens, ',')} emitted",
        ),
        ("spec_decoding_acceptance_rate", f"{percent_text(total.acceptance_rate_v1_comparable)} (V1-comparable)"),
        ("spec_decoding_acceptance_rate_v0", f"{percent_text(total.acceptance_rate)} (V0's own count)"),
        ("spec_decoding_acceptance_length", _num(total.acceptance_length, ".2f")),
        ("spec_decoding_system_efficiency", f"{percent_text(total.logged_system_efficiency)} (as V0 logged it)"),
        ("spec_decoding_alarm", total.alarm or "none"),
    ]


def pooled_lines(pooled: PooledSpecWindows) -> list[tuple[str, str]]:
    """The pooled windows as (label, value) rows for a terminal table."""
    from specscope.launch.logpool import PER_POSITION_CODES, RATE_CODES, inconsistent_mark

    num = _num
    per_pos = ", ".join(percent_text(r) for r in pooled.acceptance_per_position) or "—"
    windows = f"pooled over {pooled.windows} windows ({pooled.windows_without_counts} without counts)"
    counts = f"{num(pooled.draft_tokens, ',')} drafted, {num(pooled.accepted_tokens, ',')} accepted"
    wrong = pooled.inconsistencies
    return [
        ("spec_decoding_windows", windows),
        ("spec_decoding_drafted_accepted", f"{counts} over {num(pooled.drafts, ',')} drafts"),
        (
            "spec_decoding_acceptance_rate",
            inconsistent_mark(percent_text(pooled.acceptance_rate), wrong, RATE_CODES),
        ),
        ("spec_decoding_acceptance_length", num(pooled.acceptance_length, ".2f")),
        ("spec_decoding_per_position", inconsistent_mark(per_pos, wrong, PER_POSITION_CODES)),
        ("spec_decoding_alarm", pooled.alarm or "none"),
        *(("spec_decoding_inconsistency", r) for r in wrong),
    ]

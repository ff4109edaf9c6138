"""The summary of an SGLang log's speculative windows (issue 26), read by :mod:`specscope.adapters.sglang.logs`.

The wordings, what each field means and why windows are bounded, never pooled (SGLang prints no counts), are that
adapter's docstring: this module only summarises the windows it read, and applies the one low-acceptance rule
(:mod:`specscope.stats.low_acceptance`, passed in by the caller: the rule lives in a layer above the adapters) to their
bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from specscope.adapters.logs import BoundAlarm, LogSummary
from specscope.adapters.registry import display
from specscope.adapters.sglang.log_facts import SglangLogFacts
from specscope.adapters.sglang.logs import (
    PRINTED_HALF,
    SglangSpecWindow,
    dp_ranks,
    method_and_k,
    rate_bound,
    rate_reading,
)
from specscope.values import percent_text

__all__ = ["SUMMARY", "SglangSpecSummary", "sglang_spec_lines", "sglang_spec_summary"]


class SglangSpecSummary(BaseModel):
    """The windows of an SGLang log, never pooled (no counts are printed; see the module doc).

    ``method`` in specscope's vocabulary (None when no ``server_args`` line says); ``draft_tokens_per_step`` the k of
    the server args (None when adaptive or not said); ``*_min`` / ``*_max`` the printed range over the windows;
    ``acceptance_rate_at_most`` the sound upper bound of the pooled rate and ``verify_steps_at_least`` (one per window)
    its lower bound of verify steps; ``alarm`` the low-acceptance rule applied to those bounds, else to each
    data-parallel rank's own (``DP0 TP0: LOW_ACCEPTANCE(...)``: :func:`~specscope.adapters.sglang.logs.dp_ranks`);
    ``accept_rate_counts_bonus`` True when a printed rate is above what its window's length allows (an older build's
    rate that counts the bonus token: the bound then comes from the length) or, without k, when the log is dated
    before PR #23530, and ``accept_rate_reading`` the words that say so, or that it cannot be told
    (:func:`~specscope.adapters.sglang.logs.rate_reading`); ``finish_spec_lines`` the log's
    ``--log-requests`` Finish lines with speculative fields: their exact counts are the log's figure (the engine-neutral
    pool, ``sglang_log_*``), the windows' bound only a bound beside them.
    """

    model_config = ConfigDict(extra="forbid")

    windows: int
    ranks: list[str]
    algorithm: str | None
    method: str | None
    draft_tokens_per_step: int | None
    accept_length_min: float | None
    accept_length_max: float | None
    accept_rate_min: float | None
    accept_rate_max: float | None
    acceptance_rate_at_most: float | None
    verify_steps_at_least: int | None
    alarm: str | None = None
    accept_rate_counts_bonus: bool = False
    accept_rate_reading: str | None = None
    finish_spec_lines: int = 0


def sglang_spec_summary(
    windows: Sequence[SglangSpecWindow],
    spec: dict[str, Any] | None,
    bound_alarm: BoundAlarm,
    finish_spec_lines: int = 0,
) -> SglangSpecSummary | None:
    """Summarise the windows, the alarm by ``bound_alarm`` (the one low-acceptance rule); see
    :class:`SglangSpecSummary`. None when the log has neither windows nor a ``server_args`` speculative line."""
    method, k = method_and_k(spec)
    if not windows:
        if not spec:
            return None
        return SglangSpecSummary(
            windows=0,
            ranks=[],
            algorithm=spec.get("algorithm"),
            method=method,
            draft_tokens_per_step=k,
            accept_length_min=None,
            accept_length_max=None,
            accept_rate_min=None,
            accept_rate_max=None,
            acceptance_rate_at_most=None,
            verify_steps_at_least=None,
            finish_spec_lines=finish_spec_lines,
        )
    spec = spec or {}
    bonus, reading = rate_reading(windows, k)
    at_most = max(rate_bound(w, k) for w in windows)
    rates = [w.accept_rate for w in windows if w.accept_rate is not None]
    lengths = [w.accept_length for w in windows]
    # the wording of the engine-neutral pool's alarm (launch/logpool.py), so a log's alarm is said once
    where = f"{len(windows)} {display('sglang')} windows"
    alarm = bound_alarm(method, at_most, len(windows), where)
    for rank in dp_ranks(windows) if alarm is None else ():  # each DP rank's own bound: the first alarmed is said
        mine = [w for w in windows if w.rank == rank]
        low = bound_alarm(
            method, max(rate_bound(w, k) for w in mine), len(mine), f"{len(mine)} {display('sglang')} windows"
        )
        if low:
            alarm = f"{rank}: {low}"
            break
    return SglangSpecSummary(
        windows=len(windows),
        ranks=sorted({w.rank for w in windows if w.rank}),
        algorithm=spec.get("algorithm"),
        method=method,
        draft_tokens_per_step=k,
        accept_length_min=min(lengths),
        accept_length_max=max(lengths),
        accept_rate_min=min(rates) if rates else None,
        accept_rate_max=max(rates) if rates else None,
        acceptance_rate_at_most=at_most,
        verify_steps_at_least=len(windows),
        alarm=alarm,
        accept_rate_counts_bonus=bonus,
        accept_rate_reading=reading,
        finish_spec_lines=finish_spec_lines,
    )


def _rounding_note(summary: SglangSpecSummary) -> str:
    """``: the highest printed rate, R, plus 0.5% for the log's rounding ...`` when the pooled bound is the highest
    printed rate plus :data:`PRINTED_HALF` (SGLang prints the rate with two decimals, ``accept rate: 0.71``, so the
    window's rate may be up to 0.715: :func:`rate_bound`); empty when the bound comes from the accept length."""
    top, at_most = summary.accept_rate_max, summary.acceptance_rate_at_most
    if top is None or at_most is None or at_most != top + PRINTED_HALF:  # the same float sum rate_bound takes
        return ""
    return (
        f": the highest printed rate, {percent_text(top)}, plus {percent_text(PRINTED_HALF)} for the log's rounding "
        "to two decimals"
    )


def sglang_spec_lines(summary: SglangSpecSummary) -> list[tuple[str, str]]:
    """The summary as (label, value) rows for a terminal table."""

    def rng(lo: float | None, hi: float | None) -> str:
        return "—" if lo is None or hi is None else f"{lo:.2f} to {hi:.2f}"

    ranks = f" on {', '.join(summary.ranks)}" if summary.ranks else ""
    k = "k unknown" if summary.draft_tokens_per_step is None else f"k = {summary.draft_tokens_per_step}"
    bound = "—" if summary.acceptance_rate_at_most is None else f"<= {percent_text(summary.acceptance_rate_at_most)}"
    finish = summary.finish_spec_lines
    counts = (
        f"they print no counts: not pooled; the {finish:,} Finish lines' exact counts are the figure (sglang_log_*)"
        if finish
        else "SGLang prints no counts: not pooled"
    )
    speculative = ("sglang_speculative", f"{summary.algorithm or 'not in the log'} ({summary.method or '—'}, {k})")
    if not summary.windows:  # the server args only: no window rows (an absent figure is no row)
        return [speculative]
    return [
        speculative,
        ("sglang_spec_windows", f"{summary.windows} decode-batch windows{ranks}; {counts}"),
        ("sglang_accept_length_range", rng(summary.accept_length_min, summary.accept_length_max)),
        (
            "sglang_accept_rate_range",
            (
                "—"
                if summary.accept_rate_min is None or summary.accept_rate_max is None
                else f"{percent_text(summary.accept_rate_min)} to {percent_text(summary.accept_rate_max)}"
            )
            + (f" ({summary.accept_rate_reading})" if summary.accept_rate_reading else ""),
        ),
        (
            "sglang_windows_acceptance_bound" if finish else "sglang_pooled_acceptance_rate",
            f"{bound} over >= {summary.verify_steps_at_least} verify steps (bounds{_rounding_note(summary)})",
        ),
        ("sglang_spec_alarm", summary.alarm or "none"),
    ]


def _summarise(facts: SglangLogFacts, bound_alarm: BoundAlarm) -> SglangSpecSummary | None:
    """The summary of a log's facts (their SGLang fields: ``sglang_spec_windows``, ``sglang_speculative``)."""
    return sglang_spec_summary(
        facts.sglang_spec_windows, facts.sglang_speculative, bound_alarm, facts.sglang_finish_spec_lines
    )


#: how ``serve --parse-log`` shows the summary (:class:`~specscope.adapters.logs.LogSummary`)
SUMMARY = LogSummary(
    "sglang_spec_summary",
    ("sglang_spec_windows", "sglang_speculative", "sglang_finish_spec_lines"),
    _summarise,
    sglang_spec_lines,
)

"""One engine's speculative log statistics pooled, engine-neutral, and the low-acceptance alarm on the pool.

The statistics come from the engine adapters (:func:`specscope.adapters.logs.read_engine_logs`); each is a window, a
request, or a difference of cumulative lines (:class:`specscope.adapters.logs.LogSpecStat`). Pooling (issue 34):

- ``acceptance_rate`` = Σaccepted / Σdrafted over the statistics that print both counts: never the mean of printed
  rates, never the last line; a statistic without counts is counted apart (``without_counts``), never as 0.
- ``verify_steps`` = Σ steps when every counted statistic tells its steps, else None; ``verify_steps_at_least`` = Σ of
  the known steps + 1 per counted statistic with drafts whose steps are unknown (a statistic that drafted had at least
  one verify step), the sound lower bound the alarm is given.
- ``acceptance_length`` = 1 + Σaccepted / Σsteps (bonus token included), only with every step known.
- ``acceptance_per_position`` = Σ rate_i x steps / Σ steps over the statistics that print per-position rates and steps.
- ``alarm``: :func:`specscope.stats.low_acceptance.low_acceptance_alarm` of the pooled rate over the steps.
- statistics that print no counts (SGLang's windows) pool nothing: ``acceptance_rate_at_most`` is then the largest of
  their adapters' bounds (``LogSpecStat.accept_rate_at_most``) when every one has a bound, over
  ``verify_steps_at_least`` = Σ their lower bounds of steps, and the alarm the same rule on that bound
  (:func:`specscope.stats.low_acceptance.low_acceptance_bound_alarm`): sound, never raised on a head that accepts
  enough; ``bench --server-log`` and ``serve --parse-log`` say it alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.logs import EngineLog, LogSpecStat
from specscope.values import percent_text

__all__ = ["LogPool", "log_pool", "log_pool_lines"]


class LogPool(BaseModel):
    """The pool of one engine's log statistics (see the module doc). ``scopes``: the kinds pooled (``request``,
    ``window``, ``difference``); counts are tokens except the verify steps; ``warnings`` the adapter's."""

    model_config = ConfigDict(extra="forbid")

    engine: str
    forms: list[str]
    method: str | None
    scopes: list[str]
    statistics: int
    without_counts: int
    draft_tokens: int | None
    accepted_tokens: int | None
    verify_steps: int | None
    verify_steps_estimated: bool = False
    verify_steps_at_least: int
    acceptance_rate: float | None
    acceptance_length: float | None
    acceptance_per_position: list[float] = Field(default_factory=list)
    alarm: str | None = None
    warnings: list[str] = Field(default_factory=list)
    acceptance_rate_at_most: float | None = None


def _per_position(counted: Sequence[LogSpecStat]) -> list[float]:
    with_pos = [s for s in counted if s.per_position and s.verify_steps]
    steps = sum(s.verify_steps or 0 for s in with_pos)
    if not steps:
        return []
    n = max(len(s.per_position) for s in with_pos)
    return [
        sum(s.per_position[i] * (s.verify_steps or 0) for s in with_pos if i < len(s.per_position)) / steps
        for i in range(n)
    ]


def _steps_at_least(s: LogSpecStat) -> int:
    """A sound lower bound on ``s``'s verify steps: its exact count, else its own bound, else one step if it drafted."""
    if s.verify_steps is not None and s.verify_steps_exact:
        return s.verify_steps
    return s.verify_steps_at_least if s.verify_steps_at_least is not None else int(bool(s.draft_tokens))


def _ratio(num: int | float | None, den: int | float | None) -> float | None:
    """num / den, None when either is missing, den is 0, or the quotient is beyond a float (a count of 400 digits)."""
    if num is None or not den:
        return None
    try:
        return num / den
    except OverflowError:
        return None


def _as_float(n: int | None) -> float | None:
    try:
        return None if n is None else float(n)
    except OverflowError:
        return None


def log_pool(reading: EngineLog) -> LogPool:
    """Pool ``reading`` (one engine's statistics of one log)."""
    from specscope.adapters.registry import display
    from specscope.stats.low_acceptance import low_acceptance_alarm, low_acceptance_bound_alarm

    counted = [s for s in reading.stats if s.draft_tokens is not None and s.accepted_tokens is not None]
    drafted = sum(s.draft_tokens or 0 for s in counted) if counted else None
    accepted = sum(s.accepted_tokens or 0 for s in counted) if counted else None
    all_steps = bool(counted) and all(s.verify_steps is not None for s in counted)
    steps = sum(s.verify_steps or 0 for s in counted) if all_steps else None
    estimated = steps is not None and not all(s.verify_steps_exact for s in counted)
    at_least = sum(_steps_at_least(s) for s in counted)
    rate = _ratio(accepted, drafted)
    mean_extra = _ratio(accepted, steps)
    alarm = low_acceptance_alarm(reading.method, rate, _as_float(at_least if steps is None or estimated else steps))
    bounds = [s.accept_rate_at_most for s in reading.stats]
    at_most = None
    if reading.stats and not counted and all(b is not None for b in bounds):  # nothing counted: the bound (module doc)
        at_most = max(b or 0.0 for b in bounds)
        at_least = sum(s.verify_steps_at_least or 0 for s in reading.stats)
        scope = "/".join(sorted({s.scope for s in reading.stats}))
        where = f"{len(reading.stats)} {display(reading.engine)} {scope}s"
        alarm = low_acceptance_bound_alarm(reading.method, at_most, at_least, where)
    return LogPool(
        engine=reading.engine,
        forms=reading.forms,
        method=reading.method,
        scopes=sorted({s.scope for s in reading.stats}),
        statistics=len(reading.stats),
        without_counts=len(reading.stats) - len(counted),
        draft_tokens=drafted,
        accepted_tokens=accepted,
        verify_steps=steps,
        verify_steps_estimated=estimated,
        verify_steps_at_least=at_least,
        acceptance_rate=rate,
        acceptance_length=None if mean_extra is None else 1.0 + mean_extra,
        acceptance_per_position=_per_position(counted),
        alarm=alarm,
        warnings=reading.warnings,
        acceptance_rate_at_most=at_most,
    )


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def log_pool_lines(pool: LogPool) -> list[tuple[str, str]]:
    """The pool as (label, value) rows for a terminal table, labelled by engine; a pool whose lines print no counts
    (SGLang's windows) gives its forms and warnings only: there is nothing to pool, and no alarm is said from it."""
    e = pool.engine
    scope = "/".join(pool.scopes) or "statistic"
    rows = [(f"{e}_log_forms", ", ".join(pool.forms))]
    if pool.draft_tokens is None:
        said = f"{scope}: {pool.statistics}, none prints its counts" if pool.statistics else "no speculative statistics"
        rows.append((f"{e}_log_pooled", f"{said}: nothing to pool"))
        return rows + [(f"{e}_log_warning", w) for w in pool.warnings]
    approx = "≈" if pool.verify_steps_estimated else ""
    steps = (
        f"{approx}{_num(pool.verify_steps, ',')}"
        if pool.verify_steps is not None
        else f">= {pool.verify_steps_at_least:,}"
    )
    counts = f"{_num(pool.draft_tokens, ',')} drafted, {_num(pool.accepted_tokens, ',')} accepted over {steps} steps"
    if pool.verify_steps_estimated:
        counts += f" (estimated from the printed mean lengths; at least {pool.verify_steps_at_least:,})"
    per_pos = ", ".join(percent_text(r) for r in pool.acceptance_per_position) or "—"
    return [
        *rows,
        (f"{e}_log_pooled", f"{scope}: {pool.statistics} ({pool.without_counts} without counts)"),
        (f"{e}_log_drafted_accepted", counts),
        (f"{e}_log_acceptance_rate", percent_text(pool.acceptance_rate)),
        (f"{e}_log_acceptance_length", approx + _num(pool.acceptance_length, ".2f")),
        (f"{e}_log_per_position", per_pos),
        (f"{e}_log_alarm", pool.alarm or "none"),
        *((f"{e}_log_warning", w) for w in pool.warnings),
    ]

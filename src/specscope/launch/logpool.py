"""One engine's speculative log statistics pooled, engine-neutral, and the low-acceptance alarm on the pool.

The statistics come from the engine adapters (:func:`specscope.adapters.logs.read_engine_logs`); each is a window, a
request, or a difference of cumulative lines (:class:`specscope.adapters.logs.LogSpecStat`). Pooling (issue 34):

- ``acceptance_rate`` = Σaccepted / Σdrafted over the statistics that print both counts: never the mean of printed
  rates, never the last line; a statistic without counts is counted apart (``without_counts``), never as 0.
- ``verify_steps`` = Σ steps when every counted statistic tells its steps, else None; ``verify_steps_at_least`` = Σ of
  the known steps + 1 per counted statistic with drafts whose steps are unknown (a statistic that drafted had at least
  one verify step), the sound lower bound the alarm is given.
- ``acceptance_length`` = 1 + Σaccepted / Σsteps (bonus token included), only with every step known.
- ``acceptance_per_position`` = Σ rate_i x steps / Σ steps over the statistics that print per-position rates and
  steps; None at a position one of them printed as no number (absent, never 0).
- ``inconsistencies``: each statistic's counts through the rules ``counters`` applies to a window
  (:func:`specscope.stats.counters.count_violations`: ``ACCEPTED_OVER_DRAFTED``, ``DRAFT_TOKENS_WITHOUT_DRAFTS``,
  ``SPEC_IDENTITY`` where a line prints its rejected count, and ``PER_POSITION_RATE`` for a printed rate that is no
  number or outside [0, 1] in a statistic that drafted), each named by its line. The figures stay as pooled;
  ``serve --parse-log`` marks them and exits 1, as ``counters`` does.
- ``alarm``: :func:`specscope.stats.low_acceptance.low_acceptance_alarm` of the pooled rate over the steps.
- statistics that print no counts (SGLang's windows) pool nothing: ``acceptance_rate_at_most`` is then the largest of
  their adapters' bounds (``LogSpecStat.accept_rate_at_most``) when every one has a bound, over
  ``verify_steps_at_least`` = Σ their lower bounds of steps, and the alarm the same rule on that bound
  (:func:`specscope.stats.low_acceptance.low_acceptance_bound_alarm`): sound, never raised on a head that accepts
  enough; ``bench --server-log`` and ``serve --parse-log`` say it alike. Without a pooled alarm, when the ranks are
  engines (SGLang's data-parallel ranks), each rank's own bound gets the rule, the first alarmed one named.
- ``per_rank``: when the adapter says its ranks are engines of their own (``EngineLog.ranks_are_engines``: vLLM's
  data-parallel engines) and the counted statistics name two or more, each engine's own pool, by the same rules, with
  its own alarm: a pooled rate can hide one engine whose drafter accepts nothing. The pool's ``alarm`` is then the
  pooled one, else the first engine's (named).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from specscope.adapters.logs import EngineLog, LogSpecStat
from specscope.values import percent_text

__all__ = [
    "PER_POSITION_CODES",
    "RATE_CODES",
    "LogPool",
    "RankPool",
    "inconsistent_mark",
    "log_pool",
    "log_pool_lines",
    "pooled_rates",
    "statistic_checks",
]

#: the codes of :func:`statistic_checks` that make a pooled acceptance rate impossible, and a per-position rate
RATE_CODES = ("ACCEPTED_OVER_DRAFTED", "DRAFT_TOKENS_WITHOUT_DRAFTS")
PER_POSITION_CODES = ("PER_POSITION_RATE",)


class RankPool(BaseModel):
    """One engine's pool inside a log (:attr:`LogPool.per_rank`): ``rank`` as its adapter names it (``Engine 002``),
    counts in tokens except the verify steps, rates as fractions, ``alarm`` the low-acceptance rule on it."""

    model_config = ConfigDict(extra="forbid")

    rank: str
    statistics: int
    draft_tokens: int
    accepted_tokens: int
    verify_steps: int | None
    verify_steps_estimated: bool = False
    verify_steps_at_least: int
    acceptance_rate: float | None
    acceptance_length: float | None
    alarm: str | None = None


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
    acceptance_per_position: list[float | None] = Field(default_factory=list)
    alarm: str | None = None
    warnings: list[str] = Field(default_factory=list)
    inconsistencies: list[str] = Field(default_factory=list)
    acceptance_rate_at_most: float | None = None
    per_rank: list[RankPool] = Field(default_factory=list)


def pooled_rates(rated: Sequence[tuple[Sequence[float | None], int]]) -> list[float | None]:
    """Per-position rates pooled over (rates, verify steps) pairs: Σ rate_i x steps / Σ steps; None at a position any
    pair printed as no number (absent, never 0); none when the pairs print different numbers of positions (two draft
    lengths: a position's rate over steps that could not reach it is no rate, see :func:`_k_differs`)."""
    rated = [(r, d) for r, d in rated if r and d]
    steps = sum(d for _, d in rated)
    if not steps or len({len(r) for r, _ in rated}) > 1:
        return []
    out: list[float | None] = []
    for i in range(len(rated[0][0])):
        at_i = [(r[i], d) for r, d in rated]
        out.append(None if any(x is None for x, _ in at_i) else sum((x or 0.0) * d for x, d in at_i) / steps)
    return out


def _per_position(counted: Sequence[LogSpecStat]) -> list[float | None]:
    """Per-position rates pooled over the statistics' verify steps (:func:`pooled_rates`)."""
    return pooled_rates([(s.per_position, s.verify_steps or 0) for s in counted])


def statistic_checks(
    line_number: int,
    draft_tokens: int | None,
    accepted_tokens: int | None,
    verify_steps: int | None,
    per_position: Sequence[float | None],
    rejected_tokens: int | None = None,
) -> list[str]:
    """One statistic's counts through ``counters``' rules (:func:`specscope.stats.counters.count_violations`), named
    by its line; ``verify_steps`` only when exact (an estimate is no count). The per-position rates are checked only
    when the statistic drafted (an idle window's ``nan`` is 0 / 0, not a contradiction). A count beyond a float is
    not compared."""
    from specscope.records import SpecCounters
    from specscope.stats.counters import count_violations

    drafted = _as_float(draft_tokens)
    counts = SpecCounters(
        drafts=_as_float(verify_steps),
        draft_tokens=drafted,
        accepted_tokens=_as_float(accepted_tokens),
        rejected_tokens=_as_float(rejected_tokens),
    )
    rates = per_position if drafted or verify_steps else ()
    return count_violations(counts, f"line {line_number}", rates)


def _inconsistencies(stats: Sequence[LogSpecStat]) -> list[str]:
    """:func:`statistic_checks` of every statistic, in log order."""
    return [
        r
        for s in stats
        for r in statistic_checks(
            s.line_number,
            s.draft_tokens,
            s.accepted_tokens,
            s.verify_steps if s.verify_steps_exact else None,
            s.per_position,
            s.rejected_tokens,
        )
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


class _Counted(NamedTuple):
    """The pooled counts of some counted statistics (module doc): drafted and accepted tokens, verify steps (None
    unless every statistic tells them), whether they are estimated, their sound lower bound, rate and length."""

    drafted: int
    accepted: int
    steps: int | None
    estimated: bool
    at_least: int
    rate: float | None
    length: float | None


def _pool_counted(counted: Sequence[LogSpecStat]) -> _Counted:
    """Σaccepted / Σdrafted and 1 + Σaccepted / Σsteps of ``counted`` (statistics that print both counts)."""
    drafted = sum(s.draft_tokens or 0 for s in counted)
    accepted = sum(s.accepted_tokens or 0 for s in counted)
    all_steps = bool(counted) and all(s.verify_steps is not None for s in counted)
    steps = sum(s.verify_steps or 0 for s in counted) if all_steps else None
    mean_extra = _ratio(accepted, steps)
    return _Counted(
        drafted=drafted,
        accepted=accepted,
        steps=steps,
        estimated=steps is not None and not all(s.verify_steps_exact for s in counted),
        at_least=sum(_steps_at_least(s) for s in counted),
        rate=_ratio(accepted, drafted),
        length=None if mean_extra is None else 1.0 + mean_extra,
    )


def _alarm_steps(c: _Counted) -> float | None:
    """The verify steps the alarm may rely on: the exact count, else the sound lower bound."""
    return _as_float(c.at_least if c.steps is None or c.estimated else c.steps)


def _per_rank(reading: EngineLog, counted: Sequence[LogSpecStat]) -> list[RankPool]:
    """Each engine's own pool (module doc), empty unless the ranks are engines and two or more are named."""
    from specscope.stats.low_acceptance import low_acceptance_alarm

    ranks = sorted({s.rank for s in counted if s.rank is not None})
    if not reading.ranks_are_engines or len(ranks) < 2:
        return []
    out: list[RankPool] = []
    for rank in ranks:
        mine = [s for s in counted if s.rank == rank]
        c = _pool_counted(mine)
        out.append(
            RankPool(
                rank=rank,
                statistics=len(mine),
                draft_tokens=c.drafted,
                accepted_tokens=c.accepted,
                verify_steps=c.steps,
                verify_steps_estimated=c.estimated,
                verify_steps_at_least=c.at_least,
                acceptance_rate=c.rate,
                acceptance_length=c.length,
                alarm=low_acceptance_alarm(reading.method, c.rate, _alarm_steps(c)),
            )
        )
    return out


def _rank_bound_alarm(reading: EngineLog) -> str | None:
    """The bound alarm of the first engine (rank) whose own windows' bound is alarmed, named (``DP0 TP0: ...``), when
    the ranks are engines and two or more are named; None else. The wording is the pool's, per rank."""
    from specscope.adapters.registry import display
    from specscope.stats.low_acceptance import low_acceptance_bound_alarm

    ranks = sorted({s.rank for s in reading.stats if s.rank is not None})
    if not reading.ranks_are_engines or len(ranks) < 2:
        return None
    for rank in ranks:
        mine = [s for s in reading.stats if s.rank == rank]
        at_most = max(s.accept_rate_at_most or 0.0 for s in mine)
        at_least = sum(s.verify_steps_at_least or 0 for s in mine)
        where = f"{len(mine)} {display(reading.engine)} {'/'.join(sorted({s.scope for s in mine}))}s"
        if low := low_acceptance_bound_alarm(reading.method, at_most, at_least, where):
            return f"{rank}: {low}"
    return None


def _k_differs(reading: EngineLog) -> list[str]:
    """``K_DIFFERS(...)`` when the log's statistics print per-position rates of more than one width (first line of
    each width named): more than one draft length is pooled (a restart with another k, or requests that set their
    own), so the pool mixes configurations and its per-position rates are not given."""
    first: dict[int, int] = {}
    for s in reading.stats:
        if s.per_position:
            first.setdefault(len(s.per_position), s.line_number)
    if len(first) < 2:
        return []
    said = ", ".join(f"{n} positions (line {line})" for n, line in sorted(first.items(), key=lambda kv: kv[1]))
    return [
        f"K_DIFFERS(statistics with {said}: more than one draft length in one log (a restart with another k, or "
        f"requests that set their own); the pool mixes them and per-position rates are not pooled)"
    ]


def _falls(reading: EngineLog) -> list[str]:
    """The fall of acceptance through the log's windows (:func:`specscope.stats.low_acceptance.acceptance_fell`), per
    engine when the ranks are engines and two or more are named, else over all its windows; each window's own rate
    weighted by its drafted tokens, or its upper bound when it prints no counts."""
    from specscope.stats.low_acceptance import acceptance_fell

    def series(stats: Sequence[LogSpecStat]) -> list[tuple[int, float, float, bool]]:
        out = []
        for s in stats:
            if s.scope != "window":
                continue
            if s.draft_tokens is not None and s.accepted_tokens is not None:
                if s.draft_tokens > 0:
                    out.append((s.line_number, s.accepted_tokens / s.draft_tokens, float(s.draft_tokens), False))
            elif s.accept_rate_at_most is not None:
                out.append((s.line_number, s.accept_rate_at_most, 1.0, True))
        return out

    ranks = sorted({s.rank for s in reading.stats if s.rank is not None})
    if reading.ranks_are_engines and len(ranks) >= 2:
        found = [acceptance_fell(series([s for s in reading.stats if s.rank == r]), r) for r in ranks]
    else:
        found = [acceptance_fell(series(reading.stats))]
    return [f for f in found if f]


def log_pool(reading: EngineLog) -> LogPool:
    """Pool ``reading`` (one engine's statistics of one log)."""
    from specscope.adapters.registry import display
    from specscope.stats.low_acceptance import low_acceptance_alarm, low_acceptance_bound_alarm

    counted = [s for s in reading.stats if s.draft_tokens is not None and s.accepted_tokens is not None]
    c = _pool_counted(counted) if counted else None
    drafted = c.drafted if c else None
    accepted = c.accepted if c else None
    steps = c.steps if c else None
    estimated = bool(c and c.estimated)
    at_least = c.at_least if c else 0
    rate = c.rate if c else None
    alarm = low_acceptance_alarm(reading.method, rate, _alarm_steps(c) if c else 0.0)
    per_rank = _per_rank(reading, counted)
    if alarm is None:
        alarm = next((f"{r.rank}: {r.alarm}" for r in per_rank if r.alarm), None)
    bounds = [s.accept_rate_at_most for s in reading.stats]
    at_most = None
    if reading.stats and not counted and all(b is not None for b in bounds):  # nothing counted: the bound (module doc)
        at_most = max(b or 0.0 for b in bounds)
        at_least = sum(s.verify_steps_at_least or 0 for s in reading.stats)
        scope = "/".join(sorted({s.scope for s in reading.stats}))
        where = f"{len(reading.stats)} {display(reading.engine)} {scope}s"
        alarm = low_acceptance_bound_alarm(reading.method, at_most, at_least, where) or _rank_bound_alarm(reading)
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
        acceptance_length=c.length if c else None,
        acceptance_per_position=_per_position(counted),
        alarm=alarm,
        warnings=[*reading.warnings, *_k_differs(reading), *_falls(reading)],
        inconsistencies=_inconsistencies(reading.stats),
        acceptance_rate_at_most=at_most,
        per_rank=per_rank,
    )


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def log_pool_lines(pool: LogPool) -> list[tuple[str, str]]:
    """The pool as (label, value) rows for a terminal table, labelled by engine; a pool whose lines print no counts
    (SGLang's windows) gives its forms and warnings only: there is nothing to pool, and no alarm is said from it."""
    e = pool.engine
    scope = "/".join(pool.scopes) or "statistic"
    rows = [(f"{e}_log_forms", ", ".join(pool.forms))]
    said_wrong = [(f"{e}_log_inconsistency", r) for r in pool.inconsistencies]
    if pool.draft_tokens is None:
        said = f"{scope}: {pool.statistics}, none prints its counts" if pool.statistics else "no speculative statistics"
        rows.append((f"{e}_log_pooled", f"{said}: nothing to pool"))
        return rows + said_wrong + [(f"{e}_log_warning", w) for w in pool.warnings]
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
        (
            f"{e}_log_acceptance_rate",
            inconsistent_mark(percent_text(pool.acceptance_rate), pool.inconsistencies, RATE_CODES),
        ),
        (f"{e}_log_acceptance_length", approx + _num(pool.acceptance_length, ".2f")),
        (f"{e}_log_per_position", inconsistent_mark(per_pos, pool.inconsistencies, PER_POSITION_CODES)),
        *((f"{e}_log_engine", _rank_text(r)) for r in pool.per_rank),
        (f"{e}_log_alarm", pool.alarm or "none"),
        *said_wrong,
        *((f"{e}_log_warning", w) for w in pool.warnings),
    ]


def inconsistent_mark(figure: str, inconsistencies: Sequence[str], codes: Sequence[str]) -> str:
    """``figure`` as shown, marked with the codes among ``inconsistencies`` that make it impossible:
    ``150.0% (INCONSISTENT: ACCEPTED_OVER_DRAFTED)``; unmarked when none of ``codes`` is among them."""
    found = [c for c in codes if any(r.split("(")[0] == c for r in inconsistencies)]
    return f"{figure} (INCONSISTENT: {', '.join(found)})" if found else figure


def _rank_text(r: RankPool) -> str:
    """One engine's pool as one cell: ``Engine 002: 453 drafted, 282 accepted over 151 steps, 62.3%, length 2.87``."""
    approx = "≈" if r.verify_steps_estimated else ""
    steps = f"{approx}{r.verify_steps:,}" if r.verify_steps is not None else f">= {r.verify_steps_at_least:,}"
    length = "" if r.acceptance_length is None else f", length {approx}{r.acceptance_length:.2f}"
    alarm = f"; {r.alarm}" if r.alarm else ""
    return (
        f"{r.rank}: {r.draft_tokens:,} drafted, {r.accepted_tokens:,} accepted over {steps} steps, "
        f"{percent_text(r.acceptance_rate)}{length}{alarm}"
    )

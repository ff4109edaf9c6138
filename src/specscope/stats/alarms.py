"""Every alarm of a run's judgement, decided once: the facts each one rests on, for every screen to render.

The rules live here (the thresholds in :mod:`specscope.stats.low_acceptance`, the verdict rule in
:mod:`specscope.stats.verdict`); :mod:`specscope.report.alarms` only puts them into words, with the likely cause and
the fixes. Codes:

* ``ACCEPTANCE_NEAR_ZERO`` / ``ACCEPTANCE_FAR_BELOW``: a learned draft head (or an unknown method: silence is not a
  pass) whose pooled acceptance rate over a workload is under :data:`~specscope.stats.low_acceptance.NEAR_ZERO`, or
  under :data:`~specscope.stats.low_acceptance.FAR_BELOW` of what the same method reaches on another workload, over
  at least :data:`~specscope.stats.low_acceptance.MIN_DRAFTS` verify steps (the rule of
  :func:`specscope.stats.low_acceptance.is_low_acceptance`, the same one a server log's ``LOW_ACCEPTANCE`` uses).
  Acceptance rate = accepted / drafted tokens, the bonus token excluded (:mod:`specscope.stats.acceptance`).
* ``NOT_ENGAGED``: a speculative config with a ``not_engaged`` comparison (0 drafts in every cell), per workload,
  with its levels.
* ``DRIFT``: a drift the A/A or sentinel cells confirm left at least one comparison ``undetermined`` (reason
  ``DRIFT``); its figure is the baseline's drift (signed fraction) and it names the comparisons.
* ``LOW_ACCEPTANCE`` / ``INCONSISTENT``: a config's stored server-log pool (``log_pools`` of its server facts,
  ``bench --server-log``), judged once when the log was pooled (:mod:`specscope.launch.logpool`, the same
  low-acceptance rule and ``counters``' consistency rules): its alarm, and its counts that contradict each other;
  ``source`` names the log's engine and line forms, ``details`` the pool's own sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from specscope.facts import LogPoolFacts
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.low_acceptance import FAR_BELOW, MIN_DRAFTS, is_low_acceptance, learned_head
from specscope.stats.noise import DriftCheck
from specscope.stats.server_spec import method_from_name
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison

__all__ = [
    "ALARM_CODES",
    "PROBLEM_CODES",
    "JudgedAlarm",
    "acceptance_method",
    "find_alarms",
    "found_problem",
    "log_pool_alarms",
]

#: code -> what its figure is.
ALARM_CODES: dict[str, str] = {
    "ACCEPTANCE_NEAR_ZERO": "the pooled acceptance rate (fraction, bonus token excluded)",
    "ACCEPTANCE_FAR_BELOW": "the pooled acceptance rate (fraction, bonus token excluded)",
    "NOT_ENGAGED": "comparisons with 0 drafts in every cell (count)",
    "DRIFT": "the baseline's drift between the early and late half of the run (signed fraction)",
    "LOW_ACCEPTANCE": "none (the stored server-log pool's alarm sentence is in details)",
    "INCONSISTENT": "none (the stored server-log pool's contradicting counts, one sentence each, are in details)",
}

#: the alarms that mean "the command ran and found a problem" (exit 1) on every screen: a draft that drafts and is
#: (almost) never accepted, by the one low-acceptance rule, whether read from a run (``report``, ``advise``,
#: ``bench``), two scrapes (``counters``: ``ACCEPTING_NOTHING``, ``LOW_ACCEPTANCE``) or a server log (``serve
#: --parse-log``, and a run's stored log: ``LOW_ACCEPTANCE``); and a server log's counts that contradict each other
#: (``INCONSISTENT``: ``serve --parse-log`` and ``counters`` exit 1 on them, so ``report`` of a run that stored
#: the log does too, :func:`log_pool_alarms`). ``NOT_ENGAGED`` (nothing drafted: an n-gram
#: drafter on prose is expected to be) and ``DRIFT`` (a finding about the measurement) are printed and keep exit 0.
PROBLEM_CODES = frozenset(
    {"ACCEPTANCE_NEAR_ZERO", "ACCEPTANCE_FAR_BELOW", "ACCEPTING_NOTHING", "LOW_ACCEPTANCE", "INCONSISTENT"}
)


def found_problem(codes: Sequence[str]) -> bool:
    """True when an alarm among ``codes`` is one of :data:`PROBLEM_CODES` (the exit code 1 of every command)."""
    return any(c in PROBLEM_CODES for c in codes)


@dataclass(frozen=True)
class JudgedAlarm:
    """One alarm as decided: ``code`` (:data:`ALARM_CODES`), the ``config`` and ``workload`` (None: the run) it is
    about, its ``figure``; ``method``: the config's speculative method (None: unknown); ``drafts``: verify steps the
    acceptance rests on; ``reference`` / ``reference_rate``: the config x workload and rate (fraction) a far-below
    acceptance is compared with; ``levels``: the levels it holds at; ``where``: the comparisons it names
    (config, workload, level)."""

    code: str
    config: str
    workload: str | None
    figure: float | None
    method: str | None = None
    drafts: float | None = None
    reference: str | None = None
    reference_rate: float | None = None
    levels: tuple[int, ...] = ()
    where: tuple[tuple[str, str, int], ...] = ()
    source: str | None = None
    details: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "config": self.config,
            "workload": self.workload,
            "figure": self.figure,
            "method": self.method,
            "drafts": self.drafts,
            "reference": self.reference,
            "reference_rate": self.reference_rate,
            "levels": list(self.levels),
            "where": [list(w) for w in self.where],
            "source": self.source,
            "details": list(self.details),
        }


def acceptance_method(config: str, methods: Mapping[str, str | None]) -> str | None:
    """The method a config drafts with for the acceptance rule: what its server facts say (``methods``,
    :func:`specscope.stats.server_spec.methods_of`), else what its name names (``mtp3`` -> ``mtp``), else None
    (unknown; a name that says only ``spec`` names no method)."""
    if methods.get(config):
        return methods[config]
    named = method_from_name(config)
    return None if named == "spec" else named


def _acceptance(cells: Sequence[CellSummary], methods: Mapping[str, str | None]) -> list[JudgedAlarm]:
    views = pooled_acceptance(cells)
    method = {c: acceptance_method(c, methods) for c, _ in views}
    out = []
    for (config, workload), v in views.items():
        m, rate = method[config], v.acceptance_rate
        if rate is None or workload is None or not learned_head(m) or v.drafts < MIN_DRAFTS:
            continue
        if is_low_acceptance(m, rate, v.drafts):
            out.append(JudgedAlarm("ACCEPTANCE_NEAR_ZERO", config, workload, rate, m, v.drafts))
            continue
        same = [
            (o.acceptance_rate, f"{c} on {w}")
            for (c, w), o in views.items()
            if (method[c] or c) == (m or config)
            and w != workload
            and o.acceptance_rate is not None
            and o.drafts >= MIN_DRAFTS
        ]
        best = max(same, default=None)
        if best is not None and rate < FAR_BELOW * best[0]:
            out.append(JudgedAlarm("ACCEPTANCE_FAR_BELOW", config, workload, rate, m, v.drafts, best[1], best[0]))
    return out


def _pool_source(pool: LogPoolFacts) -> str:
    """``server log (ENGINE: FORMS)``: the engine and the line forms a stored pool was read from."""
    forms = ", ".join(pool.forms)
    return f"server log ({pool.engine}: {forms})" if forms else f"server log ({pool.engine})"


def log_pool_alarms(log_pools: Mapping[str, Sequence[LogPoolFacts]]) -> list[JudgedAlarm]:
    """Each config's stored server-log pools (config -> pools, :func:`specscope.stats.server_spec.log_pools_of`), in
    config then pool order: the pool's ``LOW_ACCEPTANCE`` alarm and its counts that contradict each other (one
    ``INCONSISTENT`` alarm per pool, every violated check in ``details``)."""
    out = []
    for config, pools in log_pools.items():
        for pool in pools:
            source = _pool_source(pool)
            if pool.alarm:
                out.append(JudgedAlarm("LOW_ACCEPTANCE", config, None, None, source=source, details=(pool.alarm,)))
            if pool.inconsistencies:
                out.append(
                    JudgedAlarm("INCONSISTENT", config, None, None, source=source, details=tuple(pool.inconsistencies))
                )
    return out


def find_alarms(
    cells: Sequence[CellSummary],
    comparisons: Sequence[Comparison],
    drift: DriftCheck,
    methods: Mapping[str, str | None],
    baseline: str,
    log_pools: Mapping[str, Sequence[LogPoolFacts]] | None = None,
) -> tuple[JudgedAlarm, ...]:
    """Every alarm of a judged run (module docstring), acceptance first (config x workload order), then not engaged,
    then drift, then each stored server log's (``log_pools``: config -> its pools)."""
    out = _acceptance(cells, methods)
    idle: dict[tuple[str, str], list[int]] = {}
    for c in comparisons:
        if c.verdict == "not_engaged":
            idle.setdefault((c.config, c.workload), []).append(c.level)
    for (config, workload), levels in idle.items():
        m = acceptance_method(config, methods)
        out.append(JudgedAlarm("NOT_ENGAGED", config, workload, float(len(levels)), m, levels=tuple(levels)))
    blocked = tuple((c.config, c.workload, c.level) for c in comparisons if c.has("DRIFT"))
    big = drift.largest
    if blocked and big is not None:
        out.append(JudgedAlarm("DRIFT", baseline, None, big.drift, where=blocked))
    return (*out, *log_pool_alarms(log_pools or {}))

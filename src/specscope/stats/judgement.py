"""The one judgement of a run: every comparison with its interval, verdict and reasons, the run's noise, its picks.

:func:`judge` turns a run's observed cells into a frozen :class:`Judgement`, computed once; ``report`` (all four
formats), ``advise``, ``predict`` and the adaptive stopping rule (:mod:`specscope.bench.adaptive`) read it, and
nothing else decides a verdict. Its parts:

* per comparison (config vs the manifest's baseline, per workload x level): the paired rounds
  (:func:`specscope.stats.speedup.paired_rounds`, cold starts left out) of the figure that means speed for the
  cells' load (:func:`specscope.stats.groups.speed_metric`: aggregate output tok/s under a closed loop, decode tok/s
  = 1 / TPOT p50 under an open loop, where output tok/s is the offered load), the speedup and its interval
  (:func:`specscope.stats.speedup.log_ratio_interval`), the verdict and its reasons
  (:func:`specscope.stats.verdict.decide`) with the rounds dropped, cold starts, cells the client fell behind in,
  capacity-limited cells and 0-draft cells named;
* the run's noise: the A/A noise floor, the baseline's drift after warm-up and whether the A/A or sentinel cells
  confirm it, the cold starts (:mod:`specscope.stats.noise`), on the same speed figure;
* the level axis (:func:`specscope.stats.groups.level_axis`): what a level is (streams, a request rate, a trace);
* every alarm (:mod:`specscope.stats.alarms`): low acceptance, not engaged, a confirmed drift that blocked a verdict;
* the picks for a traffic mix (:mod:`specscope.stats.choices`; equal token shares over the run's workloads unless a
  mix is given).

``Judgement.to_dict`` is what ``report -f json`` and ``advise -f json`` carry as ``comparisons``, ``noise``,
``judged_alarms`` and ``choices`` (docs/report-json.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX, is_control
from specscope.errors import require_one_of
from specscope.facts import LogPoolFacts
from specscope.stats.acceptance import cell_drafts
from specscope.stats.alarms import JudgedAlarm, find_alarms
from specscope.stats.best_k import best_k
from specscope.stats.choices import Choices, Pairs, Traffic, choose
from specscope.stats.crossovers import Crossover, judged_crossovers
from specscope.stats.groups import GroupKey, LevelAxis, group_cells, level_axis, metric_value, speed_metric
from specscope.stats.noise import ColdStart, DriftCheck, NoiseFloor, aa_floor, cold_starts, drift_check
from specscope.stats.server_spec import method_from_name
from specscope.stats.speedup import (
    CONFIDENCE,
    PairedRounds,
    coefficient_of_variation,
    log_ratio_interval,
    paired_rounds,
)
from specscope.stats.summary import CellSummary
from specscope.stats.timeline import mean
from specscope.stats.verdict import DEFAULT_MIN_EFFECT, MIN_VERDICT_ROUNDS, Comparison, decide, side_reasons

__all__ = ["JUDGEMENT_SCHEMA", "Judgement", "check_baseline", "judge", "speculative_configs"]

JUDGEMENT_SCHEMA = 4  # version of Judgement.to_dict's shape (docs/report-json.md)


@dataclass(frozen=True)
class Judgement:
    """A run judged once (module docstring).

    Attributes:
        baseline: the config every comparison is against (the manifest's).
        min_effect: the minimum practical effect (fraction) the verdicts used.
        comparisons: every comparison, workloads in first-seen order, levels ascending, configs in first-seen order.
        floor: the run's A/A noise floor (the largest over the groups; each comparison is judged against its own
            group's), None without an A/A control.
        drift: the baseline's drift per workload x N after warm-up.
        cold_starts: cells left out as cold starts.
        choices: the picks for the mix (None without a baseline and another config).
        axis: what the levels are (streams, request rates, a trace replay).
        alarms: every alarm of the run (:func:`specscope.stats.alarms.find_alarms`).
        best_k: ((method, workload, level), k) of a run that swept k (:func:`specscope.stats.best_k.best_k`).
        crossovers: where a candidate's verdict flips between levels (:func:`specscope.stats.crossovers.
            judged_crossovers`), on the picks' mix and per workload; none without picks.
    """

    baseline: str
    min_effect: float
    comparisons: tuple[Comparison, ...]
    floor: NoiseFloor | None
    drift: DriftCheck
    cold_starts: tuple[ColdStart, ...] = ()
    choices: Choices | None = None
    axis: LevelAxis = field(default_factory=LevelAxis)
    confidence: float = CONFIDENCE
    min_rounds: int = MIN_VERDICT_ROUNDS
    notes: tuple[str, ...] = field(default=())
    alarms: tuple[JudgedAlarm, ...] = field(default=())
    best_k: tuple[tuple[tuple[str, str, int], int], ...] = field(default=())
    crossovers: tuple[Crossover, ...] = field(default=())

    def get(self, config: str, workload: str, level: int) -> Comparison | None:
        """The comparison of ``config`` at one workload x level, or None."""
        return next((c for c in self.comparisons if (c.config, c.workload, c.level) == (config, workload, level)), None)

    def noise_dict(self) -> dict[str, Any]:
        """The run's noise figures (fractions), as ``report -f json`` carries them under ``noise``."""
        big = self.drift.largest
        return {
            "aa_floor": None if self.floor is None else vars(self.floor).copy(),
            "drift": None
            if big is None
            else {
                "value": big.drift,
                "workload": big.group[0],
                "level": big.group[1],
                "cells": self.drift.cells,
                "control_drift": big.control_drift,
                "confirmed": big.confirmed,
                "metric": big.metric,
            },
            "drift_by_group": [
                {
                    "workload": g.group[0],
                    "level": g.group[1],
                    "value": g.drift,
                    "cells": g.cells,
                    "control_drift": g.control_drift,
                    "confirmed": g.confirmed,
                    "metric": g.metric,
                }
                for g in self.drift.by_group
            ],
            "cold_starts": [
                {
                    "config": c.config,
                    "workload": c.workload,
                    "level": c.level,
                    "repeat": c.repeat,
                    "tok_s": c.tok_s,
                    "later_tok_s": c.later_tok_s,
                    "drop": c.drop,
                    "metric": c.metric,
                }
                for c in self.cold_starts
            ],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "judgement_schema": JUDGEMENT_SCHEMA,
            "baseline": self.baseline,
            "min_effect": self.min_effect,
            "confidence": self.confidence,
            "min_rounds": self.min_rounds,
            "axis": self.axis.to_dict(),
            "comparisons": [c.to_dict() for c in self.comparisons],
            "noise": self.noise_dict(),
            "judged_alarms": [a.to_dict() for a in self.alarms],
            "best_k": [{"method": m, "workload": w, "level": n, "k": k} for (m, w, n), k in self.best_k],
            "crossovers": [vars(x).copy() for x in self.crossovers],
            "choices": None if self.choices is None else self.choices.to_dict(),
            "notes": list(self.notes),
        }


def speculative_configs(methods: Mapping[str, str | None] | None, cells: Sequence[CellSummary]) -> set[str]:
    """The configs that speculate: those whose server facts name a method (``methods``: config -> method, None when
    the facts say it does not speculate, :func:`specscope.stats.server_spec.methods_of`). A config the facts do not
    know (a server specscope did not start, a CSV) speculates when its name names a method
    (:func:`specscope.stats.server_spec.method_from_name`) or any of its cells reported drafts; llama.cpp exports
    its speculative counters (at 0) without speculation, so a counter alone does not tell."""
    known = dict(methods or {})
    out = {c for c, m in known.items() if m}
    for c in {x.config for x in cells} - set(known):
        if method_from_name(c) or any(cell_drafts(x) for x in cells if x.config == c):
            out.add(c)
    return out


@dataclass
class _Run:
    """The judged run as :class:`specscope.stats.choices.RunRounds` reads it."""

    baseline: str
    min_effect: float
    groups: dict[GroupKey, dict[int, CellSummary]]
    rounds: dict[tuple[str, str, int], PairedRounds]
    drift_check: DriftCheck

    def pairs(self, config: str, workload: str, level: int) -> Pairs:
        pr = self.rounds.get((config, workload, level))
        if pr is None:
            return {}
        return {c.repeat: (x, b) for c, x, b in zip(pr.config_cells, pr.config_values, pr.baseline_values, strict=True)}

    def drift(self, config: str, workload: str, level: int) -> float | None:
        pr = self.rounds.get((config, workload, level))
        return None if pr is None else self.drift_check.bias((workload, level), pr.mean_offset_s)

    def usable(self, config: str, workload: str, level: int) -> Sequence[CellSummary]:
        return list(self.groups.get(GroupKey(config, workload, level), {}).values())


@dataclass(frozen=True)
class _Rule:
    """What every comparison of one judgement shares."""

    baseline: str
    min_effect: float
    speculative: frozenset[str]


def _comparison(
    rule: _Rule,
    pr: PairedRounds,
    key: tuple[str, str, int, str],
    floor: NoiseFloor | None,
    drift: float | None,
    asked: Sequence[CellSummary],
) -> Comparison:
    config, workload, level, metric = key
    baseline, min_effect = rule.baseline, rule.min_effect
    speculative = config in rule.speculative and not is_control(config)
    control = config == baseline + AA_SUFFIX
    iv = log_ratio_interval(pr.ratios)
    mine = [c for c in asked if c.config == config and c.status in ("ok", "degraded")]
    counts = [d for c in mine if (d := cell_drafts(c)) is not None]
    zero = sum(1 for d in counts if d == 0)
    engaged = False if speculative and counts and zero == len(counts) else None
    verdict, reasons = decide(
        iv,
        min_effect=min_effect,
        floor=None if control else floor,
        drift=drift,
        control=control,
        zero_draft_cells=zero,
        engaged=engaged,
        no_figure=sum(1 for c in asked if c.status in ("ok", "degraded") and metric_value(c, metric) is None),
    )
    zero_drafts = zero if speculative and engaged is None else 0
    extra = side_reasons(pr, asked, pr.config_cells, zero_drafts=zero_drafts, counted_cells=len(counts))
    xs, bs = pr.config_values, pr.baseline_values
    return Comparison(
        config=config,
        baseline=baseline,
        workload=workload,
        level=level,
        metric=metric,
        rounds=pr.rounds,
        dropped=pr.dropped,
        config_mean=mean(xs),
        baseline_mean=mean(bs),
        speedup=iv.point,
        low=iv.low,
        high=iv.high,
        method=iv.method,
        interval=iv.label,
        verdict=verdict,
        reasons=(*reasons, *extra),
        config_cv=coefficient_of_variation(xs),
        baseline_cv=coefficient_of_variation(bs),
        control=control,
        drafts=sum(counts) if counts else None,
    )


def check_baseline(cells: Sequence[CellSummary], baseline: str) -> None:
    """Refuse a ``baseline`` that is none of the configs of ``cells`` (``judge`` and ``predict RUN`` say it alike).

    Raises:
        ConfigError: ``baseline`` is not one of the run's configs (they are named).
    """
    require_one_of(
        baseline,
        list(dict.fromkeys(c.config for c in cells if not c.config.endswith(SENTINEL_SUFFIX))),
        f"baseline config {baseline!r} is not in the run",
        expected="one of the run's configs: {}",
        empty="none (no cells)",
        fix="pass --baseline with one of the run's configs",
    )


def judge(
    cells: Sequence[CellSummary],
    baseline: str,
    *,
    min_effect: float = DEFAULT_MIN_EFFECT,
    methods: Mapping[str, str | None] | None = None,
    traffic: Traffic | None = None,
    metric: str | None = None,
    picks: bool = True,
    log_pools: Mapping[str, Sequence[LogPoolFacts]] | None = None,
) -> Judgement:
    """Judge a run's cells against ``baseline`` (module docstring).

    Args:
        cells: the run's cell summaries (:func:`specscope.stats.cells.summarize_run`), sentinels included.
        min_effect: the minimum practical effect (fraction).
        methods: config -> speculative method from the server facts (None: none), for ``not_engaged``
            (:func:`specscope.stats.server_spec.methods_of`).
        traffic: the mix, level mix, levels and SLO of the picks (equal token shares over the run's workloads at
            every measured level when None or unset).
        metric: the figure to compare (:data:`specscope.stats.groups.METRICS`); None: each group's speed figure
            (:func:`specscope.stats.groups.speed_metric`).
        log_pools: config -> its stored server-log pools (:func:`specscope.stats.server_spec.log_pools_of`), whose
            alarms are the judgement's too (:func:`specscope.stats.alarms.log_pool_alarms`).

    Raises:
        ConfigError: ``baseline`` is not one of the run's configs.
        picks: compute the picks (``choices``); False when only the comparisons are needed (the adaptive rule).
    """
    measured = [c for c in cells if not c.config.endswith(SENTINEL_SUFFIX)]
    check_baseline(measured, baseline)
    axis = level_axis(measured)
    cold = tuple(replace(c, place=f"{c.workload} {axis.label(c.level)}") for c in cold_starts(measured))
    drift = drift_check(cells, baseline, cold)
    groups = group_cells(measured)
    all_groups = group_cells(measured, include_degraded=True)
    configs = list(dict.fromkeys(c.config for c in measured))
    workloads = list(dict.fromkeys(c.workload for c in measured))
    all_levels = sorted({c.concurrency for c in measured})
    exclude = {c.key for c in cold}
    rule = _Rule(baseline, min_effect, frozenset(speculative_configs(methods, measured)))
    rounds: dict[tuple[str, str, int], PairedRounds] = {}
    metrics: dict[tuple[str, str, int], str] = {}
    for w in workloads:
        for n in all_levels:
            for cfg in configs:
                if (
                    cfg == baseline
                    or GroupKey(cfg, w, n) not in all_groups
                    or GroupKey(baseline, w, n) not in all_groups
                ):
                    continue
                here = [*all_groups[GroupKey(cfg, w, n)].values(), *all_groups[GroupKey(baseline, w, n)].values()]
                m = metrics[(cfg, w, n)] = metric or speed_metric(here)
                rounds[(cfg, w, n)] = paired_rounds(groups, all_groups, cfg, baseline, w, n, metric=m, exclude=exclude)
    aa = [
        (w, n, pr.rounds, iv.point)
        for (cfg, w, n), pr in rounds.items()
        if cfg == baseline + AA_SUFFIX and (iv := log_ratio_interval(pr.ratios)).point is not None
    ]
    comparisons = []
    for (cfg, w, n), pr in rounds.items():
        asked = [*all_groups[GroupKey(cfg, w, n)].values(), *all_groups[GroupKey(baseline, w, n)].values()]
        floor = _placed(aa_floor(aa, (w, n)), axis)
        key = (cfg, w, n, metrics[(cfg, w, n)])
        comparisons.append(_comparison(rule, pr, key, floor, drift.bias((w, n), pr.mean_offset_s), asked))
    t = traffic or Traffic()
    choices = None
    if picks and baseline in configs and len(configs) > 1:
        t = replace(
            t,
            mix=dict(t.mix) if t.mix else {w: 1.0 / len(workloads) for w in workloads},
            levels=list(t.levels) if t.levels is not None else all_levels,
        )
        # the picks' rates rest on the cells the comparisons rest on: a cold start left out of every pairing is left
        # out of the mix rates too (else a point-estimate pick could rank against the judged speedup's own rounds)
        warm = {
            k: {r: c for r, c in g.items() if (k.config, k.workload, k.concurrency, r) not in exclude}
            for k, g in groups.items()
        }
        run = _Run(baseline, min_effect, {k: g for k, g in warm.items() if g}, rounds, drift)
        aa_name = baseline + AA_SUFFIX if baseline + AA_SUFFIX in configs else None
        candidates = [c for c in configs if c != baseline and not is_control(c)]
        choices = choose(run, comparisons, candidates, aa_name, t, axis.label)
    floor = _placed(aa_floor(aa, None), axis)
    alarms = find_alarms(measured, comparisons, drift, methods or {}, baseline, log_pools)
    ks = tuple(sorted(best_k(comparisons).items()))
    return Judgement(
        baseline,
        min_effect,
        tuple(comparisons),
        floor,
        drift,
        cold,
        choices,
        axis,
        notes=tuple(t.notes),
        alarms=alarms,
        best_k=ks,
        crossovers=() if choices is None else judged_crossovers(choices, comparisons, axis),
    )


def _placed(floor: NoiseFloor | None, axis: LevelAxis) -> NoiseFloor | None:
    """``floor`` with its workload and level named as the run's axis names them."""
    return None if floor is None else replace(floor, place=f"{floor.workload} at {axis.label(floor.level)}")

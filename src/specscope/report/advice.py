"""Advice: which config (and k) to ship for a traffic mix, at each concurrency and overall.

Rules (the seeds': "measure your own mix"; a difference inside the noise is not a win):

* **Mix speedup.** A mix gives each workload a share m_w of the *output tokens* (shares are
  normalised to sum to 1). Serving those tokens takes sum_w m_w / rate_w seconds per token, so the
  speedup of config X over the baseline B on the mix is the ratio of those times

      S_mix = sum_w (m_w / B_w) / sum_w (m_w / X_w)        (B_w, X_w mean tokens/s over rounds)

  with a paired bootstrap interval over rounds (``scipy.stats.bootstrap``, 95 % percentile, fixed
  seed; a round is resampled with all its workloads, for config and baseline together). Cells are paired as the
  report pairs them, nearest in time (:func:`specscope.stats.pairing.pair_by_time`, usable cells only); with several
  workloads each gives its first R time-ordered pairs, R the fewest any of them has. Its ``interval``
  names it honestly for the rounds it rests on (:func:`specscope.stats.speedup.interval_label`: the range
  of 2 per-round ratios with 2 rounds, a "95% CI" only from 6).
* **Choice.** At each concurrency the advised config is the one with the highest S_mix among those
  whose interval lies wholly above 1.0; when none does, the baseline is advised ("no config beats
  base outside noise"). Per workload the same rule runs on the paired per-cell speedups, judged as the report
  judges them (:func:`specscope.stats.noise.judged_speedups`).
* **Noise floor.** The report's A/A and drift rules hold for the mix too: with an A/A control
  (``BASELINE-again``), its own S_mix over the baseline at each level gives the mix's spread
  ``max(|low - 1|, |high - 1|)``, and a mix win or loss whose effect ``|S_mix - 1|`` is inside it, or no larger
  than the run's drift, is ``within noise`` (:func:`specscope.stats.noise.gate_verdict`, ``why`` says which); the
  overall choice is judged against the largest spread over the levels in scope.
* **SLO.** With ``slo_ttft_s`` a config is eligible at a level only if its mean ``ttft_p95_s`` is
  within the SLO on every workload of the mix.
* **Overall.** The config with the highest geometric-mean S_mix over the levels in scope, among
  configs that are eligible at all of them.
* **Crossovers.** Where a config's speedup crosses 1.0 between two measured levels, the crossing is
  located by linear interpolation in log2(concurrency); ``firm`` when the verdicts on both sides are
  outside noise. Where the advised config changes between levels, that is a choice flip.
* **Acceptance placement.** A measured acceptance rate is placed between the run's workloads for the
  config it was measured with (linear in acceptance between the two bracketing workloads), giving a
  two-workload mix the advice then runs on.
* **Alarms.** The report's acceptance alarms (:mod:`specscope.report.alarms`) come with the advice: a
  config whose draft head looks broken should not be advised on its speed alone.

The mix arithmetic lives in :mod:`specscope.report.mix`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX, is_control
from specscope.errors import ConfigError
from specscope.report.alarms import acceptance_alarms
from specscope.report.mix import (
    Crossover,
    MixSpeedup,
    Placement,
    find_crossovers,
    geomean_mix_speedup,
    mix_speedup,
    parse_mix,
    place_acceptance,
)
from specscope.report.server_facts import spec_k
from specscope.stats.groups import GroupKey, group_cells, metric_value
from specscope.stats.noise import DriftCheck, gate_verdict, judged_speedups
from specscope.stats.pairing import pair_by_time
from specscope.stats.speedup import Speedup, interval_label, verdict_of
from specscope.stats.summary import CellSummary

__all__ = [
    "parse_mix",
    "MixSpeedup",
    "Crossover",
    "LevelAdvice",
    "Placement",
    "Advice",
    "mix_speedup",
    "geomean_mix_speedup",
    "find_crossovers",
    "place_acceptance",
    "advise",
]

Groups = dict[GroupKey, dict[int, CellSummary]]


@dataclass(frozen=True)
class LevelAdvice:
    """The advised config at one concurrency, with its mix gain, and the per-workload winners; ``interval`` names
    ``ci_low``..``ci_high`` for the ``rounds`` it rests on (:func:`specscope.stats.speedup.interval_label`; 0 rounds:
    no interval)."""

    concurrency: int
    config: str
    k: int | None
    speedup: float
    ci_low: float | None
    ci_high: float | None
    reason: str
    per_workload: dict[str, str]
    candidates: list[MixSpeedup]
    interval: str = ""
    rounds: int = 0


@dataclass(frozen=True)
class Advice:
    """Everything ``specscope advise`` prints (``to_dict`` is its ``--format json``); ``alarms`` are
    :meth:`specscope.report.document.Alarm.to_dict` items."""

    baseline: str
    mix: dict[str, float]
    levels: list[LevelAdvice]
    overall: dict[str, Any]
    crossovers: list[Crossover]
    flips: list[dict[str, Any]]
    placement: Placement | None = None
    notes: list[str] = field(default_factory=list)
    alarms: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _choose(cands: Sequence[tuple[str, float, str]], baseline: str) -> str:
    winners = [(s, c) for c, s, v in cands if v == "wins"]
    return max(winners)[1] if winners else baseline


def _scope(
    cells: Sequence[CellSummary], mix: Mapping[str, float], concurrency: int | None
) -> tuple[list[str], list[int]]:
    """The run's workloads and the levels to advise on. Raises ConfigError for names the run lacks."""
    workloads = list(dict.fromkeys(c.workload for c in cells))
    missing = [w for w in mix if w not in workloads]
    if missing:
        raise ConfigError(
            f"workload {missing[0]!r} of the mix is not in the run",
            found=missing,
            expected=", ".join(workloads),
            fix="name the run's workloads in --mix",
        )
    levels = sorted({c.concurrency for c in cells})
    if concurrency is not None:
        if concurrency not in levels:
            raise ConfigError(
                f"concurrency {concurrency} was not measured",
                found=concurrency,
                expected=", ".join(map(str, levels)),
                fix="pick a measured level",
            )
        levels = [concurrency]
    return workloads, levels


@dataclass(frozen=True)
class _Ctx:
    """What every level's advice shares: the run's ok groups, the mix, the baseline, the SLO and the facts."""

    groups: Groups
    mix: dict[str, float]
    baseline: str
    configs: list[str]
    slo_ttft_s: float | None
    facts: Mapping[str, Mapping[str, Any]]
    drift: DriftCheck
    spreads: dict[int, float] = field(default_factory=dict)  # level -> the A/A control's mix spread (fraction)

    def spread(self, lev: int | None = None) -> float | None:
        """The A/A mix spread at level ``lev`` (None: the largest over the levels), None without an A/A control."""
        if lev is not None and lev in self.spreads:
            return self.spreads[lev]
        return max(self.spreads.values()) if self.spreads else None


def _pairs(ctx: _Ctx, cfg: str, wl: str, lev: int) -> list[tuple[float, float]]:
    """(config, baseline) ``output_tok_s`` of one workload x level, paired nearest in time as the report pairs them
    (:func:`specscope.stats.pairing.pair_by_time`, over the usable cells ``ctx.groups`` holds), in time order."""
    x, b = ctx.groups.get(GroupKey(cfg, wl, lev), {}), ctx.groups.get(GroupKey(ctx.baseline, wl, lev), {})
    out = []
    for xc, bc in pair_by_time(x, b):
        xv, bv = metric_value(xc, "output_tok_s"), metric_value(bc, "output_tok_s")
        if xv is not None and bv is not None:
            out.append((xv, bv))
    return out


def _mix_series(ctx: _Ctx, cfg: str, lev: int) -> tuple[list[list[float]], list[list[float]]] | None:
    """Per mix workload, the config's and the baseline's paired rates over the same number of rounds.

    A round of the mix is resampled with all its workloads, so every series needs the same length: each workload
    contributes its first R time-ordered pairs, R the smallest number of pairs over the mix's workloads (a single
    workload mix uses all its pairs, as the report does). None without a paired round or with a rate <= 0."""
    per = [_pairs(ctx, cfg, w, lev) for w in ctx.mix]
    n = min(len(p) for p in per)
    if n == 0:
        return None
    xs = [[x for x, _ in p[:n]] for p in per]
    bs = [[b for _, b in p[:n]] for p in per]
    if min(min(v) for v in (*xs, *bs)) <= 0:
        return None
    return xs, bs


def _candidate(ctx: _Ctx, cfg: str, lev: int) -> MixSpeedup | None:
    wls, shares = list(ctx.mix), list(ctx.mix.values())
    series = _mix_series(ctx, cfg, lev)
    if series is None:
        return None
    xs, bs = series
    n = len(xs[0])
    s, lo, hi = mix_speedup(xs, bs, shares)
    ok = True
    if ctx.slo_ttft_s is not None:
        cfg_cells = [ctx.groups.get(GroupKey(cfg, w, lev), {}) for w in wls]
        ttfts = [np.mean([c.ttft_p95_s for c in x.values() if c.ttft_p95_s is not None] or [np.inf]) for x in cfg_cells]
        ok = bool(max(ttfts) <= ctx.slo_ttft_s)
    if cfg == ctx.baseline:
        return MixSpeedup(cfg, lev, n, s, lo, hi, "baseline", ok)
    verdict, why = gate_verdict(verdict_of(lo, hi), s - 1.0, ctx.spread(lev), ctx.drift)
    if verdict == "undetermined" and not why:
        why = f"only {n} paired round(s)"
    return MixSpeedup(cfg, lev, n, s, lo, hi, verdict, ok, why)


def _aa_spreads(ctx: _Ctx, levels: Sequence[int]) -> dict[int, float]:
    """Level -> the A/A control's mix spread ``max(|low - 1|, |high - 1|)`` where it has an interval."""
    out = {}
    for lev in levels:
        m = _candidate(ctx, ctx.baseline + AA_SUFFIX, lev)
        if m is not None and m.ci_low is not None and m.ci_high is not None:
            out[lev] = max(abs(m.ci_low - 1.0), abs(m.ci_high - 1.0))
    return out


def _level(ctx: _Ctx, lev: int, cell_speedups: Sequence[Speedup], workloads: Sequence[str]) -> LevelAdvice | str:
    """The advice at one level, or the note saying why there is none."""
    cands = [m for cfg in [ctx.baseline, *ctx.configs] if (m := _candidate(ctx, cfg, lev)) is not None]
    eligible = [m for m in cands if m.eligible]
    if not eligible:
        return f"c={lev}: no config meets the TTFT SLO" if ctx.slo_ttft_s is not None else f"c={lev}: no paired rounds"
    base_ok = any(m.config == ctx.baseline for m in eligible)
    pick = _choose([(m.config, m.speedup, m.verdict) for m in eligible if m.config != ctx.baseline], ctx.baseline)
    if pick == ctx.baseline and not base_ok:
        pick = max(eligible, key=lambda m: m.speedup).config
        reason = "the baseline misses the SLO; best eligible config"
    elif pick == ctx.baseline:
        reason = "no config beats the baseline outside noise"
        overruled = [f"{m.config}: {m.why}" for m in eligible if m.why]
        reason += f" ({'; '.join(overruled)})" if overruled else ""
    else:
        reason = "highest mix speedup among configs that win outside noise"
    chosen = next(m for m in cands if m.config == pick)
    per_wl = {
        w: _choose(
            [
                (s.config, s.speedup or 0.0, s.verdict)
                for s in cell_speedups
                if s.workload == w and s.concurrency == lev
            ],
            ctx.baseline,
        )
        for w in workloads
    }
    k = spec_k(pick, ctx.facts.get(pick) or {}) if pick != ctx.baseline else 0
    rounds = chosen.repeats if chosen.ci_low is not None else 0
    interval = interval_label(rounds)
    return LevelAdvice(
        lev, pick, k, chosen.speedup, chosen.ci_low, chosen.ci_high, reason, per_wl, cands, interval, rounds
    )


def _best_overall(ctx: _Ctx, level_out: Sequence[LevelAdvice]) -> dict[str, Any] | None:
    """The config with the highest geometric-mean mix speedup among those eligible at every level."""
    best: dict[str, Any] | None = None
    levels = [lv.concurrency for lv in level_out]
    for cfg in ctx.configs:
        ss = [next((m for m in lv.candidates if m.config == cfg and m.eligible), None) for lv in level_out]
        if not level_out or not all(ss):
            continue
        # rounds are resampled together across levels too: per level and workload the time-ordered pairs
        # (as in _mix_series), each cut to the first R, R the smallest number of pairs over levels and workloads
        per_level = [_mix_series(ctx, cfg, lev) for lev in levels]
        if any(p is None for p in per_level):
            continue
        data = [p for p in per_level if p is not None]
        n = min(len(v) for xs, _ in data for v in xs)
        data = [([v[:n] for v in xs], [v[:n] for v in bs]) for xs, bs in data]
        g, lo, hi = geomean_mix_speedup(data, list(ctx.mix.values()))
        verdict, why = gate_verdict(verdict_of(lo, hi), g - 1.0, ctx.spread(), ctx.drift)
        if best is None or g > best["geomean_speedup"]:
            best = {
                "config": cfg,
                "k": spec_k(cfg, ctx.facts.get(cfg) or {}),
                "geomean_speedup": g,
                "ci_low": lo,
                "ci_high": hi,
                "verdict": verdict,
                "why": why,
                "rounds": n,
                "interval": interval_label(n if lo is not None else 0),
                "wins_at_levels": sum(m is not None and m.verdict == "wins" for m in ss),
                "levels": levels,
            }
    return best


def _crossovers(
    ctx: _Ctx, level_out: Sequence[LevelAdvice], cell_speedups: Sequence[Speedup], workloads: Sequence[str]
) -> list[Crossover]:
    out: list[Crossover] = []
    for cfg in ctx.configs:
        mixed = [(m.concurrency, m.speedup, m.verdict) for lv in level_out for m in lv.candidates if m.config == cfg]
        out += find_crossovers(mixed, cfg, None)
        for w in workloads:
            here = [
                (s.concurrency, s.speedup, s.verdict)
                for s in cell_speedups
                if s.config == cfg and s.workload == w and s.speedup is not None
            ]
            out += find_crossovers(here, cfg, w)
    return out


def advise(
    summaries: Iterable[CellSummary],
    mix: Mapping[str, float] | None = None,
    *,
    baseline: str = "base",
    concurrency: int | None = None,
    slo_ttft_s: float | None = None,
    acceptance: float | None = None,
    acceptance_config: str | None = None,
    server_facts: Mapping[str, Mapping[str, Any]] | None = None,
) -> Advice:
    """Advise a config per concurrency and overall for a mix (or for a measured acceptance).

    Raises:
        ConfigError: neither mix nor acceptance; a mix workload or the concurrency not in the run.
    """
    measured = [c for c in summaries if not c.config.endswith(SENTINEL_SUFFIX)]
    cells = [c for c in measured if not is_control(c.config)]  # the A/A control and sentinels are not candidates
    placement = None
    if acceptance is not None:
        placement = place_acceptance(cells, acceptance, acceptance_config, baseline)
        mix = placement.mix if mix is None else mix
    if not mix:
        raise ConfigError(
            "advise needs a traffic mix",
            found="no --mix and no --acceptance",
            expected="--mix prose=0.2,code=0.3,edit=0.5 or --acceptance 0.47",
        )
    workloads, levels = _scope(cells, mix, concurrency)
    configs = [c for c in dict.fromkeys(c.config for c in cells) if c != baseline]
    judged, drift = judged_speedups(measured, baseline)  # the report's verdicts: A/A spread and drift applied
    cell_speedups = [s for s in judged if not is_control(s.config)]
    ctx = _Ctx(group_cells(measured), dict(mix), baseline, configs, slo_ttft_s, server_facts or {}, drift)
    ctx.spreads.update(_aa_spreads(ctx, levels))
    notes: list[str] = []
    level_out: list[LevelAdvice] = []
    for lev in levels:
        got = _level(ctx, lev, cell_speedups, workloads)
        if isinstance(got, str):
            notes.append(got)
        else:
            level_out.append(got)
    overall: dict[str, Any] = {
        "config": baseline,
        "k": 0,
        "geomean_speedup": 1.0,
        "ci_low": None,
        "ci_high": None,
        "interval": interval_label(0),
        "verdict": "baseline",
        "levels": [lv.concurrency for lv in level_out],
    }
    best = _best_overall(ctx, level_out)
    if best is not None and best["verdict"] == "wins":
        overall = best
    elif best is not None:
        overall["best_other"] = best
    flips = [
        {"from_config": a.config, "to_config": b.config, "below_level": a.concurrency, "above_level": b.concurrency}
        for a, b in zip(level_out, level_out[1:], strict=False)
        if a.config != b.config
    ]
    if ctx.spreads:
        floor = ", ".join(f"c={lev} +-{sp * 100:.1f} %" for lev, sp in sorted(ctx.spreads.items()))
        notes.append(f"A/A control: the mix's noise floor is {floor}; a mix effect inside it is within noise")
    if any(lv.candidates and lv.candidates[0].repeats < 6 for lv in level_out):
        notes.append("fewer than 6 rounds: intervals are rough (see the report's note on few repeats)")
    alarms = [a.to_dict() for a in acceptance_alarms(cells, server_facts)]
    crossovers = _crossovers(ctx, level_out, cell_speedups, workloads)
    return Advice(baseline, dict(mix), level_out, overall, crossovers, flips, placement, notes, alarms)

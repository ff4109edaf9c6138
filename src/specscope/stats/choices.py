"""Which config to ship for a traffic mix: the mix comparisons and the picks ``advise`` and ``report`` print.

Every pick is judged by the one rule (:func:`specscope.stats.verdict.decide`) on a mix's per-round ratios
(:mod:`specscope.stats.mix`) with the same minimum effect, A/A floor and confirmed drift as a single comparison:

* **Per level.** Each candidate's ``S_mix`` over the baseline at that level; the pick is the ``faster`` candidate
  with the highest ``S_mix`` among those eligible (the SLO targets, :class:`specscope.stats.goodput.SloTargets`: the
  mean ``ttft_p95_s`` and ``tpot_p95_s`` of its cells within them on every workload of the mix); when none is
  faster, the baseline (and why). Per workload, the same rule on the run's comparisons.
* **Overall.** Equal time at each level in scope: per round, ``sum_n H_X(n) / sum_n H_B(n)`` over the levels (a
  level mix with equal time shares, averaged on tok/s as a traffic that spends the same time at each level gets it;
  never a geometric mean of speedups).
* **Level mix.** With ``--level-mix``, the time-weighted rate over levels (:func:`specscope.stats.mix.
  level_mix_round_ratios`) is judged the same way; its pick is the static choice; the dynamic policy takes each
  level's own pick, so ``--mix`` and ``--level-mix`` can only differ where their traffic differs (equal weight per
  level against time shares), and then a note says so.
* **A/A floor of a mix.** The A/A control's own ``S_mix`` at the same level (over levels: its own equal-time ratio):
  the floor is its ``|S_mix - 1|``, as :func:`specscope.stats.noise.aa_floor` for one comparison.

Per-user view (level mix): the median per-stream rate of each level and workload, weighted by time share x token
share (a mean of medians), a point estimate shown beside the throughput choice when it prefers another config (no
verdict: each stream's rate is not paired in time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from statistics import median
from typing import Any, Protocol

from specscope.stats.goodput import SloTargets
from specscope.stats.mix import RoundPairs, level_mix_round_ratios, mix_rate, mix_round_ratios
from specscope.stats.noise import NoiseFloor, aa_floor
from specscope.stats.speedup import Interval, log_ratio_interval
from specscope.stats.summary import CellSummary
from specscope.stats.unjudged import PointPick, UnjudgedPicks, unjudged_picks
from specscope.stats.verdict import Comparison, Judged, Reason, Verdict, decide, verdict_text
from specscope.values import duration_text, ratio_text

__all__ = ["RunRounds", "Traffic", "MixComparison", "LevelChoice", "LevelMixChoice", "Choices", "choose"]

Pairs = RoundPairs


class RunRounds(Protocol):
    """What the choices read of a judged run (:mod:`specscope.stats.judgement` provides it)."""

    baseline: str
    min_effect: float

    def pairs(self, config: str, workload: str, level: int) -> Pairs:
        """The paired rounds: the config cell's repeat index -> (config value, baseline value) (tokens/s)."""
        ...

    def drift(self, config: str, workload: str, level: int) -> float | None:
        """How far a confirmed drift can move the comparison (fraction), None when none is confirmed."""
        ...

    def usable(self, config: str, workload: str, level: int) -> Sequence[CellSummary]:
        """The usable cells of one group."""
        ...


@dataclass(frozen=True)
class Traffic:
    """The traffic the picks are for.

    Attributes:
        mix: token shares per workload (summing to 1); None: equal shares over the run's workloads.
        level_mix: share of wall time per level (summing to 1), for the level-mix pick; None: none.
        levels: the levels the picks cover; None: every measured level.
        slo: the SLO targets a pick's p95 TTFT and TPOT must meet (:class:`specscope.stats.goodput.SloTargets`);
            None: none.
        notes: notes to carry with the picks (e.g. how a mix was normalised).
    """

    mix: Mapping[str, float] | None = None
    level_mix: Mapping[int, float] | None = None
    levels: Sequence[int] | None = None
    slo: SloTargets | None = None
    notes: Sequence[str] = ()


@dataclass(frozen=True)
class MixComparison(Judged):
    """A candidate against the baseline on a mix at one level (``level`` None: over levels); fields as
    :class:`specscope.stats.verdict.Comparison`; ``eligible``: within the SLO targets; ``control``: the A/A control,
    listed for its floor and never picked."""

    config: str
    level: int | None
    rounds: int
    speedup: float | None
    low: float | None
    high: float | None
    method: str
    interval: str
    verdict: Verdict
    reasons: tuple[Reason, ...] = ()
    eligible: bool = True
    control: bool = False


@dataclass(frozen=True)
class LevelChoice:
    """The pick at one level: the config (the baseline when none is faster), its mix comparison (None for the
    baseline), why, and the per-workload picks; ``candidates``: every candidate's mix comparison."""

    level: int
    config: str
    comparison: MixComparison | None
    reason: str
    per_workload: dict[str, str]
    candidates: tuple[MixComparison, ...]

    def to_dict(self) -> dict[str, Any]:
        c = self.comparison
        return {
            "level": self.level,
            "config": self.config,
            "speedup": 1.0 if c is None else c.speedup,
            "gain": 0.0 if c is None else c.gain,
            "low": None if c is None else c.low,
            "high": None if c is None else c.high,
            "rounds": None if c is None else c.rounds,
            "verdict": "baseline" if c is None else c.verdict,
            "reason": self.reason,
            "per_workload": dict(self.per_workload),
            "candidates": [m.to_dict() for m in self.candidates],
        }


@dataclass(frozen=True)
class LevelMixChoice:
    """The static and dynamic choices for a level mix (rates in tokens/s of wall time).

    Attributes:
        level_mix: share of wall time per level (sums to 1).
        static: per config, the time-weighted rate from the group means (point estimates).
        choice: the static pick (the baseline when no config is faster); ``comparison`` its judged figure (the best
            other candidate's when the baseline is picked, None without one); ``candidates``: every candidate's.
        dynamic: per level, that level's pick; ``dynamic_tok_s`` its time-weighted rate, ``dynamic_gain`` against
            the static pick's rate (fraction).
        per_user: per config, the median per-stream rate of each level and workload, weighted by time share x token
            share; ``per_user_choice`` its best.
    """

    level_mix: dict[int, float]
    static: dict[str, float]
    choice: str
    comparison: MixComparison | None
    candidates: tuple[MixComparison, ...]
    dynamic: dict[int, str]
    dynamic_tok_s: float | None
    dynamic_gain: float | None
    per_user: dict[str, float]
    per_user_choice: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            **{k: v for k, v in asdict(self).items() if k not in ("comparison", "candidates")},
            "comparison": None if self.comparison is None else self.comparison.to_dict(),
            "candidates": [m.to_dict() for m in self.candidates],
        }


@dataclass(frozen=True)
class Choices:
    """Every pick for one traffic mix: per level, overall, and for a level mix; ``notes`` say what the reader
    must know (normalised shares, a level-mix pick that differs from the overall one and why); ``no_pick``: why no
    level has a pick ("" when one has), e.g. the TTFT SLO nothing measured meets; ``unjudged``: the same picks by
    point estimate when a comparison had too few rounds to judge (:mod:`specscope.stats.unjudged`), else None."""

    baseline: str
    mix: dict[str, float]
    levels: tuple[LevelChoice, ...]
    overall: LevelChoice | None
    level_mix: LevelMixChoice | None = None
    notes: tuple[str, ...] = field(default=())
    no_pick: str = ""
    unjudged: UnjudgedPicks | None = None

    @property
    def flips(self) -> list[dict[str, Any]]:
        """Where the pick changes between two measured levels."""
        return [
            {"from_config": a.config, "to_config": b.config, "below_level": a.level, "above_level": b.level}
            for a, b in zip(self.levels, self.levels[1:], strict=False)
            if a.config != b.config
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "mix": dict(self.mix),
            "levels": [lv.to_dict() for lv in self.levels],
            "overall": None if self.overall is None else self.overall.to_dict(),
            "level_mix": None if self.level_mix is None else self.level_mix.to_dict(),
            "flips": self.flips,
            "notes": list(self.notes),
            "no_pick": self.no_pick,
            "unjudged": None if self.unjudged is None else self.unjudged.to_dict(),
        }


@dataclass(frozen=True)
class _Ctx:
    run: RunRounds
    mix: dict[str, float]
    candidates: tuple[str, ...]
    aa: str | None
    comparisons: tuple[Comparison, ...]
    slo: SloTargets | None
    label: Callable[[int], str] = field(default=lambda n: f"N={n}")  # a level in a sentence (LevelAxis.label)

    @property
    def shares(self) -> list[float]:
        return list(self.mix.values())

    def level_pairs(self, config: str, level: int) -> list[Pairs] | None:
        parts = [self.run.pairs(config, w, level) for w in self.mix]
        return None if any(not p for p in parts) else parts

    def drift(self, config: str, levels: Sequence[int]) -> float | None:
        ds = [d for lev in levels for w in self.mix if (d := self.run.drift(config, w, lev)) is not None]
        return max(ds, default=None)

    def engaged(self, config: str, levels: Sequence[int]) -> bool | None:
        mine = [c for c in self.comparisons if c.config == config and c.workload in self.mix and c.level in levels]
        return False if mine and all(c.verdict == "not_engaged" for c in mine) else None

    def p95_s(self, config: str, level: int, figure: str) -> float | None:
        """The p95 the SLO is checked on (s), ``figure`` ``ttft_p95_s`` or ``tpot_p95_s``: the mean over each
        workload's usable cells at ``level``, the largest over the workloads of the mix; None when a workload has
        none."""
        worst = 0.0
        for w in self.mix:
            got = [v for c in self.run.usable(config, w, level) if (v := getattr(c, figure)) is not None]
            if not got:
                return None
            worst = max(worst, sum(got) / len(got))
        return worst

    def _targets(self) -> list[tuple[str, str, float]]:
        """``(name, CellSummary figure, bound s)`` of each target given."""
        slo = self.slo or SloTargets()
        named = (("TTFT", "ttft_p95_s", slo.ttft_s), ("TPOT", "tpot_p95_s", slo.tpot_s))
        return [(n, f, v) for n, f, v in named if v is not None]

    def eligible(self, config: str, levels: Sequence[int]) -> bool:
        return all(
            (t := self.p95_s(config, lev, fig)) is not None and t <= bound
            for lev in levels
            for _, fig, bound in self._targets()
        )

    def no_pick(self, levels: Sequence[int]) -> str:
        """Why no level has a pick: an SLO target nothing measured meets (with the best p95 measured against it),
        else no paired round."""
        for name, fig, bound in self._targets():
            slo = f"the {name} SLO of {duration_text(bound)}"
            best = min(
                (
                    (t, cfg, lev)
                    for lev in levels
                    for cfg in (self.run.baseline, *self.candidates)
                    if (t := self.p95_s(cfg, lev, fig)) is not None
                ),
                default=None,
            )
            if best is None:
                return f"no {name} measured on the mix to check {slo} against"
            if best[0] > bound:
                return (
                    f"no config meets {slo} at any level (best p95 {name} measured: {duration_text(best[0])}, "
                    f"{best[1]} at {self.label(best[2])})"
                )
        return "no level has a paired round on every workload of the mix"


def _reason_total(ctx: _Ctx, config: str, levels: Sequence[int], code: str) -> int:
    """The sum of the figures of ``code`` reasons over ``config``'s comparisons in the mix at ``levels`` (cells)."""
    return sum(
        int(r.figure or 0)
        for c in ctx.comparisons
        if c.config == config and c.workload in ctx.mix and c.level in levels
        for r in c.reasons
        if r.code == code
    )


def _judged(
    ctx: _Ctx, config: str, level: int | None, iv: Interval, levels: Sequence[int], floor: NoiseFloor | None
) -> MixComparison:
    control = config == ctx.aa
    engaged = None if control else ctx.engaged(config, levels)
    zero = _reason_total(ctx, config, levels, "NO_DRAFTS")
    verdict, reasons = decide(
        iv,
        min_effect=ctx.run.min_effect,
        floor=None if control else floor,
        drift=ctx.drift(config, levels),
        control=control,
        zero_draft_cells=zero,
        engaged=engaged,
    )
    by_order = _reason_total(ctx, config, levels, "NOT_INTERLEAVED")
    if by_order:  # the mix rests on the comparisons' rounds: imported ones were paired by order, and it says so
        text = f"{by_order} imported cell(s): rounds paired by order, not interleaved"
        reasons = (*reasons, Reason("NOT_INTERLEAVED", by_order, text))
    eligible = ctx.eligible(config, levels)
    return MixComparison(
        config, level, iv.rounds, iv.point, iv.low, iv.high, iv.method, iv.label, verdict, reasons, eligible, control
    )


def _level_interval(ctx: _Ctx, config: str, level: int) -> Interval | None:
    parts = ctx.level_pairs(config, level)
    return None if parts is None else log_ratio_interval(mix_round_ratios(parts, ctx.shares))


def _floor(aa: Mapping[int, Interval], level: int) -> NoiseFloor | None:
    """The A/A control's mix floor at ``level``."""
    return aa_floor(
        [("mix", lev, iv.rounds, iv.point) for lev, iv in aa.items() if iv.point is not None], ("mix", level)
    )


def _pick(ctx: _Ctx, level: int, cands: Sequence[MixComparison]) -> tuple[str, MixComparison | None, str]:
    base = ctx.run.baseline
    faster = [m for m in cands if m.verdict == "faster" and m.eligible and m.config != ctx.aa]
    if faster:
        best = max(faster, key=lambda m: m.speedup or 0.0)
        return best.config, best, "highest mix speedup among the configs faster than the baseline"
    if ctx.slo is not None and level and not ctx.eligible(base, [level]):
        ok = [m for m in cands if m.eligible and m.config != ctx.aa]
        if ok:
            best = max(ok, key=lambda m: m.speedup or 0.0)
            return (
                best.config,
                best,
                f"the baseline misses the SLO ({ctx.slo.text()}); best eligible config (no verdict needed)",
            )
    why = [
        f"{m.config}: {m.verdict.replace('_', ' ')}"
        + ("" if m.speedup is None else f" {ratio_text(m.speedup)}")  # absent, never 0.00x
        + (f", {m.why}" if m.why else "")
        for m in cands
        if m.config != ctx.aa
    ]
    return base, None, "no config is faster than the baseline" + (f" ({'; '.join(why)})" if why else "")


def _per_workload(ctx: _Ctx, level: int) -> dict[str, str]:
    """Per workload of the run (not only the mix's), the fastest config faster than the baseline there, else the
    baseline."""
    out = {}
    for w in dict.fromkeys(c.workload for c in ctx.comparisons):
        here = [c for c in ctx.comparisons if c.workload == w and c.level == level and c.verdict == "faster"]
        here = [c for c in here if c.config in ctx.candidates]
        out[w] = max(here, key=lambda c: c.speedup or 0.0).config if here else ctx.run.baseline
    return out


def _levels(ctx: _Ctx, levels: Sequence[int], notes: list[str]) -> list[LevelChoice]:
    """The pick at each level; a level without a paired candidate, or where no config (the baseline included)
    meets the SLO targets, has none and gets a note."""
    aa = {lev: iv for lev in levels if ctx.aa and (iv := _level_interval(ctx, ctx.aa, lev)) is not None}
    out = []
    for lev in levels:
        cands = []
        for cfg in ctx.candidates + ((ctx.aa,) if ctx.aa else ()):
            iv = aa.get(lev) if cfg == ctx.aa else _level_interval(ctx, cfg, lev)
            if iv is not None:
                cands.append(_judged(ctx, cfg, lev, iv, [lev], _floor(aa, lev)))
        if not cands:
            notes.append(_no_pairs_note(ctx, lev))
            continue
        if ctx.slo is not None and not ctx.eligible(ctx.run.baseline, [lev]):
            if not any(m.eligible for m in cands if m.config != ctx.aa):
                notes.append(f"{ctx.label(lev)}: no config meets the SLO ({ctx.slo.text()})")
                continue
        cfg, chosen, reason = _pick(ctx, lev, cands)
        out.append(LevelChoice(lev, cfg, chosen, reason, _per_workload(ctx, lev), tuple(cands)))
    return out


def _no_pairs_note(ctx: _Ctx, level: int) -> str:
    """Why ``level`` has no candidate: no paired round at all, or none on some workloads of the mix (named, with the
    ones paired and the ``--mix`` that advises on those)."""
    configs = ctx.candidates + ((ctx.aa,) if ctx.aa else ())
    paired = [w for w in ctx.mix if any(ctx.run.pairs(cfg, w, level) for cfg in configs)]
    if not paired:
        return f"{ctx.label(level)}: no paired rounds"
    missing = ", ".join(w for w in ctx.mix if w not in paired)
    mix = ",".join(f"{w}={1 / len(paired):.3g}" for w in paired)
    return (
        f"{ctx.label(level)}: no paired rounds on {missing} (paired on {', '.join(paired)}); a pick needs every "
        f"workload of the mix paired (--mix {mix} picks on what is paired)"
    )


def _over_levels(
    ctx: _Ctx, levels: Sequence[int], ratios: Callable[[str], list[float] | None], aa_iv: Interval | None
) -> tuple[str, MixComparison | None, str, tuple[MixComparison, ...]]:
    """The pick over several levels from each candidate's per-round ``ratios`` (None: not paired everywhere)."""
    floor = (
        None
        if aa_iv is None or aa_iv.point is None
        else NoiseFloor(abs(aa_iv.point - 1.0), "the A/A mix over levels", 0, aa_iv.rounds)
    )
    cands = []
    for cfg in ctx.candidates:
        r = ratios(cfg)
        if r:
            cands.append(_judged(ctx, cfg, None, log_ratio_interval(r), levels, floor))
    cfg, chosen, reason = _pick(ctx, 0, cands)
    return cfg, chosen, reason, tuple(cands)


def _equal_time_ratios(ctx: _Ctx, config: str, levels: Sequence[int]) -> list[float] | None:
    """The overall pick's per-round ratios: a level mix with the same share of time at each of ``levels``."""
    return _level_mix_ratios(ctx, config, {lev: 1.0 / len(levels) for lev in levels}) if levels else None


def _level_mix_ratios(ctx: _Ctx, config: str, time_shares: Mapping[int, float]) -> list[float] | None:
    parts = {lev: ctx.level_pairs(config, lev) for lev in time_shares}
    if any(p is None for p in parts.values()):
        return None
    return level_mix_round_ratios({k: v for k, v in parts.items() if v is not None}, ctx.shares, time_shares)


def _mean_rate(ctx: _Ctx, config: str, level: int) -> float | None:
    means = []
    for w in ctx.mix:
        vals = [c.output_tok_s for c in ctx.run.usable(config, w, level) if c.output_tok_s]
        if not vals:
            return None
        means.append(sum(vals) / len(vals))
    return mix_rate(means, ctx.shares)


def _per_user(ctx: _Ctx, config: str, time_shares: Mapping[int, float]) -> float | None:
    total = 0.0
    for lev, t in time_shares.items():
        for w, m in ctx.mix.items():
            rates = [r for c in ctx.run.usable(config, w, lev) for r in c.stream_tok_s]
            if not rates:
                return None
            total += t * m * median(rates)
    return total


def _level_mix(ctx: _Ctx, time_shares: Mapping[int, float], picks: Mapping[int, str]) -> LevelMixChoice:
    configs = (ctx.run.baseline, *ctx.candidates)
    static = {
        c: sum(t * r for lev, t in time_shares.items() if (r := _mean_rate(ctx, c, lev)) is not None)
        for c in configs
        if all(_mean_rate(ctx, c, lev) is not None for lev in time_shares)
    }
    aa_r = _level_mix_ratios(ctx, ctx.aa, time_shares) if ctx.aa else None
    cfg, chosen, _, cands = _over_levels(
        ctx, list(time_shares), lambda c: _level_mix_ratios(ctx, c, time_shares), log_ratio_interval(aa_r or [])
    )
    if chosen is None and cands:  # the baseline is picked: show the best other, with its verdict and reasons
        chosen = max(cands, key=lambda m: m.speedup or 0.0)
    dynamic = {lev: picks[lev] for lev in sorted(time_shares) if lev in picks}
    dyn_rates = [t * (_mean_rate(ctx, dynamic[lev], lev) or 0.0) for lev, t in time_shares.items() if lev in dynamic]
    dyn = sum(dyn_rates) if len(dynamic) == len(time_shares) else None
    gain = None if dyn is None or not static.get(cfg) else dyn / static[cfg] - 1.0
    per_user = {c: v for c in configs if (v := _per_user(ctx, c, time_shares)) is not None}
    user_choice = max(per_user, key=lambda c: per_user[c]) if per_user else None
    return LevelMixChoice(dict(time_shares), static, cfg, chosen, cands, dynamic, dyn, gain, per_user, user_choice)


def choose(
    run: RunRounds,
    comparisons: Sequence[Comparison],
    candidates: Sequence[str],
    aa: str | None,
    traffic: Traffic,
    label: Callable[[int], str] | None = None,
) -> Choices:
    """The picks for ``traffic`` at its levels and over them (module docstring).

    Args:
        run: the judged run's rounds.
        comparisons: the run's comparisons (per-workload picks, ``not_engaged``).
        candidates: the configs that may be picked (not the baseline, not the A/A control or sentinels).
        aa: the A/A control's name when the run has one.
        traffic: the mix (its ``mix`` and ``levels`` filled in), level mix and SLO.
        label: a level as a sentence names it (:meth:`specscope.stats.groups.LevelAxis.label`; None: ``N=level``).
    """
    ctx = _Ctx(run, dict(traffic.mix or {}), tuple(candidates), aa, tuple(comparisons), traffic.slo)
    if label is not None:
        ctx = replace(ctx, label=label)
    notes = list(traffic.notes)
    level_out = _levels(ctx, traffic.levels or (), notes)
    done = [lv.level for lv in level_out]
    overall = None
    if done:
        aa_r = _equal_time_ratios(ctx, aa, done) if aa else None
        cfg, chosen, reason, cands = _over_levels(
            ctx, done, lambda c: _equal_time_ratios(ctx, c, done), log_ratio_interval(aa_r or [])
        )
        overall = LevelChoice(0, cfg, chosen, reason + " (equal time at each level, on tok/s)", {}, cands)
    lm = None
    if traffic.level_mix is not None:
        lm = _level_mix(ctx, traffic.level_mix, {lv.level: lv.config for lv in level_out})
        if overall is not None and lm.choice != overall.config:
            notes.append(
                f"the level mix picks {lm.choice} and the overall pick is {overall.config}: the level mix weighs "
                "each level by its share of wall time, the overall pick gives every measured level the same time"
            )
        one = set(lm.dynamic.values())
        if len(one) == 1 and len(lm.dynamic) == len(traffic.level_mix) and lm.choice not in one:
            (every,) = one  # the dynamic policy is a static one the static pick did not take: say why
            m = next((x for x in lm.candidates if x.config == every), None)
            why = (
                "has no round with every level measured"
                if m is None
                else f"rests on {m.rounds} round{'s' if m.rounds != 1 else ''} in which every level was measured "
                f"({verdict_text(m.verdict)}{'; ' + m.why if m.why else ''})"
            )
            notes.append(
                f"the dynamic policy is {every} at every level, each judged there, while the static pick is "
                f"{lm.choice}: {every}'s level mix {why}"
            )
        if lm.per_user_choice is not None and lm.per_user_choice != lm.choice:
            notes.append(
                f"the per-user view prefers {lm.per_user_choice} (each stream faster) while the throughput view "
                f"picks {lm.choice}: choose by which one your users feel (the per-user view is a point estimate)"
            )
    no_pick = "" if level_out else ctx.no_pick(traffic.levels or ())
    rough = _unjudged(ctx, level_out, overall, traffic)
    if rough is not None:
        level_out = [_also_unjudged(lv, rough.at(lv.level), rough) for lv in level_out]
        if overall is not None and rough.overall not in (None, overall.config):
            x = rough.overall_speedup or 1.0
            overall = replace(
                overall, reason=f"{overall.reason}; unjudged, the figures rank {rough.overall} first ({ratio_text(x)})"
            )
    return Choices(run.baseline, dict(ctx.mix), tuple(level_out), overall, lm, tuple(notes), no_pick, rough)


def _unjudged(
    ctx: _Ctx, levels: Sequence[LevelChoice], overall: LevelChoice | None, traffic: Traffic
) -> UnjudgedPicks | None:
    """The picks by point estimate (:mod:`specscope.stats.unjudged`) when a candidate's comparison had too few rounds
    to judge, else None."""
    cands = [m for lv in (*levels, *([overall] if overall else [])) for m in lv.candidates if m.config != ctx.aa]
    if not any(m.has("TOO_FEW_ROUNDS") for m in cands):
        return None
    short = tuple(
        lv.level for lv in levels if any(m.has("TOO_FEW_ROUNDS") for m in lv.candidates if m.config != ctx.aa)
    )
    rough = unjudged_picks(
        # a config that did not speculate at a level (0 drafts: not engaged) is the baseline under another name; its
        # rate there is noise around the baseline's, never a pick
        lambda c, lev: None if ctx.engaged(c, [lev]) is False else _mean_rate(ctx, c, lev),
        ctx.run.baseline,
        ctx.candidates,
        [lv.level for lv in levels],
        traffic.level_mix,
    )
    overall_short = overall is not None and any(
        m.has("TOO_FEW_ROUNDS") for m in overall.candidates if m.config != ctx.aa
    )
    if overall_short and not short:  # every level judged; the rounds holding every level are too few
        return replace(rough, overall_short=True, needs=ACROSS_LEVELS)
    return replace(rough, short_levels=short, overall_short=overall_short)


#: what would judge the picks over levels when every level was judged on its own but too few rounds hold every level
ACROSS_LEVELS = (
    "at least 2 rounds in which every level was measured ok: rerun the cells that failed or were dropped "
    "(bench --resume --retry-failed on this run), or run more repeats (bench --repeats)"
)


#: what would judge a level whose comparisons had rounds enough but an interval too wide to decide (noise)
NARROWER = "a narrower interval: the rounds disagree; run more repeats (bench --repeats) on a quieter server"


def _also_unjudged(lv: LevelChoice, point: PointPick | None, rough: UnjudgedPicks) -> LevelChoice:
    """``lv`` with the point-estimate best in its reason when the judged pick is the baseline and the figures rank
    another config above it: the sentence says both."""
    if point is None or point.config == lv.config or lv.comparison is not None:
        return lv
    base = "" if point.baseline_tok_s is None else f" against the baseline's {point.baseline_tok_s:.1f}"
    needs = rough.needs if lv.level in rough.short_levels else NARROWER
    text = f"unjudged, the figures rank {point.config} first ({point.tok_s:.1f} tok/s{base}; to judge: {needs})"
    return replace(lv, reason=f"{lv.reason}; {text}")

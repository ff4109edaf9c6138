"""Picks by point estimate, labelled *unjudged*: the answer when the comparisons cannot be judged (issue 33).

A published table has one measurement per cell, and a short run may have too few paired rounds
(:data:`specscope.stats.verdict.MIN_VERDICT_ROUNDS`): no comparison then has an interval, none is ``faster``, and the
judged pick is the baseline. That is the judged answer, but not the whole one: the table's own figures may rank
another config above the baseline, and the reader must see both. So, whenever a candidate's comparison at a level in
scope is ``undetermined`` for ``TOO_FEW_ROUNDS``, the same picks are computed from the point estimates alone:

* **per level**: the config with the highest mix rate at that level (tokens/s: the token-weighted harmonic mean over
  the mix's workloads of each group's mean output tok/s, :func:`specscope.stats.mix.mix_rate`), with the baseline's;
* **static policy** (with a level mix): the config with the highest time-weighted rate, ``sum_level share x rate``
  (tokens/s; a level mix is a share of wall time, so its aggregate is a rate averaged by time, never a mean of
  speedups);
* **dynamic policy**: each level's point-estimate best, and its time-weighted rate (tokens/s);
* **overall** (the same time at every level, as the judged overall pick): the config with the highest sum over the
  levels of its rate over the baseline's sum (tokens/s over tokens/s; never a mean of speedups).

A config that was ``not engaged`` at a level (its server reported 0 drafts) has no rate there for these picks: it
served the baseline's way under another name, and its point estimate is noise around the baseline's.

None of these carries a verdict; :data:`WHAT_WOULD_JUDGE` says what would give them one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["WHAT_WOULD_JUDGE", "PointPick", "UnjudgedPicks", "unjudged_picks"]

WHAT_WOULD_JUDGE = (
    "at least 2 paired rounds per cell: run more repeats (bench --repeats), import more result files per config "
    "(specscope import: each file of a config is a repeat), or give repeat rows in --from-csv (the same config, "
    "workload and concurrency with repeat 0, 1, ...)"
)


@dataclass(frozen=True)
class PointPick:
    """The point-estimate best at one level: ``config`` and its mix rate ``tok_s``, the baseline's ``baseline_tok_s``
    (tokens/s; None when the baseline has no figure there)."""

    level: int
    config: str
    tok_s: float
    baseline_tok_s: float | None


@dataclass(frozen=True)
class UnjudgedPicks:
    """The picks by point estimate (module docstring); ``static`` / ``static_tok_s``: the static policy (None
    without a level mix), ``baseline_tok_s``: the baseline's time-weighted rate; ``dynamic``: level -> config,
    ``dynamic_tok_s`` its time-weighted rate; ``needs``: what would judge them; ``short_levels``: the levels whose
    comparisons had too few paired rounds (at another level the interval was only wide: noise, not the round count);
    ``overall_short``: a candidate's overall comparison (equal time at each level) had too few paired rounds, which
    happens with every level judged when the rounds that hold every level are fewer than each level's own."""

    levels: tuple[PointPick, ...]
    static: str | None = None
    static_tok_s: float | None = None
    baseline_tok_s: float | None = None
    dynamic: Mapping[int, str] | None = None
    dynamic_tok_s: float | None = None
    overall: str | None = None
    overall_speedup: float | None = None
    needs: str = WHAT_WOULD_JUDGE
    short_levels: tuple[int, ...] = ()  # the levels whose comparisons had too few paired rounds (the others: noise)
    overall_short: bool = False  # the overall comparison of a candidate had too few paired rounds

    def at(self, level: int) -> PointPick | None:
        return next((p for p in self.levels if p.level == level), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "levels": [vars(p).copy() for p in self.levels],
            "static": self.static,
            "static_tok_s": self.static_tok_s,
            "baseline_tok_s": self.baseline_tok_s,
            "dynamic": None if self.dynamic is None else dict(self.dynamic),
            "dynamic_tok_s": self.dynamic_tok_s,
            "overall": self.overall,
            "overall_speedup": self.overall_speedup,
            "needs": self.needs,
            "short_levels": list(self.short_levels),
            "overall_short": self.overall_short,
        }


def unjudged_picks(
    rate: Callable[[str, int], float | None],
    baseline: str,
    candidates: Sequence[str],
    levels: Sequence[int],
    time_shares: Mapping[int, float] | None,
) -> UnjudgedPicks:
    """The picks by point estimate (module docstring). ``rate(config, level)``: the config's mix rate at a level
    (tokens/s, None when it has none); ``time_shares``: the level mix (share of wall time per level), or None."""
    configs = (baseline, *candidates)
    picks = []
    for lev in levels:
        rates = {c: r for c in configs if (r := rate(c, lev)) is not None}
        if rates:
            best = max(rates, key=lambda c: (rates[c], c == baseline))
            picks.append(PointPick(lev, best, rates[best], rates.get(baseline)))
    overall, overall_x = _overall(rate, baseline, candidates, levels)
    if not time_shares:
        return UnjudgedPicks(tuple(picks), overall=overall, overall_speedup=overall_x)
    weighted = {
        c: sum(t * (rate(c, lev) or 0.0) for lev, t in time_shares.items())
        for c in configs
        if all(rate(c, lev) is not None for lev in time_shares)
    }
    static = max(weighted, key=lambda c: (weighted[c], c == baseline)) if weighted else None
    best_at = {p.level: p for p in picks}
    dynamic = {lev: best_at[lev].config for lev in sorted(time_shares) if lev in best_at}
    dyn = sum(t * best_at[lev].tok_s for lev, t in time_shares.items()) if len(dynamic) == len(time_shares) else None
    return UnjudgedPicks(
        tuple(picks),
        static,
        None if static is None else weighted[static],
        weighted.get(baseline),
        dynamic,
        dyn,
        overall,
        overall_x,
    )


def _overall(
    rate: Callable[[str, int], float | None], baseline: str, candidates: Sequence[str], levels: Sequence[int]
) -> tuple[str | None, float | None]:
    """The config with the highest ``sum_levels rate / sum_levels baseline rate`` (equal time at each of ``levels``),
    and that ratio (the baseline, 1.0, when none is above it); (None, None) when the baseline lacks a level."""
    base = [rate(baseline, lev) for lev in levels]
    if not levels or any(b is None or b <= 0 for b in base):
        return None, None
    best, best_x = baseline, 1.0
    for c in candidates:
        mine = [rate(c, lev) for lev in levels]
        if any(m is None or m <= 0 for m in mine):
            continue
        x = sum(m or 0.0 for m in mine) / sum(b or 0.0 for b in base)
        if x > best_x:
            best, best_x = c, x
    return best, best_x

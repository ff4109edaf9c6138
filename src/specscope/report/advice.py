"""Advice: which config (and k) to ship for a traffic mix, at each concurrency and overall.

Rules (the seeds': "measure your own mix"; a difference inside the noise is not a win):

* **Mix speedup.** A mix gives each workload a share m_w of the *output tokens* (shares are
  normalised to sum to 1). Serving those tokens takes sum_w m_w / rate_w seconds per token, so the
  speedup of config X over the baseline B on the mix is the ratio of those times

      S_mix = sum_w (m_w / B_w) / sum_w (m_w / X_w)        (B_w, X_w mean tokens/s over rounds)

  with a 95 % paired bootstrap interval over rounds (``scipy.stats.bootstrap``, percentile, fixed
  seed; a round is resampled with all its workloads, for config and baseline together).
* **Choice.** At each concurrency the advised config is the one with the highest S_mix among those
  whose interval lies wholly above 1.0; when none does, the baseline is advised ("no config beats
  base outside noise"). Per workload the same rule runs on the paired per-cell speedups.
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
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import stats as sps

from specscope.errors import ConfigError
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.groups import GroupKey, group_cells, metric_value
from specscope.stats.speedup import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Speedup, paired_speedups, verdict_of
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


def parse_mix(text: str) -> dict[str, float]:
    """``"prose=0.2,code=0.3,edit=0.5"`` -> shares normalised to sum 1.

    Raises:
        ConfigError: malformed entry, negative share, repeated workload, or all shares zero.
    """
    out: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, val = part.partition("=")
        try:
            share = float(val)
        except ValueError:
            share = -1.0
        if not sep or not name.strip() or share < 0 or name.strip() in out:
            raise ConfigError(
                "bad --mix entry",
                found=part,
                expected="WORKLOAD=SHARE with SHARE >= 0, each workload once",
                fix="e.g. --mix prose=0.2,code=0.3,edit=0.5",
            )
        out[name.strip()] = share
    total = sum(out.values())
    if total <= 0:
        raise ConfigError(
            "a --mix needs a positive share",
            found=text,
            expected="shares summing to more than 0",
            fix="e.g. --mix prose=0.2,code=0.3,edit=0.5",
        )
    return {k: v / total for k, v in out.items() if v > 0}


@dataclass(frozen=True)
class MixSpeedup:
    """S_mix of one config at one concurrency (see the module docstring); CI None with < 2 rounds."""

    config: str
    concurrency: int
    repeats: int
    speedup: float
    ci_low: float | None
    ci_high: float | None
    verdict: str
    eligible: bool = True


@dataclass(frozen=True)
class Crossover:
    """Where ``config``'s speedup over the baseline crosses 1.0 (``workload`` None: the mix)."""

    config: str
    workload: str | None
    below_level: int
    above_level: int
    concurrency: float
    direction: str  # "wins->loses" or "loses->wins" (point estimates)
    firm: bool


@dataclass(frozen=True)
class LevelAdvice:
    """The advised config at one concurrency, with its mix gain, and the per-workload winners."""

    concurrency: int
    config: str
    k: int | None
    speedup: float
    ci_low: float | None
    ci_high: float | None
    reason: str
    per_workload: dict[str, str]
    candidates: list[MixSpeedup]


@dataclass(frozen=True)
class Placement:
    """A measured acceptance placed between the run's workloads for one config."""

    config: str
    acceptance: float
    workload_acceptance: dict[str, float]
    nearest: str
    mix: dict[str, float]
    text: str


@dataclass(frozen=True)
class Advice:
    """Everything ``specscope advise`` prints (``to_dict`` is its ``--format json``)."""

    baseline: str
    mix: dict[str, float]
    levels: list[LevelAdvice]
    overall: dict[str, Any]
    crossovers: list[Crossover]
    flips: list[dict[str, Any]]
    placement: Placement | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _mix_ratio(mix: Sequence[float]):
    w = np.asarray(mix, dtype=np.float64)  # [W]

    def stat(*arrays: np.ndarray, axis: int = -1) -> np.ndarray:
        # arrays: W config series then W baseline series, each [..., n] -> [...]
        nw = len(w)
        x = np.stack([np.mean(a, axis=axis) for a in arrays[:nw]], axis=-1)  # [..., W] tokens/s
        b = np.stack([np.mean(a, axis=axis) for a in arrays[nw:]], axis=-1)  # [..., W] tokens/s
        return np.sum(w / b, axis=-1) / np.sum(w / x, axis=-1)

    return stat


def mix_speedup(
    x_by_workload: Sequence[Sequence[float]],
    b_by_workload: Sequence[Sequence[float]],
    shares: Sequence[float],
    *,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float | None, float | None]:
    """S_mix and its paired bootstrap interval.

    Args:
        x_by_workload, b_by_workload: per workload, the per-round rates (tokens/s) of the config and
            of the baseline; every series has the same length n (round i is paired everywhere).
        shares: token share per workload (same order), summing to 1.

    Returns:
        (S_mix, low, high); low/high None when n < 2.
    """
    return geomean_mix_speedup([(x_by_workload, b_by_workload)], shares, seed=seed, resamples=resamples)


def geomean_mix_speedup(
    levels: Sequence[tuple[Sequence[Sequence[float]], Sequence[Sequence[float]]]],
    shares: Sequence[float],
    *,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float | None, float | None]:
    """Geometric mean over levels of S_mix, with a paired bootstrap interval (rounds paired across levels).

    Args:
        levels: per level, (config series per workload, baseline series per workload), each series
            the per-round rates (tokens/s) of the same n rounds.
        shares: token share per workload.

    Returns:
        (geomean S_mix, low, high); low/high None when n < 2. One level gives S_mix itself.
    """
    one = _mix_ratio(shares)
    nw = len(shares)

    def stat(*arrays: np.ndarray, axis: int = -1) -> np.ndarray:
        # arrays: per level 2W series [..., n] -> [...] geometric mean of the per-level S_mix
        per_level = [one(*arrays[i : i + 2 * nw], axis=axis) for i in range(0, len(arrays), 2 * nw)]
        return np.exp(np.mean(np.log(np.stack(per_level, axis=-1)), axis=-1))

    arrays = [np.asarray(a, dtype=np.float64) for xs, bs in levels for a in (*xs, *bs)]  # L*2W x [n]
    point = float(stat(*arrays))
    if arrays[0].size < 2:
        return point, None, None
    if all(np.all(a == a[0]) for a in arrays):
        return point, point, point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=sps.DegenerateDataWarning)
        res = sps.bootstrap(
            tuple(arrays),
            stat,
            paired=True,
            vectorized=True,
            method="percentile",
            n_resamples=resamples,
            rng=np.random.default_rng(seed),
        )
    return point, float(res.confidence_interval.low), float(res.confidence_interval.high)


def _interp_log2(c0: int, s0: float, c1: int, s1: float) -> float:
    t = (s0 - 1.0) / (s0 - s1)
    return float(2 ** (math.log2(c0) + t * (math.log2(c1) - math.log2(c0))))


def find_crossovers(series: Iterable[tuple[int, float, str]], config: str, workload: str | None) -> list[Crossover]:
    """Crossings of 1.0 in a (concurrency, speedup, verdict) series (any order of levels)."""
    pts = sorted(series)
    out = []
    for (c0, s0, v0), (c1, s1, v1) in zip(pts, pts[1:]):
        if (s0 - 1.0) * (s1 - 1.0) < 0:
            firm = v0 in ("wins", "loses") and v1 in ("wins", "loses")
            out.append(
                Crossover(
                    config,
                    workload,
                    c0,
                    c1,
                    _interp_log2(c0, s0, c1, s1),
                    "wins->loses" if s0 > 1.0 else "loses->wins",
                    firm,
                )
            )
    return out


def place_acceptance(
    summaries: Sequence[CellSummary], acceptance: float, config: str | None = None, baseline: str = "base"
) -> Placement:
    """Place a measured acceptance rate between the run's workloads (see the module docstring).

    Raises:
        ConfigError: acceptance outside [0, 1]; no config with acceptance counters; ``config`` not
            given while several configs draft; the config measured on fewer than one workload.
    """
    if not 0.0 <= acceptance <= 1.0:
        raise ConfigError(
            "--acceptance is a fraction",
            found=acceptance,
            expected="0..1 (accepted / drafted tokens)",
            fix="e.g. --acceptance 0.47",
        )
    views = pooled_acceptance(summaries)
    drafting = list(dict.fromkeys(c for c, _ in views if c != baseline))
    if not drafting:
        raise ConfigError(
            "the run has no acceptance counters",
            found="no config drafted",
            expected="a run with a speculative config",
            fix="bench a draft config with /metrics",
        )
    if config is None:
        if len(drafting) > 1:
            raise ConfigError(
                "say which config the acceptance was measured with",
                found=", ".join(drafting),
                expected="--config NAME",
                fix=f"add --config {drafting[0]}",
            )
        config = drafting[0]
    if config not in drafting:
        raise ConfigError(f"config {config!r} has no acceptance in the run", found=config, expected=", ".join(drafting))
    by_wl = {wl: v.acceptance_rate for (c, wl), v in views.items() if c == config and v.acceptance_rate is not None}
    order = sorted(by_wl.items(), key=lambda kv: kv[1])
    nearest = min(order, key=lambda kv: abs(kv[1] - acceptance))[0]
    if acceptance <= order[0][1]:
        mix = {order[0][0]: 1.0}
    elif acceptance >= order[-1][1]:
        mix = {order[-1][0]: 1.0}
    else:
        (lo_w, lo_a), (hi_w, hi_a) = next((a, b) for a, b in zip(order, order[1:]) if a[1] <= acceptance <= b[1])
        t = (acceptance - lo_a) / (hi_a - lo_a) if hi_a > lo_a else 1.0
        mix = {k: v for k, v in ((lo_w, 1.0 - t), (hi_w, t)) if v > 0}
    listing = ", ".join(f"{w} {a:.2f}" for w, a in order)
    text = f"acceptance {acceptance:.2f} on {config} is {nearest}-like (run: {listing})"
    return Placement(config, acceptance, dict(order), nearest, mix, text)


def _k_of(config: str, facts: Mapping[str, Any] | None) -> int | None:
    f = facts or {}
    for key in ("k", "num_speculative_tokens", "draft_max"):
        if f.get(key) is not None:
            return int(f[key])
    cfg = f.get("config") if isinstance(f.get("config"), Mapping) else {}
    if cfg.get("spec_types") and cfg.get("draft_n_max_tokens") is not None:
        return int(cfg["draft_n_max_tokens"])  # llama.cpp --spec-draft-n-max (embedded engine)
    m = re.search(r"k(\d+)$", config)
    return int(m.group(1)) if m else None


def _choose(cands: Sequence[tuple[str, float, str]], baseline: str) -> str:
    winners = [(s, c) for c, s, v in cands if v == "wins"]
    return max(winners)[1] if winners else baseline


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
    seed: int = BOOTSTRAP_SEED,
) -> Advice:
    """Advise a config per concurrency and overall for a mix (or for a measured acceptance).

    Raises:
        ConfigError: neither mix nor acceptance; a mix workload or the concurrency not in the run.
    """
    cells = list(summaries)
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
    configs = [c for c in dict.fromkeys(c.config for c in cells) if c != baseline]
    cell_speedups = paired_speedups(cells, baseline=baseline, seed=seed)
    groups = group_cells(cells)
    wls, shares = list(mix), [mix[w] for w in mix]
    notes: list[str] = []
    level_out: list[LevelAdvice] = []
    for lev in levels:
        cands: list[MixSpeedup] = []
        for cfg in [baseline, *configs]:
            per = [(groups.get(GroupKey(cfg, w, lev), {}), groups.get(GroupKey(baseline, w, lev), {})) for w in wls]
            rounds = sorted(set.intersection(*(set(x) & set(b) for x, b in per)))
            if not rounds:
                continue
            xs = [[metric_value(x[r], "output_tok_s") or 0.0 for r in rounds] for x, _ in per]
            bs = [[metric_value(b[r], "output_tok_s") or 0.0 for r in rounds] for _, b in per]
            if min(min(v) for v in (*xs, *bs)) <= 0:
                continue
            s, lo, hi = mix_speedup(xs, bs, shares, seed=seed)
            ok = True
            if slo_ttft_s is not None:
                ttfts = [
                    np.mean([c.ttft_p95_s for c in x.values() if c.ttft_p95_s is not None] or [np.inf]) for x, _ in per
                ]
                ok = max(ttfts) <= slo_ttft_s
            cands.append(
                MixSpeedup(cfg, lev, len(rounds), s, lo, hi, verdict_of(lo, hi) if cfg != baseline else "baseline", ok)
            )
        eligible = [m for m in cands if m.eligible]
        if not eligible:
            notes.append(
                f"c={lev}: no config meets the TTFT SLO" if slo_ttft_s is not None else f"c={lev}: no paired rounds"
            )
            continue
        base_ok = any(m.config == baseline for m in eligible)
        pick = _choose([(m.config, m.speedup, m.verdict) for m in eligible if m.config != baseline], baseline)
        if pick == baseline and not base_ok:
            pick = max((m for m in eligible), key=lambda m: m.speedup).config
            reason = "the baseline misses the SLO; best eligible config"
        elif pick == baseline:
            reason = "no config beats the baseline outside noise"
        else:
            reason = "highest mix speedup among configs that win outside noise"
        chosen = next(m for m in cands if m.config == pick)
        per_wl = {}
        for w in workloads:
            here = [
                (s.config, s.speedup or 0.0, s.verdict)
                for s in cell_speedups
                if s.workload == w and s.concurrency == lev
            ]
            per_wl[w] = _choose(here, baseline)
        facts = (server_facts or {}).get(pick)
        level_out.append(
            LevelAdvice(
                lev,
                pick,
                _k_of(pick, facts) if pick != baseline else 0,
                chosen.speedup,
                chosen.ci_low,
                chosen.ci_high,
                reason,
                per_wl,
                cands,
            )
        )
    # overall: geometric mean of S_mix over the levels, among configs eligible everywhere
    overall: dict[str, Any] = {
        "config": baseline,
        "k": 0,
        "geomean_speedup": 1.0,
        "ci_low": None,
        "ci_high": None,
        "verdict": "baseline",
        "levels": [lv.concurrency for lv in level_out],
    }
    best = None
    for cfg in configs:
        ss = [next((m for m in lv.candidates if m.config == cfg and m.eligible), None) for lv in level_out]
        if not level_out or not all(ss):
            continue
        rounds = sorted(
            set.intersection(
                *(
                    set(groups.get(GroupKey(c, w, lv.concurrency), {}))
                    for lv in level_out
                    for w in wls
                    for c in (cfg, baseline)
                )
            )
        )
        if not rounds:
            continue
        data = [
            (
                [
                    [metric_value(groups[GroupKey(cfg, w, lv.concurrency)][r], "output_tok_s") for r in rounds]
                    for w in wls
                ],
                [
                    [metric_value(groups[GroupKey(baseline, w, lv.concurrency)][r], "output_tok_s") for r in rounds]
                    for w in wls
                ],
            )
            for lv in level_out
        ]
        g, lo, hi = geomean_mix_speedup(data, shares, seed=seed)
        if best is None or g > best["geomean_speedup"]:
            best = {
                "config": cfg,
                "k": _k_of(cfg, (server_facts or {}).get(cfg)),
                "geomean_speedup": g,
                "ci_low": lo,
                "ci_high": hi,
                "verdict": verdict_of(lo, hi),
                "wins_at_levels": sum(m.verdict == "wins" for m in ss),
                "levels": [lv.concurrency for lv in level_out],
            }
    if best is not None and best["verdict"] == "wins":
        overall = best
    elif best is not None:
        overall["best_other"] = best
    crossovers: list[Crossover] = []
    for cfg in configs:
        crossovers += find_crossovers(
            [(m.concurrency, m.speedup, m.verdict) for lv in level_out for m in lv.candidates if m.config == cfg],
            cfg,
            None,
        )
        for w in workloads:
            crossovers += find_crossovers(
                [
                    (s.concurrency, s.speedup, s.verdict)
                    for s in cell_speedups
                    if s.config == cfg and s.workload == w and s.speedup is not None
                ],
                cfg,
                w,
            )
    flips = [
        {"from_config": a.config, "to_config": b.config, "below_level": a.concurrency, "above_level": b.concurrency}
        for a, b in zip(level_out, level_out[1:])
        if a.config != b.config
    ]
    if any(lv.candidates and lv.candidates[0].repeats < 6 for lv in level_out):
        notes.append("fewer than 6 rounds: intervals are rough (see the report's note on few repeats)")
    return Advice(baseline, dict(mix), level_out, overall, crossovers, flips, placement, notes)


def speedups_table(speedups: Iterable[Speedup]) -> list[dict[str, Any]]:
    """Speedups as plain dicts (for JSON output)."""
    return [s.to_dict() for s in speedups]

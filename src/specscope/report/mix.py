"""Mix arithmetic behind ``specscope advise``: traffic mixes, the mix speedup with its paired bootstrap
interval, crossings of 1.0 between measured levels, and placing a measured acceptance between workloads.

The rules are in :mod:`specscope.report.advice`'s docstring; units: rates in tokens/s, shares and
acceptance as fractions, concurrency in requested streams.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from specscope.errors import ConfigError
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.speedup import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from specscope.stats.summary import CellSummary

__all__ = [
    "parse_mix",
    "MixSpeedup",
    "Crossover",
    "Placement",
    "mix_speedup",
    "geomean_mix_speedup",
    "find_crossovers",
    "place_acceptance",
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
        if not math.isfinite(share):  # inf / nan: no share of traffic
            share = -1.0
        if not sep or not name.strip() or share < 0 or name.strip() in out:
            raise ConfigError(
                "bad --mix entry",
                found=part,
                expected="WORKLOAD=SHARE with a finite SHARE >= 0, each workload once",
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
    why: str | None = None  # a win / loss the A/A spread or the run's drift overruled (stats.noise.gate_verdict)


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
class Placement:
    """A measured acceptance placed between the run's workloads for one config."""

    config: str
    acceptance: float
    workload_acceptance: dict[str, float]
    nearest: str
    mix: dict[str, float]
    text: str


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
    for (c0, s0, v0), (c1, s1, v1) in zip(pts, pts[1:], strict=False):
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
                expected="--acceptance-config NAME",
                fix=f"add --acceptance-config {drafting[0]}",
            )
        config = drafting[0]
    if config not in drafting:
        raise ConfigError(f"config {config!r} has no acceptance in the run", found=config, expected=", ".join(drafting))
    by_wl = {
        str(wl): v.acceptance_rate for (c, wl), v in views.items() if c == config and v.acceptance_rate is not None
    }
    order = sorted(by_wl.items(), key=lambda kv: kv[1])
    nearest = min(order, key=lambda kv: abs(kv[1] - acceptance))[0]
    if acceptance <= order[0][1]:
        mix = {order[0][0]: 1.0}
    elif acceptance >= order[-1][1]:
        mix = {order[-1][0]: 1.0}
    else:
        (lo_w, lo_a), (hi_w, hi_a) = next(
            (a, b) for a, b in zip(order, order[1:], strict=False) if a[1] <= acceptance <= b[1]
        )
        t = (acceptance - lo_a) / (hi_a - lo_a) if hi_a > lo_a else 1.0
        mix = {k: v for k, v in ((lo_w, 1.0 - t), (hi_w, t)) if v > 0}
    listing = ", ".join(f"{w} {a:.2f}" for w, a in order)
    text = f"acceptance {acceptance:.2f} on {config} is {nearest}-like (run: {listing})"
    return Placement(config, acceptance, dict(order), nearest, mix, text)

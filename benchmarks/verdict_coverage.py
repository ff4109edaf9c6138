"""Do specscope's intervals keep their promise? Coverage, false verdicts on A/A, and power, per number of rounds.

Simulates paired comparisons from a noise model fitted to real embedded runs and judges each with the one verdict
rule (:func:`specscope.stats.verdict.decide` on :func:`specscope.stats.speedup.log_ratio_interval`):

* **Noise model.** A run interleaves K configs per round (here 3: the baseline, the config, the A/A control, in a
  freshly shuffled order each round), one cell per time slot. A cell's log tok/s is
  ``log mu_config + D(slot) + e``: ``e`` per-cell noise with coefficient of variation CV, Student-t with ``tail_df``
  degrees of freedom (heavier tails than normal: the outliers a shared machine makes); ``D`` slow drift shared by
  every server, a linear trend of ``drift_per_slot`` (fraction per slot, sign random) plus a random walk of
  ``walk_sd`` per slot. Each config cell is paired with its round's baseline cell, as ``pair_by_time`` pairs them.
* **Fitted** (``--fit RUN``) on the baseline and A/A cells of an embedded run folder: per-group CV after the trend,
  the tail (excess kurtosis -> t degrees of freedom), the trend per slot and the walk; the defaults below are the fit
  of the run named in ``FITTED_ON`` (the random walk is not fitted: 0.2 % per slot). The CV grid spans 0.3-5 %, the
  seed card's range and beyond; ``--cvs 0.1,0.3`` adds the shared machine's (fitted: 11-34 %).
* **Reported**, per n = 2..12 rounds: the coverage of the 95 % interval of the true speedup (worst CV and pooled),
  the percentile bootstrap's coverage beside it (the method specscope used before; ratio of means, 2000 resamples),
  the rate of false ``faster``/``slower`` on A/A (true speedup 1), and the power (share called ``faster``) at true
  effects of +2 %, +5 % and +10 %, with ``--min-effect`` (default 2 %) and no A/A floor (the floor only removes
  verdicts, so these are the rule's worst case).
* **Smallest n for a verdict**: the smallest n from which coverage >= 93 % at every CV and false faster/slower <= 5 %
  hold at every larger n too; ``specscope.stats.verdict.MIN_VERDICT_ROUNDS`` must equal it (tests/stats/
  test_verdict_coverage.py runs a small version of this table).

    PYTHONPATH=src python benchmarks/verdict_coverage.py [--quick] [--reps 4000] [--fit RUN] [--markdown]
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats as sps

from specscope.stats.verdict import MIN_VERDICT_ROUNDS

ROUNDS = tuple(range(2, 13))
CVS = (0.003, 0.005, 0.01, 0.02, 0.05)
EFFECTS = (0.02, 0.05, 0.10)
COVERAGE_GOAL = 0.93
FALSE_GOAL = 0.05
FITTED_ON = (
    "embedded run of 2026-12-03 08:36 UTC (base, ngram, base-again x prose, code x N=1,2 x 6 rounds, 48 tokens; "
    "shared 2-core machine, load average 6-11): trend 0.30 %/slot, no excess kurtosis (the tails kept at t(5), "
    "heavier than the fit, the harder case for a t-interval), per-group CV 11-34 %"
)


@dataclass(frozen=True)
class NoiseModel:
    """See the module docstring; fractions of log tok/s."""

    tail_df: float = 5.0
    drift_per_slot: float = 0.003
    walk_sd: float = 0.002
    configs_per_round: int = 3


def _t_noise(rng: np.random.Generator, df: float, shape: tuple[int, ...]) -> np.ndarray:
    """Student-t draws scaled to unit standard deviation (df > 2); normal for df = inf."""
    if not math.isfinite(df):
        return rng.standard_normal(shape)
    return rng.standard_t(df, shape) * math.sqrt((df - 2.0) / df)


def simulate_ratios(
    model: NoiseModel, cv: float, effect: float, n: int, reps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ratios, config tok/s, baseline tok/s, A/A ratios), each [reps, n], of ``reps`` simulated comparisons: the
    config against the baseline, and the A/A control (the third server of each round) against the same baseline."""
    k = model.configs_per_round
    slots = n * k
    slope = model.drift_per_slot * rng.choice([-1.0, 1.0], size=(reps, 1))  # [reps, 1]
    walk = np.cumsum(rng.standard_normal((reps, slots)) * model.walk_sd, axis=1)  # [reps, slots]
    drift = slope * np.arange(slots) + walk  # [reps, slots]
    order = np.argsort(rng.random((reps, n, k)), axis=2)  # per round, the slot of each config
    base_slot = order[:, :, 0] + np.arange(n) * k  # [reps, n]
    cfg_slot = order[:, :, 1] + np.arange(n) * k
    sigma = math.sqrt(math.log1p(cv * cv))
    e_b = _t_noise(rng, model.tail_df, (reps, n)) * sigma
    e_x = _t_noise(rng, model.tail_df, (reps, n)) * sigma
    log_b = np.take_along_axis(drift, base_slot, axis=1) + e_b
    log_x = math.log1p(effect) + np.take_along_axis(drift, cfg_slot, axis=1) + e_x
    aa_slot = order[:, :, 2 % k] + np.arange(n) * k
    log_aa = np.take_along_axis(drift, aa_slot, axis=1) + _t_noise(rng, model.tail_df, (reps, n)) * sigma
    b, x = 100.0 * np.exp(log_b), 100.0 * np.exp(log_x)
    return x / b, x, b, np.exp(log_aa - log_b)


def t_intervals(ratios: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised :func:`specscope.stats.speedup.log_ratio_interval`: (point, low, high), each [reps]."""
    logs = np.log(ratios)
    n = logs.shape[1]
    mean = logs.mean(axis=1)
    half = sps.t.ppf(0.5 + confidence / 2.0, n - 1) * logs.std(axis=1, ddof=1) / math.sqrt(n)
    return np.exp(mean), np.exp(mean - half), np.exp(mean + half)


def bootstrap_coverage(x: np.ndarray, b: np.ndarray, truth: float, rng: np.random.Generator, resamples: int) -> float:
    """Coverage of the paired percentile bootstrap of mean(x) / mean(b) (95 %), the method used before."""
    reps, n = x.shape
    hits = 0
    for i in range(reps):
        idx = rng.integers(0, n, size=(resamples, n))
        stat = x[i][idx].mean(axis=1) / b[i][idx].mean(axis=1)
        lo, hi = np.percentile(stat, [2.5, 97.5])
        hits += lo <= truth <= hi
    return hits / reps


def verdicts(
    point: np.ndarray, low: np.ndarray, high: np.ndarray, min_effect: float, floor: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`specscope.stats.verdict.decide` (no drift): (faster, slower) masks; ``floor`` the A/A noise
    floor per comparison (fraction), None: no A/A control."""
    effect = point - 1.0
    within = (low >= 1.0 - min_effect) & (high <= 1.0 + min_effect)
    excludes = (low > 1.0) | (high < 1.0)
    decided = excludes & ~within & (np.abs(effect) > min_effect)
    if floor is not None:
        decided &= np.abs(effect) > floor
    return decided & (effect > 0), decided & (effect < 0)


@dataclass(frozen=True)
class Row:
    """One n: coverage (worst over CV and effect, and pooled), the bootstrap's worst coverage, false verdicts on A/A
    at the worst CV (faster, slower, either; either with the run's A/A control as floor), power per effect."""

    n: int
    coverage_worst: float
    coverage_pooled: float
    bootstrap_worst: float | None
    false_faster: float
    false_slower: float
    false_either: float
    false_either_aa: float
    power: tuple[float, ...]

    @property
    def ok(self) -> bool:
        return (
            self.coverage_worst >= COVERAGE_GOAL and self.false_faster <= FALSE_GOAL and self.false_slower <= FALSE_GOAL
        )


def table(
    model: NoiseModel,
    reps: int,
    min_effect: float,
    seed: int,
    boot_reps: int,
    cvs: tuple[float, ...] = CVS,
    rounds: tuple[int, ...] = ROUNDS,
) -> list[Row]:
    """One :class:`Row` per n (module docstring); every figure from ``reps`` simulated comparisons per CV."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in rounds:
        cov, boot, falses = [], [], []
        power = np.zeros(len(EFFECTS))
        for cv in cvs:
            ratios, x, b, aa = simulate_ratios(model, cv, 0.0, n, reps, rng)
            p, lo, hi = t_intervals(ratios)
            cov.append(float(np.mean((lo <= 1.0) & (1.0 <= hi))))
            f, s = verdicts(p, lo, hi, min_effect)
            fa, sa = verdicts(p, lo, hi, min_effect, np.abs(t_intervals(aa)[0] - 1.0))
            falses.append((float(np.mean(f)), float(np.mean(s)), float(np.mean(f | s)), float(np.mean(fa | sa))))
            if boot_reps:
                boot.append(bootstrap_coverage(x[:boot_reps], b[:boot_reps], 1.0, rng, 2000))
            for j, eff in enumerate(EFFECTS):
                ratios, _, _, _ = simulate_ratios(model, cv, eff, n, reps, rng)
                p, lo, hi = t_intervals(ratios)
                cov.append(float(np.mean((lo <= 1 + eff) & (1 + eff <= hi))))
                power[j] += float(np.mean(verdicts(p, lo, hi, min_effect)[0])) / len(cvs)
        worst = [max(f[i] for f in falses) for i in range(4)]
        rows.append(Row(n, min(cov), float(np.mean(cov)), min(boot) if boot else None, *worst, tuple(power.tolist())))
    return rows


def smallest_n(rows: list[Row]) -> int | None:
    """The smallest n from which every row (this n and all larger) meets both goals."""
    for i, r in enumerate(rows):
        if all(x.ok for x in rows[i:]):
            return r.n
    return None


def fit_run(path: Path) -> tuple[NoiseModel, dict[str, float]]:
    """The noise model's tail, trend and walk fitted on a run folder's baseline and A/A cells (module docstring),
    and the per-group CVs found (fraction)."""
    from specscope.stats.cells import summarize_run
    from specscope.stats.noise import cold_starts
    from specscope.store import open_run

    with open_run(path) as run:
        cells = summarize_run(run)
        baseline = str(run.manifest.get("baseline") or "base")
    cold = {c.key for c in cold_starts(cells)}
    ok = [c for c in cells if c.status == "ok" and c.output_tok_s and c.started_at_s is not None]
    ok = [c for c in ok if (c.config, c.workload, c.concurrency, c.repeat) not in cold]
    t0 = min(c.started_at_s or 0.0 for c in ok)
    per_slot_s = float(np.median([(c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in ok]))
    resid, slopes, cvs = [], [], {}
    for cfg in (baseline, baseline + "-again"):
        groups: dict[tuple[str, int], list[tuple[float, float]]] = {}
        for c in ok:
            if c.config == cfg:
                groups.setdefault((c.workload, c.concurrency), []).append(
                    ((c.started_at_s or 0.0) - t0, math.log(c.output_tok_s or 1.0))
                )
        for g, pts in groups.items():
            if len(pts) < 3:
                continue
            t, y = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
            slope, icpt = np.polyfit(t / per_slot_s, y, 1)
            r = y - (icpt + slope * t / per_slot_s)
            slopes.append(abs(float(slope)))
            resid.extend((r / max(np.std(r, ddof=2), 1e-12)).tolist())
            cvs[f"{cfg} {g[0]} N={g[1]}"] = float(np.std(y, ddof=1))
    kurt = float(sps.kurtosis(resid)) if len(resid) > 8 else 0.0
    df = 4.0 + 6.0 / kurt if kurt > 0 else math.inf  # t excess kurtosis = 6 / (df - 4)
    model = NoiseModel(tail_df=max(df, 4.5), drift_per_slot=float(np.median(slopes)) if slopes else 0.0)
    return model, cvs


def render(rows: list[Row], model: NoiseModel, reps: int, min_effect: float, grid: tuple[float, ...] = CVS) -> str:
    """The table as Markdown (benchmarks/RESULTS.md)."""
    cvs = ", ".join(f"{c:.1%}" for c in grid)
    out = [
        f"noise model: t tails df={model.tail_df:.1f}, trend {model.drift_per_slot * 100:.2f} %/slot, walk sd "
        f"{model.walk_sd * 100:.2f} %/slot, {model.configs_per_round} configs per round; CV {cvs}; "
        f"{reps} comparisons per (n, CV, effect); min effect {min_effect:.0%}",
        "",
        "| n | coverage, worst | coverage, pooled | bootstrap coverage, worst | false faster | false slower "
        "| false either | false either, A/A floor | power +2 % | power +5 % | power +10 % | verdict allowed |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    first = smallest_n(rows)
    for r in rows:
        boot = "—" if r.bootstrap_worst is None else f"{r.bootstrap_worst:.1%}"
        allowed = "yes" if first is not None and r.n >= first else "no"
        falses = (r.false_faster, r.false_slower, r.false_either, r.false_either_aa)
        out.append(
            f"| {r.n} | {r.coverage_worst:.1%} | {r.coverage_pooled:.1%} | {boot} | "
            + " | ".join(f"{v:.1%}" for v in (*falses, *r.power))
            + f" | {allowed} |"
        )
    out += ["", f"smallest n for a verdict: {first} (specscope.stats.verdict.MIN_VERDICT_ROUNDS: {MIN_VERDICT_ROUNDS})"]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000, help="simulated comparisons per (n, CV, effect)")
    ap.add_argument("--boot-reps", type=int, default=300, help="of those, how many get the bootstrap (slow); 0: none")
    ap.add_argument("--quick", action="store_true", help="1000 comparisons, 100 bootstraps (about a minute)")
    ap.add_argument("--min-effect", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--fit", type=Path, default=None, help="fit the noise model on this run folder first")
    ap.add_argument("--cvs", default=None, help="CV grid as fractions, e.g. 0.003,0.05,0.3 (default 0.3-5 %%)")
    args = ap.parse_args()
    model = NoiseModel()
    if args.fit is not None:
        model, cvs = fit_run(args.fit)
        print(f"fitted on {args.fit}: {model}")
        print("per-group CV of log tok/s: " + ", ".join(f"{k} {v:.2%}" for k, v in sorted(cvs.items())))
    reps, boot = (1000, 100) if args.quick else (args.reps, args.boot_reps)
    cvs = tuple(float(x) for x in args.cvs.split(",")) if args.cvs else CVS
    rows = table(model, reps, args.min_effect, args.seed, boot, cvs=cvs)
    print(render(rows, model, reps, args.min_effect, cvs))
    return 0 if smallest_n(rows) == MIN_VERDICT_ROUNDS else 1


if __name__ == "__main__":
    sys.exit(main())
